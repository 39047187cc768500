#include "widgets/job/RankSparklinesView.h"

#include "analysis/Int64Math.h"
#include "model/report/ReportContent.h" // formatRelativeTime
#include "model/text/Text.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/chart/TimeAxis.h"
#include "widgets/job/JobViewStyle.h"

#include <QCoreApplication>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

constexpr int kMargin = 6;
constexpr int kMarkerWidth = 10;

QColor withAlpha(QColor color, int alpha)
{
    color.setAlpha(alpha);
    return color;
}

} // namespace

class RankSparklinesView::Private
{
public:
    explicit Private(RankSparklinesView* owner) : q(owner) {}

    // One rank's line over the visible range: x in plot pixels from the plot's left, y the value.
    struct Line
    {
        std::vector<QPointF> points;
        double low = 0; // the values inside the visible range (both 0 without any)
        double high = 0;
        bool any = false;
    };

    bool hasData() const { return job && !job->ranks.empty(); }
    size_t rankCount() const { return job ? job->ranks.size() : 0; }
    bool overLimit() const { return rankCount() > kMaxRanks; }
    int rowHeight() const { return 2 * q->fontMetrics().height() + 10; }
    int labelWidth() const;
    int valueWidth() const;
    QRect rowRect(size_t i) const;
    QRect plotRect(size_t i) const;
    int64_t offsetOf(int64_t rank) const { return summary ? summary->offsetOf(rank) : 0; }
    TimeAxis axisOf(const QRect& plot) const
    {
        return TimeAxis{visibleBeginNs, std::max<int64_t>(visibleEndNs, saturatingAdd(visibleBeginNs, 1)),
                        double(plot.left()), double(plot.left() + plot.width())};
    }
    void invalidate();
    void ensureLines() const;
    // The values at the bottom and the top of row i.
    std::pair<double, double> valueRange(size_t i) const;
    QPolygonF pixelLine(size_t i) const;
    std::optional<size_t> rankIndexAt(QPoint pos) const;
    QString toolTipAt(QPoint pos) const;
    void updateNote();
    void paintRow(QPainter& p, size_t i) const;
    void paintAxis(QPainter& p, const QRect& area) const;

    RankSparklinesView* q;
    Rows* rows = nullptr;
    Axis* axis = nullptr;
    QScrollArea* scroll = nullptr;
    QLabel* note = nullptr;
    std::shared_ptr<const JobViewData> job;
    std::optional<JobCrossRankSummary> summary;
    std::vector<JobCollectiveInterval> intervals;
    JobMeasure measure = JobMeasure::Gap;
    bool shared = true;
    std::optional<int64_t> highlightedRank;
    int64_t visibleBeginNs = 0;
    int64_t visibleEndNs = 0;
    std::optional<int64_t> cursorNs;
    std::optional<int64_t> hoverNs;

    mutable std::vector<Line> lines;
    mutable bool linesValid = false;
    mutable int linesWidth = -1;
    mutable int builds = 0;
};

// The scrolled rows.
class RankSparklinesView::Rows : public QWidget
{
public:
    Rows(RankSparklinesView::Private* d, QWidget* parent) : QWidget(parent), d(d)
    {
        setMouseTracking(true);
        setFocusPolicy(Qt::StrongFocus);
        setAttribute(Qt::WA_OpaquePaintEvent);
    }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    RankSparklinesView::Private* d;
};

// The time labels above the rows, lined up with their sparklines.
class RankSparklinesView::Axis : public QWidget
{
public:
    Axis(RankSparklinesView::Private* d, QWidget* parent) : QWidget(parent), d(d)
    {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }
    QSize sizeHint() const override { return QSize(200, fontMetrics().height() + 8); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().color(QPalette::Base));
        if (!d->hasData() || d->overLimit())
            return;
        // the sparklines' horizontal extent, in this widget's coordinates
        const QRect plot = d->plotRect(0);
        const int left = d->rows->mapTo(d->q, plot.topLeft()).x() - x();
        d->paintAxis(p, QRect(left, 0, plot.width(), height()));
    }

private:
    RankSparklinesView::Private* d;
};

int RankSparklinesView::Private::labelWidth() const
{
    const QFontMetrics fm = q->fontMetrics();
    int widest = fm.horizontalAdvance(QStringLiteral("gpu-node-000"));
    if (job && !job->ranks.empty())
        for (const RankSeries* series : {&job->ranks.front(), &job->ranks.back()})
            widest =
                std::max(widest, fm.horizontalAdvance(RankSparklinesView::tr("rank %1").arg(series->rank)));
    return kMargin + kMarkerWidth + 4 + widest + 8;
}

int RankSparklinesView::Private::valueWidth() const
{
    const QFontMetrics fm = q->fontMetrics();
    return fm.horizontalAdvance(QStringLiteral("-888.88 MiB")) + 2 * kMargin;
}

QRect RankSparklinesView::Private::rowRect(size_t i) const
{
    return QRect(0, int(i) * rowHeight(), rows->width(), rowHeight());
}

QRect RankSparklinesView::Private::plotRect(size_t i) const
{
    const QRect row = rowRect(i);
    const int left = labelWidth();
    const int right = row.width() - valueWidth();
    return QRect(left, row.top() + 4, std::max(1, right - left), row.height() - 8);
}

void RankSparklinesView::Private::invalidate()
{
    linesValid = false;
    rows->update();
    axis->update();
}

void RankSparklinesView::Private::ensureLines() const
{
    const int width = plotRect(0).width();
    if (linesValid && linesWidth == width)
        return;
    linesValid = true;
    linesWidth = width;
    ++builds;
    lines.assign(rankCount(), Line{});
    if (!hasData() || overLimit() || visibleEndNs <= visibleBeginNs)
        return;
    for (size_t i = 0; i < job->ranks.size(); ++i) {
        const RankSeries& series = job->ranks[i];
        if (series.rows.empty())
            continue;
        const int64_t offset = offsetOf(series.rank);
        const int64_t begin = saturatingAdd(visibleBeginNs, offset);
        const int64_t end = saturatingAdd(visibleEndNs, offset);
        const std::span<const uint32_t> rowList(series.rows);
        const RowSpan span =
            withNeighbours(rowsInTimeRange(series.times(), rowList, begin, end), rowList.size());
        auto valueAt = [&](uint32_t row) { return series.valueOfRow(measure, row); };
        const std::vector<uint32_t> kept =
            series.linePyramid(measure).decimate(series.times(), rowList, span, begin, end, width, valueAt);
        Line& line = lines[i];
        line.points.reserve(kept.size());
        const TimeAxis timeAxis{begin, std::max(end, saturatingAdd(begin, 1)), 0.0, double(width)};
        for (uint32_t position : kept) {
            const double value = series.valueAt(measure, position);
            if (std::isnan(value))
                continue;
            const int64_t t = series.timeAt(position);
            line.points.emplace_back(timeAxis.toPixel(t), value);
            if (t < begin || t > end)
                continue; // a neighbour: drawn to the edge, not part of the scale
            line.low = line.any ? std::min(line.low, value) : value;
            line.high = line.any ? std::max(line.high, value) : value;
            line.any = true;
        }
    }
}

std::pair<double, double> RankSparklinesView::Private::valueRange(size_t i) const
{
    ensureLines();
    double low = 0, high = 0;
    bool any = false;
    auto add = [&](const Line& line) {
        if (!line.any)
            return;
        low = any ? std::min(low, line.low) : line.low;
        high = any ? std::max(high, line.high) : line.high;
        any = true;
    };
    if (shared)
        for (const Line& line : lines)
            add(line);
    else if (i < lines.size())
        add(lines[i]);
    if (!any)
        return {0, 1};
    // zero stays in view when the values nearly reach it: a gap's size reads against it
    if (low > 0 && low < (high - low) * 0.35)
        low = 0;
    if (high < 0 && -high < (high - low) * 0.35)
        high = 0;
    if (high - low <= 0) {
        const double pad = std::max(std::abs(high) * 0.05, measure == JobMeasure::Gap ? 1024.0 : 1e-4);
        low -= pad;
        high += pad;
    }
    return {low, high};
}

QPolygonF RankSparklinesView::Private::pixelLine(size_t i) const
{
    ensureLines();
    QPolygonF polygon;
    if (i >= lines.size())
        return polygon;
    const QRect plot = plotRect(i);
    const auto [low, high] = valueRange(i);
    // x of the points counts from the plot's left edge
    const PlotMapping mapping =
        PlotMapping::fromRanges(QRectF(plot).adjusted(0, 1, 0, -1), 0, double(plot.width()), low, high);
    return plotPolyline(lines[i].points, mapping, plot.left(), plot.right() + 1, 2);
}

std::optional<size_t> RankSparklinesView::Private::rankIndexAt(QPoint pos) const
{
    if (!hasData() || overLimit() || pos.y() < 0)
        return std::nullopt;
    const auto index = size_t(pos.y() / rowHeight());
    return index < rankCount() ? std::optional<size_t>(index) : std::nullopt;
}

QString RankSparklinesView::Private::toolTipAt(QPoint pos) const
{
    const auto index = rankIndexAt(pos);
    if (!index)
        return {};
    const RankSeries& series = job->ranks[*index];
    QString html =
        QStringLiteral("<b>%1</b>").arg(htmlEscape(RankSparklinesView::tr("rank %1").arg(series.rank)));
    if (!series.present)
        return html + QStringLiteral(" — ") +
               htmlEscape(RankSparklinesView::tr("missing: no input holds this rank"));
    if (!series.host.isEmpty())
        html += QStringLiteral(" · %1").arg(
            htmlEscape(RankSparklinesView::tr("%1, local rank %2").arg(series.host).arg(series.localRank)));
    const QRect plot = plotRect(*index);
    const auto range = alignedRangeOf(*job, summary ? &*summary : nullptr);
    const int64_t origin = range ? range->beginNs : 0;
    if (plot.contains(pos) && range) {
        const int64_t aligned = axisOf(plot).toNs(pos.x());
        if (const auto position = series.nearestPosition(saturatingAdd(aligned, offsetOf(series.rank)))) {
            const int64_t raw = series.timeAt(*position);
            html +=
                QStringLiteral("<br/>%1: %2 · %3")
                    .arg(htmlEscape(formatRelativeTime(saturatingSub(raw, offsetOf(series.rank)), origin)),
                         htmlEscape(bytesText(series.gapAt(*position))),
                         htmlEscape(measureValueText(JobMeasure::GapRatio,
                                                     series.valueAt(JobMeasure::GapRatio, *position))));
        }
    }
    if (series.latestGap)
        html += QStringLiteral("<br/>") +
                htmlEscape(RankSparklinesView::tr("Latest gap %1, peak %2")
                               .arg(bytesText(*series.latestGap), bytesText(*series.peakGap)));
    html += QStringLiteral("<br/><span style='font-size:small'>%1</span>")
                .arg(htmlEscape(RankSparklinesView::tr("Double-click to open this rank")));
    return html;
}

void RankSparklinesView::Private::updateNote()
{
    const bool over = overLimit();
    note->setVisible(over);
    scroll->setVisible(!over);
    axis->setVisible(!over);
    if (over)
        note->setText(
            RankSparklinesView::tr("%1 ranks: too many for a sparkline each. See the heatmap, which "
                                   "shows every rank on one screen.")
                .arg(rankCount()));
    rows->setMinimumHeight(over ? 0 : int(rankCount()) * rowHeight());
}

void RankSparklinesView::Private::paintAxis(QPainter& p, const QRect& area) const
{
    const auto range = alignedRangeOf(*job, summary ? &*summary : nullptr);
    if (!range || visibleEndNs <= visibleBeginNs)
        return;
    const QFontMetrics fm = q->fontMetrics();
    const TimeAxis timeAxis = axisOf(area);
    const int maxTicks =
        std::max(2, area.width() / (fm.horizontalAdvance(QStringLiteral("00 min 00 s")) + 24));
    const int64_t step = niceTimeStepNs(timeAxis.spanNs(), maxTicks);
    p.setPen(q->palette().color(QPalette::Text));
    for (int64_t tick : timeTicksNs(timeAxis.beginNs, timeAxis.endNs, range->beginNs, step)) {
        const double x = timeAxis.toPixel(tick);
        const QString label = formatTimeTick(tick - range->beginNs, step);
        const int w = fm.horizontalAdvance(label);
        p.drawLine(QPointF(x, area.bottom() - 3), QPointF(x, area.bottom()));
        p.drawText(QRectF(std::clamp(x - w / 2.0, 0.0, double(q->width() - w - 1)), area.top() + 1, w + 1,
                          fm.height()),
                   Qt::AlignCenter, label);
    }
}

void RankSparklinesView::Private::paintRow(QPainter& p, size_t i) const
{
    const QPalette palette = q->palette();
    const ChartColors colors = chartColors(palette);
    const QFontMetrics fm = q->fontMetrics();
    const RankSeries& series = job->ranks[i];
    const QRect row = rowRect(i);
    const QRect plot = plotRect(i);
    const bool highlighted = highlightedRank && *highlightedRank == series.rank;
    p.fillRect(row, palette.color(i % 2 == 0 ? QPalette::Base : QPalette::AlternateBase));
    if (highlighted)
        p.fillRect(row, withAlpha(palette.color(QPalette::Highlight), 40));

    // label: the rank, its host; the first-cause marker before it
    const JobFirstCauseSuspect* suspect = summary ? summary->suspectOf(series.rank) : nullptr;
    bool leading = false;
    if (suspect)
        for (const JobFirstCauseSuspect* lead : summary->leadingSuspects())
            leading = leading || lead->rank == series.rank;
    if (leading)
        drawSuspectMarker(p, QRectF(kMargin, row.top() + 4, kMarkerWidth, fm.height()), suspect->confidence,
                          palette);
    const QRect label(kMargin + kMarkerWidth + 4, row.top() + 4, labelWidth() - kMargin - kMarkerWidth - 10,
                      fm.height());
    QFont bold = q->font();
    bold.setBold(leading);
    p.setFont(bold);
    p.setPen(series.present ? palette.color(QPalette::Text) : palette.color(QPalette::PlaceholderText));
    p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, RankSparklinesView::tr("rank %1").arg(series.rank));
    p.setFont(q->font());
    QFont small = q->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    p.setPen(palette.color(QPalette::PlaceholderText));
    const QString detail = series.present ? series.host : RankSparklinesView::tr("missing");
    p.drawText(label.translated(0, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(small).elidedText(detail, Qt::ElideRight, label.width()));
    p.setFont(q->font());

    // the plot
    p.fillRect(plot, palette.color(QPalette::Base));
    if (!series.present) {
        QColor hatch = palette.color(QPalette::Text);
        hatch.setAlpha(colors.dark ? 110 : 90);
        p.fillRect(plot, QBrush(hatch, Qt::BDiagPattern));
    }
    const TimeAxis timeAxis = axisOf(plot);
    p.save();
    p.setClipRect(plot);
    // collective intervals behind the line
    for (const JobCollectiveInterval& interval : intervals) {
        if (interval.rank != series.rank)
            continue;
        const int64_t start = saturatingSub(interval.startNs, offsetOf(series.rank));
        const int64_t end = saturatingSub(interval.endNs, offsetOf(series.rank));
        if (end < visibleBeginNs || start > visibleEndNs)
            continue;
        const double x0 = std::max(timeAxis.toPixel(start), double(plot.left()) - 2);
        const double x1 = std::min(timeAxis.toPixel(end), double(plot.right()) + 2);
        // a neutral shade (the line's own blue stays unmistakable) over a strip of the class's colour
        const QRectF span(x0, plot.top(), std::max(x1 - x0, 1.0), plot.height());
        p.fillRect(span, withAlpha(palette.color(QPalette::Text), colors.dark ? 34 : 22));
        p.fillRect(QRectF(span.left(), span.bottom() - 3, span.width(), 3),
                   collectiveClassPen(interval.classification, palette).color());
    }
    const QPolygonF line = pixelLine(i);
    if (line.size() >= 2) {
        const auto [low, high] = valueRange(i);
        const double zero = std::clamp(low, std::min(0.0, high), std::max(0.0, high));
        const double baseY = plot.bottom() - 1 - (zero - low) / (high - low) * (plot.height() - 2);
        QPolygonF area = line;
        area << QPointF(line.back().x(), baseY) << QPointF(line.front().x(), baseY);
        p.setPen(Qt::NoPen);
        p.setBrush(withAlpha(colors.gap, colors.dark ? 70 : 50));
        p.drawPolygon(area);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(colors.gap, 1.2));
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(line);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    // the cluster onset, the suspect's first spike, hover and cursor
    if (summary && summary->clusterOnsetNs && *summary->clusterOnsetNs >= visibleBeginNs &&
        *summary->clusterOnsetNs <= visibleEndNs) {
        const double x = timeAxis.toPixel(*summary->clusterOnsetNs);
        p.setPen(QPen(palette.color(QPalette::Text), 1, Qt::DashLine));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    if (leading && suspect->alignedFirstSpikeNs >= visibleBeginNs &&
        suspect->alignedFirstSpikeNs <= visibleEndNs) {
        const double x = timeAxis.toPixel(suspect->alignedFirstSpikeNs);
        p.setPen(QPen(suspectColor(suspect->confidence, palette), 2));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    if (hoverNs && *hoverNs >= visibleBeginNs && *hoverNs <= visibleEndNs) {
        p.setPen(QPen(withAlpha(colors.text, 110), 1, Qt::DotLine));
        const double x = timeAxis.toPixel(*hoverNs);
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    if (cursorNs && *cursorNs >= visibleBeginNs && *cursorNs <= visibleEndNs) {
        p.setPen(QPen(colors.cursor, 1.5));
        const double x = timeAxis.toPixel(*cursorNs);
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    p.restore();
    p.setPen(withAlpha(palette.color(QPalette::Text), 60));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot.adjusted(0, 0, -1, -1));

    // the latest value, right of the line
    const QRect value(plot.right() + kMargin, row.top() + 4, valueWidth() - 2 * kMargin, fm.height());
    p.setPen(palette.color(QPalette::Text));
    if (series.present && !series.rows.empty()) {
        const double latest = series.valueAt(measure, series.rows.size() - 1);
        p.drawText(value, Qt::AlignRight | Qt::AlignVCenter, measureValueText(measure, latest));
        p.setFont(small);
        p.setPen(palette.color(QPalette::PlaceholderText));
        p.drawText(value.translated(0, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   RankSparklinesView::tr("latest"));
        p.setFont(q->font());
    }
}

void RankSparklinesView::Rows::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    p.fillRect(event->rect(), palette().color(QPalette::Base));
    if (!d->hasData() || d->overLimit())
        return;
    d->ensureLines();
    const int height = d->rowHeight();
    const auto first = size_t(std::max(0, event->rect().top() / height));
    const auto last = std::min(d->rankCount(), size_t(event->rect().bottom() / height) + 1);
    for (size_t i = first; i < last; ++i)
        d->paintRow(p, i);
}

bool RankSparklinesView::Rows::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = d->toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void RankSparklinesView::Rows::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    const QPoint pos = event->position().toPoint();
    const auto index = d->rankIndexAt(pos);
    if (event->button() != Qt::LeftButton || !index || !d->plotRect(*index).contains(pos) ||
        d->visibleEndNs <= d->visibleBeginNs) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int64_t ns = d->axisOf(d->plotRect(*index)).toNsClamped(pos.x());
    d->cursorNs = ns;
    update();
    emit d->q->cursorRequested(ns);
    event->accept();
}

void RankSparklinesView::Rows::mouseDoubleClickEvent(QMouseEvent* event)
{
    const auto index = d->rankIndexAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || !index) {
        QWidget::mouseDoubleClickEvent(event);
        return;
    }
    emit d->q->rankActivated(d->job->ranks[*index].rank);
    event->accept();
}

void RankSparklinesView::Rows::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    const auto index = d->rankIndexAt(pos);
    std::optional<int64_t> hover;
    if (index && d->plotRect(*index).contains(pos) && d->visibleEndNs > d->visibleBeginNs)
        hover = d->axisOf(d->plotRect(*index)).toNs(pos.x());
    if (hover != d->hoverNs) {
        d->hoverNs = hover;
        update();
    }
    if (QToolTip::isVisible()) {
        const QString text = d->toolTipAt(pos);
        if (!text.isEmpty())
            QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
    QWidget::mouseMoveEvent(event);
}

void RankSparklinesView::Rows::leaveEvent(QEvent* event)
{
    d->hoverNs.reset();
    update();
    QWidget::leaveEvent(event);
}

void RankSparklinesView::Rows::wheelEvent(QWheelEvent* event)
{
    // A vertical wheel scrolls the rows; with Ctrl it zooms the shared range, and a horizontal
    // one pans it, as in the heatmap. The rows hand the scroll to the scroll bar themselves:
    // an ignored wheel event is passed to the parent only when it came from the system.
    const QPoint delta = event->angleDelta();
    const bool horizontal = std::abs(delta.x()) > std::abs(delta.y());
    if (!horizontal && !(event->modifiers() & Qt::ControlModifier)) {
        QCoreApplication::sendEvent(d->scroll->verticalScrollBar(), event);
        return;
    }
    if (d->visibleEndNs > d->visibleBeginNs) {
        const auto index = d->rankIndexAt(event->position().toPoint());
        const QRect plot = d->plotRect(index.value_or(0));
        if (const auto next = RangeNavigation::afterWheel(d->axisOf(plot), delta, event->position().x()))
            emit d->q->visibleRangeRequested(next->beginNs, next->endNs);
    }
    event->accept();
}

RankSparklinesView::RankSparklinesView(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    d->axis = new Axis(d.get(), this);
    layout->addWidget(d->axis);
    d->scroll = new QScrollArea(this);
    d->scroll->setFrameShape(QFrame::NoFrame);
    d->scroll->setWidgetResizable(true);
    d->scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    d->rows = new Rows(d.get(), d->scroll);
    d->rows->setObjectName(QStringLiteral("sparklineRows"));
    d->scroll->setWidget(d->rows);
    layout->addWidget(d->scroll, 1);
    d->note = new QLabel(this);
    d->note->setObjectName(QStringLiteral("sparklinesNote"));
    d->note->setWordWrap(true);
    d->note->setAlignment(Qt::AlignCenter);
    d->note->setContentsMargins(12, 12, 12, 12);
    layout->addWidget(d->note, 1);
    // the axis lines up with the rows, which the scroll bar narrows
    connect(d->scroll->verticalScrollBar(), &QScrollBar::rangeChanged, d->axis,
            qOverload<>(&QWidget::update));
    d->updateNote();
}

RankSparklinesView::~RankSparklinesView() = default;

void RankSparklinesView::setJob(std::shared_ptr<const JobViewData> job)
{
    d->job = std::move(job);
    d->hoverNs.reset();
    const auto range = d->job ? alignedRangeOf(*d->job, d->summary ? &*d->summary : nullptr) : std::nullopt;
    d->visibleBeginNs = range ? range->beginNs : 0;
    d->visibleEndNs = range ? range->endNs : 0;
    d->updateNote();
    d->invalidate();
}

void RankSparklinesView::setCrossRankSummary(std::optional<JobCrossRankSummary> summary)
{
    d->summary = std::move(summary);
    d->invalidate();
}

void RankSparklinesView::setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals)
{
    d->intervals = std::move(intervals);
    d->rows->update();
}

void RankSparklinesView::setMeasure(JobMeasure measure)
{
    if (d->measure == measure)
        return;
    d->measure = measure;
    d->invalidate();
}

JobMeasure RankSparklinesView::measure() const
{
    return d->measure;
}

void RankSparklinesView::setSharedScale(bool shared)
{
    if (d->shared == shared)
        return;
    d->shared = shared;
    d->rows->update();
}

bool RankSparklinesView::sharedScale() const
{
    return d->shared;
}

void RankSparklinesView::setHighlightedRank(std::optional<int64_t> rank)
{
    if (d->highlightedRank == rank)
        return;
    d->highlightedRank = rank;
    d->rows->update();
    if (rank && d->job)
        if (const auto index = d->job->indexOfRank(*rank); index && !d->overLimit())
            d->scroll->ensureVisible(0, d->rowRect(*index).center().y(), 0, d->rowHeight());
}

bool RankSparklinesView::isOverLimit() const
{
    return d->overLimit();
}

qint64 RankSparklinesView::visibleBeginNs() const
{
    return d->visibleBeginNs;
}

qint64 RankSparklinesView::visibleEndNs() const
{
    return d->visibleEndNs;
}

QWidget* RankSparklinesView::rowsWidget() const
{
    return d->rows;
}

QScrollArea* RankSparklinesView::scrollArea() const
{
    return d->scroll;
}

QRect RankSparklinesView::rowRect(size_t rankIndex) const
{
    return d->rowRect(rankIndex);
}

QRect RankSparklinesView::plotRect(size_t rankIndex) const
{
    return d->plotRect(rankIndex);
}

QPolygonF RankSparklinesView::drawnLine(size_t rankIndex) const
{
    return d->pixelLine(rankIndex);
}

std::pair<double, double> RankSparklinesView::valueRange(size_t rankIndex) const
{
    return d->valueRange(rankIndex);
}

std::optional<size_t> RankSparklinesView::rankIndexAt(QPoint rowsPos) const
{
    return d->rankIndexAt(rowsPos);
}

QString RankSparklinesView::toolTipAt(QPoint rowsPos) const
{
    return d->toolTipAt(rowsPos);
}

int RankSparklinesView::lineBuilds() const
{
    return d->builds;
}

QString RankSparklinesView::noteText() const
{
    return d->note->isVisibleTo(this) ? d->note->text() : QString();
}

void RankSparklinesView::setVisibleRange(qint64 beginNs, qint64 endNs)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    if (beginNs == d->visibleBeginNs && endNs == d->visibleEndNs)
        return;
    d->visibleBeginNs = beginNs;
    d->visibleEndNs = endNs;
    d->invalidate();
}

void RankSparklinesView::setCursorTime(qint64 ns)
{
    if (d->cursorNs == ns)
        return;
    d->cursorNs = ns;
    d->rows->update();
}

void RankSparklinesView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        d->updateNote();
        d->invalidate();
    }
}

} // namespace gapscope
