#include "model/trace/AnalysisRunner.h"

#include "analysis/AllocatorFragmentation.h"

#include "analysis/GapEpisodes.h"
#include "analysis/PhaseSteps.h"

#include <algorithm>
#include <mutex>

namespace gapscope {

GapInput AnalysisResult::gapInput() const
{
    const EventStore& store = trace->store;
    return GapInput{store.timestampNs, store.allocated, store.reserved, store.used, store.total, usableRows};
}

namespace {

// Rows of the partition inside the window (all of them without one), by binary search:
// rows of a partition are in timestamp order.
std::pair<uint32_t, uint32_t> rowRangeOf(const EventStore& store, const Partition& partition,
                                         const std::optional<TimeWindow>& window)
{
    uint32_t begin = partition.begin;
    uint32_t end = partition.end;
    if (window) {
        const auto first = store.timestampNs.begin();
        begin = uint32_t(std::lower_bound(first + begin, first + end, window->beginNs) - first);
        end = uint32_t(std::upper_bound(first + begin, first + end, window->endNs) - first);
    }
    return {begin, end};
}

// Upstream's usable events: event_type "sample" (trimmed, lower-cased by the loader) with a
// positive device total.
std::vector<uint32_t> usableRowsOf(const EventStore& store, std::pair<uint32_t, uint32_t> range)
{
    std::vector<uint32_t> rows;
    rows.reserve(range.second - range.first);
    forEachBlockOf(
        range.first, range.second,
        [&rows](size_t first, std::span<const EventType> type, std::span<const int64_t> total) {
            for (size_t i = 0; i < type.size(); ++i) {
                if (type[i] == EventType::Sample && total[i] != kNullInt && total[i] > 0)
                    rows.push_back(uint32_t(first + i));
            }
        },
        store.type, store.total);
    return rows;
}

// The samples that carry a device_used value, or every event that does when there are none.
std::vector<uint32_t> counterRowsOf(const EventStore& store, std::pair<uint32_t, uint32_t> range)
{
    auto collect = [&](bool samplesOnly) {
        std::vector<uint32_t> rows;
        forEachBlockOf(
            range.first, range.second,
            [&rows, samplesOnly](size_t first, std::span<const EventType> type,
                                 std::span<const int64_t> used) {
                for (size_t i = 0; i < type.size(); ++i) {
                    if (used[i] == kNullInt || (samplesOnly && type[i] != EventType::Sample))
                        continue;
                    rows.push_back(uint32_t(first + i));
                }
            },
            store.type, store.used);
        return rows;
    };
    std::vector<uint32_t> rows = collect(true);
    return rows.empty() ? collect(false) : rows;
}

} // namespace

std::shared_ptr<const AnalysisResult> runAnalysis(std::shared_ptr<const TraceData> trace,
                                                  const AnalysisRequest& request, QString* error)
{
    auto fail = [error](const QString& why) -> std::shared_ptr<const AnalysisResult> {
        if (error)
            *error = why;
        return nullptr;
    };
    if (!trace)
        return fail(QStringLiteral("no trace loaded"));

    std::optional<size_t> sessionIndex = request.sessionIndex;
    if (!sessionIndex)
        sessionIndex = trace->defaultSessionIndex();
    if (!sessionIndex || *sessionIndex >= trace->sessions.size())
        return fail(QStringLiteral("no such session"));
    const Partition* partition = trace->partition(*sessionIndex, request.rank);
    if (!partition) {
        return fail(request.rank
                        ? QStringLiteral("session %1 has no rank %2")
                              .arg(trace->sessions[*sessionIndex].id)
                              .arg(*request.rank)
                        : QStringLiteral("session %1 has no events").arg(trace->sessions[*sessionIndex].id));
    }

    std::shared_ptr<const DeviceUsedSource> deviceUsedSource;
    const std::shared_ptr<const TraceData> loadedTrace = trace;
    if (request.deviceLog) {
        JoinedTrace joined = joinDeviceLogOnce(trace, *partition, *request.deviceLog);
        if (!joined.trace)
            return fail(joined.error);
        trace = std::move(joined.trace);
        deviceUsedSource = std::move(joined.source);
    }

    auto result = std::make_shared<AnalysisResult>();
    result->deviceUsedSource = std::move(deviceUsedSource);
    result->loadedTrace = loadedTrace;
    result->jobAnalysisSlot = std::make_shared<AnalysisResult::OnceSlot>();
    result->trace = trace;
    result->request = request;
    result->sessionIndex = *sessionIndex;
    result->rank = partition->rank;
    result->partition = *partition;
    const auto range = rowRangeOf(trace->store, *partition, request.window);
    result->usableRows = usableRowsOf(trace->store, range);
    result->counterRows = counterRowsOf(trace->store, range);
    result->phases = trace->phasesOf(*partition);

    const SessionInfo& session = trace->sessions[*sessionIndex];
    result->backend = backendFromTrace(session.collector.toStdString(), session.backend.toStdString());

    const GapInput input = result->gapInput();
    // a reopened trace carries the statistics and findings of its default analysis
    const std::optional<GapAnalysisMemo>& memo = trace->gapMemo;
    if (memo && !request.window && memo->sessionIndex == *sessionIndex && memo->rank == partition->rank &&
        memo->thresholds == request.thresholds && memo->statistics.sampleCount == result->usableRows.size()) {
        result->statistics = memo->statistics;
        result->findings = memo->findings;
    } else {
        result->statistics = computeGapStatistics(input, request.thresholds);
        result->findings = analyzeGaps(input, request.thresholds, result->statistics);
    }

    // not memoised (a reopened trace's memo carries the count only): one pass over the samples,
    // taken only when there is a spike finding whose samples can be shown
    if (std::any_of(result->findings.begin(), result->findings.end(),
                    [](const Finding& f) { return f.classification == Classification::TransientSpike; }))
        result->spikeRows = spikeRows(input, request.thresholds, result->statistics);

    // not memoised: one pass over the samples, and the window decides what it covers
    result->notices = traceNotices(input, session.collector.toStdString(), request.thresholds,
                                   result->statistics, &result->belowGateFindings);

    result->trackerWarnings = trackerWarnings(trace->store, range.first, range.second);
    if (std::optional<Finding> fragmentation =
            allocatorFragmentation(input, fragmentationWarningCount(result->trackerWarnings))) {
        // after every finding at least as severe: upstream's keep their order among themselves
        const auto at = std::find_if(result->findings.begin(), result->findings.end(), [&](const Finding& f) {
            return severityRank(f.severity) > severityRank(fragmentation->severity);
        });
        result->findings.insert(at, std::move(*fragmentation));
    }
    // gapscope's own account beside upstream's numbers: episodes, growth intervals and steps
    // (the below-gate findings are the same analysis with the gate open: the same statistics)
    result->steps = std::make_shared<const StepIndex>(result->phases);
    for (auto* findings : {&result->findings, &result->belowGateFindings})
        addGapShape(*findings, input, request.thresholds, result->statistics, *result->steps);

    const EventStore& store = trace->store;
    for (auto* findings : {&result->findings, &result->belowGateFindings}) {
        for (Finding& finding : *findings) {
            EventOrigin origin;
            if (auto it = store.origins.find(finding.evidenceRow); it != store.origins.end())
                origin = it->second;
            finding.phase = attributePhase(result->phases, finding.evidenceTimestampNs, origin);
            applyText(finding, result->backend);
        }
    }
    describeBelowGateFindings(result->notices, result->belowGateFindings);
    return result;
}

std::vector<uint32_t> usableSampleRows(const EventStore& store, const Partition& partition,
                                       const std::optional<TimeWindow>& window)
{
    return usableRowsOf(store, rowRangeOf(store, partition, window));
}

std::optional<GapAnalysisMemo> defaultGapAnalysisMemo(const TraceData& trace, const GapThresholds& thresholds)
{
    const std::optional<size_t> sessionIndex = trace.defaultSessionIndex();
    const Partition* partition = sessionIndex ? trace.partition(*sessionIndex) : nullptr;
    if (!partition)
        return std::nullopt;
    GapAnalysisMemo memo;
    memo.sessionIndex = *sessionIndex;
    memo.rank = partition->rank;
    memo.thresholds = thresholds;
    const std::vector<uint32_t> rows =
        usableRowsOf(trace.store, rowRangeOf(trace.store, *partition, std::nullopt));
    const EventStore& store = trace.store;
    const GapInput input{store.timestampNs, store.allocated, store.reserved, store.used, store.total, rows};
    memo.statistics = computeGapStatistics(input, thresholds);
    memo.findings = analyzeGaps(input, thresholds, memo.statistics);
    return memo;
}

} // namespace gapscope
