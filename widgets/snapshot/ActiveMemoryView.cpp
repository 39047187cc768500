#include "widgets/snapshot/ActiveMemoryView.h"

#include "model/text/Text.h"
#include "widgets/chart/ByteAxis.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/chart/TimeAxis.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <array>
#include <cmath>

namespace gapscope {

namespace {

constexpr int kMargin = 8;
constexpr int kMarkLaneHeight = 9;
constexpr double kMarkHitPixels = 3.0;
// The narrowest view: a few entries, or a few microseconds.
constexpr int64_t kMinSpan = 4;
constexpr int64_t kNanosecondsPerMicrosecond = 1000;
// The headroom above the highest level.
constexpr double kTopHeadroom = 1.04;

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// A segment_alloc / segment_map adds to reserved; segment_free / segment_unmap takes from it.
bool reservesMore(TraceAction action)
{
    return action == TraceAction::SegmentAlloc || action == TraceAction::SegmentMap;
}

QColor segmentFreeColor(const QPalette& palette)
{
    return QColor(QLatin1String(isDark(palette) ? "#f0a24a" : "#d9822b"));
}

// A colour faded toward the background: the bands outside a highlight.
QColor dimmed(QColor color, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    constexpr double kKept = 0.22;
    return QColor::fromRgbF(float(color.redF() * kKept + base.redF() * (1 - kKept)),
                            float(color.greenF() * kKept + base.greenF() * (1 - kKept)),
                            float(color.blueF() * kKept + base.blueF() * (1 - kKept)));
}

} // namespace

ActiveMemoryView::ActiveMemoryView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    RangeNavigator::View navigation;
    navigation.axis = [this]() -> std::optional<TimeAxis> {
        if (!timeline())
            return std::nullopt;
        const QRectF plot = plotRect();
        return TimeAxis{m_range.begin, m_range.end, plot.left(), plot.right()};
    };
    navigation.setRange = [this](const TimeAxis& next) {
        setRange(TimelineRange{m_range.axis, next.beginNs, next.endNs}, true);
    };
    navigation.resetRange = [this] { resetZoom(); };
    (new RangeNavigator(std::move(navigation), this))->watch(this);
}

ActiveMemoryView::~ActiveMemoryView() = default;

QSize ActiveMemoryView::sizeHint() const
{
    return {900, 320};
}

QSize ActiveMemoryView::minimumSizeHint() const
{
    return {320, 160};
}

QColor ActiveMemoryView::bandColor(uint32_t allocation, const QPalette& palette)
{
    // Tableau 10, the qualitative palette memory_viz's own scheme is close to; lighter on dark
    static constexpr std::array<const char*, 10> kLight{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                        "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                                        "#9c755f", "#bab0ac"};
    static constexpr std::array<const char*, 10> kDark{"#6f9bd1", "#ffa64d", "#f47a7b", "#8fd0ca", "#7cc170",
                                                       "#f5d96b", "#c99bbd", "#ffb7c0", "#c09a82", "#cfc6c2"};
    const auto& colors = isDark(palette) ? kDark : kLight;
    return QColor(QLatin1String(colors[allocation % colors.size()]));
}

QColor ActiveMemoryView::foldedColor(const QPalette& palette)
{
    return QColor(QLatin1String(isDark(palette) ? "#4a4f57" : "#cfd3d8"));
}

const SnapshotTimeline* ActiveMemoryView::timeline() const
{
    if (m_ownTimeline)
        return m_ownTimeline.get();
    if (m_data && m_data->timelines && m_timelineIndex < m_data->timelines->size())
        return &(*m_data->timelines)[m_timelineIndex];
    return nullptr;
}

void ActiveMemoryView::setSnapshot(std::shared_ptr<const SnapshotData> data, size_t timelineIndex)
{
    m_data = std::move(data);
    m_timelineIndex = timelineIndex;
    m_ownTimeline.reset();
    if (m_data && !m_data->timelines && timelineIndex < m_data->traces.size()) // built without the loader
        m_ownTimeline = std::make_unique<SnapshotTimeline>(buildSnapshotTimeline(*m_data, timelineIndex));
    m_selected.reset();
    m_highlighted.clear();
    m_range = fullRange();
    invalidateLayout();
    emit visibleRangeChanged();
}

TimelineAxis ActiveMemoryView::axis() const
{
    return timeline() ? m_range.axis : m_axis;
}

void ActiveMemoryView::setAxis(TimelineAxis axis)
{
    if (axis == m_axis)
        return;
    const bool zoomed = isZoomed();
    const TimelineRange before = m_range;
    m_axis = axis;
    TimelineRange next = fullRange();
    const SnapshotTimeline* t = timeline();
    if (zoomed && t && next.axis != before.axis && t->entryCount > 0) {
        // the same entries in view on the other axis
        const SnapshotTrace& trace = m_data->traces[m_timelineIndex];
        const uint32_t last = t->entryCount - 1;
        if (next.axis == TimelineAxis::Entries) {
            const uint32_t first = t->entryAtTime(trace, before.begin);
            const uint32_t end = t->entryAtTime(trace, before.end);
            next.begin = first == TimelineColumn::kNoEntry ? 0 : first;
            next.end = end == TimelineColumn::kNoEntry ? 0 : end;
        } else {
            next.begin = trace.timesUs[size_t(std::clamp<int64_t>(before.begin, 0, last))];
            next.end = trace.timesUs[size_t(std::clamp<int64_t>(before.end, 0, last))];
        }
    }
    setRange(next, true);
}

void ActiveMemoryView::setDistinctCount(int count)
{
    m_distinct = std::max(count, 0);
    invalidateLayout();
}

void ActiveMemoryView::setShowReserved(bool show)
{
    m_showReserved = show;
    update();
}

void ActiveMemoryView::setHighlightedFrames(FrameStackId stack)
{
    setHighlightedFrames(std::vector<FrameStackId>{stack});
}

void ActiveMemoryView::setHighlightedFrames(std::vector<FrameStackId> stacks)
{
    std::sort(stacks.begin(), stacks.end());
    stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
    m_highlighted = std::move(stacks);
    invalidateLayout();
}

void ActiveMemoryView::clearHighlight()
{
    setHighlightedFrames(std::vector<FrameStackId>{});
}

TimelineRange ActiveMemoryView::fullRange() const
{
    const SnapshotTimeline* t = timeline();
    if (!t)
        return TimelineRange{m_axis, 0, 1};
    return fullTimelineRange(*t, m_data->traces[m_timelineIndex], m_axis);
}

void ActiveMemoryView::setVisibleRange(int64_t begin, int64_t end)
{
    setRange(TimelineRange{m_range.axis, begin, end}, true);
}

void ActiveMemoryView::resetZoom()
{
    setRange(fullRange(), true);
}

void ActiveMemoryView::setRange(TimelineRange range, bool notify)
{
    const TimelineRange whole = fullRange();
    range.axis = whole.axis;
    const TimeAxis clamped = TimeAxis{range.begin, std::max(range.end, range.begin + 1), 0, 1}.clampedTo(
        whole.begin, whole.end, std::min<int64_t>(kMinSpan, whole.end - whole.begin));
    range.begin = clamped.beginNs;
    range.end = clamped.endNs;
    if (range == m_range)
        return;
    m_range = range;
    invalidateLayout();
    if (notify)
        emit visibleRangeChanged();
}

void ActiveMemoryView::selectEntry(std::optional<uint32_t> entry)
{
    m_selected = entry;
    update();
}

void ActiveMemoryView::invalidateLayout()
{
    m_layoutValid = false;
    update();
}

const SnapshotTimelineLayout& ActiveMemoryView::drawnLayout() const
{
    if (!m_layoutValid) {
        const SnapshotTimeline* t = timeline();
        TimelineLayoutRequest request;
        request.range = m_range;
        request.width = std::max(0, int(std::floor(plotRect().width())));
        request.distinct = m_distinct;
        request.highlightedStacks = m_highlighted;
        m_layout = t ? layoutSnapshotTimeline(*t, m_data->traces[m_timelineIndex], request)
                     : SnapshotTimelineLayout{};
        m_layoutValid = true;
    }
    return m_layout;
}

QRectF ActiveMemoryView::plotRect() const
{
    // asked for at every band and column drawn: kept for the size it was worked out for
    if (m_plotSize == size())
        return m_plot;
    m_plotSize = size();
    m_plot = plotRectFor(fontMetrics());
    return m_plot;
}

QRectF ActiveMemoryView::plotRectFor(const QFontMetrics& fm) const
{
    const double left = kMargin + fm.horizontalAdvance(QStringLiteral("1023.99 MiB")) + 8;
    const double top = kMargin + fm.height() + 6; // the legend
    const double bottom = kMarkLaneHeight + 2 + fm.height() + 4 + kMargin;
    return QRectF(left, top, std::max(0.0, width() - left - kMargin), std::max(0.0, height() - top - bottom));
}

QRectF ActiveMemoryView::markLane() const
{
    const QRectF plot = plotRect();
    return QRectF(plot.left(), plot.bottom() + 1, plot.width(), kMarkLaneHeight);
}

double ActiveMemoryView::yMaxBytes() const
{
    const SnapshotTimelineLayout& layout = drawnLayout();
    const double top = double(std::max(layout.maxBytes, m_showReserved ? layout.maxReservedBytes : 0));
    return top > 0 ? top * kTopHeadroom : 1024.0 * 1024.0;
}

double ActiveMemoryView::xOfColumn(int column) const
{
    return plotRect().left() + column;
}

double ActiveMemoryView::xOfPosition(int64_t position) const
{
    const QRectF plot = plotRect();
    return plot.left() + differenceAsDouble(position, m_range.begin) /
                             std::max(1.0, differenceAsDouble(m_range.end, m_range.begin)) *
                             std::floor(plot.width());
}

double ActiveMemoryView::yOf(double bytes) const
{
    const QRectF plot = plotRect();
    return plot.bottom() - bytes / yMaxBytes() * plot.height();
}

double ActiveMemoryView::bytesAtY(double y) const
{
    const QRectF plot = plotRect();
    return plot.height() > 0 ? (plot.bottom() - y) / plot.height() * yMaxBytes() : 0;
}

int ActiveMemoryView::columnAtX(double x) const
{
    const QRectF plot = plotRect();
    const int column = int(std::floor(x - plot.left()));
    return column >= 0 && column < int(drawnLayout().columns.size()) ? column : -1;
}

std::optional<uint32_t> ActiveMemoryView::entryAtX(double x) const
{
    const int column = columnAtX(x);
    if (column < 0)
        return std::nullopt;
    return drawnLayout().columns[size_t(column)].shownEntry();
}

const TimelineMark* ActiveMemoryView::markNear(const std::vector<TimelineMark>& marks, double x) const
{
    const TimelineMark* nearest = nullptr;
    double best = kMarkHitPixels + 0.5;
    for (const TimelineMark& mark : marks) {
        const double distance = std::abs(xOfColumn(mark.column) + 0.5 - x);
        if (distance < best) {
            best = distance;
            nearest = &mark;
        }
    }
    return nearest;
}

std::optional<uint32_t> ActiveMemoryView::allocationAt(QPointF pos) const
{
    const int column = columnAtX(pos.x());
    if (column < 0 || !plotRect().contains(pos))
        return std::nullopt;
    const SnapshotTimelineLayout& layout = drawnLayout();
    const int band = layout.bandAt(column, int64_t(std::floor(bytesAtY(pos.y()))));
    if (band < 0)
        return std::nullopt;
    return layout.bands[size_t(band)].allocation;
}

QString ActiveMemoryView::toolTipAt(QPointF pos) const
{
    const SnapshotTimeline* t = timeline();
    if (!t)
        return {};
    const SnapshotTimelineLayout& layout = drawnLayout();
    const QRectF plot = plotRect();
    const bool inPlot = plot.contains(pos);
    if (inPlot || markLane().contains(pos)) {
        if (const TimelineMark* oom = markNear(layout.oomMarks, pos.x()))
            return oomDescription(*m_data, *t, oom->entry);
    }
    if (markLane().adjusted(0, 0, 0, 2).contains(pos)) {
        if (const TimelineMark* segment = markNear(layout.segmentMarks, pos.x()))
            return segmentEntryDescription(*m_data, *t, segment->entry);
        return {};
    }
    if (!inPlot)
        return {};
    if (const std::optional<uint32_t> allocation = allocationAt(pos))
        return allocationDescription(*m_data, *t, *allocation);
    const int column = columnAtX(pos.x());
    if (column < 0)
        return {};
    const TimelineColumn& c = layout.columns[size_t(column)];
    const double bytes = bytesAtY(pos.y());
    if (bytes >= double(c.distinctTopBytes) && bytes < double(c.maxBytes)) {
        return tr("Other allocations: %1 in view, each smaller than the %2 drawn apart\n"
                  "%3 of the %4 active here")
            .arg(countText(layout.foldedAllocations), countText(layout.bands.size()),
                 bytesText(c.maxBytes - c.distinctTopBytes), bytesText(c.maxBytes));
    }
    return {};
}

QList<ActiveMemoryView::DrawnMark> ActiveMemoryView::drawnMarks() const
{
    QList<DrawnMark> marks;
    const SnapshotTimelineLayout& layout = drawnLayout();
    const QRectF plot = plotRect();
    const QRectF lane = markLane();
    for (const TimelineMark& mark : layout.segmentMarks) {
        const double x = xOfColumn(mark.column);
        marks.push_back({mark.action, mark.entry, x,
                         reservesMore(mark.action)
                             ? QRectF(x, lane.top(), 1, lane.height())
                             : QRectF(x, lane.top() + lane.height() / 2, 1, lane.height() / 2),
                         QString()});
    }
    const QFontMetrics fm = fontMetrics();
    const QString oom = QStringLiteral("OOM");
    for (const TimelineMark& mark : layout.oomMarks) {
        const double x = xOfColumn(mark.column) + 0.5;
        const double w = fm.horizontalAdvance(oom) + 8;
        marks.push_back({mark.action, mark.entry, x,
                         QRectF(std::clamp(x - w / 2, plot.left(), std::max(plot.left(), plot.right() - w)),
                                plot.top() + 2, w, fm.height() + 2),
                         oom});
    }
    return marks;
}

QStringList ActiveMemoryView::yTickLabels() const
{
    QStringList labels;
    const QRectF plot = plotRect();
    const ByteAxis axis =
        ByteAxis::forRange(0, yMaxBytes(), std::max(2, int(plot.height() / (fontMetrics().height() * 2.5))));
    for (const double v : axis.ticks())
        labels << axis.label(v);
    return labels;
}

std::vector<ActiveMemoryView::XTick> ActiveMemoryView::xTicks() const
{
    std::vector<XTick> ticks;
    const SnapshotTimeline* t = timeline();
    if (!t || t->entryCount == 0)
        return ticks;
    const QRectF plot = plotRect();
    const int maxTicks = std::max(
        2, int(plot.width() / (fontMetrics().horizontalAdvance(QStringLiteral("00 min 00.000 s")) + 24)));
    if (m_range.axis == TimelineAxis::Time) {
        // time since the first entry, in ns as the time axis counts it
        const int64_t origin = m_data->traces[m_timelineIndex].timesUs[0];
        const int64_t beginNs = saturatingMul(m_range.begin - origin, kNanosecondsPerMicrosecond);
        const int64_t endNs = saturatingMul(m_range.end - origin, kNanosecondsPerMicrosecond);
        const int64_t step = niceTimeStepNs(endNs - beginNs, maxTicks);
        for (const int64_t tick : timeTicksNs(beginNs, endNs, 0, step))
            ticks.push_back({plot.left() + differenceAsDouble(tick, beginNs) /
                                               std::max(1.0, differenceAsDouble(endNs, beginNs)) *
                                               std::floor(plot.width()),
                             formatTimeTick(tick, step)});
    } else {
        const int64_t step = std::max<int64_t>(1, niceTimeStepNs(m_range.end - m_range.begin, maxTicks));
        for (const int64_t tick : timeTicksNs(m_range.begin, m_range.end, 0, step))
            ticks.push_back({xOfPosition(tick), countText(tick)});
    }
    return ticks;
}

QStringList ActiveMemoryView::xTickLabels() const
{
    QStringList labels;
    for (const XTick& tick : xTicks())
        labels << tick.label;
    return labels;
}

QString ActiveMemoryView::legendText() const
{
    const SnapshotTimelineLayout& layout = drawnLayout();
    if (layout.foldedAllocations == 0)
        return tr("all %1 allocations in view drawn apart").arg(countText(layout.bands.size()));
    return tr("%1 largest allocations in view drawn apart, %2 folded")
        .arg(countText(layout.bands.size()), countText(layout.foldedAllocations));
}

void ActiveMemoryView::paintEvent(QPaintEvent* /*event*/)
{
    QPainter p(this);
    const QPalette& pal = palette();
    const ChartColors colors = chartColors(pal);
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm = fontMetrics();
    const SnapshotTimeline* t = timeline();
    if (!t || t->entryCount == 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   !m_data
                       ? tr("No snapshot")
                       : tr("No allocator trace in this snapshot: torch.cuda.memory._record_memory_history "
                            "was off, so there is no timeline to draw"));
        return;
    }
    const SnapshotTimelineLayout& layout = drawnLayout();
    const QRectF plot = plotRect();
    const QRectF lane = markLane();
    const bool highlighting = layout.highlighting;

    // the y grid and labels
    const ByteAxis yAxis =
        ByteAxis::forRange(0, yMaxBytes(), std::max(2, int(plot.height() / (fm.height() * 2.5))));
    drawByteGrid(
        p, yAxis, plot, kMargin, [this](double bytes) { return yOf(bytes); }, colors);
    // the x ticks: time since the first entry, or the entry index
    for (const XTick& tick : xTicks()) {
        p.setPen(QPen(colors.grid, 1));
        p.drawLine(QPointF(tick.x, plot.top()), QPointF(tick.x, plot.bottom()));
        p.setPen(colors.text);
        const double w = fm.horizontalAdvance(tick.label);
        p.drawText(QRectF(std::clamp(tick.x - w / 2, plot.left() - 10, plot.right() - w), lane.bottom() + 3,
                          w + 2, fm.height()),
                   Qt::AlignCenter, tick.label);
    }

    p.save();
    p.setClipRect(plot.adjusted(0, -1, 1, 1));
    // the folded band: from the distinct ones up to the level
    const QColor folded = highlighting ? dimmed(foldedColor(pal), pal) : foldedColor(pal);
    for (size_t c = 0; c < layout.columns.size(); ++c) {
        const TimelineColumn& column = layout.columns[c];
        if (column.maxBytes > column.distinctTopBytes) {
            const double top = yOf(double(column.maxBytes));
            p.fillRect(QRectF(xOfColumn(int(c)), top, 1, yOf(double(column.distinctTopBytes)) - top), folded);
        }
    }
    // the distinct bands, bottom to top; the highlighted ones outlined over the rest
    for (const TimelineBand& band : layout.bands) {
        const QColor color = highlighting && !band.highlighted ? dimmed(bandColor(band.allocation, pal), pal)
                                                               : bandColor(band.allocation, pal);
        for (const TimelineBandRun& run : band.runs) {
            const double top = yOf(double(run.bottomBytes + band.size));
            const double bottom = yOf(double(run.bottomBytes));
            p.fillRect(QRectF(xOfColumn(run.firstColumn), top, run.lastColumn - run.firstColumn + 1,
                              std::max(bottom - top, 0.6)),
                       color);
        }
    }
    if (highlighting) {
        p.setPen(QPen(pal.color(QPalette::Text), 1));
        p.setBrush(Qt::NoBrush);
        for (const TimelineBand& band : layout.bands) {
            if (!band.highlighted)
                continue;
            for (const TimelineBandRun& run : band.runs) {
                const double top = yOf(double(run.bottomBytes + band.size));
                const double bottom = yOf(double(run.bottomBytes));
                p.drawRect(QRectF(xOfColumn(run.firstColumn), top, run.lastColumn - run.firstColumn + 1,
                                  std::max(bottom - top, 1.0)));
            }
        }
    }
    // the level's top edge, and the reserved counter
    {
        QPolygonF level;
        QPolygonF reserved;
        for (size_t c = 0; c < layout.columns.size(); ++c) {
            const TimelineColumn& column = layout.columns[c];
            const double x = xOfColumn(int(c));
            level << QPointF(x, yOf(double(column.maxBytes))) << QPointF(x + 1, yOf(double(column.maxBytes)));
            reserved << QPointF(x, yOf(double(column.reservedBytes)))
                     << QPointF(x + 1, yOf(double(column.reservedBytes)));
        }
        QColor edge = pal.color(QPalette::Text);
        edge.setAlpha(150);
        p.setPen(QPen(edge, 1));
        p.drawPolyline(level);
        if (m_showReserved) {
            p.setPen(QPen(colors.reserved, 1.5, Qt::DashLine));
            p.drawPolyline(reserved);
        }
    }
    // the selected state
    if (m_selected) {
        const SnapshotTrace& trace = m_data->traces[m_timelineIndex];
        const double x = *m_selected == TimelineColumn::kNoEntry
                             ? plot.left()
                             : xOfPosition(timelinePosition(trace, m_range.axis, *m_selected)) + 0.5;
        if (x >= plot.left() && x <= plot.right() + 1) {
            p.setPen(QPen(colors.cursor, 1.5));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        }
    }
    p.restore();

    // segment entries along the bottom, OOMs across the plot with their label at the top
    p.fillRect(lane, pal.color(QPalette::AlternateBase));
    const QColor oom = oomColor(colors);
    const QList<DrawnMark> marks = drawnMarks();
    for (const DrawnMark& mark : marks) {
        if (mark.action != TraceAction::Oom)
            p.fillRect(mark.rect, reservesMore(mark.action) ? colors.reserved : segmentFreeColor(pal));
    }
    for (const DrawnMark& mark : marks) {
        if (mark.action != TraceAction::Oom)
            continue;
        p.setPen(QPen(oom, 2));
        p.drawLine(QPointF(mark.x, plot.top()), QPointF(mark.x, lane.bottom()));
        p.fillRect(mark.rect, oom);
        p.setPen(colors.dark ? Qt::black : Qt::white);
        p.drawText(mark.rect, Qt::AlignCenter, mark.label);
    }
    p.setPen(QPen(colors.grid, 1));
    p.drawRect(plot);

    // the legend
    {
        int x = int(plot.left());
        const int box = fm.height() - 4;
        const int y = kMargin + 2;
        const auto entry = [&](const QColor& color, const QString& text, bool line = false) {
            if (line)
                p.fillRect(QRect(x, y + box / 2 - 1, box + 4, 2), color);
            else
                p.fillRect(QRect(x, y, box, box), color);
            x += box + (line ? 9 : 5);
            p.setPen(colors.text);
            p.drawText(QPoint(x, y + box - 1), text);
            x += fm.horizontalAdvance(text) + 14;
        };
        entry(bandColor(0, pal), legendText());
        entry(foldedColor(pal), tr("other allocations"));
        if (m_showReserved)
            entry(colors.reserved, tr("reserved"), true);
        entry(colors.reserved, tr("segment alloc"));
        entry(segmentFreeColor(pal), tr("segment free"));
        if (!layout.oomMarks.empty())
            entry(oom, tr("OOM"));
        p.setPen(pal.color(QPalette::PlaceholderText));
        const QString axisName =
            m_range.axis == TimelineAxis::Time ? tr("time since the first entry") : tr("trace entry");
        p.drawText(QRectF(x, kMargin, std::max(0.0, plot.right() - x), fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, axisName);
    }
}

bool ActiveMemoryView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(e);
        showToolTip(*help, toolTipAt(help->pos()), this);
        return true;
    }
    return QWidget::event(e);
}

void ActiveMemoryView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !timeline()) {
        QWidget::mousePressEvent(event);
        return;
    }
    const QRectF plot = plotRect();
    m_drag.press(event->position(), TimeAxis{m_range.begin, m_range.end, plot.left(), plot.right()});
}

void ActiveMemoryView::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) {
        if (const std::optional<TimeAxis> moved = m_drag.move(event->position())) {
            setRange(TimelineRange{m_range.axis, moved->beginNs, moved->endNs}, true);
            setCursor(Qt::ClosedHandCursor);
        }
    }
    QWidget::mouseMoveEvent(event);
}

void ActiveMemoryView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !m_drag.isPressed()) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    unsetCursor();
    const std::optional<QPointF> click = m_drag.release();
    if (!click || !plotRect().contains(*click))
        return;
    if (const std::optional<uint32_t> entry = entryAtX(click->x())) {
        selectEntry(*entry);
        emit entrySelected(*entry);
    }
}

void ActiveMemoryView::resizeEvent(QResizeEvent* event)
{
    invalidateLayout();
    QWidget::resizeEvent(event);
}

void ActiveMemoryView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        m_plotSize = QSize();
        invalidateLayout();
    }
    QWidget::changeEvent(event);
}

} // namespace gapscope
