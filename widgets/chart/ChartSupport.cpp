#include "widgets/chart/ChartSupport.h"

#include "model/store/Decimation.h"

#include <QDateTime>
#include <QTimeZone>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace gapscope {

AnalysisTimeRange timeRangeOf(const AnalysisResult& result)
{
    AnalysisTimeRange range;
    if (!result.trace)
        return range;
    const EventStore& store = result.trace->store;
    const auto& time = store.timestampNs;
    // a store whose columns disagree in length cannot be drawn safely
    for (size_t length : {store.allocated.size(), store.reserved.size(), store.used.size(),
                          store.total.size(), store.type.size()}) {
        if (length != time.size())
            return range;
    }
    for (const auto* rows : {&result.usableRows, &result.counterRows}) {
        for (uint32_t row : *rows) {
            if (row >= time.size())
                return range; // a result that does not belong to its store draws nothing
        }
    }
    if (!result.usableRows.empty()) {
        range.valid = true;
        range.analysedBeginNs = time[result.usableRows.front()];
        range.analysedEndNs = time[result.usableRows.back()];
        range.beginNs = range.analysedBeginNs;
        range.endNs = range.analysedEndNs;
    }
    const Partition& partition = result.partition;
    if (partition.size() > 0 && partition.end <= time.size()) {
        const int64_t first = time[partition.begin];
        const int64_t last = time[partition.end - 1];
        range.beginNs = range.valid ? std::min(range.beginNs, first) : first;
        range.endNs = range.valid ? std::max(range.endNs, last) : last;
        if (!range.valid)
            range.analysedBeginNs = range.analysedEndNs = first;
        range.valid = true;
    }
    if (result.request.window && range.valid) {
        range.beginNs = std::min(range.beginNs, result.request.window->beginNs);
        range.endNs = std::max(range.endNs, result.request.window->endNs);
    }
    range.originNs = range.beginNs;
    return range;
}

int64_t shallowestPhaseDepth(const std::vector<PhaseSpan>& phases)
{
    if (phases.empty())
        return 0;
    return std::min_element(phases.begin(), phases.end(),
                            [](const PhaseSpan& a, const PhaseSpan& b) { return a.depth < b.depth; })
        ->depth;
}

std::optional<size_t> nearestUsableSample(const AnalysisResult& result, int64_t ns)
{
    if (!result.trace)
        return std::nullopt;
    return nearestRowPosition(result.trace->store.timestampNs, result.usableRows, ns);
}

PlotMapping PlotMapping::fromRanges(const QRectF& plot, double xMin, double xMax, double yMin, double yMax)
{
    PlotMapping m;
    m.xScale = xMax > xMin ? plot.width() / (xMax - xMin) : 0.0;
    m.xOffset = plot.left() - xMin * m.xScale;
    m.yScale = yMax > yMin ? -plot.height() / (yMax - yMin) : 0.0;
    m.yOffset = plot.bottom() - yMin * m.yScale;
    return m;
}

QPolygonF plotPolyline(std::span<const QPointF> values, const PlotMapping& mapping, double left, double right,
                       double margin)
{
    const double low = left - margin;
    const double high = right + margin;
    constexpr double kFarPixels = 1e6;
    QPolygonF out;
    out.reserve(qsizetype(values.size()) + 2);
    std::optional<QPointF> previous; // in pixels
    auto at = [](const QPointF& a, const QPointF& b, double x) {
        const double f = (x - a.x()) / (b.x() - a.x());
        return QPointF(x, a.y() + f * (b.y() - a.y()));
    };
    for (const QPointF& value : values) {
        if (std::isnan(value.x()) || std::isnan(value.y()))
            continue;
        const QPointF p = mapping.map(value);
        const std::optional<QPointF> before = previous;
        previous = p;
        if (p.x() < low)
            continue;
        if (before && before->x() < low)
            out.append(at(*before, p, low)); // enters from the left
        if (p.x() <= high) {
            out.append(p);
            continue;
        }
        if (before && before->x() <= high)
            out.append(at(*before, p, high)); // leaves to the right
        break;
    }
    // y: only a bound for the rasteriser, no visible change
    for (QPointF& p : out)
        p.setY(std::clamp(p.y(), -kFarPixels, kFarPixels));
    return out;
}

ChartColors chartColors(const QPalette& palette)
{
    ChartColors c;
    c.background = palette.color(QPalette::Base);
    c.text = palette.color(QPalette::Text);
    c.dark = c.background.lightness() < 128;
    c.grid = palette.color(QPalette::Text);
    c.grid.setAlpha(c.dark ? 40 : 32);
    // Tableau-like categorical hues; lighter variants on dark backgrounds.
    auto pick = [&](const char* light, const char* dark) {
        return QColor(QLatin1String(c.dark ? dark : light));
    };
    c.gap = pick("#1f6fb4", "#5aa9f0");
    c.allocated = pick("#2c9a3c", "#6cd27a");
    c.reserved = pick("#8a4fc2", "#c19bf0");
    c.deviceUsed = pick("#12878a", "#4fd1d4");
    c.deviceTotal = c.text;
    c.deviceTotal.setAlpha(150);
    c.regression = pick("#c2185b", "#ff6fa8");
    c.spike = pick("#e8590c", "#ff9a57");
    c.maxSpike = pick("#c92a2a", "#ff5f5f");
    c.cursor = palette.color(QPalette::Highlight);
    if (c.dark && c.cursor.lightness() < 110)
        c.cursor = c.cursor.lighter(160);
    c.outside = palette.color(QPalette::Text);
    c.outside.setAlpha(90);
    c.comparison = pick("#a85d00", "#ffc04d");
    c.phaseA = pick("#4c78a8", "#7aa6d6");
    c.phaseA.setAlpha(c.dark ? 34 : 26);
    c.phaseB = pick("#b07aa1", "#d4a6c8");
    c.phaseB.setAlpha(c.dark ? 34 : 26);
    return c;
}

QColor bookmarkColor(const ChartColors& colors)
{
    return QColor(QLatin1String(colors.dark ? "#e3c34a" : "#8f6f00"));
}

QColor oomColor(const ChartColors& colors)
{
    return colors.dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc6, 0x28, 0x28);
}

QColor severityTint(Severity severity, const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    switch (severity) {
    case Severity::Critical:
        return QColor(QLatin1String(dark ? "#ff5f5f" : "#c92a2a"));
    case Severity::Warning:
        return QColor(QLatin1String(dark ? "#ffb347" : "#d9730d"));
    case Severity::Info:
        break;
    }
    return QColor(QLatin1String(dark ? "#5aa9f0" : "#1f6fb4"));
}

QColor noticeTint(NoticeSeverity severity, const QPalette& palette)
{
    switch (severity) {
    case NoticeSeverity::Critical:
        return severityTint(Severity::Critical, palette);
    case NoticeSeverity::Warning:
        return severityTint(Severity::Warning, palette);
    case NoticeSeverity::Info:
        break;
    }
    return severityTint(Severity::Info, palette);
}

QString formatAbsoluteTime(int64_t epochNs)
{
    // floored without negating or multiplying back: near INT64_MIN either overflows
    int64_t ms = epochNs / 1'000'000;
    int64_t subMs = epochNs % 1'000'000; // 0 .. 999999 once floored
    if (subMs < 0) {
        subMs += 1'000'000;
        --ms;
    }
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc());
    return time.toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz")) +
           QString::number(subMs).rightJustified(6, QLatin1Char('0')) + QStringLiteral(" UTC");
}

void drawByteGrid(QPainter& painter, const ByteAxis& axis, const QRectF& plot, double labelLeft,
                  const std::function<double(double)>& yOf, const ChartColors& colors)
{
    const QFontMetrics fm = painter.fontMetrics();
    for (const double v : axis.ticks()) {
        const double y = yOf(v);
        painter.setPen(QPen(colors.grid, 1));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(colors.text);
        painter.drawText(QRectF(labelLeft, y - fm.height() / 2.0, plot.left() - labelLeft - 6, fm.height()),
                         Qt::AlignRight | Qt::AlignVCenter, axis.label(v));
    }
}

void showToolTip(const QHelpEvent& help, const QString& text, QWidget* view)
{
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help.globalPos(), text, view);
}

} // namespace gapscope
