#pragma once
// The two cross-rank analyses of upstream stormlog over one job: collective attribution
// (which gap spikes are communication) and the cross-rank first-cause analysis (which rank
// spiked first). One immutable result; crosses threads as shared_ptr<const JobAnalysisResult>.
// Serialised by model/report/JobAnalysisJson.

#include "analysis/CollectiveAttribution.h"
#include "analysis/CrossRankAnalysis.h"
#include "analysis/RankDivergence.h"
#include "model/job/JobEvents.h"
#include "model/trace/AnalysisRunner.h" // AnalysisResult (jobAnalysisOf)

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

struct JobAnalysisResult
{
    CollectiveConfig collectiveConfig;
    std::vector<CollectiveAttribution> collective;
    // Only when the events hold more than one rank (upstream's report leaves it out otherwise).
    std::optional<CrossRankAnalysis> crossRank;
    size_t eventCount = 0;
    size_t rankCount = 0;

    // --- gapscope's own judgement beside upstream's (never in collective_attribution or
    // cross_rank_analysis) ---
    // Upstream's first-cause suspects that spiked in the job's start-up (ascending;
    // firstCauseSuspectsAtStartup): shown as information, with a first_cause_at_startup notice.
    std::vector<int64_t> firstCauseAtStartup;
    // Ranks whose gap or reserved memory departs from their peers' (ascending rank, gap first):
    // analyzeJob over a JobData only (the series need each rank's own samples).
    std::vector<RankDivergence> divergences;
};

// From this many events the two analyses run side by side on two threads; fewer run one after
// the other in the calling thread.
inline constexpr size_t kEventsWorthAThread = 4096;

// Both analyses over events already built (side by side on two threads when there are
// kEventsWorthAThread events or more).
std::shared_ptr<const JobAnalysisResult>
analyzeJobEvents(const JobEvents& events, const PhaseResolver& phases, const CollectiveConfig& config = {});

// Each present rank's samples (usableSampleRows within window) as the divergence analysis
// reads them: the reserved series of every rank, the gap series of every rank whose gap can be
// observed (gapObservability: not blind, where device used is only the allocator's counters).
struct JobDivergenceInput
{
    std::vector<RankSeriesSamples> reserved;
    std::vector<RankSeriesSamples> gap;
};
JobDivergenceInput jobDivergenceInput(const JobData& job,
                                      const std::optional<TimeWindow>& window = std::nullopt);
// findRankDivergence over both series: gap first, then reserved.
std::vector<RankDivergence> jobRankDivergences(const JobData& job,
                                               const std::optional<TimeWindow>& window = std::nullopt);

// A job (the job loader's JobData): every event of its inputs' selected sessions, and the
// divergences of its ranks.
std::shared_ptr<const JobAnalysisResult> analyzeJob(const JobData& job, const CollectiveConfig& config = {},
                                                    const std::optional<TimeWindow>& window = std::nullopt);

// One input's session, all its ranks (`gapscope analyze` on one file).
std::shared_ptr<const JobAnalysisResult>
analyzeTraceSession(const TraceData& trace, size_t sessionIndex, const CollectiveConfig& config = {},
                    const std::optional<TimeWindow>& window = std::nullopt);

// analyzeTraceSession of the result's session (within its window), computed once per result and
// kept in its jobAnalysisSlot (every report of a result needs it; a re-analysis does not).
// nullptr without a trace.
std::shared_ptr<const JobAnalysisResult> jobAnalysisOf(const AnalysisResult& result);

} // namespace gapscope
