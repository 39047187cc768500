#pragma once
// What an input is, decided in one place for every caller: the window (File > Open, a drop, the
// command line, the screenshot command), `analyze`, `export`, `compare`, Follow, Compare With,
// the background load, the ranks of a job and the explanation of a failed open.
//
// A file's head (kInputHeadBytes, model/trace/TraceLoader readInputHead) is read once and handed
// to the per-form sniffers, which are pure functions of those bytes: detectTraceBytesForm
// (stormlog trace forms), detectBudgetLogForm (memory-budget log forms) and recognizeHead's own
// checks (a PyTorch snapshot pickle, a fleet index database, an nvidia-smi log, gzip, a CSV of
// other columns). Folders
// and several paths go through planOpen (a sink, the run of a folder, the ranks of a job, runs
// that are not one job); an OOM bundle is found from any path into it. No other code opens an
// input to find out what it is.

#include "model/document/OpenPlan.h"
#include "model/store/BudgetData.h"
#include "model/store/TraceData.h"
#include "model/trace/OomBundle.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace gapscope {

enum class InputKind
{
    StormlogTrace,   // traceForm says which form (a sink folder: TraceForm::SinkDirectory)
    BudgetLog,       // budgetForm: the form of its first budget line
    Job,             // a folder of ranks, or several rank inputs: loadJob reads them
    SeveralRuns,     // runs that are not one job (the same rank twice): each opens on its own
    OomBundle,       // stormlog's OOM flight-recorder bundle: bundle says which
    PytorchSnapshot, // torch.cuda.memory._dump_snapshot's pickle (or .pickle.gz): model/snapshot reads it,
                     // `analyze` prints its totals, the snapshot page shows it
    FleetDatabase,   // a fleet index (`gapscope index`'s SQLite database): the fleet page shows it
    NvidiaSmiLog,    // nvidia-smi's CSV log: attached to a trace, not opened alone (reason)
    Foreign,         // a form gapscope names and does not read: gzip, a CSV of other columns (reason)
    Unknown          // none of the above; reason is why the stormlog trace reader refuses it
};
QString toString(InputKind kind);

struct InputRecognition
{
    InputKind kind = InputKind::Unknown;
    // What is read: the path given, the sink of a manifest or segment, the run of a folder, the
    // bundle folder; empty for a job or several runs (plan.paths are theirs).
    QString path;
    OpenPlan plan; // what planOpen made of the paths given (notes: what was read instead, and why)
    std::optional<TraceForm> traceForm;      // StormlogTrace, OomBundle (its events are legacy records)
    std::optional<BudgetLogForm> budgetForm; // BudgetLog
    // A trace whose records are lines (JSON lines, legacy records written as lines), or a sink:
    // what Follow can follow as it grows.
    bool growsByLines = false;
    // OomBundle; also set for a Job folder that holds an oom_dumps folder (or is one, of several
    // bundles): a document load of the folder reads that bundle
    std::optional<OomBundleLocation> bundle;
    // PytorchSnapshot, NvidiaSmiLog, Foreign: what it is and what to do with it (without the path
    // in front); SeveralRuns: the runs and how to open one; Unknown: the trace reader's refusal.
    QString reason;

    // A form gapscope names but does not open as a trace: loadDocument refuses it with reason (a
    // PyTorch snapshot: loadDocument reads it with model/snapshot), a job leaves it out with
    // reason, the window's failure banner shows reason.
    bool namedForeign() const
    {
        return kind == InputKind::PytorchSnapshot || kind == InputKind::NvidiaSmiLog ||
               kind == InputKind::Foreign;
    }
};

// What the paths given are (one path, or several opened together). Reads each file's head once.
InputRecognition recognizeInputs(const QStringList& paths);
// recognizeInputs({path}). head, when given, receives the head read of path (a regular file),
// for a caller that needs more of its content (planOpen's first record, a failure's first line).
InputRecognition recognizeInput(const QString& path, QByteArray* head = nullptr);

// What a file whose head is `head` is, from its content alone (no folder rules, no OOM bundle,
// no planOpen): StormlogTrace, BudgetLog, PytorchSnapshot, FleetDatabase, NvidiaSmiLog, Foreign
// or Unknown.
InputRecognition recognizeHead(const QByteArray& head);

// Whether a head is binary rather than text: a NUL byte, or more than one byte in ten a control
// character other than line ends and tabs.
bool headLooksBinary(const QByteArray& head);

// Whether a loaded trace opens as a job: its session (the given one, else its default one)
// holds several ranks. The asynchronous open (MainWindow on LoadJob's result) and `analyze` /
// `export` (analyzeInputs) decide it here; nullopt: not a job, else the session that is.
std::optional<size_t> jobSessionOf(const TraceData& trace, std::optional<size_t> session = std::nullopt);

} // namespace gapscope
