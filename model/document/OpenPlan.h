#pragma once
// What the paths given to open are, decided once for every caller (the window's File > Open,
// a drop, the command line, `analyze`, `export`, `compare`, Compare With): one run, the ranks
// of one distributed job, or several runs that are not one job.
//
// A run is one recording: a session of one rank (its session_id), whatever holds it: a sink
// folder, a file exported from it, an OOM bundle. Inputs holding the same (session, rank) are
// copies of one run. Runs of distinct ranks of one job are a job; two runs of the same rank
// (two trackers, two attempts) are not ranks of anything and open each on its own.

#include "model/store/TraceData.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

// One run found among the inputs, identified by its sink manifest or its first record.
struct FoundRun
{
    QStringList paths; // the inputs holding it; the first (a sink before a file) is the one opened
    QString sessionId; // empty: the input could not be identified (it is a run of its own)
    QString jobId;
    std::optional<int64_t> rank;
    std::optional<qint64> startedNs;
    std::optional<qint64> pid;
    QString name; // what the window, a tab and a message call it ("truth — rank 0")
};

enum class OpenKind
{
    Document,   // one run (or one file that is not a trace: its loader says what it is)
    Job,        // the ranks of one job: loadJob(paths)
    SeveralRuns // runs that are not one job: each opens on its own (runs[i].paths.front())
};

struct OpenPlan
{
    OpenKind kind = OpenKind::Document;
    QStringList paths;          // Document: the one path to load; Job: what loadJob reads;
                                // SeveralRuns: one path per run, in runs' order
    std::vector<FoundRun> runs; // every run found (for a Job, one per input identified)
    QStringList notes;          // what was opened instead of what was given, and why, naming both
    // Document of a trace: a PyTorch memory snapshot recorded beside it (torch.cuda.memory.
    // _dump_snapshot's pickle), which the trace page attaches (its curves on the trace's time
    // axis): the one in the folder of one run given (`snapshot.pickle`, else another `*.pickle`
    // or `*.pickle.gz`, first by name), or the one snapshot given with the run. Empty when none.
    QString snapshot;
    // SeveralRuns: the runs and how to open one, for a message ("FOLDER holds 2 runs ...").
    QString severalRunsText(const QString& given) const;
};

// Decides what the paths are: a sink's manifest.json or segment file opens its sink folder; a
// folder holding one run (its sink, perhaps beside files exported from it) opens as that run;
// a folder of distinct ranks of one job opens as the job; a folder holding several runs of
// the same rank opens each run. Several paths given together are the inputs of a job unless
// they are copies of one run or runs of the same rank.
OpenPlan planOpen(const QStringList& paths);

// What a document is called in a title or a tab: a sink by the folder above `telemetry_sink`
// (or its own name) with its rank when its session holds one, a "rankN" folder by the job id
// ("truth — rank 0", "gapscope-real-ddp rank 2"); a file by its name.
// trace: the loaded trace of path, when there is one (its selected or default session).
QString documentName(const QString& path, const TraceData* trace = nullptr,
                     std::optional<size_t> sessionIndex = std::nullopt);

} // namespace gapscope
