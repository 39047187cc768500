#pragma once
// Columnar tick data of a memory-budget log (budget-snapshots.md), independent of the form
// it was read from. Plain C++, no Qt: the loader (model) fills it, the rules
// (BudgetAnalysis.h) and the breakdown view read it.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gapscope {

// Interned strings (cache, reporter and verdict names, verdict details): the columns hold
// small ids and repeat no text. Id 0 is always the empty string.
class BudgetNameTable
{
public:
    uint32_t intern(std::string_view text);
    std::optional<uint32_t> find(std::string_view text) const;
    const std::string& text(uint32_t id) const;
    size_t size() const { return m_texts.empty() ? 1 : m_texts.size(); }

private:
    // Looked up by string_view, without a std::string made for every lookup.
    struct Hash
    {
        using is_transparent = void;
        size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };
    // Both empty until the first name other than "": a table is made for every chunk of a
    // read, most of them with a few names or none.
    std::vector<std::string> m_texts;
    std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> m_ids;
};

inline constexpr uint32_t kEmptyName = 0;

// The level the line was logged at; snapshot JSON lines carry none (Unknown).
enum class BudgetLogLevel : uint8_t
{
    Unknown,
    Trace,
    Debug,
    Info,
    Warn,
    Error
};

std::string_view toString(BudgetLogLevel level);
std::optional<BudgetLogLevel> budgetLogLevelFromString(std::string_view text); // case-insensitive

struct BudgetCacheRow
{
    uint32_t tick = 0; // index of the owning tick
    uint32_t name = kEmptyName;
    int64_t currentBytes = 0;
    int64_t previousMaxBytes = 0;
    int64_t newMaxBytes = 0;
    int64_t deltaBytes = 0;        // new_max - previous_max (as logged)
    std::optional<double> hitRate; // none before any lookup
    bool operator==(const BudgetCacheRow&) const = default;
};

struct BudgetReporterRow
{
    uint32_t tick = 0;
    uint32_t name = kEmptyName;
    int64_t currentBytes = 0;
    bool operator==(const BudgetReporterRow&) const = default;
};

// "verdict run ended previous_verdict=... previous_verdict_streak=N new_verdict=..."; for
// snapshot JSON lines it is derived from the ticks' previous_verdict_* fields.
struct BudgetVerdictRunEnd
{
    int64_t timestampNs = 0;
    uint32_t previousLabel = kEmptyName;
    int64_t previousStreak = 0;
    uint32_t newLabel = kEmptyName;
    int64_t sourceLine = 0; // 1-based line in the source file (0 = derived)
};

// One tick per row. Caches and reporters are rows sorted by tick index.
struct BudgetTicks
{
    std::vector<int64_t> timestampNs;
    std::vector<int64_t> targetBytes;
    std::vector<int64_t> effectiveTargetBytes;
    std::vector<int64_t> rssBytes;
    std::vector<int64_t> rssSysinfoBytes;
    std::vector<int64_t> leaseBytesActive;
    // jemalloc introspection; all zero when jemalloc is not installed
    std::vector<int64_t> jeAllocatedBytes;
    std::vector<int64_t> jeActiveBytes;
    std::vector<int64_t> jeMetadataBytes;
    std::vector<int64_t> jeResidentBytes;
    std::vector<int64_t> jeMappedBytes;
    std::vector<int64_t> jeRetainedBytes;
    std::vector<uint32_t> verdictLabel;         // name id
    std::vector<uint32_t> verdictDetail;        // name id of "key=value key=value" (kEmptyName = none)
    std::vector<int64_t> verdictStreak;         // 0 = not logged
    std::vector<uint32_t> previousVerdictLabel; // kEmptyName unless the label changed here
    std::vector<int64_t> previousVerdictStreak; // 0 unless the label changed here
    std::vector<BudgetLogLevel> level;
    std::vector<int64_t> sourceLine; // 1-based line of the tick in the source file

    std::vector<BudgetCacheRow> caches;
    std::vector<BudgetReporterRow> reporters;
    std::vector<BudgetVerdictRunEnd> runEnds; // ascending timestamp
    BudgetNameTable names;

    size_t size() const { return timestampNs.size(); }
    bool empty() const { return timestampNs.empty(); }
    std::span<const BudgetCacheRow> cachesOf(size_t tick) const;
    std::span<const BudgetReporterRow> reportersOf(size_t tick) const;
    bool hasJemalloc(size_t tick) const;
    const std::string& labelOf(size_t tick) const { return names.text(verdictLabel[tick]); }
};

// Derived buckets of section 1, one value per tick, each saturating at zero.
struct BudgetBuckets
{
    std::vector<int64_t> cache;              // sum of caches' current_bytes
    std::vector<int64_t> capsAfter;          // sum of caches' new_max_bytes
    std::vector<int64_t> nonCache;           // rss - cache - lease
    std::vector<int64_t> nonCacheLive;       // jemalloc.allocated - cache - lease
    std::vector<int64_t> reporter;           // sum of reporters
    std::vector<int64_t> nonCacheOther;      // non_cache_live - reporter
    std::vector<int64_t> allocatorRetention; // non_cache - non_cache_live
    std::vector<int64_t> osGap;              // rss_sysinfo - rss
};

BudgetBuckets computeBudgetBuckets(const BudgetTicks& ticks);

// Ticks the log does not contain (held ticks of an INFO capture, lost lines): between
// logged ticks `beforeTick` and `beforeTick + 1`, `missingTicks` tick periods are absent.
struct TickGap
{
    uint32_t beforeTick = 0;
    int64_t startNs = 0; // timestamp of the logged tick before the gap
    int64_t endNs = 0;   // timestamp of the logged tick after the gap
    int64_t missingTicks = 0;
    bool operator==(const TickGap&) const = default;
};

// The tick period: lower median of the positive deltas between consecutive ticks (0 when
// fewer than two distinct timestamps). A median, not the mean, so gaps do not inflate it.
int64_t budgetTickPeriodNs(const BudgetTicks& ticks);

// Gaps of at least one missing period: a delta of d periods rounds to d - 1 missing ticks.
std::vector<TickGap> findTickGaps(const BudgetTicks& ticks, int64_t periodNs);
inline std::vector<TickGap> findTickGaps(const BudgetTicks& ticks)
{
    return findTickGaps(ticks, budgetTickPeriodNs(ticks));
}

// Labels of the memory-budget policy (any other label is accepted and treated as neutral).
bool isSkipShrinkLabel(std::string_view label); // skip-shrink-*
bool isShrinkLabel(std::string_view label);     // shrink
bool isHoldLabel(std::string_view label);       // hold

} // namespace gapscope
