#pragma once
// What `gapscope index` reads and what it makes of each input. The walk finds the inputs of
// artifact trees through the one recognition (model/document/Recognition recognizeInput): a
// folder that is a sink, an OOM bundle or the ranks of one job is one input, a folder of
// several runs or of one run is walked into (copies of a run exported beside its sink are left
// out, as planOpen leaves them out), every other file is what its head says it is. Each input is
// loaded with loadDocument or loadJob and analysed at the default settings as `analyze` does
// (model/document/Document), and becomes the rows of its runs (model/fleet/FleetRecord).

#include "model/document/Recognition.h"
#include "model/fleet/FleetRecord.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace gapscope {

struct FleetInput
{
    QString path; // absolute, clean
    InputKind kind = InputKind::Unknown;
    FleetInputStamp stamp;
    QString passedOver; // not read: what it is (an nvidia-smi log, a foreign file), from the recognition
};

// How the database names a path: absolute and clean (symbolic links kept).
QString fleetPath(const QString& path);

// An input's size and newest modification time: a file's own, a folder's files at every level.
FleetInputStamp fleetInputStamp(const QString& path);

// What an earlier index knew of an input: an input with the same stamp is taken as it was,
// without recognising it again.
struct KnownFleetInput
{
    InputKind kind = InputKind::Unknown;
    FleetInputStamp stamp;
    QString passedOver;
};

struct FleetWalk
{
    std::vector<FleetInput> inputs;         // in walk order (sorted names)
    QHash<QString, FleetWalkedPath> walked; // every path walked that is not an input
    qint64 recognised = 0;                  // paths recognised (not taken as an earlier walk left them)
    QStringList problems;                   // roots that do not exist
};
// The inputs under roots (folders or files), absolute paths; known: the inputs of an earlier
// index by path; knownWalked: its walked paths. A folder is taken as it was when its stamp is
// unchanged; a file, when its folder's is too (a file's kind may depend on what lies beside it).
FleetWalk walkFleet(const QStringList& roots, const QHash<QString, KnownFleetInput>& known = {},
                    const QHash<QString, FleetWalkedPath>& knownWalked = {});

// Whether path falls to shard `index` of `count` (0 <= index < count): by the first 8 bytes of
// the SHA-1 of its UTF-8, the same on every machine and every run.
bool inFleetShard(const QString& path, int index, int count);

// Loads and analyses one input (a worker thread's work): its runs, or the reason it gave none.
IndexedInput indexFleetInput(const FleetInput& input);

// InputKind by toString's name (what the database's input_kind holds).
std::optional<InputKind> inputKindFromString(const QString& name);

} // namespace gapscope
