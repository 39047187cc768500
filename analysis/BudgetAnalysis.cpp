#include "analysis/BudgetAnalysis.h"

#include "analysis/GapAnalysis.h"
#include "analysis/Int64Math.h"
#include "analysis/PyRound.h"
#include "analysis/Units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

namespace gapscope {

namespace {

constexpr uint32_t kUnknownSlot = std::numeric_limits<uint32_t>::max();
// The crate's policy shrinks above 1.05 x the effective target (budget-snapshots.md).
constexpr double kShrinkBand = 1.05;

EvidenceValue bytesEvidence(std::string key, double value)
{
    return {std::move(key), pyRound(value, 0), true, EvidenceUnit::Bytes};
}
EvidenceValue countEvidence(std::string key, double value, EvidenceUnit unit = EvidenceUnit::Count)
{
    return {std::move(key), value, true, unit};
}
EvidenceValue realEvidence(std::string key, double value, int digits, EvidenceUnit unit)
{
    return {std::move(key), pyRound(value, digits), false, unit};
}

std::string formatSeconds(double seconds)
{
    char buffer[64];
    if (seconds < 120)
        std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
    else if (seconds < 7200)
        std::snprintf(buffer, sizeof buffer, "%.1f min", seconds / 60);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f h", seconds / 3600);
    return buffer;
}

std::string formatPercent(double share)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", share * 100);
    return buffer;
}

std::string formatRatio(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

double secondsBetween(int64_t fromNs, int64_t toNs)
{
    return differenceAsDouble(toNs, fromNs) / 1e9;
}

// Median of the configured target: the reference for "large" growth.
int64_t typicalTarget(const BudgetTicks& ticks)
{
    if (ticks.empty())
        return 0;
    std::vector<int64_t> targets = ticks.targetBytes;
    auto mid = targets.begin() + static_cast<std::ptrdiff_t>(targets.size() / 2);
    std::nth_element(targets.begin(), mid, targets.end());
    return *mid;
}

// Ticks carrying allocator statistics; the live/retained split needs them.
std::vector<uint32_t> jemallocRows(const BudgetTicks& ticks)
{
    std::vector<uint32_t> rows;
    for (size_t i = 0; i < ticks.size(); ++i)
        if (ticks.hasJemalloc(i))
            rows.push_back(static_cast<uint32_t>(i));
    return rows;
}

std::vector<uint32_t> allRows(const BudgetTicks& ticks)
{
    std::vector<uint32_t> rows(ticks.size());
    for (size_t i = 0; i < rows.size(); ++i)
        rows[i] = static_cast<uint32_t>(i);
    return rows;
}

BudgetTrend fitTrend(const BudgetTicks& ticks, const std::vector<int64_t>& series,
                     const std::vector<uint32_t>& rows)
{
    BudgetTrend trend;
    trend.count = rows.size();
    if (rows.empty())
        return trend;
    const int64_t origin = ticks.timestampNs[rows.front()];
    const double n = static_cast<double>(rows.size());
    double meanX = 0;
    double meanY = 0;
    for (uint32_t row : rows) {
        meanX += secondsBetween(origin, ticks.timestampNs[row]);
        meanY += static_cast<double>(series[row]);
    }
    meanX /= n;
    meanY /= n;
    double sxx = 0;
    double syy = 0;
    double sxy = 0;
    for (uint32_t row : rows) {
        const double dx = secondsBetween(origin, ticks.timestampNs[row]) - meanX;
        const double dy = static_cast<double>(series[row]) - meanY;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    trend.mean = meanY;
    if (sxx <= 0)
        return trend;
    trend.slopeBytesPerSecond = sxy / sxx;
    trend.intercept = meanY - trend.slopeBytesPerSecond * meanX;
    double r = syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
    r = std::clamp(r, -1.0, 1.0);
    trend.rSquared = r * r;
    trend.pValue = rows.size() > 2 ? linregressPValue(r, rows.size()) : 1.0;
    trend.fittedChangeBytes =
        trend.slopeBytesPerSecond * secondsBetween(origin, ticks.timestampNs[rows.back()]);
    return trend;
}

// The trend evidence every growth rule shares.
void appendTrendEvidence(Finding& f, const std::string& prefix, const BudgetTrend& trend)
{
    f.evidence.push_back(
        realEvidence("slope_bytes_per_sec", trend.slopeBytesPerSecond, 1, EvidenceUnit::BytesPerSecond));
    f.evidence.push_back(realEvidence("r_squared", trend.rSquared, 4, EvidenceUnit::Ratio));
    f.evidence.push_back(realEvidence("p_value", trend.pValue, 6, EvidenceUnit::Probability));
    f.evidence.push_back(bytesEvidence(prefix + "_growth_bytes", trend.fittedChangeBytes));
}

Severity growthSeverity(const BudgetTrend& trend, const BudgetTicks& ticks, const BudgetThresholds& th)
{
    const double target = static_cast<double>(typicalTarget(ticks));
    const bool large = target > 0 && trend.fittedChangeBytes >= th.criticalGrowthShareOfTarget * target;
    return trend.rSquared > th.criticalRSquared && large ? Severity::Critical : Severity::Warning;
}

void pointAtLastRow(Finding& f, const BudgetTicks& ticks, const std::vector<uint32_t>& rows)
{
    f.evidenceRow = rows.back();
    f.evidenceTimestampNs = ticks.timestampNs[rows.back()];
}

// The registered reporter whose own bytes grew the most (name, fitted growth).
std::pair<std::string, double> fastestGrowingReporter(const BudgetTicks& ticks,
                                                      const std::vector<uint32_t>& rows)
{
    std::map<uint32_t, std::vector<int64_t>> seriesByName;
    for (const auto& reporter : ticks.reporters) {
        auto& series = seriesByName[reporter.name];
        if (series.empty())
            series.assign(ticks.size(), 0);
        series[reporter.tick] += reporter.currentBytes;
    }
    std::pair<std::string, double> best{std::string(), 0.0};
    for (const auto& [name, series] : seriesByName) {
        const BudgetTrend trend = fitTrend(ticks, series, rows);
        if (trend.fittedChangeBytes > best.second)
            best = {ticks.names.text(name), trend.fittedChangeBytes};
    }
    return best;
}

// ---- slots: tick periods counted from the first tick, with verdicts of missing ticks ----

struct SlotTimeline
{
    int64_t periodNs = 0;
    int64_t originNs = 0;
    std::vector<uint32_t> label;     // name id, kUnknownSlot when nothing tells
    std::vector<int64_t> loggedTick; // tick row, -1 when the tick is not in the log
    int64_t lastTickSlot = 0;

    int64_t slotOf(int64_t timestampNs) const
    {
        if (periodNs <= 0)
            return 0;
        return roundedDivide(WideInt(timestampNs) - originNs, periodNs);
    }

    // Marks slots [first, last] with `id` walking backwards from `last`; stops at a slot a
    // more direct observation already gave another label (the logs disagree: trust the tick).
    void fillBackwards(int64_t first, int64_t last, uint32_t id)
    {
        for (int64_t s = std::min<int64_t>(last, static_cast<int64_t>(label.size()) - 1);
             s >= std::max<int64_t>(first, 0); --s) {
            auto& slot = label[static_cast<size_t>(s)];
            if (slot == kUnknownSlot)
                slot = id;
            else if (slot != id)
                break;
        }
    }
};

SlotTimeline buildSlotTimeline(const BudgetTicks& ticks)
{
    SlotTimeline timeline;
    if (ticks.empty())
        return timeline;
    timeline.periodNs = budgetTickPeriodNs(ticks);
    timeline.originNs = ticks.timestampNs.front();
    // Every tick's slot must index the timeline: the log's order is not trusted (a tick
    // before the first one would have a negative slot).
    int64_t firstSlot = 0;
    int64_t lastSlot = 0;
    for (const int64_t timestampNs : ticks.timestampNs) {
        const int64_t s = timeline.slotOf(timestampNs);
        firstSlot = std::min(firstSlot, s);
        lastSlot = std::max(lastSlot, s);
    }
    for (const auto& end : ticks.runEnds)
        lastSlot = std::max(lastSlot, timeline.slotOf(end.timestampNs));
    // Nonsense timestamps (years apart, or out of order) must not allocate a slot per period:
    // fall back to one slot per logged tick, which loses only the gap reconstruction.
    const int64_t slotLimit = static_cast<int64_t>(ticks.size()) * 64 + 4096;
    if (timeline.periodNs <= 0 || firstSlot < 0 || lastSlot >= slotLimit) {
        timeline.periodNs = 0;
        timeline.label.assign(ticks.size(), kUnknownSlot);
        timeline.loggedTick.resize(ticks.size());
        for (size_t i = 0; i < ticks.size(); ++i) {
            timeline.label[i] = ticks.verdictLabel[i];
            timeline.loggedTick[i] = static_cast<int64_t>(i);
        }
        timeline.lastTickSlot = static_cast<int64_t>(ticks.size()) - 1;
        return timeline;
    }
    timeline.label.assign(static_cast<size_t>(lastSlot + 1), kUnknownSlot);
    timeline.loggedTick.assign(static_cast<size_t>(lastSlot + 1), -1);
    timeline.lastTickSlot = timeline.slotOf(ticks.timestampNs.back());
    // 1. what the logged ticks say about their own slot
    for (size_t i = 0; i < ticks.size(); ++i) {
        const int64_t s = timeline.slotOf(ticks.timestampNs[i]);
        timeline.label[static_cast<size_t>(s)] = ticks.verdictLabel[i];
        timeline.loggedTick[static_cast<size_t>(s)] = static_cast<int64_t>(i);
    }
    // 2. the streak counter: a streak of k means the k - 1 slots before had the same label
    for (size_t i = 0; i < ticks.size(); ++i) {
        const int64_t s = timeline.slotOf(ticks.timestampNs[i]);
        if (ticks.verdictStreak[i] > 1)
            timeline.fillBackwards(saturatingSub(s, ticks.verdictStreak[i]) + 1, s - 1,
                                   ticks.verdictLabel[i]);
    }
    // 3. verdict-run-ended lines: the previous run filled the k slots before the change
    for (const auto& end : ticks.runEnds) {
        const int64_t s = timeline.slotOf(end.timestampNs);
        if (s >= 0 && s < static_cast<int64_t>(timeline.label.size()) &&
            timeline.label[static_cast<size_t>(s)] == kUnknownSlot)
            timeline.label[static_cast<size_t>(s)] = end.newLabel;
        if (end.previousStreak > 0)
            timeline.fillBackwards(saturatingSub(s, end.previousStreak), s - 1, end.previousLabel);
    }
    return timeline;
}

// Whether a temporary lease explains the episode (see LeaseRelease in the header).
std::optional<LeaseRelease> leaseRelease(const BudgetTicks& ticks, const SlotTimeline& timeline,
                                         const WedgeEpisode& episode)
{
    if (episode.loggedTicks.empty() || episode.endsLog)
        return std::nullopt;
    LeaseRelease lease;
    int64_t smallestLease = std::numeric_limits<int64_t>::max();
    for (uint32_t row : episode.loggedTicks) {
        const int64_t bytes = ticks.leaseBytesActive[row];
        const int64_t target = ticks.targetBytes[row];
        // a tick without a lease, or over the band of the configured target itself, is not
        // the lease's doing
        if (bytes <= 0 || target <= 0 ||
            static_cast<double>(ticks.rssBytes[row]) > kShrinkBand * static_cast<double>(target))
            return std::nullopt;
        smallestLease = std::min(smallestLease, bytes);
        lease.leaseBytes = std::max(lease.leaseBytes, bytes);
        if (ticks.rssBytes[row] >= lease.maxRssBytes) {
            lease.maxRssBytes = ticks.rssBytes[row];
            lease.targetBytes = target;
        }
    }
    const auto slots = static_cast<int64_t>(timeline.loggedTick.size());
    int64_t releaseSlot = episode.lastSlot + 1;
    while (releaseSlot < slots && timeline.loggedTick[static_cast<size_t>(releaseSlot)] < 0)
        ++releaseSlot;
    if (releaseSlot >= slots)
        return std::nullopt; // nothing logged after the episode tells whether the lease ended
    lease.endTick = static_cast<uint32_t>(timeline.loggedTick[static_cast<size_t>(releaseSlot)]);
    lease.releaseTick = lease.endTick;
    lease.releasedNextTick = releaseSlot == episode.lastSlot + 1;
    if (ticks.leaseBytesActive[lease.endTick] >= smallestLease) {
        // The lease outlived the episode. If the episode's last ticks were shrinks and rss is
        // back within the band of the lowered target, the budget's own shrinking ended it;
        // otherwise something else did (the program freed memory), which the lease does not explain.
        const double effective = static_cast<double>(ticks.effectiveTargetBytes[lease.endTick]);
        if (episode.trailingShrinkTicks <= 0 ||
            static_cast<double>(ticks.rssBytes[lease.endTick]) > kShrinkBand * effective)
            return std::nullopt;
        lease.end = LeaseEpisodeEnd::ShrunkBack;
        // how long the lease is seen held: up to its last logged tick after the episode
        for (int64_t s = releaseSlot; s < slots; ++s) {
            const int64_t row = timeline.loggedTick[static_cast<size_t>(s)];
            if (row < 0)
                continue;
            if (ticks.leaseBytesActive[static_cast<size_t>(row)] <= 0)
                break;
            lease.releaseTick = static_cast<uint32_t>(row);
        }
    }
    // the lease may have been taken before the policy reacted: walk back over its logged ticks
    lease.firstLeaseTick = episode.loggedTicks.front();
    for (int64_t s = episode.firstSlot - 1; s >= 0; --s) {
        const int64_t row = timeline.loggedTick[static_cast<size_t>(s)];
        if (row < 0 || ticks.leaseBytesActive[static_cast<size_t>(row)] <= 0)
            break;
        lease.firstLeaseTick = static_cast<uint32_t>(row);
    }
    return lease;
}

// The episode with the most skip-shrink ticks among those long enough to be a wedge that a
// lease explains (leaseExplained) or does not, and how many such episodes there are.
struct LongEpisodes
{
    std::optional<WedgeEpisode> worst;
    int64_t count = 0;
};
LongEpisodes longEpisodes(const std::vector<WedgeEpisode>& episodes, const BudgetThresholds& th,
                          bool leaseExplained)
{
    LongEpisodes result;
    for (const auto& episode : episodes) {
        if (episode.skipShrinkTicks < th.wedgeSkipTicks || episode.loggedTicks.empty() ||
            episode.lease.has_value() != leaseExplained)
            continue;
        ++result.count;
        if (!result.worst || episode.skipShrinkTicks > result.worst->skipShrinkTicks)
            result.worst = episode;
    }
    return result;
}

// The evidence every over-target episode finding shares; the finding points at its first tick.
void appendEpisodeEvidence(Finding& f, const BudgetTicks& ticks, const WedgeEpisode& episode, double seconds)
{
    f.evidence.push_back(countEvidence("skip_shrink_ticks", static_cast<double>(episode.skipShrinkTicks),
                                       EvidenceUnit::Ticks));
    f.evidence.push_back(
        countEvidence("shrink_ticks", static_cast<double>(episode.shrinkTicks), EvidenceUnit::Ticks));
    f.evidence.push_back(countEvidence(
        "episode_ticks", static_cast<double>(episode.lastSlot - episode.firstSlot + 1), EvidenceUnit::Ticks));
    f.evidence.push_back(realEvidence("duration_seconds", seconds, 1, EvidenceUnit::Seconds));
    f.evidenceRow = episode.loggedTicks.front();
    f.evidenceTimestampNs = ticks.timestampNs[episode.loggedTicks.front()];
}

double episodeSeconds(const BudgetTicks& ticks, const WedgeEpisode& episode)
{
    const int64_t period = budgetTickPeriodNs(ticks);
    if (period <= 0) // nonsense timestamps: what the logged ticks span
        return secondsBetween(ticks.timestampNs[episode.loggedTicks.front()],
                              ticks.timestampNs[episode.loggedTicks.back()]);
    return static_cast<double>(episode.lastSlot - episode.firstSlot + 1) * static_cast<double>(period) / 1e9;
}

} // namespace

BudgetTrend fitBudgetTrend(const BudgetTicks& ticks, const std::vector<int64_t>& series)
{
    return fitTrend(ticks, series, allRows(ticks));
}

bool isGrowing(const BudgetTrend& trend, const BudgetThresholds& th)
{
    return trend.count >= th.minTrendTicks && trend.slopeBytesPerSecond > 0 &&
           trend.rSquared >= th.growthRSquared && trend.pValue < th.growthPValue &&
           trend.fittedChangeBytes >= static_cast<double>(th.minGrowthBytes);
}

bool isFlat(const BudgetTrend& trend, const BudgetThresholds& th)
{
    const double tolerance =
        std::max(static_cast<double>(th.flatToleranceBytes), th.flatToleranceShare * std::fabs(trend.mean));
    return std::fabs(trend.fittedChangeBytes) <= tolerance;
}

// ------------------------------------------------------------------ leak outside caches

std::optional<Finding> findLeakOutsideCaches(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                             const BudgetThresholds& th)
{
    // Without allocator statistics the live part of non_cache is unknown; non_cache itself
    // is then the best available signal, reported with lower confidence.
    std::vector<uint32_t> rows = jemallocRows(ticks);
    const bool haveAllocator = rows.size() * 2 >= ticks.size() && !rows.empty();
    if (!haveAllocator)
        rows = allRows(ticks);
    if (rows.size() < 2)
        return std::nullopt;
    const auto& series = haveAllocator ? buckets.nonCacheLive : buckets.nonCache;
    const BudgetTrend trend = fitTrend(ticks, series, rows);
    if (!isGrowing(trend, th))
        return std::nullopt;

    Finding f;
    f.classification = Classification::LeakOutsideCaches;
    f.severity = growthSeverity(trend, ticks, th);
    f.confidence = pyRound(std::min(1.0, trend.rSquared) * (haveAllocator ? 1.0 : 0.5), 3);
    const std::string bucket = haveAllocator ? "non_cache_live" : "non_cache";
    appendTrendEvidence(f, bucket, trend);
    const double startBytes = static_cast<double>(series[rows.front()]);
    const double endBytes = static_cast<double>(series[rows.back()]);
    f.evidence.push_back(bytesEvidence(bucket + "_start_bytes", startBytes));
    f.evidence.push_back(bytesEvidence(bucket + "_end_bytes", endBytes));
    const double duration = secondsBetween(ticks.timestampNs[rows.front()], ticks.timestampNs[rows.back()]);
    f.evidence.push_back(realEvidence("duration_seconds", duration, 1, EvidenceUnit::Seconds));
    f.evidence.push_back(countEvidence("tick_count", static_cast<double>(rows.size())));
    const auto [reporterName, reporterGrowth] = fastestGrowingReporter(ticks, rows);
    double otherGrowth = 0;
    if (haveAllocator) {
        otherGrowth = fitTrend(ticks, buckets.nonCacheOther, rows).fittedChangeBytes;
        f.evidence.push_back(bytesEvidence("reporter_growth_bytes",
                                           fitTrend(ticks, buckets.reporter, rows).fittedChangeBytes));
        f.evidence.push_back(bytesEvidence("non_cache_other_growth_bytes", otherGrowth));
    }
    const uint32_t last = rows.back();
    const double headroom =
        static_cast<double>(ticks.effectiveTargetBytes[last]) - static_cast<double>(ticks.rssBytes[last]);
    std::string projection;
    if (headroom > 0) {
        const double seconds = headroom / trend.slopeBytesPerSecond;
        f.evidence.push_back(realEvidence("seconds_to_effective_target", seconds, 1, EvidenceUnit::Seconds));
        projection = " At this rate rss reaches the effective target (" +
                     formatBytes(static_cast<double>(ticks.effectiveTargetBytes[last])) + ") in about " +
                     formatSeconds(seconds) + ".";
    } else {
        projection = " rss is already above the effective target, and no cache shrink can win it back.";
    }
    pointAtLastRow(f, ticks, rows);

    if (haveAllocator) {
        std::string owner;
        if (!reporterName.empty() && reporterGrowth >= static_cast<double>(th.minGrowthBytes) &&
            reporterGrowth >= 0.5 * trend.fittedChangeBytes)
            owner = " Most of it is in the reporter '" + reporterName + "' (+" + formatBytes(reporterGrowth) +
                    ").";
        else if (otherGrowth >= 0.5 * trend.fittedChangeBytes)
            owner = " Most of it is not covered by any registered reporter (+" + formatBytes(otherGrowth) +
                    " unattributed).";
        f.description =
            "Live allocations outside the registered caches (non_cache_live = jemalloc allocated - "
            "caches - leases) grew steadily from " +
            formatBytes(startBytes) + " to " + formatBytes(endBytes) + " over " + formatSeconds(duration) +
            " (" + formatBytesPerSecond(trend.slopeBytesPerSecond) + ", r² " + formatRatio(trend.rSquared) +
            "). The program itself holds more and more memory that the budget cannot shrink: a leak "
            "or an unbounded structure outside the caches." +
            owner + projection;
    } else {
        f.description =
            "Memory outside the registered caches (non_cache = rss - caches - leases) grew steadily "
            "from " +
            formatBytes(startBytes) + " to " + formatBytes(endBytes) + " over " + formatSeconds(duration) +
            " (" + formatBytesPerSecond(trend.slopeBytesPerSecond) + ", r² " + formatRatio(trend.rSquared) +
            "). The log has no jemalloc statistics, so live allocations cannot be told apart from "
            "pages the allocator keeps: this is a leak or allocator retention." +
            projection;
    }
    f.remediation = {
        "Take heap profiles a few minutes apart (set MEMORY_BUDGET_HEAP_PROFILE_DIR to arm jemalloc heap "
        "profiling) and diff them to find the call sites whose live bytes keep growing.",
        "Bound or evict the structure that grows (maps keyed by request or session ids, queues without "
        "back-pressure, memoisation without a cap); if it is a cache, register it with the budget so it "
        "can be shrunk.",
        "Register a reporter for each large owner of non-cache memory so the breakdown names it instead of "
        "leaving it in non_cache_other.",
        "Until it is fixed, keep MEMORY_BUDGET_HARD_CEILING_MIB below the machine's memory so the process "
        "aborts with a diagnosis instead of being OOM-killed.",
    };
    if (!haveAllocator)
        f.remediation.insert(f.remediation.begin(),
                             "Run with jemalloc as the global allocator so the snapshots carry allocator "
                             "statistics and live memory can be separated from retained pages.");
    return f;
}

// ------------------------------------------------------------------ allocator retention

std::optional<Finding> findAllocatorRetention(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                              const BudgetThresholds& th)
{
    const std::vector<uint32_t> rows = jemallocRows(ticks);
    if (rows.size() < 2 || rows.size() * 2 < ticks.size())
        return std::nullopt;
    const BudgetTrend nonCache = fitTrend(ticks, buckets.nonCache, rows);
    const BudgetTrend live = fitTrend(ticks, buckets.nonCacheLive, rows);
    const BudgetTrend retention = fitTrend(ticks, buckets.allocatorRetention, rows);
    if (!isGrowing(nonCache, th) || !isGrowing(retention, th) ||
        retention.fittedChangeBytes < th.retentionShareOfGrowth * nonCache.fittedChangeBytes)
        return std::nullopt;
    const BudgetTrend retained = fitTrend(ticks, ticks.jeRetainedBytes, rows);
    const bool liveFlat = isFlat(live, th);

    Finding f;
    f.classification = Classification::AllocatorRetention;
    f.severity = growthSeverity(retention, ticks, th);
    // Live growth beside the retained growth blurs the picture (both problems at once).
    f.confidence = pyRound(std::min(1.0, retention.rSquared) * (liveFlat ? 1.0 : 0.75), 3);
    appendTrendEvidence(f, "allocator_retention", retention);
    f.evidence.push_back(bytesEvidence("non_cache_growth_bytes", nonCache.fittedChangeBytes));
    f.evidence.push_back(bytesEvidence("non_cache_live_growth_bytes", live.fittedChangeBytes));
    f.evidence.push_back(bytesEvidence("allocator_retention_end_bytes",
                                       static_cast<double>(buckets.allocatorRetention[rows.back()])));
    f.evidence.push_back(bytesEvidence("jemalloc_retained_growth_bytes", retained.fittedChangeBytes));
    f.evidence.push_back(bytesEvidence("jemalloc_retained_end_bytes",
                                       static_cast<double>(ticks.jeRetainedBytes[rows.back()])));
    pointAtLastRow(f, ticks, rows);
    const double duration = secondsBetween(ticks.timestampNs[rows.front()], ticks.timestampNs[rows.back()]);
    f.description =
        "Memory outside the caches (non_cache) grew by " + formatBytes(nonCache.fittedChangeBytes) +
        " over " + formatSeconds(duration) + ", and " + formatBytes(retention.fittedChangeBytes) +
        " of it is pages the allocator holds while the program does not use them (non_cache - "
        "non_cache_live, " +
        formatBytes(static_cast<double>(buckets.allocatorRetention[rows.back()])) + " at the end; r² " +
        formatRatio(retention.rSquared) + "). " +
        (liveFlat
             ? "Live allocations outside the caches stayed flat (" + formatBytes(live.fittedChangeBytes) +
                   "), so this is not a leak: freed memory is not given back to the OS."
             : "Live allocations grew as well (" + formatBytes(live.fittedChangeBytes) +
                   "), so a leak may come on top of the retention.") +
        (retained.fittedChangeBytes >= static_cast<double>(th.minGrowthBytes)
             ? " jemalloc's own retained counter rose by " + formatBytes(retained.fittedChangeBytes) + " too."
             : "");
    f.remediation = {
        "Make jemalloc return dirty pages sooner: lower dirty_decay_ms and muzzy_decay_ms (e.g. "
        "MALLOC_CONF=dirty_decay_ms:1000,muzzy_decay_ms:1000; 0 purges immediately at some CPU cost).",
        "Enable jemalloc's background_thread (MALLOC_CONF=background_thread:true) so purging happens even "
        "when the allocating threads go idle.",
        "If many threads allocate, cap the arenas (narenas) so freed pages are not stranded in idle arenas.",
        "Raising MEMORY_BUDGET_TARGET_MIB does not fix this: retained pages count against rss and will keep "
        "pushing the budget to shrink caches that are not the cause.",
    };
    return f;
}

// ------------------------------------------------------------------ unattributed growth

std::optional<Finding> findUnattributedGrowth(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                              const BudgetThresholds& th)
{
    const std::vector<uint32_t> rows = jemallocRows(ticks);
    if (rows.size() < 2 || rows.size() * 2 < ticks.size())
        return std::nullopt;
    const BudgetTrend other = fitTrend(ticks, buckets.nonCacheOther, rows);
    if (!isGrowing(other, th))
        return std::nullopt;
    const BudgetTrend reporter = fitTrend(ticks, buckets.reporter, rows);
    std::vector<uint32_t> reporterNames;
    for (const auto& row : ticks.reporters)
        if (std::find(reporterNames.begin(), reporterNames.end(), row.name) == reporterNames.end())
            reporterNames.push_back(row.name);
    const bool reportersFlat = isFlat(reporter, th);

    Finding f;
    f.classification = Classification::UnattributedGrowth;
    f.severity = growthSeverity(other, ticks, th);
    f.confidence = pyRound(std::min(1.0, other.rSquared), 3);
    appendTrendEvidence(f, "non_cache_other", other);
    f.evidence.push_back(
        bytesEvidence("non_cache_other_end_bytes", static_cast<double>(buckets.nonCacheOther[rows.back()])));
    f.evidence.push_back(bytesEvidence("reporter_growth_bytes", reporter.fittedChangeBytes));
    f.evidence.push_back(countEvidence("reporter_count", static_cast<double>(reporterNames.size())));
    pointAtLastRow(f, ticks, rows);
    std::string reporterText;
    if (reporterNames.empty()) {
        reporterText = " No reporter is registered, so none of the non-cache memory has a name.";
    } else {
        std::string list;
        for (uint32_t name : reporterNames)
            list += (list.empty() ? "'" : ", '") + ticks.names.text(name) + "'";
        reporterText = " The registered reporters (" + list + ") " +
                       (reportersFlat ? std::string("stayed flat")
                                      : "changed by " + formatBytes(reporter.fittedChangeBytes)) +
                       ", so the growth belongs to an owner nobody reports.";
    }
    f.description = "Unattributed memory (non_cache_other = live allocations outside caches, leases and "
                    "reporters) grew by " +
                    formatBytes(other.fittedChangeBytes) + " (" +
                    formatBytesPerSecond(other.slopeBytesPerSecond) + ", r² " + formatRatio(other.rSquared) +
                    ") to " + formatBytes(static_cast<double>(buckets.nonCacheOther[rows.back()])) + "." +
                    reporterText;
    f.remediation = {
        "Register a reporter for each large subsystem outside the caches (request buffers, indexes, "
        "connection pools) so its bytes appear by name in every tick.",
        "Arm heap profiling with MEMORY_BUDGET_HEAP_PROFILE_DIR and compare two dumps taken minutes apart "
        "to find which call sites own the growing bytes.",
        "Once the owner is known, bound it or register it as a cache so the budget can shrink it.",
    };
    return f;
}

// ------------------------------------------------------------------ wedged budget

std::vector<WedgeEpisode> findWedgeEpisodes(const BudgetTicks& ticks)
{
    std::vector<WedgeEpisode> episodes;
    const SlotTimeline timeline = buildSlotTimeline(ticks);
    std::optional<WedgeEpisode> current;
    const auto finish = [&](int64_t lastSlot) {
        if (!current)
            return;
        current->lastSlot = lastSlot;
        current->endsLog = lastSlot >= timeline.lastTickSlot;
        episodes.push_back(std::move(*current));
        current.reset();
    };
    for (size_t s = 0; s < timeline.label.size(); ++s) {
        const uint32_t id = timeline.label[s];
        const std::string_view label = id == kUnknownSlot ? std::string_view() : ticks.names.text(id);
        const bool skip = isSkipShrinkLabel(label);
        const bool acting = skip || isShrinkLabel(label);
        if (!acting) {
            finish(static_cast<int64_t>(s) - 1);
            continue;
        }
        if (!current) {
            current = WedgeEpisode{};
            current->firstSlot = static_cast<int64_t>(s);
        }
        (skip ? current->skipShrinkTicks : current->shrinkTicks) += 1;
        current->trailingShrinkTicks = skip ? 0 : current->trailingShrinkTicks + 1;
        if (timeline.loggedTick[s] >= 0)
            current->loggedTicks.push_back(static_cast<uint32_t>(timeline.loggedTick[s]));
    }
    finish(static_cast<int64_t>(timeline.label.size()) - 1);
    for (auto& episode : episodes)
        episode.lease = leaseRelease(ticks, timeline, episode);
    return episodes;
}

// What the shrinks of a wedge episode did, in the words of the wedge finding: shrinks followed
// by more refusals did not bring rss back; the trailing ones either ended the episode or were
// still running when the log ends.
std::string shrinkWording(const WedgeEpisode& episode)
{
    const int64_t between = episode.shrinkTicks - episode.trailingShrinkTicks;
    const auto shrinks = [](int64_t n) { return std::to_string(n) + (n == 1 ? " shrink" : " shrinks"); };
    std::string text;
    if (between > 0)
        text += "; " + shrinks(between) + " in between did not bring rss back";
    if (episode.trailingShrinkTicks > 0)
        text += episode.endsLog ? "; the log ends after " + shrinks(episode.trailingShrinkTicks) +
                                      " that had not yet brought rss back"
                                : "; " + shrinks(episode.trailingShrinkTicks) +
                                      " at the end brought rss back under the band";
    return text;
}

std::optional<Finding> findWedgedBudget(const BudgetTicks& ticks, const BudgetBuckets& buckets,
                                        const BudgetThresholds& th)
{
    // an episode a temporary lease explains is lease pressure (findLeasePressure)
    const LongEpisodes wedged = longEpisodes(findWedgeEpisodes(ticks), th, false);
    if (!wedged.worst)
        return std::nullopt;
    const WedgeEpisode* worst = &*wedged.worst;
    const int64_t wedgedCount = wedged.count;
    const int64_t slots = worst->lastSlot - worst->firstSlot + 1;
    const double duration = episodeSeconds(ticks, *worst);
    double maxOvershoot = 0;
    uint32_t worstTick = worst->loggedTicks.front();
    for (uint32_t row : worst->loggedTicks) {
        const double overshoot =
            static_cast<double>(ticks.rssBytes[row]) - static_cast<double>(ticks.effectiveTargetBytes[row]);
        if (overshoot > maxOvershoot) {
            maxOvershoot = overshoot;
            worstTick = row;
        }
    }
    const double effective = static_cast<double>(ticks.effectiveTargetBytes[worstTick]);
    const double nonCacheShare =
        effective > 0 ? static_cast<double>(buckets.nonCache[worstTick]) / effective : 0.0;
    const double lease = static_cast<double>(ticks.leaseBytesActive[worstTick]);

    Finding f;
    f.classification = Classification::WedgedBudget;
    const auto n = static_cast<double>(th.wedgeSkipTicks);
    f.confidence = pyRound(
        std::min(1.0, 0.5 + 0.5 * (static_cast<double>(worst->skipShrinkTicks) - n) / std::max(n, 1.0)), 3);
    f.severity = worst->skipShrinkTicks >= 2 * th.wedgeSkipTicks || worst->endsLog ? Severity::Critical
                                                                                   : Severity::Warning;
    appendEpisodeEvidence(f, ticks, *worst, duration);
    f.evidence.push_back(bytesEvidence("max_overshoot_bytes", maxOvershoot));
    f.evidence.push_back(
        realEvidence("non_cache_share_of_effective_target", nonCacheShare, 4, EvidenceUnit::Ratio));
    f.evidence.push_back(bytesEvidence("lease_bytes_active", lease));
    f.evidence.push_back(countEvidence("wedged_episodes", static_cast<double>(wedgedCount)));

    f.description =
        "For " + formatSeconds(duration) + " (" + std::to_string(slots) +
        " ticks) rss stayed above the shrink band, and on " + std::to_string(worst->skipShrinkTicks) +
        " of those ticks the budget declined to shrink because shrinking the caches could not help "
        "(skip-shrink" +
        shrinkWording(*worst) + "). At worst rss exceeded the effective target by " +
        formatBytes(maxOvershoot) + "; memory outside the caches alone was " + formatPercent(nonCacheShare) +
        " of the effective target" +
        (lease > 0 ? ", with " + formatBytes(lease) + " reserved by leases" : std::string()) + "." +
        (worst->endsLog ? " The log ends while the budget is still wedged." : "") +
        (wedgedCount > 1 ? " " + std::to_string(wedgedCount) + " such episodes are in the log." : "");
    f.remediation = {
        "Find what outside the caches keeps rss up (see the leak, retention and unattributed findings and "
        "the "
        "non-cache breakdown); the budget can only resize caches.",
        "If the working set is legitimately this large, raise MEMORY_BUDGET_TARGET_MIB to fit it, leaving "
        "room "
        "below the machine's memory.",
        "Check lease sizing: a lease reserves its bytes from the effective target for as long as the guard "
        "lives, so oversized or leaked lease guards keep the target artificially low.",
        "Set MEMORY_BUDGET_HARD_CEILING_MIB as a last line of defence so a wedged process aborts with a "
        "message instead of being OOM-killed.",
    };
    return f;
}

// ------------------------------------------------------------------ lease pressure

std::optional<Finding> findLeasePressure(const BudgetTicks& ticks, const BudgetThresholds& th)
{
    // as long as a wedge would be: shorter refusals are the policy working as intended
    const LongEpisodes explained = longEpisodes(findWedgeEpisodes(ticks), th, true);
    if (!explained.worst)
        return std::nullopt;
    const WedgeEpisode* worst = &*explained.worst;
    const int64_t pressureCount = explained.count;
    const LeaseRelease& lease = *worst->lease;
    const int64_t slots = worst->lastSlot - worst->firstSlot + 1;
    const double duration = episodeSeconds(ticks, *worst);
    // from the first tick the lease was seen to the first tick it was seen gone (released), or
    // to the last tick it was seen held (shrunk back)
    const double leaseSeconds =
        secondsBetween(ticks.timestampNs[lease.firstLeaseTick], ticks.timestampNs[lease.releaseTick]);
    double maxOvershoot = 0;
    for (uint32_t row : worst->loggedTicks)
        maxOvershoot = std::max(maxOvershoot, static_cast<double>(ticks.rssBytes[row]) -
                                                  static_cast<double>(ticks.effectiveTargetBytes[row]));
    const double leaseBytes = static_cast<double>(lease.leaseBytes);
    const double target = static_cast<double>(lease.targetBytes);
    const double maxRss = static_cast<double>(lease.maxRssBytes);
    const double rssShare = target > 0 ? maxRss / target : 0.0;

    Finding f;
    f.classification = Classification::LeasePressure;
    f.severity = Severity::Info;
    // a release seen only after ticks that were not logged may have come later than the episode's end
    f.confidence = lease.releasedNextTick ? 1.0 : 0.75;
    f.evidence.push_back(bytesEvidence("lease_bytes", leaseBytes));
    f.evidence.push_back(realEvidence("lease_seconds", leaseSeconds, 1, EvidenceUnit::Seconds));
    appendEpisodeEvidence(f, ticks, *worst, duration);
    f.evidence.push_back(bytesEvidence("max_overshoot_bytes", maxOvershoot));
    f.evidence.push_back(bytesEvidence("max_rss_bytes", maxRss));
    f.evidence.push_back(realEvidence("max_rss_share_of_target", rssShare, 4, EvidenceUnit::Ratio));
    f.evidence.push_back(countEvidence("lease_episodes", static_cast<double>(pressureCount)));

    const bool released = lease.end == LeaseEpisodeEnd::Released;
    const std::string lowered = "A lease of " + formatBytes(leaseBytes) +
                                " lowered the effective target from " + formatBytes(target) + " to " +
                                formatBytes(std::max(0.0, target - leaseBytes));
    const std::string held =
        released ? " for " + std::string(lease.releasedNextTick ? "about " : "at most ") +
                       formatSeconds(leaseSeconds) +
                       (lease.releasedNextTick ? "" : " (the ticks before its release were not logged)")
                 : " and was still held " + formatSeconds(leaseSeconds) + " after it was first seen";
    const std::string ending =
        released ? " The budget went back to holding when the lease was released"
                 : " Then " + std::to_string(worst->trailingShrinkTicks) +
                       (worst->trailingShrinkTicks == 1 ? " shrink" : " shrinks") +
                       " brought rss back within the band of the lowered target while the lease was still "
                       "held";
    f.description =
        lowered + held + ". For " + std::to_string(slots) +
        " ticks rss stood above the shrink band of the lowered target, and on " +
        std::to_string(worst->skipShrinkTicks) +
        " of them the budget declined to shrink caches that were not growing. Without the lease the "
        "budget would not have acted: rss peaked at " +
        formatBytes(maxRss) + ", " + formatPercent(rssShare) + " of the configured target." + ending +
        "; this is the lease reserving room as intended, not a wedged budget." +
        (pressureCount > 1 ? " " + std::to_string(pressureCount) + " such lease windows are in the log."
                           : "");
    f.remediation = {
        released ? "Nothing needs fixing if the leased operation is expected at this size: the pressure "
                   "ended with the lease."
                 : "Nothing needs fixing if the leased operation is expected at this size: the budget made "
                   "room for the lease by shrinking its caches.",
        "Drop each lease guard as soon as its operation has allocated what it reserved: while the guard "
        "lives the lease lowers the effective target, and bytes already allocated count in rss as well.",
        "If such leases are routine and the caches keep making room for them, leave that much headroom "
        "under MEMORY_BUDGET_TARGET_MIB (or raise the target when the machine has the memory) so a lease "
        "does not push the policy over its shrink band.",
        "Watch for leases that are never released: an episode that neither a release nor the budget's "
        "shrinks end is reported as a wedged budget.",
    };
    return f;
}

// ------------------------------------------------------------------ over target

std::optional<Finding> findOverTarget(const BudgetTicks& ticks, const BudgetThresholds& th)
{
    if (ticks.empty())
        return std::nullopt;
    const int64_t period = budgetTickPeriodNs(ticks);
    int64_t slots = static_cast<int64_t>(ticks.size());
    if (period > 0)
        slots = std::max(
            slots,
            saturatingAdd(
                roundedDivide(WideInt(ticks.timestampNs.back()) - ticks.timestampNs.front(), period), 1));
    const std::vector<TickGap> gaps = findTickGaps(ticks, period);
    size_t gapIndex = 0;
    int64_t overTicks = 0;
    int64_t longest = 0;
    int64_t run = 0;
    double maxOvershoot = 0;
    uint32_t overshootTick = 0;
    uint32_t maxRssTick = 0;
    for (size_t i = 0; i < ticks.size(); ++i) {
        // a gap breaks a consecutive run: the missing ticks are not known to be over
        if (gapIndex < gaps.size() && gaps[gapIndex].beforeTick + 1 == i) {
            run = 0;
            ++gapIndex;
        }
        if (ticks.rssBytes[i] > ticks.rssBytes[maxRssTick])
            maxRssTick = static_cast<uint32_t>(i);
        const bool over = ticks.targetBytes[i] > 0 && ticks.rssBytes[i] > ticks.effectiveTargetBytes[i];
        if (!over) {
            run = 0;
            continue;
        }
        ++overTicks;
        longest = std::max(longest, ++run);
        const double overshoot =
            static_cast<double>(ticks.rssBytes[i]) - static_cast<double>(ticks.effectiveTargetBytes[i]);
        if (overshoot > maxOvershoot) {
            maxOvershoot = overshoot;
            overshootTick = static_cast<uint32_t>(i);
        }
    }
    const double share = static_cast<double>(overTicks) / static_cast<double>(slots);
    const double maxRss = static_cast<double>(ticks.rssBytes[maxRssTick]);
    const bool ceilingKnown = th.hardCeilingBytes && *th.hardCeilingBytes > 0;
    const double ceilingShare = ceilingKnown ? maxRss / static_cast<double>(*th.hardCeilingBytes) : 0.0;
    const bool nearCeiling = ceilingKnown && ceilingShare >= th.hardCeilingApproachShare;
    if (share < th.overTargetShare && !nearCeiling)
        return std::nullopt;

    Finding f;
    f.classification = Classification::OverTarget;
    f.severity = nearCeiling ? Severity::Critical : Severity::Warning;
    const double shareConfidence = std::min(1.0, share / (2 * th.overTargetShare));
    f.confidence =
        pyRound(nearCeiling ? std::max(shareConfidence, std::min(1.0, ceilingShare)) : shareConfidence, 3);
    f.evidence.push_back(
        countEvidence("over_target_ticks", static_cast<double>(overTicks), EvidenceUnit::Ticks));
    f.evidence.push_back(countEvidence("tick_slots", static_cast<double>(slots), EvidenceUnit::Ticks));
    f.evidence.push_back(realEvidence("over_target_share", share, 4, EvidenceUnit::Ratio));
    f.evidence.push_back(
        countEvidence("longest_over_target_ticks", static_cast<double>(longest), EvidenceUnit::Ticks));
    f.evidence.push_back(bytesEvidence("max_overshoot_bytes", maxOvershoot));
    f.evidence.push_back(bytesEvidence("max_rss_bytes", maxRss));
    if (ceilingKnown) {
        f.evidence.push_back(bytesEvidence("hard_ceiling_bytes", static_cast<double>(*th.hardCeilingBytes)));
        f.evidence.push_back(realEvidence("max_rss_share_of_ceiling", ceilingShare, 4, EvidenceUnit::Ratio));
    }
    const uint32_t row = nearCeiling ? maxRssTick : overshootTick;
    f.evidenceRow = row;
    f.evidenceTimestampNs = ticks.timestampNs[row];
    std::string text;
    if (share >= th.overTargetShare)
        text = "rss was above the effective target on " + std::to_string(overTicks) + " of " +
               std::to_string(slots) + " ticks (" + formatPercent(share) + ", longest stretch " +
               std::to_string(longest) + " ticks), by up to " + formatBytes(maxOvershoot) + ".";
    if (nearCeiling)
        text += std::string(text.empty() ? "" : " ") + "rss peaked at " + formatBytes(maxRss) + ", " +
                formatPercent(ceilingShare) + " of the hard ceiling (" +
                formatBytes(static_cast<double>(*th.hardCeilingBytes)) + ") at which the process aborts.";
    if (ticks.leaseBytesActive[overshootTick] > 0)
        text += " Leases reserved " +
                formatBytes(static_cast<double>(ticks.leaseBytesActive[overshootTick])) +
                " of the target at the worst tick.";
    f.description = text;
    f.remediation = {
        "If the workload needs this much memory, raise MEMORY_BUDGET_TARGET_MIB (default min(80% of RAM, "
        "4 GiB)) so the policy stops fighting it.",
        "Otherwise reduce what the caches cannot give back: see the non-cache breakdown and the growth "
        "findings.",
        "Size leases to what the operation really needs and drop the guard as soon as it is done; live "
        "leases "
        "lower the effective target one for one.",
    };
    if (ceilingKnown)
        f.remediation.push_back("MEMORY_BUDGET_HARD_CEILING_MIB aborts the process when crossed: keep enough "
                                "distance between the target and the ceiling for the policy to react.");
    else
        f.remediation.push_back("Set MEMORY_BUDGET_HARD_CEILING_MIB so a runaway process aborts with a "
                                "diagnosis before the OS kills it.");
    return f;
}

// ------------------------------------------------------------------ OS-vs-allocator gap

std::vector<Finding> findOsAllocatorGap(const BudgetTicks& ticks, const BudgetThresholds& th)
{
    // The gap analysis' columns: reserved = what the budget acted on (rss), used = the OS
    // reading, total = the configured target (the "capacity" the gap ratio is taken of).
    const size_t n = ticks.size();
    std::vector<int64_t> total(n);
    std::vector<uint32_t> rows;
    for (size_t i = 0; i < n; ++i) {
        total[i] = ticks.targetBytes[i] > 0 ? ticks.targetBytes[i] : ticks.rssSysinfoBytes[i];
        if (total[i] > 0)
            rows.push_back(static_cast<uint32_t>(i));
    }
    GapInput input;
    input.timestampNs = ticks.timestampNs;
    input.allocated = ticks.rssBytes;
    input.reserved = ticks.rssBytes;
    input.used = ticks.rssSysinfoBytes;
    input.total = total;
    input.rows = rows;
    std::vector<Finding> findings;
    for (Finding f : analyzeGaps(input, th.osGap)) {
        if (f.classification == Classification::TransientSpike) {
            f.classification = Classification::OsAllocatorSpike;
            const EvidenceValue* maxGap = f.findEvidence("max_gap_bytes");
            f.description =
                "The OS reports a short-lived jump of memory the budget does not see: rss_sysinfo "
                "exceeded rss by up to " +
                formatBytes(maxGap ? maxGap->value : 0) +
                ", well outside the usual gap. Something outside the allocator the budget watches "
                "mapped memory briefly (memory-mapped files, a second allocator, thread stacks, "
                "a native library).";
            f.remediation = {
                "Look at what runs at the evidence tick: large mmap'd reads, native libraries with their own "
                "malloc, bursts of thread creation.",
                "If the spikes come from another allocator, route it through jemalloc or budget it with a "
                "lease taken before the burst.",
                "Keep MEMORY_BUDGET_HARD_CEILING_MIB high enough above the target to absorb such bursts.",
            };
        } else if (f.classification == Classification::PersistentDrift) {
            f.classification = Classification::OsAllocatorDrift;
            const EvidenceValue* slope = f.findEvidence("slope_bytes_per_sec");
            const EvidenceValue* end = f.findEvidence("gap_end_bytes");
            f.description =
                "Memory the OS charges to the process but the budget's rss does not include keeps "
                "growing (rss_sysinfo - rss, " +
                formatBytesPerSecond(slope ? slope->value : 0) + ", " + formatBytes(end ? end->value : 0) +
                " at the end). The budget cannot see or shrink it: memory from another allocator, "
                "memory-mapped files, or allocator metadata.";
            f.remediation = {
                "Check for a second allocator (system malloc in a native library, a language runtime) and "
                "route it through jemalloc or report it with a reporter.",
                "Look for growing memory mappings (e.g. /proc/<pid>/smaps) outside the jemalloc arenas.",
                "Use a crate version whose rss is the maximum of the OS and allocator readings so the policy "
                "acts on what the OS sees.",
            };
        } else {
            continue; // fragmentation needs per-sample ratios the budget does not log
        }
        findings.push_back(std::move(f));
    }
    return findings;
}

// ------------------------------------------------------------------ cache thrash

std::vector<Finding> findCacheThrash(const BudgetTicks& ticks, const BudgetThresholds& th)
{
    std::vector<Finding> findings;
    if (ticks.empty())
        return findings;
    const int64_t period = budgetTickPeriodNs(ticks);
    const auto slotOf = [&](uint32_t tick) -> int64_t {
        return period > 0
                   ? roundedDivide(WideInt(ticks.timestampNs[tick]) - ticks.timestampNs.front(), period)
                   : static_cast<int64_t>(tick);
    };
    std::map<uint32_t, std::vector<const BudgetCacheRow*>> rowsByCache;
    for (const auto& row : ticks.caches)
        rowsByCache[row.name].push_back(&row);
    const auto window = static_cast<int64_t>(th.thrashWindowTicks);
    for (const auto& [name, rows] : rowsByCache) {
        const std::string& cacheName = ticks.names.text(name);
        // (a) caps reversing direction again and again
        struct Reversal
        {
            int64_t slot;
            uint32_t tick;
            double swing;
        };
        std::vector<Reversal> reversals;
        int previousSign = 0;
        for (const BudgetCacheRow* row : rows) {
            const int sign = (row->deltaBytes > 0) - (row->deltaBytes < 0);
            if (sign == 0)
                continue;
            if (previousSign != 0 && sign != previousSign)
                reversals.push_back(
                    {slotOf(row->tick), row->tick, std::fabs(static_cast<double>(row->deltaBytes))});
            previousSign = sign;
        }
        size_t bestBegin = 0;
        size_t bestCount = 0;
        for (size_t begin = 0, end = 0; begin < reversals.size(); ++begin) {
            end = std::max(end, begin);
            while (end < reversals.size() &&
                   saturatingSub(reversals[end].slot, reversals[begin].slot) < window)
                ++end;
            if (end - begin > bestCount) {
                bestCount = end - begin;
                bestBegin = begin;
            }
        }
        if (th.thrashAlternations > 0 && static_cast<int64_t>(bestCount) >= th.thrashAlternations) {
            double swing = 0;
            for (size_t k = bestBegin; k < bestBegin + bestCount; ++k)
                swing += reversals[k].swing;
            const uint32_t tick = reversals[bestBegin].tick;
            Finding f;
            f.classification = Classification::CacheThrash;
            f.severity = Severity::Warning;
            f.confidence = pyRound(std::min(1.0, static_cast<double>(bestCount) /
                                                     (2.0 * static_cast<double>(th.thrashAlternations))),
                                   3);
            f.evidence.push_back(countEvidence("cap_reversals", static_cast<double>(bestCount)));
            f.evidence.push_back(
                countEvidence("window_ticks", static_cast<double>(window), EvidenceUnit::Ticks));
            f.evidence.push_back(bytesEvidence("cap_swing_bytes", swing));
            f.evidenceRow = tick;
            f.evidenceTimestampNs = ticks.timestampNs[tick];
            f.description =
                "The cap of cache '" + cacheName + "' changed direction " + std::to_string(bestCount) +
                " times within " + std::to_string(window) + " ticks (shrink, grow, shrink, ...), moving " +
                formatBytes(swing) +
                " in total. The policy oscillates between its bands (shrink above 1.05 x target, grow "
                "below 0.70 x target): each shrink frees enough to allow a grow that overshoots again, "
                "and the cache loses its contents every time.";
            f.remediation = {
                "Pin a smaller maximum for '" + cacheName +
                    "' so its refills cannot push rss back over the shrink band.",
                "Check for leases taken and released in quick succession: each one moves the effective "
                "target and "
                "can flip the verdict on its own; size them once for the whole operation.",
                "If rss sits near the target because the target is too tight for the workload, raise "
                "MEMORY_BUDGET_TARGET_MIB.",
            };
            findings.push_back(std::move(f));
        }
        // (b) a cache that misses often while holding a large share of the budget
        double hitSum = 0;
        size_t hitCount = 0;
        double shareSum = 0;
        size_t shareCount = 0;
        double bytesSum = 0;
        uint32_t lastTick = rows.back()->tick;
        for (const BudgetCacheRow* row : rows) {
            if (row->hitRate && std::isfinite(*row->hitRate)) {
                hitSum += *row->hitRate;
                ++hitCount;
            }
            const double target = static_cast<double>(ticks.targetBytes[row->tick]);
            if (target > 0) {
                shareSum += static_cast<double>(row->currentBytes) / target;
                ++shareCount;
            }
            bytesSum += static_cast<double>(row->currentBytes);
        }
        if (hitCount < std::max<size_t>(th.minHitRateTicks, 1) || shareCount == 0)
            continue;
        const double meanHit = hitSum / static_cast<double>(hitCount);
        const double meanShare = shareSum / static_cast<double>(shareCount);
        if (meanHit >= th.lowHitRate || meanShare < th.lowHitRateBudgetShare)
            continue;
        const double meanBytes = bytesSum / static_cast<double>(rows.size());
        Finding f;
        f.classification = Classification::CacheThrash;
        f.severity = Severity::Warning;
        const double missing = th.lowHitRate > 0 ? 1.0 - meanHit / th.lowHitRate : 0.0;
        const double excess = th.lowHitRateBudgetShare > 0 ? meanShare / th.lowHitRateBudgetShare : 1.0;
        f.confidence = pyRound(std::clamp(0.5 * missing + 0.5 * std::min(1.0, excess / 2.0), 0.0, 1.0), 3);
        f.evidence.push_back(realEvidence("mean_hit_rate", meanHit, 4, EvidenceUnit::Ratio));
        f.evidence.push_back(realEvidence("budget_share", meanShare, 4, EvidenceUnit::Ratio));
        f.evidence.push_back(bytesEvidence("mean_current_bytes", meanBytes));
        f.evidence.push_back(countEvidence("tick_count", static_cast<double>(hitCount), EvidenceUnit::Ticks));
        f.evidenceRow = lastTick;
        f.evidenceTimestampNs = ticks.timestampNs[lastTick];
        f.description =
            "Cache '" + cacheName + "' holds " + formatBytes(meanBytes) + " on average (" +
            formatPercent(meanShare) + " of the budget target) but hits only " + formatPercent(meanHit) +
            " of its lookups: most of what it keeps is never asked for again, and the memory would "
            "serve the other caches or the program better.";
        f.remediation = {
            "Cap '" + cacheName +
                "' well below its current size, or key it differently so entries are reused.",
            "Check whether the access pattern is a scan (each key read once); such reads should bypass the "
            "cache.",
            "Give the memory to a cache with a high hit rate, or lower MEMORY_BUDGET_TARGET_MIB if nothing "
            "else "
            "needs it.",
        };
        findings.push_back(std::move(f));
    }
    return findings;
}

std::vector<Finding> analyzeBudget(const BudgetTicks& ticks, const BudgetThresholds& thresholds)
{
    std::vector<Finding> findings;
    if (ticks.empty())
        return findings;
    const BudgetBuckets buckets = computeBudgetBuckets(ticks);
    for (auto rule :
         {findLeakOutsideCaches, findAllocatorRetention, findUnattributedGrowth, findWedgedBudget})
        if (auto f = rule(ticks, buckets, thresholds))
            findings.push_back(std::move(*f));
    if (auto f = findLeasePressure(ticks, thresholds))
        findings.push_back(std::move(*f));
    if (auto f = findOverTarget(ticks, thresholds))
        findings.push_back(std::move(*f));
    for (auto& f : findOsAllocatorGap(ticks, thresholds))
        findings.push_back(std::move(f));
    for (auto& f : findCacheThrash(ticks, thresholds))
        findings.push_back(std::move(f));
    const auto rank = [](Severity s) { return s == Severity::Critical ? 0 : s == Severity::Warning ? 1 : 2; };
    std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
        if (rank(a.severity) != rank(b.severity))
            return rank(a.severity) < rank(b.severity);
        return a.confidence > b.confidence;
    });
    return findings;
}

} // namespace gapscope
