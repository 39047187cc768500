#include "analysis/BudgetTicks.h"

#include "analysis/Int64Math.h"

#include <algorithm>
#include <cctype>

namespace gapscope {

uint32_t BudgetNameTable::intern(std::string_view text)
{
    if (text.empty())
        return kEmptyName;
    if (auto it = m_ids.find(text); it != m_ids.end())
        return it->second;
    if (m_texts.empty())
        m_texts.emplace_back(); // kEmptyName
    const auto id = static_cast<uint32_t>(m_texts.size());
    m_texts.emplace_back(text);
    m_ids.emplace(m_texts.back(), id);
    return id;
}

std::optional<uint32_t> BudgetNameTable::find(std::string_view text) const
{
    if (text.empty())
        return kEmptyName;
    auto it = m_ids.find(text);
    if (it == m_ids.end())
        return std::nullopt;
    return it->second;
}

const std::string& BudgetNameTable::text(uint32_t id) const
{
    static const std::string empty;
    return id == kEmptyName ? empty : m_texts.at(id);
}

std::string_view toString(BudgetLogLevel level)
{
    switch (level) {
    case BudgetLogLevel::Trace:
        return "TRACE";
    case BudgetLogLevel::Debug:
        return "DEBUG";
    case BudgetLogLevel::Info:
        return "INFO";
    case BudgetLogLevel::Warn:
        return "WARN";
    case BudgetLogLevel::Error:
        return "ERROR";
    case BudgetLogLevel::Unknown:
        break;
    }
    return "";
}

std::optional<BudgetLogLevel> budgetLogLevelFromString(std::string_view text)
{
    // Compared in place: the text loader asks this of every header token of every line.
    const auto is = [text](std::string_view upper) {
        return std::equal(text.begin(), text.end(), upper.begin(), upper.end(), [](char c, char u) {
            return std::toupper(static_cast<unsigned char>(c)) == static_cast<unsigned char>(u);
        });
    };
    if (is("TRACE"))
        return BudgetLogLevel::Trace;
    if (is("DEBUG"))
        return BudgetLogLevel::Debug;
    if (is("INFO"))
        return BudgetLogLevel::Info;
    if (is("WARN") || is("WARNING"))
        return BudgetLogLevel::Warn;
    if (is("ERROR"))
        return BudgetLogLevel::Error;
    return std::nullopt;
}

namespace {

template <typename Row> std::span<const Row> rowsOfTick(const std::vector<Row>& rows, size_t tick)
{
    auto lower = std::lower_bound(rows.begin(), rows.end(), tick,
                                  [](const Row& row, size_t t) { return row.tick < t; });
    auto upper = lower;
    while (upper != rows.end() && upper->tick == tick)
        ++upper;
    return {lower, upper};
}

int64_t saturatingDifference(int64_t a, int64_t b)
{
    return a > b ? a - b : 0;
}

} // namespace

std::span<const BudgetCacheRow> BudgetTicks::cachesOf(size_t tick) const
{
    return rowsOfTick(caches, tick);
}

std::span<const BudgetReporterRow> BudgetTicks::reportersOf(size_t tick) const
{
    return rowsOfTick(reporters, tick);
}

bool BudgetTicks::hasJemalloc(size_t tick) const
{
    return jeAllocatedBytes[tick] != 0 || jeActiveBytes[tick] != 0 || jeMetadataBytes[tick] != 0 ||
           jeResidentBytes[tick] != 0 || jeMappedBytes[tick] != 0 || jeRetainedBytes[tick] != 0;
}

BudgetBuckets computeBudgetBuckets(const BudgetTicks& ticks)
{
    const size_t n = ticks.size();
    BudgetBuckets b;
    b.cache.assign(n, 0);
    b.capsAfter.assign(n, 0);
    b.reporter.assign(n, 0);
    for (const auto& row : ticks.caches) {
        b.cache[row.tick] += std::max<int64_t>(row.currentBytes, 0);
        b.capsAfter[row.tick] += std::max<int64_t>(row.newMaxBytes, 0);
    }
    for (const auto& row : ticks.reporters)
        b.reporter[row.tick] += std::max<int64_t>(row.currentBytes, 0);
    b.nonCache.resize(n);
    b.nonCacheLive.resize(n);
    b.nonCacheOther.resize(n);
    b.allocatorRetention.resize(n);
    b.osGap.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const int64_t cacheAndLease = b.cache[i] + std::max<int64_t>(ticks.leaseBytesActive[i], 0);
        b.nonCache[i] = saturatingDifference(ticks.rssBytes[i], cacheAndLease);
        b.nonCacheLive[i] = saturatingDifference(ticks.jeAllocatedBytes[i], cacheAndLease);
        b.nonCacheOther[i] = saturatingDifference(b.nonCacheLive[i], b.reporter[i]);
        b.allocatorRetention[i] = saturatingDifference(b.nonCache[i], b.nonCacheLive[i]);
        b.osGap[i] = saturatingDifference(ticks.rssSysinfoBytes[i], ticks.rssBytes[i]);
    }
    return b;
}

int64_t budgetTickPeriodNs(const BudgetTicks& ticks)
{
    std::vector<int64_t> deltas;
    deltas.reserve(ticks.size());
    for (size_t i = 1; i < ticks.size(); ++i) {
        // timestamps centuries apart still give a (huge) positive delta, never a wrapped one
        const int64_t d = saturatingSub(ticks.timestampNs[i], ticks.timestampNs[i - 1]);
        if (d > 0)
            deltas.push_back(d);
    }
    if (deltas.empty())
        return 0;
    // The lower median: with an even count the smaller middle value, never an average
    // with a gap-inflated delta.
    const size_t mid = (deltas.size() - 1) / 2;
    std::nth_element(deltas.begin(), deltas.begin() + static_cast<std::ptrdiff_t>(mid), deltas.end());
    return deltas[mid];
}

std::vector<TickGap> findTickGaps(const BudgetTicks& ticks, int64_t periodNs)
{
    std::vector<TickGap> gaps;
    if (periodNs <= 0)
        return gaps;
    for (size_t i = 1; i < ticks.size(); ++i) {
        // d / period rounded to the nearest whole number of periods (jitter tolerated)
        const int64_t periods =
            roundedDivide(WideInt(ticks.timestampNs[i]) - ticks.timestampNs[i - 1], periodNs);
        if (periods >= 2)
            gaps.push_back(
                {static_cast<uint32_t>(i - 1), ticks.timestampNs[i - 1], ticks.timestampNs[i], periods - 1});
    }
    return gaps;
}

bool isSkipShrinkLabel(std::string_view label)
{
    return label.starts_with("skip-shrink");
}
bool isShrinkLabel(std::string_view label)
{
    return label == "shrink";
}
bool isHoldLabel(std::string_view label)
{
    return label == "hold";
}

} // namespace gapscope
