#include "model/budget/BudgetAnalysisRunner.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gapscope {

int64_t BudgetAnalysisResult::originNs() const
{
    return data && !data->ticks.empty() ? data->ticks.timestampNs.front() : 0;
}

namespace {

template <typename T> std::vector<T> sliceColumn(const std::vector<T>& column, size_t first, size_t last)
{
    return std::vector<T>(column.begin() + std::ptrdiff_t(first), column.begin() + std::ptrdiff_t(last));
}

template <typename Row> std::vector<Row> sliceRows(const std::vector<Row>& rows, size_t first, size_t last)
{
    std::vector<Row> out;
    for (const Row& row : rows) {
        if (row.tick < first || row.tick >= last)
            continue;
        Row copy = row;
        copy.tick = uint32_t(row.tick - first);
        out.push_back(copy);
    }
    return out;
}

} // namespace

BudgetTicks sliceBudgetTicks(const BudgetTicks& ticks, size_t first, size_t last)
{
    last = std::min(last, ticks.size());
    first = std::min(first, last);
    BudgetTicks out;
    out.timestampNs = sliceColumn(ticks.timestampNs, first, last);
    out.targetBytes = sliceColumn(ticks.targetBytes, first, last);
    out.effectiveTargetBytes = sliceColumn(ticks.effectiveTargetBytes, first, last);
    out.rssBytes = sliceColumn(ticks.rssBytes, first, last);
    out.rssSysinfoBytes = sliceColumn(ticks.rssSysinfoBytes, first, last);
    out.leaseBytesActive = sliceColumn(ticks.leaseBytesActive, first, last);
    out.jeAllocatedBytes = sliceColumn(ticks.jeAllocatedBytes, first, last);
    out.jeActiveBytes = sliceColumn(ticks.jeActiveBytes, first, last);
    out.jeMetadataBytes = sliceColumn(ticks.jeMetadataBytes, first, last);
    out.jeResidentBytes = sliceColumn(ticks.jeResidentBytes, first, last);
    out.jeMappedBytes = sliceColumn(ticks.jeMappedBytes, first, last);
    out.jeRetainedBytes = sliceColumn(ticks.jeRetainedBytes, first, last);
    out.verdictLabel = sliceColumn(ticks.verdictLabel, first, last);
    out.verdictDetail = sliceColumn(ticks.verdictDetail, first, last);
    out.verdictStreak = sliceColumn(ticks.verdictStreak, first, last);
    out.previousVerdictLabel = sliceColumn(ticks.previousVerdictLabel, first, last);
    out.previousVerdictStreak = sliceColumn(ticks.previousVerdictStreak, first, last);
    out.level = sliceColumn(ticks.level, first, last);
    out.sourceLine = sliceColumn(ticks.sourceLine, first, last);
    out.caches = sliceRows(ticks.caches, first, last);
    out.reporters = sliceRows(ticks.reporters, first, last);
    // name ids stay valid: the whole table is kept
    out.names = ticks.names;
    if (first < last) {
        const int64_t begin = ticks.timestampNs[first];
        const int64_t end = ticks.timestampNs[last - 1];
        for (const BudgetVerdictRunEnd& runEnd : ticks.runEnds)
            if (runEnd.timestampNs >= begin && runEnd.timestampNs <= end)
                out.runEnds.push_back(runEnd);
    }
    return out;
}

std::shared_ptr<const BudgetAnalysisResult> runBudgetAnalysis(std::shared_ptr<const BudgetData> data,
                                                              const BudgetThresholds& thresholds,
                                                              std::optional<TimeWindow> window)
{
    if (!data)
        return nullptr;
    auto result = std::make_shared<BudgetAnalysisResult>();
    result->data = data;
    result->thresholds = thresholds;
    result->window = window;
    const BudgetTicks& ticks = data->ticks;
    result->buckets = computeBudgetBuckets(ticks);
    result->firstTick = 0;
    result->lastTick = ticks.size();
    if (!window) {
        result->findings = analyzeBudget(ticks, thresholds);
        return result;
    }
    const auto& times = ticks.timestampNs;
    result->firstTick = size_t(std::lower_bound(times.begin(), times.end(), window->beginNs) - times.begin());
    result->lastTick = size_t(std::upper_bound(times.begin(), times.end(), window->endNs) - times.begin());
    result->lastTick = std::max(result->lastTick, result->firstTick);
    if (result->firstTick < result->lastTick) {
        // evidence timestamps are absolute, so the window's findings point into the whole log
        result->findings =
            analyzeBudget(sliceBudgetTicks(ticks, result->firstTick, result->lastTick), thresholds);
    }
    return result;
}

std::optional<size_t> budgetTickAt(const BudgetTicks& ticks, int64_t ns)
{
    if (ticks.empty())
        return std::nullopt;
    const auto& times = ticks.timestampNs;
    const auto it = std::upper_bound(times.begin(), times.end(), ns);
    return it == times.begin() ? size_t(0) : size_t(it - times.begin() - 1);
}

std::optional<size_t> nearestBudgetTick(const BudgetTicks& ticks, int64_t ns)
{
    if (ticks.empty())
        return std::nullopt;
    const auto& times = ticks.timestampNs;
    const auto it = std::lower_bound(times.begin(), times.end(), ns);
    if (it == times.begin())
        return size_t(0);
    if (it == times.end())
        return times.size() - 1;
    const size_t after = size_t(it - times.begin());
    // differences in int64: epoch-scale timestamps lose nothing
    return (ns - times[after - 1] <= times[after] - ns) ? after - 1 : after;
}

namespace {

bool setCount(size_t& field, double value)
{
    if (!(value >= 0) || value != std::floor(value) || value > 1e15)
        return false;
    field = size_t(value);
    return true;
}

bool setCount(int64_t& field, double value)
{
    if (!(value >= 0) || value != std::floor(value) || value > 9e18)
        return false;
    field = int64_t(value);
    return true;
}

bool setShare(double& field, double value)
{
    if (!std::isfinite(value) || value < 0)
        return false;
    field = value;
    return true;
}

// A probability, an r squared, a hit rate or a share of all ticks: 0 to 1.
bool setFraction(double& field, double value)
{
    return value <= 1 && setShare(field, value);
}

} // namespace

const std::vector<std::string_view>& budgetThresholdNames()
{
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> list{"min_trend_ticks",
                                           "growth_r_squared",
                                           "growth_p_value",
                                           "min_growth_bytes",
                                           "flat_tolerance_bytes",
                                           "flat_tolerance_share",
                                           "retention_share_of_growth",
                                           "critical_r_squared",
                                           "critical_growth_share_of_target",
                                           "wedge_skip_ticks",
                                           "over_target_share",
                                           "hard_ceiling_bytes",
                                           "hard_ceiling_approach_share",
                                           "thrash_alternations",
                                           "thrash_window_ticks",
                                           "low_hit_rate",
                                           "low_hit_rate_budget_share",
                                           "min_hit_rate_ticks"};
        static std::vector<std::string> prefixed;
        for (auto gap : GapThresholds::names())
            prefixed.push_back("os_gap." + std::string(gap));
        for (const std::string& name : prefixed)
            list.push_back(name);
        return list;
    }();
    return names;
}

bool setBudgetThreshold(BudgetThresholds& t, std::string_view name, double value)
{
    if (name == "min_trend_ticks")
        return setCount(t.minTrendTicks, value);
    if (name == "growth_r_squared")
        return setFraction(t.growthRSquared, value);
    if (name == "growth_p_value")
        return setFraction(t.growthPValue, value);
    if (name == "min_growth_bytes")
        return setCount(t.minGrowthBytes, value);
    if (name == "flat_tolerance_bytes")
        return setCount(t.flatToleranceBytes, value);
    if (name == "flat_tolerance_share")
        return setShare(t.flatToleranceShare, value);
    if (name == "retention_share_of_growth")
        return setShare(t.retentionShareOfGrowth, value);
    if (name == "critical_r_squared")
        return setFraction(t.criticalRSquared, value);
    if (name == "critical_growth_share_of_target")
        return setShare(t.criticalGrowthShareOfTarget, value);
    if (name == "wedge_skip_ticks")
        return setCount(t.wedgeSkipTicks, value);
    if (name == "over_target_share")
        return setFraction(t.overTargetShare, value);
    if (name == "hard_ceiling_bytes") {
        int64_t bytes = 0;
        if (!setCount(bytes, value))
            return false;
        t.hardCeilingBytes = bytes; // 0 is a ceiling of 0 bytes, as asked
        return true;
    }
    if (name == "hard_ceiling_approach_share")
        return setShare(t.hardCeilingApproachShare, value);
    if (name == "thrash_alternations")
        return setCount(t.thrashAlternations, value);
    if (name == "thrash_window_ticks")
        return setCount(t.thrashWindowTicks, value);
    if (name == "low_hit_rate")
        return setFraction(t.lowHitRate, value);
    if (name == "low_hit_rate_budget_share")
        return setShare(t.lowHitRateBudgetShare, value);
    if (name == "min_hit_rate_ticks")
        return setCount(t.minHitRateTicks, value);
    constexpr std::string_view prefix = "os_gap.";
    if (name.substr(0, prefix.size()) == prefix)
        name.remove_prefix(prefix.size());
    return t.osGap.set(name, value);
}

} // namespace gapscope
