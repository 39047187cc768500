#pragma once
// Which rank of a distributed job departs from its peers: gapscope's own judgement beside
// upstream's cross-rank analyses (which only ask who rose first). In a data-parallel job every
// rank runs the same model on the same shapes, so their memory should move together; a rank
// that keeps tensors the others free (logits kept for logging, a list that grows per step) or
// that leaks outside the allocator ends above its peers and climbs faster.
//
// Each rank's series (reserved memory, or the gap device used - reserved) is reduced to two
// numbers: its level (where it ended: the median of its last tenth of samples, so one spike at
// the end does not count) and its slope (least squares over its samples, bytes per second).
// A rank departs when its level or its slope is above its peers' (every other rank's) median
// by more than both
//   - kMadMultiplier robust standard deviations of the peers (1.4826 x their median absolute
//     deviation): eight ranks whose levels scatter by tens of MiB do not make an outlier of
//     the highest, and
//   - a floor: 64 MiB or 10 % of the peers' median level, whichever is more (the rule of
//     upstream's first spike: 64 MiB or 10 % of the peak), and for the slope that floor
//     spread over the rank's run (bytes per second that add up to the floor by its end), so
//     identical ranks (a MAD of 0, usual for reserved) need a departure that matters.
// Only departures upwards count: a rank that holds less than its peers leaks nothing. The
// peers' median is taken without the rank, so one rank of four departing is seen as well as
// one of 64. At least kMinDivergenceRanks ranks with two samples or more are needed (with two,
// neither is the odd one out).
//
// Plain C++, no Qt. O(n) in the samples plus O(r^2) in the ranks (each rank's peers' medians).

#include "analysis/Finding.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace gapscope {

enum class DivergenceSeries
{
    Gap,      // device used - allocator reserved (memory outside the allocator)
    Reserved, // allocator reserved
};
std::string_view toString(DivergenceSeries series); // "gap", "reserved"

inline constexpr int64_t kDivergenceFloorBytes = 64LL * 1024 * 1024;
inline constexpr double kDivergenceFloorShare = 0.10;
inline constexpr double kMadMultiplier = 3.5; // Iglewicz and Hoaglin's outlier cut
inline constexpr size_t kMinDivergenceRanks = 3;

// One rank's samples of one series, ascending time.
struct RankSeriesSamples
{
    int64_t rank = 0;
    std::vector<int64_t> timestampNs;
    std::vector<int64_t> bytes;
};

// The two numbers a rank's series is judged by, and what the description says.
struct RankSeriesProfile
{
    int64_t rank = 0;
    int64_t firstTimestampNs = 0;
    int64_t lastTimestampNs = 0;
    double startBytes = 0;          // the first sample
    double levelBytes = 0;          // median of the last tenth of samples (at least one)
    double slopeBytesPerSecond = 0; // least squares over every sample
    double growthBytes() const { return levelBytes - startBytes; }
};

// null when the rank has fewer than two samples.
std::optional<RankSeriesProfile> profileRankSeries(const RankSeriesSamples& samples);

struct RankDivergence
{
    int64_t rank = 0;
    DivergenceSeries series = DivergenceSeries::Reserved;
    RankSeriesProfile profile;
    size_t peers = 0;
    double peerMedianLevelBytes = 0;
    double peerMedianGrowthBytes = 0;
    double peerMedianSlopeBytesPerSecond = 0;
    double excessBytes = 0;          // level - the peers' median level
    double excessBytesPerSecond = 0; // slope - the peers' median slope
    double levelThresholdBytes = 0;  // what the excess had to pass
    double slopeThresholdBytesPerSecond = 0;
    bool byLevel = false;
    bool bySlope = false;
    // The rank's first sample above the peers' median level by the level threshold: when it
    // left them (its last sample when only the slope departs).
    int64_t departureTimestampNs = 0;
};

// The ranks of ranks (one entry per rank, any order) that depart, ascending rank.
std::vector<RankDivergence> findRankDivergence(std::span<const RankSeriesSamples> ranks,
                                               DivergenceSeries series);

// One rank_divergence finding per series that has divergent ranks (divergences: of one
// series, ascending rank): Finding::ranks all of them, Finding::rank and the evidence the one
// furthest above its peers, severity warning. Description and remediation are applyText's
// (analysis/Remediation.h).
Finding rankDivergenceFinding(const std::vector<RankDivergence>& divergences);

} // namespace gapscope
