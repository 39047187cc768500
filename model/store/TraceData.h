#pragma once
// The immutable result of loading one trace (file or sink directory). Crosses threads as
// std::shared_ptr<const TraceData>.

#include "model/store/EventStore.h"
#include "model/store/LoadProblem.h"
#include "model/store/OomInfo.h"

#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

enum class TraceForm
{
    JsonArray, // [ {...}, ... ], {"events": [...]} or one object
    JsonLines, // one event per line
    SinkDirectory,
    Csv,
    Legacy,           // records without schema_version (OOM dump events.json too)
    DiagnoseTimeline, // telemetry_timeline.json
};
QString toString(TraceForm form);

enum class SessionStatus
{
    Running,
    Completed,
    Interrupted,
    Incomplete,
    Unknown
};
QString toString(SessionStatus status);

struct SessionInfo
{
    QString id; // empty for events without session_id
    SessionStatus status = SessionStatus::Unknown;
    QString host;
    qint64 pid = 0;
    QString jobId;
    std::vector<int64_t> ranks;     // sorted
    qint64 eventCount = 0;          // loaded events
    qint64 manifestEventCount = -1; // sink: events the manifest names (-1 unknown)
    qint64 startedNs = 0;           // first event (or manifest started_at_ns)
    qint64 endedNs = 0;             // last event (or manifest ended_at_ns)
    QString collector;              // most common collector
    QString backend;                // metadata.backend if any
};

// The gap statistics and findings (before phase attribution and texts) of the whole of one
// (session, rank) under some thresholds: what model/cache/TraceCache keeps beside a trace so
// that its reopen is not analysed again (model/trace/AnalysisRunner uses it for a request
// without a window for that session, rank and thresholds). Loaders leave it empty.
struct GapAnalysisMemo
{
    size_t sessionIndex = 0;
    int64_t rank = 0;
    GapThresholds thresholds;
    GapStatistics statistics;
    std::vector<Finding> findings;
};

struct TraceData
{
    QString path;
    TraceForm form = TraceForm::JsonLines;
    qint64 recordsRead = 0; // records seen (valid or not)
    qint64 bytesRead = 0;
    EventStore store;
    std::vector<SessionInfo> sessions;
    std::vector<Partition> partitions; // sorted by (session, rank)
    std::vector<PhaseSpan> phases;     // all replayed spans
    ProblemLog problems;
    std::optional<GapAnalysisMemo> gapMemo; // set by the reopen cache only
    // OOM bundles of the trace (model/trace/OomBundle): the bundle opened, or those found in an
    // oom_dumps folder beside the trace, ascending time. Not kept in the reopen cache: they are
    // separate files, read again at every open (loadDocument).
    std::vector<OomInfo> ooms;

    // upstream default: newest completed, then interrupted, then incomplete (then any)
    std::optional<size_t> defaultSessionIndex() const;
    std::optional<size_t> findSession(const QString& id) const;
    // partition of (session, rank); rank nullopt = lowest rank of the session
    const Partition* partition(size_t sessionIndex, std::optional<int64_t> rank = std::nullopt) const;
    // spans of one partition, in replay order
    std::vector<PhaseSpan> phasesOf(const Partition& partition) const;
};

} // namespace gapscope
