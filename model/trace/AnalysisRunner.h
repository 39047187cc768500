#pragma once
// Runs the gap analysis on one (session, rank) of a loaded trace, optionally restricted to a
// time window, and attaches phase attribution and the project's texts. Pure function of its
// inputs; the result is immutable and crosses threads as shared_ptr<const AnalysisResult>.

#include "analysis/CollectiveAttribution.h"
#include "analysis/GapAnalysis.h"
#include "analysis/Notice.h"
#include "analysis/PhaseSteps.h"
#include "analysis/Remediation.h"
#include "model/base/TimeWindow.h"
#include "model/devicelog/DeviceLogAttach.h"
#include "model/store/TraceData.h"
#include "model/trace/TrackerWarnings.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace gapscope {

struct AnalysisRequest
{
    std::optional<size_t> sessionIndex; // nullopt = TraceData::defaultSessionIndex()
    std::optional<int64_t> rank;        // nullopt = lowest rank of the session
    GapThresholds thresholds;
    std::optional<TimeWindow> window;
    CollectiveConfig collective; // the cross-rank analyses of the report (jobAnalysis)
    // A device-usage log whose device used replaces the trace's on the partition's samples
    // (model/devicelog/DeviceLogAttach); nullptr: the trace's own.
    std::shared_ptr<const DeviceLog> deviceLog;
};

struct AnalysisResult
{
    std::shared_ptr<const TraceData> trace;
    AnalysisRequest request; // as asked
    size_t sessionIndex = 0; // as resolved
    int64_t rank = 0;
    Partition partition;
    std::vector<uint32_t> usableRows; // store rows used by the analysis, ascending time
    // Rows that carry memory counters, for plotting them even where the gap cannot be
    // computed (CPU traces have no device total): the partition's samples (within the
    // window), or every event with a device_used value when it has no samples.
    std::vector<uint32_t> counterRows;
    GapStatistics statistics;
    // with phase attribution and texts: upstream's gap analysis, then gapscope's own findings on
    // the allocator's counters (isAllocatorClassification: allocator_fragmentation) placed by
    // severity; the JSON report writes them apart (gap_analysis stays upstream's)
    std::vector<Finding> findings;
    // The store rows of the spike samples the transient_spike finding counted (the spike rule of
    // analysis/GapAnalysis.h), ascending time; empty when findings hold no such finding. The
    // chart marks these rows and applies no rule of its own.
    std::vector<uint32_t> spikeRows;
    // The tracker's own warning, critical and error events of the partition (within the window)
    std::vector<TrackerWarning> trackerWarnings;
    std::vector<PhaseSpan> phases; // of the partition
    // The training steps of phases (analysis/PhaseSteps), built once here, in the background,
    // for the findings, the chart, the phase list and the readouts; never null in a result of
    // runAnalysis.
    std::shared_ptr<const StepIndex> steps;
    // What the analysed samples cannot show (analysis/Notice.h), e.g. gap_not_observable.
    std::vector<Notice> notices;
    // What the analysis finds with the ratio gate lowered to the trace's peak ratio, when the
    // gate alone hides it (notice below_ratio_gate), with phase attribution and texts. Never
    // part of findings: upstream's findings at the given thresholds stay exactly upstream's.
    std::vector<Finding> belowGateFindings;
    Backend backend = Backend::Unknown;
    // Set when request.deviceLog gave the device used; trace is then the joined copy and
    // loadedTrace the trace it was made from (the one a page or a job holds).
    std::shared_ptr<const DeviceUsedSource> deviceUsedSource;
    std::shared_ptr<const TraceData> loadedTrace;

    GapInput gapInput() const; // columns of trace->store with usableRows

    // A value computed at most once from this immutable result, from any thread, by whoever asks
    // first: the job's cross-rank analyses of the session (model/job/JobAnalysis jobAnalysisOf),
    // which every report of this result needs and a re-analysis (thresholds, follow) does not.
    // The layer above fills it; this one only holds it, so trace/ does not depend on job/.
    struct OnceSlot
    {
        std::once_flag once;
        std::shared_ptr<const void> value;
    };
    std::shared_ptr<OnceSlot> jobAnalysisSlot; // set by runAnalysis; none: not kept
};

// The rows of partition that upstream's gap analysis uses (samples with a positive device
// total), within window when given, ascending time: AnalysisResult::usableRows of an analysis
// of that partition without a device log.
std::vector<uint32_t> usableSampleRows(const EventStore& store, const Partition& partition,
                                       const std::optional<TimeWindow>& window = std::nullopt);

// The memo of the default analysis (default session, lowest rank, no window) of trace under
// thresholds, for the reopen cache; nullopt when the trace has no such partition.
std::optional<GapAnalysisMemo> defaultGapAnalysisMemo(const TraceData& trace,
                                                      const GapThresholds& thresholds);

// nullptr with *error set when the session/rank does not exist.
std::shared_ptr<const AnalysisResult> runAnalysis(std::shared_ptr<const TraceData> trace,
                                                  const AnalysisRequest& request, QString* error = nullptr);

} // namespace gapscope
