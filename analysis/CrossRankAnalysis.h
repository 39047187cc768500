#pragma once
// Which rank of a distributed job spiked first: upstream stormlog's
// summarize_cross_rank_analysis (stormlog/distributed_analysis.py), reproduced exactly. The
// sample events (event_type casefolded "sample", device used recorded, of the most common
// job_id) are grouped by rank and aligned on each rank's first sample; a rank's first spike is
// the first run of rising device-used samples that adds up to 64 MiB or 10 % of its peak; the
// cluster onset is the second-earliest aligned spike, and the ranks at or before it are the
// first-cause suspects, high / medium / low by how clearly the earliest one leads.
//
// O(n log n) in the events (the per-rank sorts; medians by selection).

#include "analysis/Finding.h"
#include "analysis/JobEvents.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

enum class FirstCauseConfidence
{
    Low,
    Medium,
    High,
};
std::string_view toString(FirstCauseConfidence confidence);

struct FirstCauseSuspect
{
    int64_t rank = 0;
    int64_t firstSpikeTimestampNs = 0;
    int64_t alignedFirstSpikeTimestampNs = 0; // minus the rank's alignment offset
    int64_t peakDeltaBytes = 0;               // device used added by the rising run
    int64_t spikeWindowSamples = 0;           // rises in the run
    int64_t leadOverClusterOnsetNs = 0;       // 0 without an onset
    FirstCauseConfidence confidence = FirstCauseConfidence::Low;
    int64_t supportingRanks = 0; // evidence: suspects at or before the onset
    std::optional<PhaseAttribution> phase;
};

// One value per rank, in the order upstream's dict holds them.
struct RankValue
{
    int64_t rank = 0;
    int64_t value = 0;
    bool operator==(const RankValue&) const = default;
};

struct CrossRankAnalysis
{
    std::optional<std::string> jobId; // the most common job_id of the samples (first seen wins a tie)
    int64_t worldSize = 0;
    std::vector<int64_t> participatingRanks; // ascending
    // ascending; at most kMaxListedMissingRanks of them (a bad world_size could ask for
    // billions), the rest counted in missingRanksNotListed
    std::vector<int64_t> missingRanks;
    int64_t missingRanksNotListed = 0;
    std::vector<RankValue> rankSampleCounts;   // ranks in the order their first sample came
    std::vector<RankValue> alignmentOffsetsNs; // ascending rank: first sample - the anchor's
    std::optional<int64_t> clusterOnsetTimestampNs;
    std::vector<FirstCauseSuspect> suspects; // earliest aligned spike first
    int64_t medianSampleIntervalNs = 0;      // 0: unknown
    std::vector<std::string> notes;          // what limited the analysis, our words, no repeats
};

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
// The fuzz build lists 64: its world sizes are mutated numbers, often in the billions, and the
// code past the limit is the same at 64 as at 100 000 (a long list only costs time to write).
inline constexpr size_t kMaxListedMissingRanks = 64;
#else
inline constexpr size_t kMaxListedMissingRanks = 100'000;
#endif

// summarize_cross_rank_analysis over the events in upstream's order; phases resolve each
// suspect's spike (sources with a session id only).
CrossRankAnalysis summarizeCrossRankAnalysis(const JobEvents& events, const PhaseResolver& phases = {});

} // namespace gapscope
