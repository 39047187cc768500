#pragma once
// Chart images for reports and "Save Chart As...": PNG and SVG of a chart widget at an exact
// pixel size, and the CSV of the series the gap chart plots. Needs a QApplication (the
// headless CLI runs one on the offscreen platform).

#include "model/trace/AnalysisRunner.h"

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

#include <memory>

class QWidget;

namespace gapscope {

class BudgetBreakdownView;
struct BudgetAnalysisResult;
class GapChartView;
class JobHeatmapView;
struct JobAnalysisResult;
struct JobData;

inline constexpr QSize kDefaultChartSize{1200, 600};

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

// The widget drawn into an image of exactly size * scale pixels (the widget is resized to
// size first; scale > 1 gives a sharper image of the same layout, e.g. for PDF).
QImage renderChartImage(QWidget* chart, QSize size, qreal scale = 1.0);
// PNG bytes of renderChartImage at scale 1.
QByteArray chartPng(QWidget* chart, QSize size);
// SVG document whose <svg> width/height are size in px (viewBox 0 0 w h); title is the
// document <title>: plain text of our own, never trace data.
QByteArray chartSvg(QWidget* chart, QSize size, const QString& title);

// The plotted series, one row per usable sample (RFC 4180, CRLF):
// time_ns, relative_s, gap, allocated, reserved, used, total, phase (innermost phase active at
// the sample, escaped with csvField). relative_s counts from the first event analysed.
QByteArray chartSeriesCsv(const AnalysisResult& result);

struct BudgetData;
// The series of a memory-budget log, one row per tick (RFC 4180, CRLF): time_ns, relative_s,
// rss, rss_sysinfo, target, effective_target, lease, cache, non_cache, non_cache_live,
// reporter, non_cache_other, allocator_retention, os_gap, je_retained, verdict (escaped).
QByteArray budgetSeriesCsv(const BudgetData& data);

} // namespace gapscope
