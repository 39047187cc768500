#include "model/job/JobRanks.h"

#include "model/job/JobLoader.h"

namespace gapscope {

AnalysisRequest jobRankRequest(const JobData& job, const JobRank& rank, const AnalysisRequest& each)
{
    AnalysisRequest request = each;
    request.sessionIndex.reset();
    request.rank.reset();
    if (!rank.parts.empty()) {
        request.sessionIndex = job.inputs[rank.parts.front().inputIndex].sessionIndex;
        request.rank = rank.rank;
    }
    return request;
}

std::vector<std::shared_ptr<const AnalysisResult>> analyzeJobRanks(const JobData& job,
                                                                   const AnalysisRequest& each)
{
    std::vector<std::shared_ptr<const AnalysisResult>> results(job.ranks.size());
    forEachInParallel(job.ranks.size(), [&](size_t i) {
        const JobRank& rank = job.ranks[i];
        if (rank.present && !rank.parts.empty())
            results[i] =
                runAnalysis(job.inputs[rank.parts.front().inputIndex].trace, jobRankRequest(job, rank, each));
    });
    return results;
}

} // namespace gapscope
