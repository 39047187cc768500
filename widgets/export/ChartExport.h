#pragma once
// The charts built for export (reports, `gapscope export`, "Save Chart As..."): the gap chart,
// the budget breakdown and the job heatmap, off screen at a given size. The top of widgets/:
// it builds the views of every kind of document; images are widgets/chart/ChartImage.

#include "model/trace/AnalysisRunner.h"
#include "widgets/chart/ChartImage.h"

#include <QSize>

#include <memory>

namespace gapscope {

class BudgetBreakdownView;
struct BudgetAnalysisResult;
class GapChartView;
class JobHeatmapView;
struct JobAnalysisResult;
struct JobData;

// A gap chart for export: not shown on screen, light palette (so images look the same
// whatever the desktop theme), analysis set, laid out at size.
std::unique_ptr<GapChartView> createExportGapChart(std::shared_ptr<const AnalysisResult> result, QSize size);

// The same for the breakdown chart of a memory-budget log.
std::unique_ptr<BudgetBreakdownView>
createExportBudgetChart(std::shared_ptr<const BudgetAnalysisResult> result, QSize size);

// The rank x time heatmap of a distributed job for export, laid out like the charts above at
// size, or lower when its rows need less (JobHeatmapView::drawnHeight: a few ranks leave no
// blank half; its size() is the picture's): every rank's gap on the aligned clock, showing the
// whole job; with the job's cross-rank analyses (may be null) its collective intervals,
// first-cause marks and onset.
std::unique_ptr<JobHeatmapView> createExportJobHeatmap(std::shared_ptr<const JobData> job,
                                                       std::shared_ptr<const JobAnalysisResult> analysis,
                                                       QSize size);

} // namespace gapscope
