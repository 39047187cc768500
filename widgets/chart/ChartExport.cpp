#include "widgets/chart/ChartExport.h"

#include "analysis/Int64Math.h"
#include "model/job/JobFindings.h"
#include "model/store/BudgetData.h"
#include "model/text/Text.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/trace/GapChartView.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QPainter>
#include <QRegularExpression>
#include <QStyle>
#include <QStyleFactory>
#include <QSvgGenerator>

#include <algorithm>
#include <memory>

namespace gapscope {

namespace {

void layOut(QWidget* widget, QSize size)
{
    if (widget->size() != size)
        widget->resize(size);
    // Charts lay out on resize/show events and queued updates: let them run before drawing.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
}

// Not shown on screen, the light palette (so images look the same whatever the desktop theme),
// at size.
void prepareForExport(QWidget* widget, QSize size)
{
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    if (fusion)
        widget->setPalette(fusion->standardPalette());
    widget->resize(size);
}

} // namespace

std::unique_ptr<GapChartView> createExportGapChart(std::shared_ptr<const AnalysisResult> result, QSize size)
{
    auto chart = std::make_unique<GapChartView>();
    prepareForExport(chart.get(), size);
    chart->setAnalysis(std::move(result));
    chart->show(); // offscreen: runs the show/resize handling the chart lays out in
    layOut(chart.get(), size);
    return chart;
}

std::unique_ptr<BudgetBreakdownView>
createExportBudgetChart(std::shared_ptr<const BudgetAnalysisResult> result, QSize size)
{
    auto chart = std::make_unique<BudgetBreakdownView>();
    prepareForExport(chart.get(), size);
    chart->setAnalysis(std::move(result));
    chart->show();
    layOut(chart.get(), size);
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
    layOut(heatmap.get(), size);
    return heatmap;
}

QImage renderChartImage(QWidget* chart, QSize size, qreal scale)
{
    layOut(chart, size);
    QImage image((QSizeF(size) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(chart->palette().color(QPalette::Window));
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    chart->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    return image;
}

QByteArray chartPng(QWidget* chart, QSize size)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    renderChartImage(chart, size).convertToFormat(QImage::Format_RGB32).save(&buffer, "PNG");
    return bytes;
}

QByteArray chartSvg(QWidget* chart, QSize size, const QString& title)
{
    layOut(chart, size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    // Text was laid out with the widget's font metrics: font sizes must use the same dpi.
    generator.setResolution(chart->logicalDpiX());
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("Written by gapscope"));
    QPainter painter(&generator);
    painter.fillRect(QRect(QPoint(0, 0), size), chart->palette().color(QPalette::Window));
    chart->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    // QSvgGenerator gives the size in millimetres at its resolution; a chart asked for at
    // WxH pixels must say so, or browsers scale it by the generator's DPI.
    static const QRegularExpression sizeAttributes(QStringLiteral(R"(width="[^"]*"\s+height="[^"]*")"));
    const qsizetype svgStart = bytes.indexOf("<svg");
    const qsizetype svgEnd = svgStart >= 0 ? bytes.indexOf('>', svgStart) : -1;
    if (svgEnd > svgStart) {
        QString tag = QString::fromUtf8(bytes.mid(svgStart, svgEnd - svgStart));
        tag.replace(sizeAttributes,
                    QStringLiteral(R"(width="%1" height="%2")").arg(size.width()).arg(size.height()));
        bytes = bytes.left(svgStart) + tag.toUtf8() + bytes.mid(svgEnd);
    }
    // Qt names the desktop font ("Sans Serif" is no CSS family); give viewers a fallback
    // of the same kind so the text keeps its width.
    bytes.replace("font-family=\"Sans Serif\"", "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\"");
    return bytes;
}

QByteArray chartSeriesCsv(const AnalysisResult& result)
{
    const EventStore& store = result.trace->store;
    const int64_t origin = result.partition.size() ? store.timestampNs[result.partition.begin] : 0;

    // Innermost phase at each sample: spans ordered by start, swept along the samples.
    std::vector<const PhaseSpan*> byStart;
    for (const PhaseSpan& span : result.phases)
        byStart.push_back(&span);
    std::stable_sort(byStart.begin(), byStart.end(),
                     [](const PhaseSpan* a, const PhaseSpan* b) { return a->startNs < b->startNs; });
    std::vector<const PhaseSpan*> active;
    size_t nextSpan = 0;

    QByteArray out = "time_ns,relative_s,gap,allocated,reserved,used,total,phase\r\n";
    out.reserve(out.size() + qsizetype(result.usableRows.size()) * 96);
    auto number = [](int64_t v) { return v == kNullInt ? QByteArray() : QByteArray::number(qlonglong(v)); };
    for (uint32_t row : result.usableRows) {
        const int64_t ts = store.timestampNs[row];
        while (nextSpan < byStart.size() && byStart[nextSpan]->startNs <= ts)
            active.push_back(byStart[nextSpan++]);
        std::erase_if(active, [ts](const PhaseSpan* s) { return s->endNs < ts; });
        const PhaseSpan* innermost = nullptr;
        for (const PhaseSpan* s : active)
            if (!innermost || s->depth >= innermost->depth)
                innermost = s;

        out += QByteArray::number(qlonglong(ts));
        out += ',';
        out += QByteArray::number(double(WideInt(ts) - origin) / 1e9, 'f', 9);
        out += ',';
        out += QByteArray::number(qlonglong(store.gapAt(row)));
        for (const auto* column : {&store.allocated, &store.reserved, &store.used, &store.total}) {
            out += ',';
            out += number((*column)[row]);
        }
        out += ',';
        // a row-oriented export: the name clipped (it repeats on every row of its phase; a 1 MB
        // name made a 4 MB trace's CSV 210 MB), its full text stays in the JSON report
        if (innermost)
            out += csvField(shownText(QString::fromStdString(innermost->label))).toUtf8();
        out += "\r\n";
    }
    return out;
}

QByteArray budgetSeriesCsv(const BudgetData& data)
{
    const BudgetTicks& ticks = data.ticks;
    const BudgetBuckets buckets = computeBudgetBuckets(ticks);
    const int64_t origin = ticks.empty() ? 0 : ticks.timestampNs.front();
    QByteArray out =
        "time_ns,relative_s,rss,rss_sysinfo,target,effective_target,lease,cache,non_cache,"
        "non_cache_live,reporter,non_cache_other,allocator_retention,os_gap,je_retained,verdict\r\n";
    for (size_t i = 0; i < ticks.size(); ++i) {
        out += QByteArray::number(qlonglong(ticks.timestampNs[i]));
        out += ',';
        out += QByteArray::number(double(WideInt(ticks.timestampNs[i]) - origin) / 1e9, 'f', 9);
        for (int64_t v :
             {ticks.rssBytes[i], ticks.rssSysinfoBytes[i], ticks.targetBytes[i],
              ticks.effectiveTargetBytes[i], ticks.leaseBytesActive[i], buckets.cache[i], buckets.nonCache[i],
              buckets.nonCacheLive[i], buckets.reporter[i], buckets.nonCacheOther[i],
              buckets.allocatorRetention[i], buckets.osGap[i], ticks.jeRetainedBytes[i]}) {
            out += ',';
            out += QByteArray::number(qlonglong(v));
        }
        out += ',';
        out += csvField(shownText(QString::fromStdString(ticks.labelOf(i)))).toUtf8();
        out += "\r\n";
    }
    return out;
}

} // namespace gapscope
