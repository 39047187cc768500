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
    const auto analyse = [&](size_t i) {
        const JobRank& rank = job.ranks[i];
        if (rank.present && !rank.parts.empty())
            results[i] =
                runAnalysis(job.inputs[rank.parts.front().inputIndex].trace, jobRankRequest(job, rank, each));
    };
    // A small job is analysed in the calling thread: a thread pool costs more than its ranks.
    size_t rows = 0;
    for (const JobRank& rank : job.ranks)
        if (rank.present && !rank.parts.empty())
            rows += job.partitionOf(rank).size();
    if (rows < kRowsWorthThreads) {
        for (size_t i = 0; i < job.ranks.size(); ++i)
            analyse(i);
        return results;
    }
    forEachInParallel(job.ranks.size(), analyse);
    return results;
}

} // namespace gapscope
