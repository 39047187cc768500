#include "model/job/JobAnalysis.h"

#include "analysis/Notice.h"
#include "model/trace/AnalysisRunner.h"

#include <future>

namespace gapscope {

namespace {

std::shared_ptr<JobAnalysisResult> analyse(const JobEvents& events, const PhaseResolver& phases,
                                           const CollectiveConfig& config)
{
    auto result = std::make_shared<JobAnalysisResult>();
    result->collectiveConfig = config;
    result->eventCount = events.size();
    result->rankCount = events.rankCount();
    // The two read the same events and nothing else: one on another thread, once there are
    // enough events to pay for starting one (a few thousand take well under a millisecond).
    if (events.size() < kEventsWorthAThread) {
        result->collective = attributeCollectiveMemory(events, config, phases);
        if (result->rankCount > 1)
            result->crossRank = summarizeCrossRankAnalysis(events, phases);
    } else {
        auto collective =
            std::async(std::launch::async, [&] { return attributeCollectiveMemory(events, config, phases); });
        if (result->rankCount > 1)
            result->crossRank = summarizeCrossRankAnalysis(events, phases);
        result->collective = collective.get();
    }
    if (result->crossRank)
        result->firstCauseAtStartup = firstCauseSuspectsAtStartup(*result->crossRank);
    return result;
}

} // namespace

std::shared_ptr<const JobAnalysisResult>
analyzeJobEvents(const JobEvents& events, const PhaseResolver& phases, const CollectiveConfig& config)
{
    return analyse(events, phases, config);
}

JobDivergenceInput jobDivergenceInput(const JobData& job, const std::optional<TimeWindow>& window)
{
    JobDivergenceInput input;
    for (const JobRank& rank : job.ranks) {
        if (!rank.present || rank.parts.empty())
            continue;
        const EventStore& store = job.traceOf(rank).store;
        const std::vector<uint32_t> rows = usableSampleRows(store, job.partitionOf(rank), window);
        const GapInput gapInput{store.timestampNs, store.allocated, store.reserved,
                                store.used,        store.total,     rows};
        const bool observable = !gapObservability(gapInput).blind;
        RankSeriesSamples reserved{rank.rank, {}, {}};
        RankSeriesSamples gap{rank.rank, {}, {}};
        for (const uint32_t row : rows) {
            const int64_t reservedBytes = store.reserved[row];
            if (reservedBytes == kNullInt)
                continue;
            const int64_t time = store.timestampNs[row];
            reserved.timestampNs.push_back(time);
            reserved.bytes.push_back(reservedBytes);
            if (const int64_t used = store.used[row]; observable && used != kNullInt) {
                gap.timestampNs.push_back(time);
                gap.bytes.push_back(gapBytes(used, reservedBytes));
            }
        }
        input.reserved.push_back(std::move(reserved));
        if (observable)
            input.gap.push_back(std::move(gap));
    }
    return input;
}

std::vector<RankDivergence> jobRankDivergences(const JobData& job, const std::optional<TimeWindow>& window)
{
    const JobDivergenceInput input = jobDivergenceInput(job, window);
    std::vector<RankDivergence> divergences = findRankDivergence(input.gap, DivergenceSeries::Gap);
    for (RankDivergence& d : findRankDivergence(input.reserved, DivergenceSeries::Reserved))
        divergences.push_back(std::move(d));
    return divergences;
}

std::shared_ptr<const JobAnalysisResult> analyzeJob(const JobData& job, const CollectiveConfig& config,
                                                    const std::optional<TimeWindow>& window)
{
    const JobEventsBuild build = buildJobEvents(job, window);
    std::shared_ptr<JobAnalysisResult> result = analyse(build.events, build.phases, config);
    result->divergences = jobRankDivergences(job, window);
    return result;
}

std::shared_ptr<const JobAnalysisResult> analyzeTraceSession(const TraceData& trace, size_t sessionIndex,
                                                             const CollectiveConfig& config,
                                                             const std::optional<TimeWindow>& window)
{
    const JobEventsBuild build = buildJobEvents(trace, sessionIndex, window);
    return analyzeJobEvents(build.events, build.phases, config);
}

std::shared_ptr<const JobAnalysisResult> jobAnalysisOf(const AnalysisResult& result)
{
    if (!result.trace)
        return nullptr;
    const auto run = [&] {
        return analyzeTraceSession(*result.trace, result.sessionIndex, result.request.collective,
                                   result.request.window);
    };
    AnalysisResult::OnceSlot* slot = result.jobAnalysisSlot.get();
    if (!slot)
        return run();
    std::call_once(slot->once, [&] { slot->value = run(); });
    return std::static_pointer_cast<const JobAnalysisResult>(slot->value);
}

} // namespace gapscope
