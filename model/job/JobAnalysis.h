#pragma once
// The two cross-rank analyses of upstream stormlog over one job: collective attribution
// (which gap spikes are communication) and the cross-rank first-cause analysis (which rank
// spiked first). One immutable result; crosses threads as shared_ptr<const JobAnalysisResult>.
// Serialised by model/report/JobAnalysisJson.

#include "analysis/CollectiveAttribution.h"
#include "analysis/CrossRankAnalysis.h"
#include "model/job/JobEvents.h"

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
};

// From this many events the two analyses run side by side on two threads; fewer run one after
// the other in the calling thread.
inline constexpr size_t kEventsWorthAThread = 4096;

// Both analyses over events already built (side by side on two threads when there are
// kEventsWorthAThread events or more).
std::shared_ptr<const JobAnalysisResult>
analyzeJobEvents(const JobEvents& events, const PhaseResolver& phases, const CollectiveConfig& config = {});

// A job (the job loader's JobData): every event of its inputs' selected sessions.
std::shared_ptr<const JobAnalysisResult> analyzeJob(const JobData& job, const CollectiveConfig& config = {},
                                                    const std::optional<TimeWindow>& window = std::nullopt);

// One input's session, all its ranks (`gapscope analyze` on one file).
std::shared_ptr<const JobAnalysisResult>
analyzeTraceSession(const TraceData& trace, size_t sessionIndex, const CollectiveConfig& config = {},
                    const std::optional<TimeWindow>& window = std::nullopt);

} // namespace gapscope
