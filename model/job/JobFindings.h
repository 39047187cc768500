#pragma once
// What the job page shows of the cross-rank analyses (model/job/JobAnalysis.h): the
// collective-attribution intervals and the cross-rank summary in the views' terms
// (JobViewData.h), and the job's findings for the findings table: one collective_memory finding
// per collective interval and one first_cause finding per first-cause suspect (upstream lists
// only the ranks whose first spike is at or before the cluster's onset). Every finding names
// its rank (Finding::rank), has its evidence time in that rank's own clock (interval start,
// first spike), the store row of its rank's input nearest after it, the analysis' evidence
// values with their units, and the description and remediation of analysis/Remediation for the
// job's backend. Qt Core only; immutable once built (crosses threads as shared_ptr<const>).

#include "analysis/Notice.h"
#include "analysis/Remediation.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobViewData.h"

#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace gapscope {

struct JobFindings
{
    std::shared_ptr<const JobAnalysisResult> analysis;
    std::vector<JobCollectiveInterval> intervals;
    std::optional<JobCrossRankSummary> summary; // none when the analysis had one rank
    // most severe first; within a severity, first-cause suspects in upstream's order, then
    // collective intervals by (rank, start)
    std::vector<Finding> findings;
    Backend backend = Backend::Unknown;
    // gapscope's notices of the job's cross-rank analyses: first_cause_at_startup
    std::vector<Notice> notices;
    // the ranks of the rank_divergence findings, ascending rank (a rank departing in both
    // series once per series)
    std::vector<JobDivergentRank> divergentRanks;

    // The finding's evidence time in the job's aligned clock (its rank's time minus the rank's
    // alignment offset), the time the page's cursor uses.
    int64_t alignedTimeNs(const Finding& finding) const;
    // The job findings of each rank, the ranks in the order given.
    std::vector<int64_t> countsByRank(std::span<const int64_t> ranks) const;
};

// Upstream's intervals as the views take them; peak_gap_ratio left out without a device total.
std::vector<JobCollectiveInterval>
jobCollectiveIntervals(const std::vector<CollectiveAttribution>& collective);
std::optional<JobCrossRankSummary> jobCrossRankSummary(const JobAnalysisResult& analysis);

// The backend the job's texts are worded for: the first input's session that names one.
Backend jobBackend(const JobData& job);

// The findings of the analysis; job (may be null) gives each finding its evidence row. A
// first-cause suspect at start-up (JobAnalysisResult::firstCauseAtStartup) is information; one
// rank_divergence finding per series with divergent ranks.
std::vector<Finding> jobFindings(const JobAnalysisResult& analysis, Backend backend, const JobData* job);

// The notices of the analysis: first_cause_at_startup when its suspects spiked at start-up.
std::vector<Notice> jobNotices(const JobAnalysisResult& analysis);
// The marks of the divergent ranks (rank table, heatmap).
std::vector<JobDivergentRank> jobDivergentRanks(const JobAnalysisResult& analysis);

// All of the above (nullptr without an analysis); job may be null (hand-made views: evidence
// rows 0, backend unknown). O(findings x log(rank events)).
std::shared_ptr<const JobFindings> buildJobFindings(std::shared_ptr<const JobAnalysisResult> analysis,
                                                    const JobData* job);

// What the rank table counts per rank: the rank's own gap findings (gapCounts, by index in
// ranks; missing entries count 0) plus its job findings (findings may be null).
std::vector<int64_t> rankFindingCounts(std::span<const int64_t> ranks, std::span<const int64_t> gapCounts,
                                       const JobFindings* findings);

} // namespace gapscope
