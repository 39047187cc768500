#include "widgets/job/JobHeatmapView.h"

#include "analysis/Int64Math.h"
#include "model/job/HeatmapBinning.h"
#include "model/report/ReportContent.h" // formatReportDuration
#include "model/text/Text.h"
#include "widgets/chart/ByteAxis.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/job/JobViewStyle.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace gapscope {

namespace {

constexpr int64_t kMinVisibleSpanNs = 1000; // as the gap chart: below 1 us no trace has two samples
constexpr double kDragThresholdPx = 4;
constexpr int kMargin = 6;
constexpr int kMarkerWidth = 10;
constexpr int kLegendBarHeight = 10;
constexpr int kMaxHoverSamples = 1 << 20; // a tooltip never scans more samples of one column

QColor withAlpha(QColor color, int alpha)
{
    color.setAlpha(alpha);
    return color;
}

// An opaque mix of two colours (f of b).
QColor mixed(const QColor& a, const QColor& b, double f)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f),
                            float(a.greenF() + (b.greenF() - a.greenF()) * f),
                            float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

double magnitude(double v)
{
    return std::isnan(v) ? -1.0 : std::abs(v);
}

} // namespace

class JobHeatmapView::Private
{
public:
    explicit Private(JobHeatmapView* owner) : q(owner) {}

    enum class Drag
    {
        None,
        Pending, // pressed, not yet moved far enough to be a drag
        Zoom,
        Pan,
    };

    struct Layout
    {
        QRect title;  // the measure and the key, left of the legend
        QRect legend; // the colour bar
        QRect gutter;
        QRect plot;
        QRect axis;
        size_t rankCount = 0;
        // top pixel row of rank i (i == rankCount: one past the plot)
        int rowTop(size_t i) const
        {
            return plot.top() + int(int64_t(i) * plot.height() / int64_t(std::max<size_t>(rankCount, 1)));
        }
    };

    bool hasData() const { return job && range.has_value(); }
    size_t rankCount() const { return job ? job->ranks.size() : 0; }
    int64_t offsetOf(int64_t rank) const { return summary ? summary->offsetOf(rank) : 0; }
    int64_t rawOf(int64_t rank, int64_t alignedNs) const { return saturatingAdd(alignedNs, offsetOf(rank)); }
    int64_t alignedOf(int64_t rank, int64_t rawNs) const { return saturatingSub(rawNs, offsetOf(rank)); }
    Layout layout() const;
    TimeAxis axisOf(const Layout& l) const
    {
        return TimeAxis{visibleBeginNs, visibleEndNs, double(l.plot.left()),
                        double(l.plot.left() + l.plot.width())};
    }
    // The first rank of the group sharing rank i's pixel rows, and the last (inclusive).
    std::pair<size_t, size_t> groupOf(const Layout& l, size_t i) const;
    std::optional<size_t> rankIndexAt(const Layout& l, QPoint pos) const;
    void invalidate();
    void rebuildCache();
    void updateRange(bool keepVisible);
    bool setRange(int64_t beginNs, int64_t endNs);
    QString toolTipAt(QPoint pos) const;
    QString labelOf(const RankSeries& series) const;
    int gutterWidth() const;

    void paintLegend(QPainter& p, const Layout& l) const;
    void paintAxis(QPainter& p, const Layout& l) const;
    void paintGutter(QPainter& p, const Layout& l) const;
    void paintOverlays(QPainter& p, const Layout& l) const;

    JobHeatmapView* q;
    std::shared_ptr<const JobViewData> job;
    std::vector<JobCollectiveInterval> intervals;
    std::optional<JobCrossRankSummary> summary;
    std::vector<JobDivergentRank> divergent;
    JobMeasure measure = JobMeasure::Gap;
    std::optional<int64_t> highlightedRank;
    std::optional<AlignedRange> range;
    int64_t visibleBeginNs = 0;
    int64_t visibleEndNs = 0;
    std::optional<int64_t> cursorNs;
    std::optional<int64_t> hoverNs;
    std::optional<size_t> hoverRank;
    HeatmapColorScale scale;

    QImage image; // the cells of the plot
    bool cacheValid = false;
    std::vector<std::vector<double>> cells; // by rank index
    int builds = 0;
    mutable int gutterWidthCache = 0; // 0: to be measured (a new job or font)

    Drag drag = Drag::None;
    QPointF pressPos;
    QPointF dragPos;
    TimeAxis pressAxis;
};

int JobHeatmapView::Private::gutterWidth() const
{
    if (gutterWidthCache > 0)
        return gutterWidthCache;
    const QFontMetrics fm = q->fontMetrics();
    int widest = fm.horizontalAdvance(JobHeatmapView::tr("rank %1").arg(0));
    if (job) {
        // the label of the rank with the most characters is the widest
        const RankSeries* longest = nullptr;
        qsizetype longestDigits = 0;
        for (const RankSeries& series : job->ranks) {
            const qsizetype digits = QString::number(series.rank).size();
            if (!longest || digits > longestDigits) {
                longest = &series;
                longestDigits = digits;
            }
        }
        if (longest)
            widest = std::max(widest, fm.horizontalAdvance(labelOf(*longest)));
    }
    if (!divergent.empty()) { // a divergent rank's label is bold and carries a mark
        QFont bold = q->font();
        bold.setBold(true);
        widest = QFontMetrics(bold).horizontalAdvance(QStringLiteral("▲ ")) + widest * 11 / 10;
    }
    gutterWidthCache = kMarkerWidth + 6 + widest + 8;
    return gutterWidthCache;
}

QString JobHeatmapView::Private::labelOf(const RankSeries& series) const
{
    return JobHeatmapView::tr("rank %1").arg(series.rank);
}

JobHeatmapView::Private::Layout JobHeatmapView::Private::layout() const
{
    const QFontMetrics fm = q->fontMetrics();
    Layout l;
    l.rankCount = rankCount();
    const int legendStrip = kLegendBarHeight + fm.height() + 8;
    const int axisHeight = fm.height() + 6;
    const int gutter = job && !job->ranks.empty() ? gutterWidth() : kMargin;
    const int left = kMargin + gutter;
    const int width = std::max(1, q->width() - left - kMargin);
    const int available = std::max(1, q->height() - legendStrip - axisHeight - 2);
    // rows never taller than four lines of text: a few ranks do not become slabs
    const int maxRowHeight = 4 * fm.height();
    int plotHeight = available;
    if (l.rankCount > 0 && int64_t(l.rankCount) * maxRowHeight < available)
        plotHeight = int(l.rankCount) * maxRowHeight;
    l.plot = QRect(left, legendStrip, width, plotHeight);
    l.gutter = QRect(kMargin, legendStrip, gutter, plotHeight);
    l.axis = QRect(left, legendStrip + plotHeight + 1, width, axisHeight);
    const int legendWidth = std::clamp(width * 35 / 100, 120, 320);
    l.legend = QRect(left + width - legendWidth, 4, legendWidth, kLegendBarHeight);
    l.title = QRect(kMargin, 2, std::max(1, l.legend.left() - kMargin - 12), legendStrip - 6);
    return l;
}

std::pair<size_t, size_t> JobHeatmapView::Private::groupOf(const Layout& l, size_t i) const
{
    size_t first = i;
    while (first > 0 && l.rowTop(first - 1) == l.rowTop(i))
        --first;
    size_t last = i;
    while (last + 1 < l.rankCount && l.rowTop(last + 1) == l.rowTop(i))
        ++last;
    return {first, last};
}

std::optional<size_t> JobHeatmapView::Private::rankIndexAt(const Layout& l, QPoint pos) const
{
    if (l.rankCount == 0 || pos.y() < l.plot.top() || pos.y() > l.plot.bottom() ||
        pos.x() < l.gutter.left() || pos.x() > l.plot.right())
        return std::nullopt;
    // the last rank whose top is at or above pos: the one whose rows hold it
    size_t low = 0, high = l.rankCount; // rowTop(low) <= y < rowTop(high)
    while (high - low > 1) {
        const size_t mid = low + (high - low) / 2;
        if (l.rowTop(mid) <= pos.y())
            low = mid;
        else
            high = mid;
    }
    return groupOf(l, low).first;
}

void JobHeatmapView::Private::invalidate()
{
    cacheValid = false;
    q->update();
}

void JobHeatmapView::Private::rebuildCache()
{
    const Layout l = layout();
    cacheValid = true;
    ++builds;
    const QPalette palette = q->palette();
    const auto [low, high] = job ? job->valueDomain(measure) : std::pair<double, double>{0, 0};
    scale = HeatmapColorScale(low, high, palette);
    if (image.size() != l.plot.size())
        image = QImage(l.plot.size(), QImage::Format_RGB32);
    cells.assign(rankCount(), {});
    if (!hasData() || l.plot.width() <= 0 || l.plot.height() <= 0) {
        image.fill(scale.emptyColor());
        return;
    }
    // no fill: the rows below tile the plot and write every pixel
    const int columns = l.plot.width();
    // every rank's range has the same span, so the same column starts (offsets from its begin)
    const std::vector<int64_t> starts = HeatmapColumns{visibleBeginNs, visibleEndNs, columns}.columnStarts();
    for (size_t i = 0; i < job->ranks.size(); ++i) {
        const RankSeries& series = job->ranks[i];
        if (series.rows.empty())
            continue;
        const HeatmapColumns bins{rawOf(series.rank, visibleBeginNs), rawOf(series.rank, visibleEndNs),
                                  columns};
        cells[i] = binLargestMagnitude(
            series.times(), series.rows, bins, series.holdLimitNs,
            [&](uint32_t row) { return series.valueOfRow(measure, row); }, &series.cellPyramid(measure),
            &starts);
    }

    const QColor base = palette.color(QPalette::Base);
    const QRgb separator = mixed(base, palette.color(QPalette::Text), 0.14).rgb();
    QColor hatch = palette.color(QPalette::Text);
    hatch.setAlpha(base.lightness() < 128 ? 110 : 90);
    std::vector<QRgb> line(static_cast<size_t>(columns));
    std::vector<double> merged(static_cast<size_t>(columns));
    const bool separators = l.plot.height() >= 6 * int(l.rankCount); // a 1 px rule between rows
    std::vector<QRect> hatched; // painted once every pixel row is written
    uchar* const bits = image.bits();
    const qsizetype bytesPerLine = image.bytesPerLine();
    auto pixelRow = [&](int y) { return reinterpret_cast<QRgb*>(bits + y * bytesPerLine); };
    for (size_t i = 0; i < l.rankCount;) {
        const auto [first, last] = groupOf(l, i);
        const int top = l.rowTop(first) - l.plot.top();
        const int bottom = l.rowTop(last + 1) - l.plot.top(); // exclusive
        // one rule for every row, so rows of 5 and 6 pixels do not alternate with and without
        const bool separated = separators && bottom - top >= 2;
        const int fillBottom = separated ? bottom - 1 : bottom;
        bool present = false;
        for (size_t r = first; r <= last; ++r)
            present = present || job->ranks[r].present;
        // ranks sharing pixel rows: the largest magnitude of theirs in each column
        const std::vector<double>* shown = &cells[first];
        if (last > first) {
            std::fill(merged.begin(), merged.end(), std::numeric_limits<double>::quiet_NaN());
            for (size_t r = first; r <= last; ++r) {
                const std::vector<double>& row = cells[r];
                for (size_t c = 0; c < row.size() && c < merged.size(); ++c)
                    if (magnitude(row[c]) > magnitude(merged[c]))
                        merged[c] = row[c];
            }
            shown = &merged;
        }
        if (!present) {
            hatched.emplace_back(0, top, columns, std::max(1, fillBottom - top));
            for (int y = top; y < fillBottom; ++y)
                std::fill_n(pixelRow(y), columns, scale.emptyColor());
        } else {
            for (size_t c = 0; c < line.size(); ++c)
                line[c] = c < shown->size() ? scale.colorOf((*shown)[c]) : scale.emptyColor();
            for (int y = top; y < fillBottom; ++y)
                std::memcpy(pixelRow(y), line.data(), line.size() * sizeof(QRgb));
        }
        if (separated)
            std::fill_n(pixelRow(bottom - 1), columns, separator);
        i = last + 1;
    }
    if (!hatched.empty()) {
        QPainter hatcher(&image);
        for (const QRect& band : hatched) {
            hatcher.fillRect(band, base);
            hatcher.fillRect(band, QBrush(hatch, Qt::BDiagPattern));
        }
    }
}

void JobHeatmapView::Private::updateRange(bool keepVisible)
{
    range = job ? alignedRangeOf(*job, summary ? &*summary : nullptr) : std::nullopt;
    if (!range) {
        visibleBeginNs = visibleEndNs = 0;
        return;
    }
    const TimeAxis full = TimeAxis{range->beginNs, range->endNs, 0, 0}.clampedTo(range->beginNs, range->endNs,
                                                                                 kMinVisibleSpanNs);
    const TimeAxis kept = TimeAxis{visibleBeginNs, visibleEndNs, 0, 0}.clampedTo(range->beginNs, range->endNs,
                                                                                 kMinVisibleSpanNs);
    const TimeAxis& shown = keepVisible && visibleEndNs > visibleBeginNs ? kept : full;
    visibleBeginNs = shown.beginNs;
    visibleEndNs = shown.endNs;
}

bool JobHeatmapView::Private::setRange(int64_t beginNs, int64_t endNs)
{
    if (!hasData())
        return false;
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    const TimeAxis clamped =
        TimeAxis{beginNs, endNs, 0, 0}.clampedTo(range->beginNs, range->endNs, kMinVisibleSpanNs);
    if (clamped.beginNs == visibleBeginNs && clamped.endNs == visibleEndNs)
        return false;
    visibleBeginNs = clamped.beginNs;
    visibleEndNs = clamped.endNs;
    invalidate();
    emit q->visibleRangeChanged(visibleBeginNs, visibleEndNs);
    return true;
}

QString JobHeatmapView::Private::toolTipAt(QPoint pos) const
{
    const Layout l = layout();
    if (!job)
        return JobHeatmapView::tr("No job loaded");
    const std::optional<size_t> index = rankIndexAt(l, pos);
    if (!index)
        return {};
    const auto [first, last] = groupOf(l, *index);
    const bool inPlot = l.plot.contains(pos);
    const TimeAxis axis = axisOf(l);
    const int64_t origin = range ? range->beginNs : 0;
    const int column = std::clamp(pos.x() - l.plot.left(), 0, std::max(0, l.plot.width() - 1));
    // the rank shown at this column: of a shared pixel row, the one with the largest magnitude
    size_t shown = first;
    if (inPlot && last > first) {
        double best = -1;
        for (size_t r = first; r <= last; ++r) {
            const double v = size_t(column) < cells[r].size() ? cells[r][size_t(column)] : std::nan("");
            if (magnitude(v) > best) {
                best = magnitude(v);
                shown = r;
            }
        }
    }
    const RankSeries& series = job->ranks[shown];
    QString html;
    if (last > first)
        html += JobHeatmapView::tr("Ranks %1–%2 share this pixel row; shown: the largest magnitude.<br/>")
                    .arg(job->ranks[first].rank)
                    .arg(job->ranks[last].rank);
    html += QStringLiteral("<b>%1</b>").arg(htmlEscape(labelOf(series)));
    if (!series.present) {
        html += QStringLiteral(" — ") +
                htmlEscape(JobHeatmapView::tr("missing: the job's world size (%1) expects this rank, but no "
                                              "input holds it")
                               .arg(job->worldSize));
        return html;
    }
    if (!series.host.isEmpty())
        html += QStringLiteral(" · %1").arg(
            htmlEscape(JobHeatmapView::tr("%1, local rank %2").arg(series.host).arg(series.localRank)));
    if (summary)
        if (const JobFirstCauseSuspect* suspect = summary->suspectOf(series.rank)) {
            html +=
                QStringLiteral("<br/><span style='color:%1'>▶</span> %2")
                    .arg(suspectColor(suspect->confidence, q->palette()).name(),
                         htmlEscape(JobHeatmapView::tr("first-cause suspect (%1 confidence): first spike at "
                                                       "%2, %3 before the cluster onset")
                                        .arg(toString(suspect->confidence),
                                             formatRelativeTime(suspect->alignedFirstSpikeNs, origin),
                                             formatReportDuration(suspect->leadOverClusterOnsetNs))));
        }
    for (const JobDivergentRank& mark : divergent)
        if (mark.rank == series.rank)
            html += QStringLiteral("<br/><span style='color:%1'>%2</span> %3")
                        .arg(divergenceColor(q->palette()).name(), QStringLiteral("▲"),
                             htmlEscape(JobHeatmapView::tr("departs from its peers: %1").arg(mark.text)));
    if (!inPlot) {
        html += QStringLiteral("<br/>") + htmlEscape(JobHeatmapView::tr("Click to open this rank"));
        return html;
    }
    // The sample the cell shows: the largest magnitude in this pixel column, else the one held
    // into it.
    const int64_t alignedNs = axis.toNs(pos.x());
    const int64_t offset = offsetOf(series.rank);
    const HeatmapColumns bins{rawOf(series.rank, visibleBeginNs), rawOf(series.rank, visibleEndNs),
                              l.plot.width()};
    const auto times = series.times();
    const auto columnStart = std::partition_point(series.rows.begin(), series.rows.end(), [&](uint32_t row) {
        return times[row] < bins.beginNs || bins.columnOf(times[row]) < column;
    });
    std::optional<size_t> best;
    size_t inColumn = 0;
    for (auto it = columnStart; it != series.rows.end() && inColumn < size_t(kMaxHoverSamples);
         ++it, ++inColumn) {
        if (times[*it] > bins.endNs || bins.columnOf(times[*it]) != column)
            break;
        const size_t position = size_t(it - series.rows.begin());
        if (!best || magnitude(series.valueAt(measure, position)) > magnitude(series.valueAt(measure, *best)))
            best = position;
    }
    const double drawn = size_t(column) < cells[shown].size() ? cells[shown][size_t(column)] : std::nan("");
    std::optional<size_t> sample = best;
    if (!sample && !std::isnan(drawn))
        sample = series.positionAtOrBefore(rawOf(series.rank, alignedNs));
    const int64_t step = std::max<int64_t>(1, niceTimeStepNs(int64_t(axis.nsPerPixel()) + 1, 1));
    if (!sample) {
        html += QStringLiteral("<br/>%1 · %2")
                    .arg(htmlEscape(formatTimeTick(alignedNs - origin, step)),
                         htmlEscape(JobHeatmapView::tr("no sample here")));
        return html;
    }
    const int64_t raw = series.timeAt(*sample);
    const int64_t aligned = alignedOf(series.rank, raw);
    const uint32_t row = series.rows[*sample];
    const int64_t total = series.store().total[row];
    html += QStringLiteral("<table>");
    auto line = [&](const QString& name, const QString& value) {
        html +=
            QStringLiteral("<tr><td>%1</td><td>&nbsp;%2</td></tr>").arg(htmlEscape(name), htmlEscape(value));
    };
    line(JobHeatmapView::tr("Aligned time"), formatRelativeTime(aligned, origin));
    line(JobHeatmapView::tr("Raw time"),
         formatAbsoluteTime(raw) + (offset != 0
                                        ? JobHeatmapView::tr(" (offset %1)").arg(formatReportDuration(offset))
                                        : QString()));
    line(JobHeatmapView::tr("Gap"), bytesText(series.gapAt(*sample)));
    line(JobHeatmapView::tr("Gap ratio"),
         total > 0 && total != kNullInt
             ? JobHeatmapView::tr("%1 of %2 device total")
                   .arg(measureValueText(JobMeasure::GapRatio, series.valueAt(JobMeasure::GapRatio, *sample)),
                        bytesText(total))
             : JobHeatmapView::tr("n/a (no device total)"));
    html += QStringLiteral("</table>");
    if (inColumn > 1)
        html += htmlEscape(JobHeatmapView::tr("Largest |%1| of %2 samples in this pixel (%3 wide)")
                               .arg(measureName(measure).toLower())
                               .arg(inColumn)
                               .arg(formatReportDuration(int64_t(axis.nsPerPixel()))));
    else if (!best)
        html += htmlEscape(JobHeatmapView::tr("Held from the sample before (no sample in this pixel)"));
    // collective intervals here
    for (const JobCollectiveInterval& interval : intervals) {
        if (interval.rank != series.rank)
            continue;
        const int64_t rawHere = rawOf(series.rank, alignedNs);
        const double x0 = axis.toPixel(alignedOf(series.rank, interval.startNs));
        const double x1 = axis.toPixel(alignedOf(series.rank, interval.endNs));
        if (!(rawHere >= interval.startNs && rawHere <= interval.endNs) &&
            !(pos.x() >= x0 - 2 && pos.x() <= x1 + 2))
            continue;
        html +=
            QStringLiteral("<br/><b>%1</b> %2")
                .arg(htmlEscape(toString(interval.classification)),
                     htmlEscape(JobHeatmapView::tr("%1 – %2, confidence %3")
                                    .arg(formatRelativeTime(alignedOf(series.rank, interval.startNs), origin),
                                         formatRelativeTime(alignedOf(series.rank, interval.endNs), origin))
                                    .arg(confidenceText(interval.confidence))));
        if (!interval.reasonCodes.isEmpty())
            html += QStringLiteral("<br/><span style='font-size:small'>%1</span>")
                        .arg(htmlEscape(interval.reasonCodes.join(QStringLiteral(", "))));
    }
    if (summary && summary->clusterOnsetNs && std::abs(axis.toPixel(*summary->clusterOnsetNs) - pos.x()) <= 3)
        html += QStringLiteral("<br/>") +
                htmlEscape(JobHeatmapView::tr("Cluster onset at %1 (aligned)")
                               .arg(formatRelativeTime(*summary->clusterOnsetNs, origin)));
    return html;
}

void JobHeatmapView::Private::paintLegend(QPainter& p, const Layout& l) const
{
    const QPalette palette = q->palette();
    const QFontMetrics fm = q->fontMetrics();
    const QColor text = palette.color(QPalette::Text);
    // the measure, then a key of what is drawn over the cells
    p.setPen(text);
    QString title = measureDescription(measure);
    if (summary && !summary->alignmentOffsetsNs.empty())
        title += JobHeatmapView::tr(" · ranks aligned");
    const int titleWidth = std::min(l.title.width(), fm.horizontalAdvance(title) + 2);
    p.drawText(QRect(l.title.left(), l.title.top(), titleWidth, l.title.height()),
               Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(title, Qt::ElideRight, l.title.width()));
    int x = l.title.left() + titleWidth + 16;
    auto keyItem = [&](const QString& label, auto&& drawSymbol) {
        const int width = 18 + fm.horizontalAdvance(label);
        if (x + width > l.title.right())
            return;
        const QRect symbol(x, l.title.center().y() - 5, 14, 10);
        drawSymbol(symbol);
        p.setPen(text);
        p.drawText(QRect(x + 18, l.title.top(), width, l.title.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   label);
        x += width + 12;
    };
    p.save();
    for (CollectiveClass c :
         {CollectiveClass::Confident, CollectiveClass::Likely, CollectiveClass::Suspect}) {
        if (std::none_of(intervals.begin(), intervals.end(),
                         [c](const JobCollectiveInterval& i) { return i.classification == c; }))
            continue;
        keyItem(collectiveClassName(c), [&](const QRect& symbol) {
            p.setPen(collectiveClassPen(c, palette));
            p.setBrush(Qt::NoBrush);
            p.drawRect(symbol.adjusted(1, 1, -1, -1));
        });
    }
    if (summary && !summary->leadingSuspects().empty())
        keyItem(JobHeatmapView::tr("first cause"), [&](const QRect& symbol) {
            drawSuspectMarker(p, QRectF(symbol).adjusted(2, 0, -2, 0),
                              summary->leadingSuspects().front()->confidence, palette);
        });
    if (summary && summary->clusterOnsetNs)
        keyItem(JobHeatmapView::tr("cluster onset"), [&](const QRect& symbol) {
            p.setPen(QPen(text, 1.5, Qt::DashLine));
            p.drawLine(QPoint(symbol.center().x(), symbol.top() - 2),
                       QPoint(symbol.center().x(), symbol.bottom() + 2));
        });
    p.restore();

    // the colour bar: from the most negative value (if any) through zero to the largest
    const QRect bar = l.legend;
    const double low = scale.hasNegative() ? -scale.maxMagnitude() : 0.0;
    const double high = scale.maxMagnitude();
    for (int x = 0; x < bar.width(); ++x) {
        const double value = low + (high - low) * (double(x) + 0.5) / double(bar.width());
        p.setPen(QColor(scale.colorOf(value)));
        p.drawLine(bar.left() + x, bar.top(), bar.left() + x, bar.bottom());
    }
    p.setPen(withAlpha(text, 110));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar.adjusted(0, 0, -1, -1));
    // ticks: bytes in powers of two, ratios in percent
    const int maxTicks = std::max(2, bar.width() / (fm.horizontalAdvance(QStringLiteral("888.8 MiB")) + 10));
    const double span = high - low;
    auto xOf = [&](double value) { return bar.left() + (value - low) / span * bar.width(); };
    std::vector<std::pair<double, QString>> ticks;
    if (measure == JobMeasure::Gap) {
        const ByteAxis axis = ByteAxis::forRange(low, high, maxTicks);
        for (double v : axis.ticks())
            ticks.emplace_back(v, axis.label(v));
    } else {
        double step = 1e-4;
        for (double m : {1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1, 0.2, 0.5, 1.0})
            if (span / m <= maxTicks) {
                step = m;
                break;
            }
        const int decimals = step >= 0.01 ? 0 : (step >= 0.001 ? 1 : 2);
        for (double v = std::ceil(low / step) * step; v <= high + step * 1e-9; v += step)
            ticks.emplace_back(v, percentText(v, decimals));
    }
    p.setPen(text);
    for (const auto& [value, label] : ticks) {
        const double x = xOf(value);
        p.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
        const int w = fm.horizontalAdvance(label);
        const double left = std::clamp(x - w / 2.0, double(bar.left()) - 20, double(q->width() - w - 2));
        p.drawText(QRectF(left, bar.bottom() + 3, w + 1, fm.height()), Qt::AlignCenter, label);
    }
}

void JobHeatmapView::Private::paintAxis(QPainter& p, const Layout& l) const
{
    if (!hasData())
        return;
    const QFontMetrics fm = q->fontMetrics();
    const TimeAxis axis = axisOf(l);
    const int64_t origin = range->beginNs;
    p.setPen(q->palette().color(QPalette::Text));
    for (int maxTicks = std::max(2, l.plot.width() / 70); maxTicks >= 2; --maxTicks) {
        const int64_t step = niceTimeStepNs(axis.spanNs(), maxTicks);
        const std::vector<int64_t> ticks = timeTicksNs(axis.beginNs, axis.endNs, origin, step);
        int widest = 0;
        for (int64_t tick : ticks)
            widest = std::max(widest, fm.horizontalAdvance(formatTimeTick(tick - origin, step)));
        const double stepPixels =
            double(l.plot.width()) * double(step) / double(std::max<int64_t>(axis.spanNs(), 1));
        if (widest + 24 > stepPixels && maxTicks > 2)
            continue;
        for (int64_t tick : ticks) {
            const double x = axis.toPixel(tick);
            const QString label = formatTimeTick(tick - origin, step);
            const int w = fm.horizontalAdvance(label);
            p.drawLine(QPointF(x, l.axis.top()), QPointF(x, l.axis.top() + 3));
            const double left = std::clamp(x - w / 2.0, 0.0, double(q->width() - w - 1));
            p.drawText(QRectF(left, l.axis.top() + 3, w + 1, fm.height()), Qt::AlignCenter, label);
        }
        break;
    }
}

void JobHeatmapView::Private::paintGutter(QPainter& p, const Layout& l) const
{
    if (!job || l.rankCount == 0)
        return;
    const QPalette palette = q->palette();
    const QFontMetrics fm = q->fontMetrics();
    const double rowHeight = double(l.plot.height()) / double(l.rankCount);
    // every k-th label, so labels never overlap
    const size_t every = size_t(std::max(1.0, std::ceil(double(fm.height()) / std::max(rowHeight, 1e-9))));
    std::vector<int64_t> leading;
    if (summary)
        for (const JobFirstCauseSuspect* suspect : summary->leadingSuspects())
            leading.push_back(suspect->rank);
    QFont italic = q->font();
    italic.setItalic(true);
    QFont bold = q->font();
    bold.setBold(true);
    for (size_t i = 0; i < l.rankCount; ++i) {
        const RankSeries& series = job->ranks[i];
        const bool isLeading = std::find(leading.begin(), leading.end(), series.rank) != leading.end();
        const bool isDivergent =
            std::any_of(divergent.begin(), divergent.end(),
                        [&](const JobDivergentRank& mark) { return mark.rank == series.rank; });
        const int top = l.rowTop(i);
        const int bottom = l.rowTop(i + 1);
        if (isLeading) {
            const double centre = (top + bottom) / 2.0;
            const double size = std::min<double>(kMarkerWidth, std::max(6.0, rowHeight));
            drawSuspectMarker(p, QRectF(l.gutter.left(), centre - size / 2, kMarkerWidth, size),
                              summary->suspectOf(series.rank)->confidence, palette);
        }
        if (i % every != 0 && !isLeading && !isDivergent)
            continue;
        const QRect text(l.gutter.left() + kMarkerWidth + 4, int((top + bottom) / 2.0 - fm.height() / 2.0),
                         l.gutter.width() - kMarkerWidth - 10, fm.height());
        p.setFont(series.present ? (isDivergent ? bold : q->font()) : italic);
        p.setPen(series.present ? palette.color(QPalette::Text) : palette.color(QPalette::PlaceholderText));
        if (isDivergent)
            p.setPen(divergenceColor(palette));
        if (highlightedRank && *highlightedRank == series.rank)
            p.setPen(palette.color(QPalette::Highlight));
        // a divergent rank's label carries a mark, so it reads without colour too
        p.drawText(text, Qt::AlignRight | Qt::AlignVCenter,
                   isDivergent ? QStringLiteral("▲ ") + labelOf(series) : labelOf(series));
    }
    p.setFont(q->font());
}

void JobHeatmapView::Private::paintOverlays(QPainter& p, const Layout& l) const
{
    const QPalette palette = q->palette();
    const QFontMetrics fm = q->fontMetrics();
    const ChartColors colors = chartColors(palette);
    const TimeAxis axis = axisOf(l);
    p.save();
    p.setClipRect(l.plot);

    // "missing" inside the hatched rows that are tall enough for it
    for (size_t i = 0; i < l.rankCount; ++i) {
        if (job->ranks[i].present)
            continue;
        const auto [first, last] = groupOf(l, i);
        const QRect band(l.plot.left(), l.rowTop(first), l.plot.width(),
                         l.rowTop(last + 1) - l.rowTop(first));
        if (band.height() < 9 || first != i)
            continue;
        QFont small = q->font();
        small.setPixelSize(std::min(fm.height() - 2, band.height() - 2));
        const QFontMetrics sm(small);
        const QString label = JobHeatmapView::tr("missing");
        const QRect pill(band.center().x() - sm.horizontalAdvance(label) / 2 - 6,
                         band.center().y() - sm.height() / 2, sm.horizontalAdvance(label) + 12, sm.height());
        p.fillRect(pill, palette.color(QPalette::Base));
        p.setFont(small);
        p.setPen(palette.color(QPalette::Text));
        p.drawText(pill, Qt::AlignCenter, label);
        p.setFont(q->font());
    }

    // collective intervals, outlined on their rank's row (a halo keeps them apart from the cells)
    p.setBrush(Qt::NoBrush);
    for (const JobCollectiveInterval& interval : intervals) {
        const auto index = job->indexOfRank(interval.rank);
        if (!index)
            continue;
        const int64_t start = alignedOf(interval.rank, interval.startNs);
        const int64_t end = alignedOf(interval.rank, interval.endNs);
        if (end < visibleBeginNs || start > visibleEndNs)
            continue;
        const auto [first, last] = groupOf(l, *index);
        const int top = l.rowTop(first);
        const int height = l.rowTop(last + 1) - top;
        const double x0 = std::max(axis.toPixel(start), double(l.plot.left()) - 4);
        const double x1 = std::min(axis.toPixel(end), double(l.plot.right()) + 4);
        const QRectF box(x0, top + 1, std::max(x1 - x0, 2.0), std::max(height - 2, 1));
        const QPen pen = collectiveClassPen(interval.classification, palette);
        QPen halo(palette.color(QPalette::Base), pen.widthF() + 2);
        halo.setJoinStyle(Qt::MiterJoin);
        p.setPen(halo);
        p.drawRect(box);
        p.setPen(pen);
        p.drawRect(box);
    }

    // the leading suspects' first spikes: a tick on their row
    if (summary)
        for (const JobFirstCauseSuspect* suspect : summary->leadingSuspects()) {
            const auto index = job->indexOfRank(suspect->rank);
            if (!index || suspect->alignedFirstSpikeNs < visibleBeginNs ||
                suspect->alignedFirstSpikeNs > visibleEndNs)
                continue;
            const auto [first, last] = groupOf(l, *index);
            const double x = axis.toPixel(suspect->alignedFirstSpikeNs);
            const double top = l.rowTop(first);
            const double bottom = l.rowTop(last + 1);
            p.setPen(QPen(palette.color(QPalette::Base), 4));
            p.drawLine(QPointF(x, top), QPointF(x, bottom));
            p.setPen(QPen(suspectColor(suspect->confidence, palette), 2));
            p.drawLine(QPointF(x, top), QPointF(x, bottom));
        }

    // the cluster onset
    if (summary && summary->clusterOnsetNs && *summary->clusterOnsetNs >= visibleBeginNs &&
        *summary->clusterOnsetNs <= visibleEndNs) {
        const double x = axis.toPixel(*summary->clusterOnsetNs);
        p.setPen(QPen(palette.color(QPalette::Base), 3.5));
        p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
        p.setPen(QPen(palette.color(QPalette::Text), 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
    }

    // the highlighted and the hovered rank
    auto outline = [&](size_t index, const QPen& pen) {
        const auto [first, last] = groupOf(l, index);
        p.setPen(pen);
        p.drawRect(QRectF(l.plot.left() + 0.5, l.rowTop(first) + 0.5, l.plot.width() - 1,
                          std::max(1, l.rowTop(last + 1) - l.rowTop(first) - 1)));
    };
    if (hoverRank && *hoverRank < l.rankCount && drag == Drag::None)
        outline(*hoverRank, QPen(withAlpha(palette.color(QPalette::Text), 140), 1));
    if (highlightedRank)
        if (const auto index = job->indexOfRank(*highlightedRank))
            outline(*index, QPen(colors.cursor, 2));

    // hover line and cursor
    if (hoverNs && *hoverNs >= visibleBeginNs && *hoverNs <= visibleEndNs && drag == Drag::None) {
        p.setPen(QPen(withAlpha(colors.text, 110), 1, Qt::DotLine));
        const double x = axis.toPixel(*hoverNs);
        p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
    }
    p.setClipRect(l.plot.adjusted(-6, -8, 6, 0));
    if (cursorNs && *cursorNs >= visibleBeginNs && *cursorNs <= visibleEndNs) {
        const double x = axis.toPixel(*cursorNs);
        p.setPen(QPen(palette.color(QPalette::Base), 3.5));
        p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
        p.setPen(QPen(colors.cursor, 1.5));
        p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
        QPolygonF handle;
        handle << QPointF(x - 5, l.plot.top() - 6) << QPointF(x + 5, l.plot.top() - 6)
               << QPointF(x, l.plot.top());
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(Qt::NoPen);
        p.setBrush(colors.cursor);
        p.drawPolygon(handle);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.setClipRect(l.plot);

    // the rubber band of a drag zoom
    if (drag == Drag::Zoom) {
        const double a = std::clamp(pressPos.x(), double(l.plot.left()), double(l.plot.right()));
        const double b = std::clamp(dragPos.x(), double(l.plot.left()), double(l.plot.right()));
        const QRectF band(std::min(a, b), l.plot.top(), std::abs(b - a), l.plot.height());
        p.fillRect(band, withAlpha(colors.cursor, 45));
        p.setPen(QPen(withAlpha(colors.cursor, 200), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(band);
        const QString span = formatTimeTick(std::abs(pressAxis.toNs(b) - pressAxis.toNs(a)),
                                            std::max<int64_t>(1, int64_t(pressAxis.nsPerPixel())));
        const QRectF label = band.adjusted(4, 4, -4, -4);
        p.setPen(colors.text);
        p.drawText(label, Qt::AlignHCenter | Qt::AlignBottom, span);
    }
    p.restore();
}

JobHeatmapView::JobHeatmapView(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>(this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    RangeNavigator::View navigation;
    navigation.axis = [this]() -> std::optional<TimeAxis> {
        if (!d->hasData())
            return std::nullopt;
        return d->axisOf(d->layout());
    };
    navigation.setRange = [this](const TimeAxis& next) { d->setRange(next.beginNs, next.endNs); };
    navigation.resetRange = [this] { resetZoom(); };
    navigation.cursor = [this] { return d->cursorNs; };
    auto* navigator = new RangeNavigator(std::move(navigation), this);
    navigator->watch(this);
}

JobHeatmapView::~JobHeatmapView() = default;

void JobHeatmapView::setJob(std::shared_ptr<const JobViewData> job)
{
    d->job = std::move(job);
    d->cells.clear();
    d->gutterWidthCache = 0;
    d->hoverNs.reset();
    d->hoverRank.reset();
    d->drag = Private::Drag::None;
    d->updateRange(false);
    if (d->cursorNs && (!d->range || *d->cursorNs < d->range->beginNs || *d->cursorNs > d->range->endNs))
        d->cursorNs.reset();
    updateGeometry(); // the row count changes the size hint
    d->invalidate();
    emit visibleRangeChanged(d->visibleBeginNs, d->visibleEndNs);
}

std::shared_ptr<const JobViewData> JobHeatmapView::job() const
{
    return d->job;
}

void JobHeatmapView::setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals)
{
    d->intervals = std::move(intervals);
    update(); // overlays only: the cells stay
}

const std::vector<JobCollectiveInterval>& JobHeatmapView::collectiveIntervals() const
{
    return d->intervals;
}

void JobHeatmapView::setCrossRankSummary(std::optional<JobCrossRankSummary> summary)
{
    const int64_t oldBegin = d->visibleBeginNs;
    const int64_t oldEnd = d->visibleEndNs;
    const bool wasFull = !d->range || (oldBegin == d->range->beginNs && oldEnd == d->range->endNs);
    d->summary = std::move(summary);
    d->updateRange(!wasFull); // new offsets move the data: a view of everything stays one
    d->invalidate();
    if (d->visibleBeginNs != oldBegin || d->visibleEndNs != oldEnd)
        emit visibleRangeChanged(d->visibleBeginNs, d->visibleEndNs);
}

const std::optional<JobCrossRankSummary>& JobHeatmapView::crossRankSummary() const
{
    return d->summary;
}

void JobHeatmapView::setDivergentRanks(std::vector<JobDivergentRank> ranks)
{
    d->divergent = std::move(ranks);
    d->gutterWidthCache = 0; // the marked labels are wider: the plot moves
    d->invalidate();
    update();
}

const std::vector<JobDivergentRank>& JobHeatmapView::divergentRanks() const
{
    return d->divergent;
}

void JobHeatmapView::setMeasure(JobMeasure measure)
{
    if (d->measure == measure)
        return;
    d->measure = measure;
    d->invalidate();
}

JobMeasure JobHeatmapView::measure() const
{
    return d->measure;
}

void JobHeatmapView::setHighlightedRank(std::optional<int64_t> rank)
{
    if (d->highlightedRank == rank)
        return;
    d->highlightedRank = rank;
    update();
}

qint64 JobHeatmapView::visibleBeginNs() const
{
    return d->visibleBeginNs;
}

qint64 JobHeatmapView::visibleEndNs() const
{
    return d->visibleEndNs;
}

std::optional<qint64> JobHeatmapView::cursorTime() const
{
    return d->cursorNs;
}

std::optional<AlignedRange> JobHeatmapView::dataRange() const
{
    return d->range;
}

QRect JobHeatmapView::plotRect() const
{
    return d->layout().plot;
}

QRect JobHeatmapView::gutterRect() const
{
    return d->layout().gutter;
}

QRect JobHeatmapView::legendRect() const
{
    return d->layout().legend;
}

TimeAxis JobHeatmapView::pixelAxis() const
{
    return d->axisOf(d->layout());
}

QRect JobHeatmapView::rowRect(size_t rankIndex) const
{
    const Private::Layout l = d->layout();
    if (rankIndex >= l.rankCount)
        return {};
    const int top = l.rowTop(rankIndex);
    return QRect(l.plot.left(), top, l.plot.width(), l.rowTop(rankIndex + 1) - top);
}

std::optional<size_t> JobHeatmapView::rankIndexAt(QPoint pos) const
{
    return d->rankIndexAt(d->layout(), pos);
}

QString JobHeatmapView::toolTipAt(QPoint pos) const
{
    if (!d->cacheValid)
        d->rebuildCache(); // the tooltip reads the drawn cells
    return d->toolTipAt(pos);
}

std::vector<double> JobHeatmapView::drawnCells(size_t rankIndex) const
{
    return rankIndex < d->cells.size() ? d->cells[rankIndex] : std::vector<double>{};
}

int JobHeatmapView::cacheBuilds() const
{
    return d->builds;
}

void JobHeatmapView::rebuildCache()
{
    if (!d->cacheValid || d->image.size() != d->layout().plot.size())
        d->rebuildCache();
}

int JobHeatmapView::drawnHeight() const
{
    const QFontMetrics fm = fontMetrics();
    const int64_t rows = int64_t(std::max<size_t>(d->rankCount(), 1)) * 4 * fm.height(); // layout()'s limit
    const int64_t height = kLegendBarHeight + fm.height() + 8 + rows + fm.height() + 6 + 2 + kMargin;
    return int(std::min<int64_t>(height, std::numeric_limits<int>::max()));
}

QSize JobHeatmapView::sizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    const int rows = int(std::clamp<size_t>(d->rankCount(), 4, 40));
    return QSize(900, kLegendBarHeight + 2 * fm.height() + 20 + rows * std::max(10, fm.height()));
}

QSize JobHeatmapView::minimumSizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return QSize(320, kLegendBarHeight + 2 * fm.height() + 20 + 60);
}

void JobHeatmapView::setVisibleRange(qint64 beginNs, qint64 endNs)
{
    d->setRange(beginNs, endNs);
}

void JobHeatmapView::setCursorTime(qint64 ns)
{
    if (d->cursorNs == ns)
        return;
    d->cursorNs = ns;
    update();
}

void JobHeatmapView::resetZoom()
{
    if (d->range)
        d->setRange(d->range->beginNs, d->range->endNs);
}

void JobHeatmapView::paintEvent(QPaintEvent*)
{
    const Private::Layout l = d->layout();
    if (!d->cacheValid || d->image.size() != l.plot.size())
        d->rebuildCache();
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!d->job || d->job->ranks.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No distributed job loaded"));
        return;
    }
    p.drawImage(l.plot.topLeft(), d->image);
    if (!d->range) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(l.plot, Qt::AlignCenter | Qt::TextWordWrap,
                   tr("No rank has samples with device used and allocator reserved bytes."));
    }
    d->paintOverlays(p, l);
    p.setPen(withAlpha(pal.color(QPalette::Text), 90));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.plot.adjusted(-1, -1, 0, 0));
    d->paintGutter(p, l);
    d->paintAxis(p, l);
    d->paintLegend(p, l);
}

void JobHeatmapView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange ||
        event->type() == QEvent::StyleChange) {
        d->gutterWidthCache = 0;
        d->invalidate();
    }
}

bool JobHeatmapView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        showToolTip(*help, toolTipAt(help->pos()), this);
        return true;
    }
    return QWidget::event(event);
}

void JobHeatmapView::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    const Private::Layout l = d->layout();
    if (!d->hasData()) {
        QWidget::mousePressEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    if (event->button() == Qt::LeftButton && l.gutter.contains(pos)) {
        if (const auto index = d->rankIndexAt(l, pos)) {
            emit rankActivated(d->job->ranks[*index].rank);
            event->accept();
            return;
        }
    }
    d->pressPos = event->position();
    d->dragPos = event->position();
    d->pressAxis = d->axisOf(l);
    if (event->button() == Qt::MiddleButton ||
        (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier))) {
        d->drag = Private::Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
    } else if (event->button() == Qt::LeftButton && l.plot.contains(pos)) {
        d->drag = Private::Drag::Pending;
    } else {
        QWidget::mousePressEvent(event);
        return;
    }
    QToolTip::hideText();
    event->accept();
}

void JobHeatmapView::mouseMoveEvent(QMouseEvent* event)
{
    d->dragPos = event->position();
    const Private::Layout l = d->layout();
    switch (d->drag) {
    case Private::Drag::None: {
        const QPoint pos = event->position().toPoint();
        const auto rank = d->hasData() ? d->rankIndexAt(l, pos) : std::nullopt;
        const auto ns = d->hasData() && l.plot.contains(pos)
                            ? std::optional<int64_t>(d->axisOf(l).toNs(pos.x()))
                            : std::nullopt;
        if (rank != d->hoverRank || ns != d->hoverNs) {
            d->hoverRank = rank;
            d->hoverNs = ns;
            update();
        }
        if (QToolTip::isVisible()) {
            const QString text = toolTipAt(pos);
            if (!text.isEmpty())
                QToolTip::showText(event->globalPosition().toPoint(), text, this);
        }
        return;
    }
    case Private::Drag::Pending:
        if (std::abs(event->position().x() - d->pressPos.x()) < kDragThresholdPx)
            return;
        d->drag = Private::Drag::Zoom;
        break;
    case Private::Drag::Pan: {
        const TimeAxis panned =
            RangeNavigation::afterDrag(d->pressAxis, d->pressPos.x(), event->position().x());
        d->setRange(panned.beginNs, panned.endNs);
        break;
    }
    case Private::Drag::Zoom:
        break;
    }
    update();
    event->accept();
}

void JobHeatmapView::mouseReleaseEvent(QMouseEvent* event)
{
    const Private::Drag drag = d->drag;
    d->drag = Private::Drag::None;
    unsetCursor();
    if (!d->hasData() || drag == Private::Drag::None) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    if (drag == Private::Drag::Pending) {
        const int64_t ns = d->pressAxis.toNsClamped(event->position().x());
        d->cursorNs = ns;
        emit cursorRequested(ns);
    } else if (drag == Private::Drag::Zoom) {
        int64_t a = d->pressAxis.toNsClamped(d->pressPos.x());
        int64_t b = d->pressAxis.toNsClamped(event->position().x());
        if (b < a)
            std::swap(a, b);
        if (b > a)
            d->setRange(a, b);
    }
    update();
    event->accept();
}

// Wheel, double click, arrows and Home are the RangeNavigator's; Escape cancels a drag.
void JobHeatmapView::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && d->drag != Private::Drag::None) {
        d->drag = Private::Drag::None;
        unsetCursor();
        update();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

void JobHeatmapView::leaveEvent(QEvent* event)
{
    d->hoverNs.reset();
    d->hoverRank.reset();
    update();
    QWidget::leaveEvent(event);
}

} // namespace gapscope
