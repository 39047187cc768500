#include "model/job/JobAnalysis.h"

#include <future>

namespace gapscope {

std::shared_ptr<const JobAnalysisResult>
analyzeJobEvents(const JobEvents& events, const PhaseResolver& phases, const CollectiveConfig& config)
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
        return result;
    }
    auto collective =
        std::async(std::launch::async, [&] { return attributeCollectiveMemory(events, config, phases); });
    if (result->rankCount > 1)
        result->crossRank = summarizeCrossRankAnalysis(events, phases);
    result->collective = collective.get();
    return result;
}

std::shared_ptr<const JobAnalysisResult> analyzeJob(const JobData& job, const CollectiveConfig& config,
                                                    const std::optional<TimeWindow>& window)
{
    const JobEventsBuild build = buildJobEvents(job, window);
    return analyzeJobEvents(build.events, build.phases, config);
}

std::shared_ptr<const JobAnalysisResult> analyzeTraceSession(const TraceData& trace, size_t sessionIndex,
                                                             const CollectiveConfig& config,
                                                             const std::optional<TimeWindow>& window)
{
    const JobEventsBuild build = buildJobEvents(trace, sessionIndex, window);
    return analyzeJobEvents(build.events, build.phases, config);
}

} // namespace gapscope
