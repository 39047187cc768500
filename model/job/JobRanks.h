#pragma once
// The gap analysis of every rank of a job on its own: each present rank's partition (the first
// part of a rank found twice) analysed by runAnalysis exactly as `gapscope analyze INPUT
// --session S --rank N` analyses it alone, on up to the ideal thread count.

#include "model/job/JobData.h"
#include "model/trace/AnalysisRunner.h"

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

// From this many rows (all present ranks together) the ranks are analysed on a thread pool;
// fewer are analysed one after the other in the calling thread.
inline constexpr size_t kRowsWorthThreads = 4096;

// One result per JobData::ranks entry, in the same order; null for a missing rank. each: the
// thresholds, window and collective settings of every rank's request.
std::vector<std::shared_ptr<const AnalysisResult>> analyzeJobRanks(const JobData& job,
                                                                   const AnalysisRequest& each = {});

// The request that analyses one present rank alone: each with the rank's session and rank.
AnalysisRequest jobRankRequest(const JobData& job, const JobRank& rank, const AnalysisRequest& each = {});

} // namespace gapscope
