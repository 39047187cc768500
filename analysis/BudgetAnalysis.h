#pragma once
// Diagnosis rules for memory-budget tick logs (budget-snapshots.md, "Diagnosis"). Our own
// rules, not an upstream reproduction: each returns at most one Finding (cache thrash: one
// per cache) with typed evidence, the tick it points at, and description and remediation in
// the project's words. Plain C++, no Qt.

#include "analysis/BudgetTicks.h"
#include "analysis/Finding.h"
#include "analysis/Thresholds.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

inline constexpr int64_t kMiB = int64_t{1} << 20;

struct BudgetThresholds
{
    // --- trend tests (leak outside caches, allocator retention, unattributed growth) ---
    // A least-squares line of a bucket on time; growth means all of: positive slope,
    // r^2 >= growthRSquared, p < growthPValue, fitted growth over the log >= minGrowthBytes,
    // and at least minTrendTicks ticks.
    // 12 ticks = one minute at the crate's default 5 s tick: fewer points give r^2 by luck.
    size_t minTrendTicks = 12;
    // The same bar as the gap analysis' persistent-drift rule, so "drift" means one thing.
    double growthRSquared = 0.6;
    double growthPValue = 0.01;
    // Buckets of a budgeted process are hundreds of MiB to GiB; 64 MiB of fitted growth is
    // well above tick-to-tick noise (a few MiB) and small enough to catch a leak early.
    int64_t minGrowthBytes = 64 * kMiB;
    // A bucket is "flat" when its fitted change over the log is at most
    // max(flatToleranceBytes, flatToleranceShare x its mean): allocator noise, not a trend.
    int64_t flatToleranceBytes = 32 * kMiB;
    double flatToleranceShare = 0.05;
    // Allocator retention needs the retained bucket (non_cache - non_cache_live) to carry at
    // least this share of the non_cache growth; otherwise live memory explains it (a leak).
    double retentionShareOfGrowth = 0.5;
    // Critical when the trend is this clean (r^2 > 0.85, as the drift rule) and its fitted
    // growth is at least this share of the configured target.
    double criticalRSquared = 0.85;
    double criticalGrowthShareOfTarget = 0.10;

    // --- wedged budget and lease pressure ---
    // Skip-shrink ticks within one over-target episode: 6 ticks = 30 s at 5 s ticks, long
    // enough that one refusal between two shrinks is not a wedge. An episode this long that a
    // temporary lease explains (see LeaseRelease) is lease pressure instead.
    int64_t wedgeSkipTicks = 6;

    // --- over target ---
    // rss above the effective target on at least this share of the tick slots (missing ticks
    // count as not over): a quarter of the time is a chronic, not a transient, overshoot.
    double overTargetShare = 0.25;
    // MEMORY_BUDGET_HARD_CEILING_MIB is not in the log; when the caller knows it, rss at or
    // above hardCeilingApproachShare x ceiling is reported (the process aborts at 1.0).
    std::optional<int64_t> hardCeilingBytes;
    double hardCeilingApproachShare = 0.9;

    // --- cache thrash ---
    // Cap direction changes (shrink<->grow) of one cache within a window of ticks:
    // 4 reversals in 12 ticks (one minute) means the policy is chasing its own tail.
    int64_t thrashAlternations = 4;
    size_t thrashWindowTicks = 12;
    // A cache that misses half its lookups while holding a quarter of the budget costs
    // more memory than it saves work.
    double lowHitRate = 0.5;
    double lowHitRateBudgetShare = 0.25;
    size_t minHitRateTicks = 3; // hit rates of at least this many ticks before judging

    // --- OS-vs-allocator gap: the gap analysis' spike and drift classifiers ---
    GapThresholds osGap;
};

// All rules, ordered by severity (critical first), then by descending confidence.
std::vector<Finding> analyzeBudget(const BudgetTicks& ticks, const BudgetThresholds& thresholds = {});

// The rules one by one (same results as analyzeBudget, unsorted); buckets from
// computeBudgetBuckets(ticks).
std::optional<Finding> findLeakOutsideCaches(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                             const BudgetThresholds& thresholds);
std::optional<Finding> findAllocatorRetention(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                              const BudgetThresholds& thresholds);
std::optional<Finding> findUnattributedGrowth(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                              const BudgetThresholds& thresholds);
std::optional<Finding> findWedgedBudget(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                        const BudgetThresholds& thresholds);
std::optional<Finding> findLeasePressure(const BudgetTicks& ticks, const BudgetThresholds& thresholds);
std::optional<Finding> findOverTarget(const BudgetTicks& ticks, const BudgetThresholds& thresholds);
std::vector<Finding> findOsAllocatorGap(const BudgetTicks& ticks, const BudgetThresholds& thresholds);
std::vector<Finding> findCacheThrash(const BudgetTicks& ticks, const BudgetThresholds& thresholds);

// Least-squares trend of one per-tick series on time in seconds.
struct BudgetTrend
{
    size_t count = 0;
    double slopeBytesPerSecond = 0;
    double intercept = 0; // at the first tick
    double rSquared = 0;
    double pValue = 1;
    double fittedChangeBytes = 0; // slope x (last - first timestamp)
    double mean = 0;
};
BudgetTrend fitBudgetTrend(const BudgetTicks& ticks, const std::vector<int64_t>& series);
bool isGrowing(const BudgetTrend& trend, const BudgetThresholds& thresholds);
bool isFlat(const BudgetTrend& trend, const BudgetThresholds& thresholds);

// A temporary lease that explains an over-target episode: a lease was active on every logged
// tick of the episode, rss stayed within the shrink band of the configured target (so without
// the lease lowering the effective target the policy would not have acted), and the episode
// ended either with the lease (the first tick logged after the episode shows it released) or
// through the budget's own shrinking while the lease was still held (the episode's last ticks
// are shrinks, and the first tick logged after it has rss back within the band of the lowered
// target). Either way the policy coped with the lease: lease pressure, not a wedge.
enum class LeaseEpisodeEnd
{
    Released,  // the lease was gone on the first tick logged after the episode
    ShrunkBack // the budget's shrinks brought rss back under the band, the lease still held
};
struct LeaseRelease
{
    int64_t leaseBytes = 0;      // the largest lease during the episode
    uint32_t firstLeaseTick = 0; // first logged tick of the lease (may precede the episode)
    LeaseEpisodeEnd end = LeaseEpisodeEnd::Released;
    // Released: first logged tick after the episode, the lease gone. ShrunkBack: the last
    // logged tick the lease is still seen in (the episode ended before it).
    uint32_t releaseTick = 0;
    uint32_t endTick = 0;          // first logged tick after the episode
    bool releasedNextTick = false; // endTick is the slot right after the episode
    int64_t maxRssBytes = 0;
    int64_t targetBytes = 0; // the configured target at the tick of maxRssBytes
};

// An over-target episode: consecutive tick slots whose verdict is shrink or skip-shrink-*
// (the policy found rss above the shrink band). Slots are tick periods from the first tick;
// verdicts of missing slots are recovered from logged streaks and verdict-run-ended lines.
struct WedgeEpisode
{
    int64_t firstSlot = 0;
    int64_t lastSlot = 0;
    int64_t skipShrinkTicks = 0;
    int64_t shrinkTicks = 0;
    // shrinks after the episode's last skip-shrink tick (all of them when it has none): the
    // ones that may have ended it, unlike shrinks followed by more refusals
    int64_t trailingShrinkTicks = 0;
    std::vector<uint32_t> loggedTicks; // tick rows inside the episode
    bool endsLog = false;              // still running at the last slot of the log
    // Set when a temporary lease explains the episode: lease pressure, not a wedge.
    std::optional<LeaseRelease> lease;
};
std::vector<WedgeEpisode> findWedgeEpisodes(const BudgetTicks& ticks);

} // namespace gapscope
