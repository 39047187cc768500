#pragma once
// What the summary page (widgets/common/SummaryView) shows of a trace's or a budget log's
// analysis: the report's headline figures (model/report: the same numbers every report
// prints), the top findings in the findings table's order, and the phases (grouped as the
// Phases panel groups them) or the verdict counts.

#include "widgets/common/SummaryView.h"

#include <QString>

namespace gapscope {

struct AnalysisResult;
struct BudgetAnalysisResult;
class PhasesModel;

// How many findings the summary lists, and how many phase rows.
inline constexpr size_t kSummaryFindings = 5;
inline constexpr int kSummaryPhaseRows = 12;

// phases: the page's Phases model, already showing result (its top-level rows and their groups).
SummaryContent traceSummary(const AnalysisResult& result, const PhasesModel& phases, const QString& title);
SummaryContent budgetSummary(const BudgetAnalysisResult& result, const QString& title);

} // namespace gapscope
