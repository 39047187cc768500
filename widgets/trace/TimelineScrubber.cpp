#include "widgets/trace/TimelineScrubber.h"

#include "model/store/Decimation.h"
#include "model/text/Text.h"
#include "model/trace/CounterCapture.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/chart/TimeAxis.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

constexpr int kMaxPhaseLanes = 3;
constexpr int kSideMargin = 6;
constexpr int kFindingLaneHeight = 9;
constexpr int kTrackMinHeight = 34;

} // namespace

class TimelineScrubber::Private
{
public:
    explicit Private(TimelineScrubber* owner) : q(owner) {}

    bool hasData() const { return result && range.valid; }
    int laneHeight() const { return q->fontMetrics().height() + 2; }
    int laneCount() const;
    int axisHeight() const { return q->fontMetrics().height() + 4; }
    QRectF trackRect() const; // the whole time range, full height
    TimeAxis axis() const;
    int64_t snappedTime(double x) const; // the usable sample nearest to pixel x
    QString toolTipAt(QPoint pos) const;

    TimelineScrubber* q;
    std::shared_ptr<const AnalysisResult> result;
    AnalysisTimeRange range;
    std::vector<int64_t> phaseStarts; // sorted, unique
    double gapMin = 0;                // sparkline scale
    double gapMax = 0;
    MinMaxPyramid gapPyramid; // of the sparkline: a repaint never scans every sample
    int64_t maxDepth = -1;    // deepest lane
    int64_t baseDepth = 0;    // depth of the top lane
    std::vector<Bookmark> bookmarks;
};

int TimelineScrubber::Private::laneCount() const
{
    return int(std::min<int64_t>(maxDepth + 1, kMaxPhaseLanes));
}

QRectF TimelineScrubber::Private::trackRect() const
{
    return QRectF(kSideMargin, 1, std::max(1, q->width() - 2 * kSideMargin), q->height() - 2);
}

TimeAxis TimelineScrubber::Private::axis() const
{
    const QRectF track = trackRect();
    return TimeAxis{range.beginNs, std::max(range.endNs, range.beginNs + 1), track.left(), track.right()};
}

int64_t TimelineScrubber::Private::snappedTime(double x) const
{
    const int64_t ns = axis().toNsClamped(x);
    if (const std::optional<size_t> pos = nearestTimelineRow(*result, ns))
        return result->trace->store.timestampNs[timelineRows(*result)[*pos]];
    return std::clamp(ns, range.beginNs, range.endNs);
}

QString TimelineScrubber::Private::toolTipAt(QPoint pos) const
{
    if (!hasData())
        return TimelineScrubber::tr("No analysis loaded");
    const TimeAxis timeAxis = axis();
    const int64_t ns = timeAxis.toNsClamped(pos.x());
    const int64_t step = std::max<int64_t>(1, niceTimeStepNs(int64_t(timeAxis.nsPerPixel()) + 1, 1));
    QString html = QStringLiteral("<b>%1</b>").arg(htmlEscape(formatTimeTick(ns - range.originNs, step)));
    const PhaseSpan* phase = nullptr;
    for (const PhaseSpan& span : result->phases) {
        if (span.contains(ns) && (!phase || span.depth >= phase->depth))
            phase = &span;
    }
    if (phase)
        html += QStringLiteral("<br/>") +
                TimelineScrubber::tr("Phase: %1").arg(htmlEscape(shownText(qs(phase->label))));
    for (const Finding& finding : result->findings) {
        if (std::abs(timeAxis.toPixel(finding.evidenceTimestampNs) - pos.x()) <= 4) {
            html += QStringLiteral("<br/><span style='color:%1'>●</span> %2 (%3)")
                        .arg(severityTint(finding.severity, q->palette()).name(),
                             qs(toString(finding.classification)), qs(toString(finding.severity)));
        }
    }
    for (const OomInfo& oom : result->trace->ooms) {
        if (oom.timeNs && std::abs(timeAxis.toPixel(*oom.timeNs) - pos.x()) <= 4)
            html += QStringLiteral("<br/><span style='color:%1'><b>%2</b></span>")
                        .arg(oomColor(chartColors(q->palette())).name(),
                             htmlEscape(TimelineScrubber::tr("Out of memory: %1").arg(oom.reason)));
    }
    html += QStringLiteral("<br/><span style='font-size:small'>%1</span>")
                .arg(TimelineScrubber::tr("Click or drag to move the cursor · ←/→ one sample (Shift: 10) · "
                                          "PgUp/PgDn phases · Home/End"));
    return html;
}

TimelineScrubber::TimelineScrubber(QWidget* parent)
    : CursorTimeline(parent), d(std::make_unique<Private>(this))
{
    setMouseTracking(false);
    // the size hint (all phase lanes) is what it wants at most; paint drops lanes below it
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Timeline: click or drag to move the cursor"));
}

TimelineScrubber::~TimelineScrubber() = default;

void TimelineScrubber::setAnalysis(std::shared_ptr<const AnalysisResult> result)
{
    d->result = std::move(result);
    d->range = d->result ? timeRangeOf(*d->result) : AnalysisTimeRange{};
    d->phaseStarts.clear();
    d->maxDepth = -1;
    d->gapMin = d->gapMax = 0;
    d->gapPyramid = MinMaxPyramid();
    if (d->hasData()) {
        d->baseDepth = shallowestPhaseDepth(d->result->phases);
        for (const PhaseSpan& span : d->result->phases) {
            d->phaseStarts.push_back(span.startNs);
            d->maxDepth = std::max(d->maxDepth, span.depth - d->baseDepth);
        }
        std::sort(d->phaseStarts.begin(), d->phaseStarts.end());
        d->phaseStarts.erase(std::unique(d->phaseStarts.begin(), d->phaseStarts.end()), d->phaseStarts.end());
        // the gap, or what a capture without a device total has (RSS on a CPU capture)
        const AnalysisResult& result = *d->result;
        bool first = true;
        const TimelineValue valueAt(result);
        for (uint32_t row : timelineRows(result)) {
            const double value = valueAt(row);
            if (std::isnan(value))
                continue;
            d->gapMin = first ? value : std::min(d->gapMin, value);
            d->gapMax = first ? value : std::max(d->gapMax, value);
            first = false;
        }
        d->gapPyramid = MinMaxPyramid(std::span<const uint32_t>(timelineRows(result)), valueAt);
    }
    resetView(d->hasData() ? d->range.analysedBeginNs : 0, d->range.beginNs, d->range.endNs);
    updateGeometry();
}

QSize TimelineScrubber::sizeHint() const
{
    const int lanes = std::max(d->laneCount(), 1);
    return QSize(600, 2 + lanes * d->laneHeight() + kFindingLaneHeight + kTrackMinHeight + d->axisHeight());
}

QSize TimelineScrubber::minimumSizeHint() const
{
    return QSize(120, 2 + d->laneHeight() + kFindingLaneHeight + kTrackMinHeight + d->axisHeight());
}

void TimelineScrubber::stepCursor(int samples)
{
    if (!d->hasData() || samples == 0 || timelineRows(*d->result).empty())
        return;
    const auto& rows = timelineRows(*d->result);
    const auto& time = d->result->trace->store.timestampNs;
    const auto byTime = [&](uint32_t row, int64_t t) { return time[row] < t; };
    // From a cursor between two samples, one step forward reaches the next sample and one
    // step back the previous one.
    int64_t from;
    if (samples > 0) {
        const auto after = std::upper_bound(rows.begin(), rows.end(), cursorTime(),
                                            [&](int64_t t, uint32_t row) { return t < time[row]; });
        from = int64_t(after - rows.begin()) - 1;
    } else {
        from = int64_t(std::lower_bound(rows.begin(), rows.end(), cursorTime(), byTime) - rows.begin());
    }
    moveCursorByUser(time[rows[CursorNavigation::steppedIndex(from, samples, rows.size())]]);
}

void TimelineScrubber::paintEvent(QPaintEvent* event)
{
    Q_UNUSED(event);
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const ChartColors colors = chartColors(palette());
    const QRect frame = rect();
    painter.fillRect(frame, colors.background);
    QColor border = colors.text;
    border.setAlpha(60);

    if (!d->hasData()) {
        painter.setPen(border);
        painter.drawRect(QRectF(frame).adjusted(0.5, 0.5, -0.5, -0.5));
        QColor hint = colors.text;
        hint.setAlpha(140);
        painter.setPen(hint);
        painter.drawText(frame, Qt::AlignCenter, tr("No analysis loaded"));
        return;
    }

    const TimeAxis axis = d->axis();
    const QRectF track = d->trackRect();
    const QFontMetrics metrics = fontMetrics();
    const int laneHeight = d->laneHeight();
    // phase lanes give way to the sparkline when the strip is shorter than its size hint
    const int roomForLanes = frame.height() - 2 - d->axisHeight() - kFindingLaneHeight - kTrackMinHeight;
    const int lanes = std::clamp(roomForLanes / laneHeight, 0, d->laneCount());
    const double lanesTop = track.top() + 1;
    const double findingsTop = lanesTop + lanes * laneHeight;
    const double sparkTop = findingsTop + kFindingLaneHeight;
    const double axisTop = frame.height() - d->axisHeight();
    const QRectF spark(track.left(), sparkTop, track.width(), std::max(axisTop - sparkTop - 2, 4.0));

    // phase lane: boxes by depth, labels elided to the box
    std::vector<int> siblingIndex(kMaxPhaseLanes + 1, 0);
    for (const PhaseSpan& span : d->result->phases) {
        const int depth = int(std::clamp<int64_t>(span.depth - d->baseDepth, 0, kMaxPhaseLanes));
        const int order = siblingIndex[size_t(depth)]++;
        if (depth >= lanes)
            continue;
        const double left = axis.toPixel(span.startNs);
        const double right = axis.toPixel(span.endNs);
        const QRectF box(left, lanesTop + depth * laneHeight, std::max(right - left, 1.0), laneHeight - 2);
        QColor fill = (depth + order) % 2 == 0 ? colors.phaseA : colors.phaseB;
        fill.setAlpha(std::min(255, fill.alpha() * 4));
        QColor edge = fill;
        edge.setAlpha(220);
        painter.setPen(QPen(edge, 1));
        painter.setBrush(fill);
        painter.drawRoundedRect(box, 2, 2);
        if (box.width() > 16) {
            const QString text =
                metrics.elidedText(QString::fromStdString(span.name.empty() ? span.label : span.name),
                                   Qt::ElideRight, int(box.width()) - 6);
            if (!text.isEmpty() && text != QStringLiteral("…")) {
                painter.setPen(colors.text);
                painter.drawText(box.adjusted(3, 0, -3, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
            }
        }
    }

    // gap sparkline (device used of a capture without a device total): min/max per pixel
    // column over the whole run
    const AnalysisResult& result = *d->result;
    const auto& rows = timelineRows(result);
    if (!rows.empty()) {
        const Int64ColumnView time(result.trace->store.timestampNs);
        const std::span<const uint32_t> usable(rows);
        const TimelineValue valueAt(result);
        const std::vector<uint32_t> kept =
            d->gapPyramid.decimate(time, usable, RowSpan{0, rows.size()}, axis.beginNs, axis.endNs,
                                   std::max(1, int(spark.width())), valueAt);
        const double scale = d->gapMax > d->gapMin ? spark.height() / (d->gapMax - d->gapMin) : 0;
        auto yOf = [&](double v) {
            return scale > 0 ? spark.bottom() - (v - d->gapMin) * scale : spark.center().y();
        };
        QPainterPath line;
        for (uint32_t position : kept) {
            const uint32_t row = rows[position];
            const double value = valueAt(row);
            if (std::isnan(value))
                continue;
            const QPointF p(axis.toPixel(time[row]), yOf(value));
            if (line.elementCount() == 0)
                line.moveTo(p);
            else
                line.lineTo(p);
        }
        if (line.elementCount() > 0) {
            QPainterPath area = line;
            area.lineTo(line.currentPosition().x(), spark.bottom());
            area.lineTo(line.elementAt(0).x, spark.bottom());
            area.closeSubpath();
            const QColor& stroke = isCounterOnly(result) ? colors.deviceUsed : colors.gap;
            QColor fill = stroke;
            fill.setAlpha(colors.dark ? 60 : 45);
            painter.fillPath(area, fill);
            painter.setPen(QPen(stroke, 1.2));
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(line);
        }
    }

    // time ticks in the bottom row
    QColor tickColor = colors.text;
    tickColor.setAlpha(150);
    const int64_t span = std::max<int64_t>(axis.spanNs(), 1);
    const int64_t step = niceTimeStepNs(span, std::max(2, int(track.width() / 110)));
    const QString cursorLabel = formatTimeTick(cursorTime() - d->range.originNs, 1'000'000);
    const double cursorX = axis.toPixel(std::clamp<int64_t>(cursorTime(), axis.beginNs, axis.endNs));
    const double cursorLabelWidth = metrics.horizontalAdvance(cursorLabel) + 10;
    for (int64_t tick : timeTicksNs(axis.beginNs, axis.endNs, d->range.originNs, step)) {
        const double x = axis.toPixel(tick);
        const QString label = formatTimeTick(tick - d->range.originNs, step);
        const double width = metrics.horizontalAdvance(label);
        const double left = std::clamp(x - width / 2, track.left(), track.right() - width);
        if (left < cursorX + cursorLabelWidth / 2 + 4 && left + width > cursorX - cursorLabelWidth / 2 - 4)
            continue; // the cursor's own label wins
        painter.setPen(tickColor);
        painter.drawLine(QPointF(x, axisTop - 2), QPointF(x, axisTop + 2));
        painter.drawText(QRectF(left, axisTop + 1, width + 1, d->axisHeight() - 2), Qt::AlignCenter, label);
    }

    // outside an analysis window: dimmed
    QColor dim = colors.background;
    dim.setAlpha(150);
    if (d->result->request.window) {
        const TimeWindow& window = *d->result->request.window;
        const double left = axis.toPixel(std::clamp(window.beginNs, axis.beginNs, axis.endNs));
        const double right = axis.toPixel(std::clamp(window.endNs, axis.beginNs, axis.endNs));
        painter.fillRect(QRectF(track.left(), lanesTop, left - track.left(), axisTop - lanesTop), dim);
        painter.fillRect(QRectF(right, lanesTop, track.right() - right, axisTop - lanesTop), dim);
    }

    // the chart's visible range: everything else darkened, the window outlined
    const bool zoomed = visibleBeginNs() > axis.beginNs || visibleEndNs() < axis.endNs;
    if (zoomed) {
        const double left = axis.toPixel(std::clamp<int64_t>(visibleBeginNs(), axis.beginNs, axis.endNs));
        const double right = axis.toPixel(std::clamp<int64_t>(visibleEndNs(), axis.beginNs, axis.endNs));
        QColor shade = colors.text;
        shade.setAlpha(colors.dark ? 40 : 28);
        painter.fillRect(QRectF(track.left(), lanesTop, left - track.left(), axisTop - lanesTop), shade);
        painter.fillRect(QRectF(right, lanesTop, track.right() - right, axisTop - lanesTop), shade);
        QColor outline = colors.cursor;
        outline.setAlpha(200);
        painter.setPen(QPen(outline, 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(left, lanesTop, std::max(right - left, 2.0), axisTop - lanesTop));
    }

    // finding ticks: a triangle per finding at its evidence time, severity colours
    for (const Finding& finding : d->result->findings) {
        const int64_t t = finding.evidenceTimestampNs;
        if (t < axis.beginNs || t > axis.endNs)
            continue;
        const double x = axis.toPixel(t);
        QPolygonF tick;
        tick << QPointF(x - 4.5, findingsTop) << QPointF(x + 4.5, findingsTop)
             << QPointF(x, findingsTop + kFindingLaneHeight - 1);
        const QColor tint = severityTint(finding.severity, palette());
        painter.setPen(QPen(colors.background, 1));
        painter.setBrush(tint);
        painter.drawPolygon(tick);
        QColor stem = tint;
        stem.setAlpha(120);
        painter.setPen(QPen(stem, 1));
        painter.drawLine(QPointF(x, findingsTop + kFindingLaneHeight - 1), QPointF(x, axisTop));
    }

    // bookmarks: a pole over the sparkline with a small pennant at its top
    const QColor flag = bookmarkColor(colors);
    for (const Bookmark& bookmark : d->bookmarks) {
        if (bookmark.timeNs < axis.beginNs || bookmark.timeNs > axis.endNs)
            continue;
        const double x = axis.toPixel(bookmark.timeNs);
        painter.setPen(QPen(flag, 1.5));
        painter.drawLine(QPointF(x, sparkTop), QPointF(x, axisTop));
        QPolygonF pennant;
        pennant << QPointF(x, sparkTop) << QPointF(x + 8, sparkTop + 3) << QPointF(x, sparkTop + 6);
        painter.setPen(Qt::NoPen);
        painter.setBrush(flag);
        painter.drawPolygon(pennant);
    }

    // out-of-memory errors: a red line over the lanes with a diamond at its top
    const QColor red = oomColor(colors);
    for (const qint64 at : oomMarkerTimes()) {
        const double x = axis.toPixel(at);
        painter.setPen(QPen(red, 2));
        painter.drawLine(QPointF(x, lanesTop), QPointF(x, axisTop));
        QPolygonF diamond;
        diamond << QPointF(x, lanesTop) << QPointF(x + 4, lanesTop + 4) << QPointF(x, lanesTop + 8)
                << QPointF(x - 4, lanesTop + 4);
        painter.setPen(Qt::NoPen);
        painter.setBrush(red);
        painter.drawPolygon(diamond);
    }

    // the cursor with its handle and time
    painter.setPen(QPen(colors.cursor, 2));
    painter.drawLine(QPointF(cursorX, lanesTop), QPointF(cursorX, axisTop));
    QRectF label(cursorX - cursorLabelWidth / 2, axisTop + 1, cursorLabelWidth, d->axisHeight() - 2);
    if (label.left() < track.left())
        label.moveLeft(track.left());
    if (label.right() > track.right())
        label.moveRight(track.right());
    painter.setPen(Qt::NoPen);
    painter.setBrush(colors.cursor);
    painter.drawRoundedRect(label, 3, 3);
    painter.setPen(palette().color(QPalette::HighlightedText));
    painter.drawText(label, Qt::AlignCenter, cursorLabel);

    painter.setPen(hasFocus() ? QPen(colors.cursor, 1) : QPen(border, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(frame).adjusted(0.5, 0.5, -0.5, -0.5));
}

void TimelineScrubber::setBookmarks(std::vector<Bookmark> bookmarks)
{
    d->bookmarks = std::move(bookmarks);
    update();
}

const std::vector<Bookmark>& TimelineScrubber::bookmarks() const
{
    return d->bookmarks;
}

std::vector<qint64> TimelineScrubber::oomMarkerTimes() const
{
    std::vector<qint64> times;
    if (!d->hasData())
        return times;
    for (const OomInfo& oom : d->result->trace->ooms) {
        if (oom.timeNs && *oom.timeNs >= d->range.beginNs && *oom.timeNs <= d->range.endNs)
            times.push_back(*oom.timeNs);
    }
    return times;
}

bool TimelineScrubber::canMoveCursor() const
{
    return d->hasData();
}

qint64 TimelineScrubber::snappedTime(double x) const
{
    return d->snappedTime(x);
}

std::optional<qint64> TimelineScrubber::firstCursorTime() const
{
    return d->result->usableRows.empty() ? d->range.beginNs : d->range.analysedBeginNs;
}

std::optional<qint64> TimelineScrubber::lastCursorTime() const
{
    return d->result->usableRows.empty() ? d->range.endNs : d->range.analysedEndNs;
}

std::optional<std::span<const int64_t>> TimelineScrubber::cursorMarks() const
{
    return std::span<const int64_t>(d->phaseStarts);
}

bool TimelineScrubber::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QToolTip::showText(help->globalPos(), d->toolTipAt(help->pos()), this);
        return true;
    }
    return CursorTimeline::event(event);
}

} // namespace gapscope
