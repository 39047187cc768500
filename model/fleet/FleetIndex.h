#pragma once
// `gapscope index`: artifact trees into the fleet database, incrementally, on the local cores.
// The inputs are walked (model/fleet/FleetIndexer walkFleet), those unchanged since the last
// index of the database are not read again, the others are loaded and analysed side by side on
// a thread pool, and the one thread that called writes each input's rows in a transaction of
// its own as its result arrives. Inputs under the roots that are no longer found are marked
// vanished. A shard (index I of N) takes the inputs whose path hashes to I: N shards written
// to N databases and merged give the database one index of everything gives.

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <utility>

namespace gapscope {

struct FleetIndexRequest
{
    QStringList roots;
    QString output;
    std::optional<std::pair<int, int>> shard; // (index, count), 0 <= index < count
    int threads = 0;                          // 0: one per core
};

struct FleetIndexSummary
{
    qint64 found = 0;      // inputs found (of this shard)
    qint64 read = 0;       // loaded and analysed
    qint64 unchanged = 0;  // not read again
    qint64 vanished = 0;   // marked vanished now
    qint64 failed = 0;     // read, and gave no run (error)
    qint64 runs = 0;       // rows written
    qint64 recognised = 0; // paths the walk recognised (not taken as the last index left them)
    QStringList problems;  // roots that do not exist, inputs that failed ("path: reason")
};

// False with *error when the database cannot be opened or written (what was written stays whole).
bool indexFleet(const FleetIndexRequest& request, FleetIndexSummary* summary, QString* error);

// The databases at parts (shards' outputs) into output (created, or added to: an input of a part
// replaces the one of the same path).
bool mergeFleetIndexes(const QStringList& parts, const QString& output, QString* error);

} // namespace gapscope
