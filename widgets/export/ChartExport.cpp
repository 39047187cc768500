#include "widgets/export/ChartExport.h"

#include "model/job/JobFindings.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/trace/GapChartView.h"

#include <algorithm>
#include <memory>

namespace gapscope {

std::unique_ptr<GapChartView> createExportGapChart(std::shared_ptr<const AnalysisResult> result, QSize size)
{
    auto chart = std::make_unique<GapChartView>();
    prepareForExport(chart.get(), size);
    chart->setAnalysis(std::move(result));
    chart->show(); // offscreen: runs the show/resize handling the chart lays out in
    layOutChart(chart.get(), size);
    return chart;
}

std::unique_ptr<BudgetBreakdownView>
createExportBudgetChart(std::shared_ptr<const BudgetAnalysisResult> result, QSize size)
{
    auto chart = std::make_unique<BudgetBreakdownView>();
    prepareForExport(chart.get(), size);
    chart->setAnalysis(std::move(result));
    chart->show();
    layOutChart(chart.get(), size);
    return chart;
}

std::unique_ptr<JobHeatmapView> createExportJobHeatmap(std::shared_ptr<const JobData> job,
                                                       std::shared_ptr<const JobAnalysisResult> analysis,
                                                       QSize size)
{
    auto heatmap = std::make_unique<JobHeatmapView>();
    prepareForExport(heatmap.get(), size);
    heatmap->setJob(job ? buildJobViewData(std::move(job)) : nullptr);
    if (analysis) {
        heatmap->setCollectiveIntervals(jobCollectiveIntervals(analysis->collective));
        heatmap->setCrossRankSummary(jobCrossRankSummary(*analysis));
    }
    heatmap->resetZoom(); // the whole job, on the aligned clock
    size.setHeight(std::clamp(heatmap->drawnHeight(), std::min(size.height(), 120), size.height()));
    heatmap->show();
    layOutChart(heatmap.get(), size);
    return heatmap;
}

} // namespace gapscope
