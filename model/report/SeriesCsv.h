#pragma once
// The plotted series as CSV (`gapscope export --format csv`, "Export Series as CSV..."): the gap
// chart's samples of an analysis and the ticks of a memory-budget log.

#include "model/trace/AnalysisRunner.h"

#include <QByteArray>

namespace gapscope {

struct BudgetData;

// The plotted series, one row per usable sample (RFC 4180, CRLF):
// time_ns, relative_s, gap, allocated, reserved, used, total, phase (innermost phase active at
// the sample, escaped with csvField). relative_s counts from the first event analysed.
QByteArray chartSeriesCsv(const AnalysisResult& result);

// The series of a memory-budget log, one row per tick (RFC 4180, CRLF): time_ns, relative_s,
// rss, rss_sysinfo, target, effective_target, lease, cache, non_cache, non_cache_live,
// reporter, non_cache_other, allocator_retention, os_gap, je_retained, verdict (escaped).
QByteArray budgetSeriesCsv(const BudgetData& data);

} // namespace gapscope
