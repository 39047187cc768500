#pragma once
// What indexing one input gives (model/fleet/FleetIndexer) and the database writes
// (model/fleet/FleetDatabase): the input's identity and its runs, each with the issues seen in
// it. Plain values: made on a worker thread, written by the one writer thread.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

// The hits of one issue (model/fleet/FleetIssues) in one run.
struct FleetIssueHits
{
    QString fingerprint; // "issue:<24 hex>" (upstream's fingerprint_id) or "gapscope:<24 hex>"
    QString kind;        // oom, collector_degradation, alert, hidden_memory_anomaly, gapscope_notice
    QString issueClass;  // classification, alert category, OOM reason, collector health, notice code
    QString severity;
    QString title;
    QString dimensions; // the fingerprint's dimensions as upstream hashes them (JSON)
    qint64 hitCount = 0;
    std::optional<qint64> firstSeenNs;
    std::optional<qint64> lastSeenNs;
};

// One row of runs (docs/fleet-schema.md): a (session, rank) of a trace, a rank of a job, a
// budget log, a snapshot.
struct FleetRun
{
    QString path; // what opens the run (a rank's sink or file); empty: the input's path
    QString jobId;
    std::optional<qint64> rank;
    std::optional<qint64> worldSize;
    QString sessionId;
    QString sessionStatus;
    QString host;
    std::optional<qint64> pid;
    QString collector;
    QString backend;
    std::optional<qint64> startNs;
    std::optional<qint64> endNs;
    qint64 samples = 0;
    std::optional<qint64> deviceTotalBytes;
    std::optional<qint64> peakGapBytes;
    std::optional<qint64> latestGapBytes;
    std::optional<double> driftSlopeBytesPerS;
    qint64 findingCount = 0;
    QString worstClass;
    QString worstSeverity;
    std::optional<double> worstConfidence;
    QString worstPhase;
    QString notices; // codes joined by ','
    std::optional<qint64> firstCauseRank;
    qint64 oomCount = 0;
    std::vector<FleetIssueHits> issues;
};

// An input's identity as the walk sees it, without reading it: what decides whether it is read
// again.
struct FleetInputStamp
{
    qint64 size = 0;
    qint64 mtimeNs = 0;
    bool operator==(const FleetInputStamp&) const = default;
};

// A path the walk recognised that is not an input itself: a folder it walked into (a tree of
// runs, the folder of one run), a file that is part of an input it reads whole (a sink's
// manifest). A later walk that finds it unchanged takes it as it was, without recognising it
// again: what keeps a reindex of a tree where nothing changed to listing folders and reading
// times.
struct FleetWalkedPath
{
    // A file's size and time; a folder's files at every level together, and the newest time of
    // them and of the folders at every level, itself included (a file added, removed or renamed
    // changes its folder's time; one rewritten, its own).
    FleetInputStamp stamp;
    QStringList skipped; // a folder's entries the walk leaves out (copies of a run beside its sink)
};

struct IndexedInput
{
    QString path;
    QString kind; // toString(InputKind)
    FleetInputStamp stamp;
    QString error;           // why it gave no run (or why it was passed over); empty when it gave runs
    bool passedOver = false; // not an input gapscope reads (an nvidia-smi log, a foreign file)
    std::vector<FleetRun> runs;
};

} // namespace gapscope
