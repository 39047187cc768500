#include "widgets/trace/SnapshotOverlay.h"

#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/text/Text.h"
#include "widgets/chart/ChartSupport.h"

#include <QPainter>
#include <QPolygonF>
#include <QRectF>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gapscope {

namespace {

constexpr int64_t kNsPerUs = 1000;
constexpr double kTickWidthPx = 6;
constexpr double kTickHeightPx = 5;
constexpr double kToolTipPx = 4;
constexpr int kToolTipLines = 4;
constexpr int kOomFrames = 6;

// The trace of device: the one with entries, else device 0's; nullopt when neither has any.
std::optional<size_t> traceIndexOf(const SnapshotData& data, int64_t device)
{
    for (const int64_t wanted : {device, int64_t(0)})
        for (size_t i = 0; i < data.traces.size(); ++i)
            if (data.traces[i].device == wanted && data.traces[i].count() > 0)
                return i;
    return std::nullopt;
}

QString actionText(const SnapshotData& data, const SnapshotTrace& trace, uint32_t entry)
{
    const std::string_view name = trace.actionName(entry, data.strings);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

} // namespace

void SnapshotOverlay::Steps::build()
{
    rows.resize(timesNs.size());
    std::iota(rows.begin(), rows.end(), uint32_t(0));
    pyramid =
        MinMaxPyramid(std::span<const uint32_t>(rows), [this](uint32_t row) { return double(levels[row]); });
}

SnapshotOverlay::SnapshotOverlay(std::shared_ptr<const SnapshotData> data, int64_t device)
    : m_data(std::move(data)), m_device(device)
{
    if (!m_data)
        return;
    const std::optional<size_t> index = traceIndexOf(*m_data, device);
    // the loader builds the timelines; data made without it (tests) gets none drawn
    if (!index || !m_data->timelines || *index >= m_data->timelines->size())
        return;
    m_trace = &m_data->traces[*index];
    m_timeline = &(*m_data->timelines)[*index];
    m_device = m_trace->device;
    if (!m_timeline->hasTimes || m_timeline->entryCount == 0)
        return;
    const uint32_t n = m_timeline->entryCount;
    m_timesNs.resize(n);
    for (uint32_t j = 0; j < n; ++j)
        m_timesNs[j] = m_trace->timesUs[j] * kNsPerUs;
    m_allocated.timesNs = m_timesNs;
    m_allocated.levels = m_timeline->allocatedBytes;
    m_allocated.build();
    // reserved changes at segment entries only: a knot at each, and at the first and last entry
    m_reserved.timesNs.push_back(m_timesNs.front());
    m_reserved.levels.push_back(m_timeline->reservedAfter(0));
    for (const auto& [entry, level] : m_timeline->reservedSteps) {
        if (entry == 0)
            continue;
        m_reserved.timesNs.push_back(m_timesNs[entry]);
        m_reserved.levels.push_back(level);
    }
    m_reserved.timesNs.push_back(m_timesNs.back());
    m_reserved.levels.push_back(m_timeline->reservedAfter(n - 1));
    m_reserved.build();
}

QString SnapshotOverlay::noteFor(int64_t traceBeginNs, int64_t traceEndNs) const
{
    if (!m_data)
        return {};
    if (!m_timeline)
        return QStringLiteral("The attached snapshot has no trace entries for device %1 (nor device 0): "
                              "nothing of it lies on the time axis.")
            .arg(m_device);
    if (!drawable())
        return QStringLiteral("The attached snapshot's trace entries carry no time (time_us, written by "
                              "PyTorch 2.2 and later): nothing of it lies on the time axis.");
    if (!overlaps(traceBeginNs, traceEndNs)) {
        const int64_t distance = endNs() < traceBeginNs ? traceBeginNs - endNs() : beginNs() - traceEndNs;
        return QStringLiteral("The attached snapshot (device %1, %2 to %3) lies %4 %5 this trace: it does "
                              "not overlap it, so its curves are not drawn. Was it recorded by another run?")
            .arg(m_device)
            .arg(formatAbsoluteTime(beginNs()), formatAbsoluteTime(endNs()),
                 durationText(distance, timeResolutionNs(distance, 1000)),
                 endNs() < traceBeginNs ? QStringLiteral("before") : QStringLiteral("after"));
    }
    return {};
}

std::vector<std::pair<int64_t, double>> SnapshotOverlay::stepLine(Level level, int64_t beginNs, int64_t endNs,
                                                                  int columns) const
{
    std::vector<std::pair<int64_t, double>> points;
    const Steps& s = steps(level);
    if (s.timesNs.empty() || columns <= 0 || endNs < beginNs)
        return points;
    const Int64ColumnView time(s.timesNs);
    const std::span<const uint32_t> rows(s.rows);
    const RowSpan span = withNeighbours(rowsInTimeRange(time, rows, beginNs, endNs), rows.size());
    if (span.empty()) {
        // no knot in view nor beside it: the view lies between two knots (or holds none)
        return points;
    }
    const auto levelAt = [&s](uint32_t row) { return double(s.levels[row]); };
    std::vector<uint32_t> kept = s.pyramid.decimate(time, rows, span, beginNs, endNs, columns, levelAt);
    // the level each column hands to the next: its last knot (min and max alone could drop it)
    const double nsPerColumn = double(std::max<int64_t>(endNs - beginNs, 1)) / columns;
    const auto first = s.timesNs.begin() + std::ptrdiff_t(span.first);
    const auto last = s.timesNs.begin() + std::ptrdiff_t(span.last);
    for (int c = 1; c < columns; ++c) {
        const int64_t edge = beginNs + int64_t(std::ceil(double(c) * nsPerColumn));
        const auto after = std::lower_bound(first, last, edge);
        if (after != first)
            kept.push_back(uint32_t(std::prev(after) - s.timesNs.begin()));
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    points.reserve(kept.size() * 2);
    for (size_t k = 0; k < kept.size(); ++k) {
        const int64_t t = s.timesNs[kept[k]];
        if (k > 0)
            points.emplace_back(t, double(s.levels[kept[k - 1]])); // held until this knot
        points.emplace_back(t, double(s.levels[kept[k]]));
    }
    return points;
}

std::optional<SnapshotOverlay::Moment> SnapshotOverlay::momentAt(int64_t ns) const
{
    if (!drawable() || ns < beginNs() || ns > endNs())
        return std::nullopt;
    // the last entry at or before ns: its microsecond at or before ns
    const int64_t us = ns >= 0 ? ns / kNsPerUs : -((-ns + kNsPerUs - 1) / kNsPerUs);
    Moment moment;
    const uint32_t entry = m_timeline->entryAtTime(*m_trace, us);
    moment.state = m_timeline->stateAfter(entry);
    uint32_t nearest = entry == SnapshotAllocation::kBeforeTrace ? 0 : entry;
    if (nearest + 1 < m_timeline->entryCount &&
        std::llabs(m_timesNs[nearest + 1] - ns) < std::llabs(m_timesNs[nearest] - ns))
        ++nearest;
    moment.nearestEntry = nearest;
    moment.nearestOffsetNs = m_timesNs[nearest] - ns;
    return moment;
}

QString SnapshotOverlay::momentText(const Moment& moment) const
{
    const SnapshotAllocatorState& state = moment.state;
    const int64_t offset = moment.nearestOffsetNs;
    const QString when = offset == 0 ? QStringLiteral("at this moment")
                                     : QStringLiteral("%1 %2").arg(durationText(std::llabs(offset), kNsPerUs),
                                                                   offset < 0 ? QStringLiteral("before")
                                                                              : QStringLiteral("after"));
    return QStringLiteral("allocated %1 · reserved %2 · active %3 · %4 live allocations · entry %5 (%6) %7")
        .arg(bytesText(state.allocatedBytes), bytesText(state.reservedBytes), bytesText(state.activeBytes),
             countText(state.liveAllocations), countText(moment.nearestEntry),
             actionText(*m_data, *m_trace, moment.nearestEntry), when);
}

const std::vector<uint32_t>& SnapshotOverlay::oomEntries() const
{
    static const std::vector<uint32_t> none;
    return drawable() ? m_timeline->oomEntries : none;
}

QString SnapshotOverlay::oomLabel(uint32_t entry) const
{
    return QStringLiteral("OOM (snapshot): %1 requested").arg(bytesText(m_trace->sizes[entry]));
}

QString SnapshotOverlay::oomToolTip(uint32_t entry) const
{
    QStringList lines;
    lines << QStringLiteral("Out of memory (PyTorch snapshot, device %1): %2 requested on stream %3")
                 .arg(m_device)
                 .arg(bytesText(m_trace->sizes[entry]))
                 .arg(m_trace->streams[entry]);
    if (const std::optional<int64_t> free = m_trace->deviceFreeAt(entry))
        lines << QStringLiteral("device free: %1").arg(bytesText(*free));
    const SnapshotAllocatorState before =
        m_timeline->stateAfter(entry == 0 ? SnapshotAllocation::kBeforeTrace : entry - 1);
    lines << QStringLiteral("the allocator then: allocated %1, reserved %2")
                 .arg(bytesText(before.allocatedBytes), bytesText(before.reservedBytes));
    const QStringList frames = stackTopFrames(*m_data, m_trace->frameStacks[entry], kOomFrames);
    if (frames.isEmpty()) {
        lines << QStringLiteral("no stack recorded");
    } else {
        lines << QStringLiteral("at:");
        for (const QString& frame : frames)
            lines << QStringLiteral("  %1").arg(frame);
    }
    return lines.join(QLatin1Char('\n'));
}

bool SnapshotOverlay::isGrowth(uint32_t entry) const
{
    const TraceAction action = m_trace->actions[entry];
    return action == TraceAction::SegmentAlloc || action == TraceAction::SegmentMap;
}

void SnapshotOverlay::drawSegmentTicks(QPainter* painter, const QRectF& plot, const TimeAxis& axis,
                                       double bottom, const QColor& color) const
{
    if (!drawable())
        return;
    painter->save();
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    std::optional<int> lastColumn[2]; // growth, shrink
    const auto first =
        std::lower_bound(m_timeline->segmentEntries.begin(), m_timeline->segmentEntries.end(), axis.beginNs,
                         [this](uint32_t e, int64_t t) { return m_timesNs[e] < t; });
    for (auto it = first; it != m_timeline->segmentEntries.end() && m_timesNs[*it] <= axis.endNs; ++it) {
        const double x = axis.toPixel(m_timesNs[*it]);
        if (x < plot.left() || x > plot.right())
            continue;
        const bool growth = isGrowth(*it);
        std::optional<int>& seen = lastColumn[growth ? 0 : 1];
        if (seen == int(std::floor(x)))
            continue; // one of each kind per pixel column is all a screen shows
        seen = int(std::floor(x));
        QPolygonF tick;
        const double half = kTickWidthPx / 2;
        if (growth) // pointing up: reserved grew
            tick << QPointF(x - half, bottom) << QPointF(x + half, bottom)
                 << QPointF(x, bottom - kTickHeightPx);
        else
            tick << QPointF(x - half, bottom - kTickHeightPx) << QPointF(x + half, bottom - kTickHeightPx)
                 << QPointF(x, bottom);
        painter->drawPolygon(tick);
    }
    painter->restore();
}

QString SnapshotOverlay::segmentToolTip(int64_t ns, const TimeAxis& axis) const
{
    if (!drawable())
        return {};
    const double x = axis.toPixel(ns);
    QStringList lines;
    int more = 0;
    for (const uint32_t entry : m_timeline->segmentEntries) {
        if (std::abs(axis.toPixel(m_timesNs[entry]) - x) > kToolTipPx)
            continue;
        if (lines.size() == kToolTipLines) {
            ++more;
            continue;
        }
        lines << QStringLiteral("%1 %2 (stream %3)")
                     .arg(actionText(*m_data, *m_trace, entry), bytesText(m_trace->sizes[entry]))
                     .arg(m_trace->streams[entry]);
    }
    if (more > 0)
        lines << QStringLiteral("and %1 more").arg(countText(more));
    return lines.join(QLatin1Char('\n'));
}

} // namespace gapscope
