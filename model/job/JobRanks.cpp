#include "model/job/JobRanks.h"

#include "model/job/JobLoader.h"

namespace gapscope {

AnalysisRequest jobRankRequest(const JobData& job, const JobRank& rank, const GapThresholds& thresholds,
                               const std::optional<TimeWindow>& window)
{
    AnalysisRequest request;
    request.thresholds = thresholds;
    request.window = window;
    if (!rank.parts.empty()) {
        request.sessionIndex = job.inputs[rank.parts.front().inputIndex].sessionIndex;
        request.rank = rank.rank;
    }
    return request;
}

std::vector<std::shared_ptr<const AnalysisResult>>
analyzeJobRanks(const JobData& job, const GapThresholds& thresholds, const std::optional<TimeWindow>& window)
{
    std::vector<std::shared_ptr<const AnalysisResult>> results(job.ranks.size());
    forEachInParallel(job.ranks.size(), [&](size_t i) {
        const JobRank& rank = job.ranks[i];
        if (rank.present && !rank.parts.empty())
            results[i] = runAnalysis(job.inputs[rank.parts.front().inputIndex].trace,
                                     jobRankRequest(job, rank, thresholds, window));
    });
    return results;
}

} // namespace gapscope
