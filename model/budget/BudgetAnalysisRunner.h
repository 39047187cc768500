#pragma once
// Runs the memory-budget rules (analyzeBudget) on a loaded budget log, optionally restricted
// to a time window, like AnalysisRunner does for stormlog traces. The result is immutable and
// crosses threads as shared_ptr<const BudgetAnalysisResult>.

#include "analysis/BudgetAnalysis.h"
#include "model/base/TimeWindow.h"
#include "model/store/BudgetData.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

struct BudgetAnalysisResult
{
    std::shared_ptr<const BudgetData> data;
    BudgetThresholds thresholds;
    std::optional<TimeWindow> window; // as requested; nullopt = the whole log
    size_t firstTick = 0;             // ticks [firstTick, lastTick) were analysed
    size_t lastTick = 0;
    std::vector<Finding> findings; // evidence ticks in the whole log's tick numbering
    BudgetBuckets buckets;         // of the whole log (the views draw all of it)

    // Relative times count from the first tick of the log.
    int64_t originNs() const;
    size_t analysedTicks() const { return lastTick - firstTick; }
};

// The ticks [first, last) of `ticks` as a log of their own: caches, reporters and verdict
// run ends inside the range, tick indices renumbered from 0.
BudgetTicks sliceBudgetTicks(const BudgetTicks& ticks, size_t first, size_t last);

// Never null for a non-null data; a window that contains no tick gives no findings.
std::shared_ptr<const BudgetAnalysisResult> runBudgetAnalysis(std::shared_ptr<const BudgetData> data,
                                                              const BudgetThresholds& thresholds,
                                                              std::optional<TimeWindow> window = {});

// The tick at or before ns (the first tick when ns is earlier); nullopt without ticks.
std::optional<size_t> budgetTickAt(const BudgetTicks& ticks, int64_t ns);
// The tick nearest to ns.
std::optional<size_t> nearestBudgetTick(const BudgetTicks& ticks, int64_t ns);

// The names `--set NAME=VALUE` accepts for budget logs: the BudgetThresholds fields in
// snake_case as reports print them (min_trend_ticks, ..., hard_ceiling_bytes) and the gap
// thresholds of the OS-vs-allocator rule as os_gap.NAME (or plain NAME).
const std::vector<std::string_view>& budgetThresholdNames();
// false for an unknown name or a value the field cannot hold (negative count, ...).
bool setBudgetThreshold(BudgetThresholds& thresholds, std::string_view name, double value);

} // namespace gapscope
