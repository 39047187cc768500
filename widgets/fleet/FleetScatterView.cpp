#include "widgets/fleet/FleetScatterView.h"

#include "model/text/Text.h"
#include "widgets/chart/ByteAxis.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

constexpr int kLeftMargin = 78;
constexpr int kRightMargin = 16;
constexpr int kLegendTop = 6;
constexpr int kBottomMargin = 40;
constexpr double kPointSize = 4;
constexpr double kSelectedSize = 7;
constexpr int kPickRadius = 6;

// A step of time a person reads: 1, 2 or 5 times a power of ten below a minute, then whole
// minutes, hours and days, so that range / step is at most maxTicks.
double niceDurationStep(double rangeS, int maxTicks)
{
    const double raw = rangeS / std::max(1, maxTicks);
    if (raw < 60) {
        if (raw <= 0)
            return 1;
        const double power = std::pow(10.0, std::floor(std::log10(raw)));
        for (const double m : {1.0, 2.0, 5.0, 10.0})
            if (m * power >= raw)
                return m * power;
        return 10 * power;
    }
    for (const double step : {60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0,
                              43200.0, 86400.0, 172800.0, 604800.0})
        if (step >= raw)
            return step;
    return 604800.0 * std::ceil(raw / 604800.0);
}

} // namespace

FleetScatterView::FleetScatterView(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(240, 180);
    setMouseTracking(false);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

QColor FleetScatterView::entryColor(int index)
{
    if (index == 0)
        return QColor(150, 150, 150); // no finding
    // Okabe-Ito, then a few more: told apart with colour-vision deficiencies
    static const QColor colors[] = {QColor(213, 94, 0),   QColor(0, 114, 178),   QColor(230, 159, 0),
                                    QColor(0, 158, 115),  QColor(204, 121, 167), QColor(86, 180, 233),
                                    QColor(120, 60, 160), QColor(160, 110, 40),  QColor(20, 20, 20)};
    return colors[(index - 1) % int(std::size(colors))];
}

void FleetScatterView::setLegend(const QStringList& entries)
{
    m_legend = entries;
    update();
}

void FleetScatterView::setPoints(std::vector<FleetScatterPoint> points)
{
    m_points = std::move(points);
    updateRanges();
    update();
}

void FleetScatterView::setSelectedRuns(const std::vector<int>& runs)
{
    m_selected.clear();
    for (const int run : runs)
        if (run >= 0) {
            if (size_t(run) >= m_selected.size())
                m_selected.resize(size_t(run) + 1, 0);
            m_selected[size_t(run)] = 1;
        }
    update();
}

void FleetScatterView::setLogScale(bool log)
{
    m_log = log;
    updateRanges();
    update();
}

void FleetScatterView::updateRanges()
{
    m_maxX = 0;
    m_maxY = 0;
    m_minX = std::numeric_limits<double>::infinity();
    m_minY = std::numeric_limits<double>::infinity();
    for (const FleetScatterPoint& p : m_points) {
        m_maxX = std::max(m_maxX, p.durationS);
        m_maxY = std::max(m_maxY, p.peakGapBytes);
        if (p.durationS > 0)
            m_minX = std::min(m_minX, p.durationS);
        if (p.peakGapBytes > 0)
            m_minY = std::min(m_minY, p.peakGapBytes);
    }
    if (m_log) {
        // whole decades of seconds, whole powers of two of bytes; zeros sit on the origin
        m_minX = std::isfinite(m_minX) ? std::pow(10.0, std::floor(std::log10(m_minX))) : 1;
        m_maxX = std::max(m_minX * 10, std::pow(10.0, std::ceil(std::log10(std::max(m_maxX, m_minX)))));
        m_minY = std::isfinite(m_minY) ? std::exp2(std::floor(std::log2(m_minY))) : 1024;
        m_maxY = std::max(m_minY * 2, std::exp2(std::ceil(std::log2(std::max(m_maxY, m_minY)))));
        return;
    }
    m_maxX = m_maxX > 0 ? m_maxX * 1.04 : 1;
    m_maxY = byteAxisRange(0, m_maxY > 0 ? m_maxY * 1.04 : 0, ByteRangeMode::FromZero).max;
}

double FleetScatterView::fractionX(double seconds) const
{
    if (!m_log)
        return seconds / m_maxX;
    return (std::log(std::max(seconds, m_minX)) - std::log(m_minX)) / (std::log(m_maxX) - std::log(m_minX));
}

double FleetScatterView::fractionY(double bytes) const
{
    if (!m_log)
        return bytes / m_maxY;
    return (std::log(std::max(bytes, m_minY)) - std::log(m_minY)) / (std::log(m_maxY) - std::log(m_minY));
}

std::vector<QPointF> FleetScatterView::legendLayout(int* rows) const
{
    const QFontMetrics metrics(font());
    std::vector<QPointF> at;
    double x = kLeftMargin;
    int row = 0;
    for (const QString& entry : m_legend) {
        const double w = metrics.horizontalAdvance(entry) + 24;
        if (x > kLeftMargin && x + w > width() - kRightMargin) {
            x = kLeftMargin;
            ++row;
        }
        at.emplace_back(x, kLegendTop + row * (metrics.height() + 2));
        x += w;
    }
    *rows = m_legend.isEmpty() ? 0 : row + 1;
    return at;
}

QRectF FleetScatterView::plotRect() const
{
    int rows = 0;
    legendLayout(&rows);
    const int top = kLegendTop + rows * (fontMetrics().height() + 2) + 8;
    return QRectF(kLeftMargin, top, std::max(10, width() - kLeftMargin - kRightMargin),
                  std::max(10, height() - top - kBottomMargin));
}

QPointF FleetScatterView::pointPosition(const FleetScatterPoint& point) const
{
    return positionIn(plotRect(), point);
}

QPointF FleetScatterView::positionIn(const QRectF& plot, const FleetScatterPoint& point) const
{
    return {plot.left() + fractionX(point.durationS) * plot.width(),
            plot.bottom() - fractionY(point.peakGapBytes) * plot.height()};
}

std::vector<int> FleetScatterView::runsInside(const QRect& rect) const
{
    std::vector<int> runs;
    const QRectF r = QRectF(rect).normalized();
    const QRectF plot = plotRect();
    for (const FleetScatterPoint& p : m_points)
        if (r.contains(positionIn(plot, p)))
            runs.push_back(p.run);
    std::sort(runs.begin(), runs.end());
    return runs;
}

int FleetScatterView::runAt(const QPoint& pos) const
{
    int best = -1;
    double bestDistance = kPickRadius * kPickRadius + 1;
    const QRectF plot = plotRect();
    for (const FleetScatterPoint& p : m_points) {
        const QPointF d = positionIn(plot, p) - QPointF(pos);
        const double distance = d.x() * d.x() + d.y() * d.y();
        if (distance < bestDistance) {
            bestDistance = distance;
            best = p.run;
        }
    }
    return best;
}

void FleetScatterView::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    const QRectF plot = plotRect();
    const QPalette& pal = palette();
    const QColor text = pal.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(40);

    // axes: seconds across, bytes up
    const QFontMetrics metrics(font());
    std::vector<double> ticksX;
    if (m_log) {
        for (double x = m_minX; x <= m_maxX * 1.0001; x *= 10)
            ticksX.push_back(x);
    } else {
        const double stepX = niceDurationStep(m_maxX, std::max(2, int(plot.width() / 90)));
        for (double x = 0; x <= m_maxX + stepX * 1e-9; x += stepX)
            ticksX.push_back(x);
    }
    const qint64 resolutionNs =
        m_log ? qint64(std::max(1.0, m_minX * 1e8)) : timeResolutionNs(qint64(m_maxX * 1e9), 10);
    for (const double x : ticksX) {
        const double px = plot.left() + fractionX(x) * plot.width();
        painter.setPen(grid);
        painter.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
        painter.setPen(text);
        painter.drawText(QRectF(px - 60, plot.bottom() + 2, 120, metrics.height()), Qt::AlignHCenter,
                         durationText(qint64(x * 1e9), resolutionNs));
    }
    std::vector<std::pair<double, QString>> ticksY;
    if (m_log) {
        for (const double y : logByteTicks(m_minY, m_maxY, std::max(2, int(plot.height() / 40))))
            ticksY.emplace_back(y, logByteTickLabel(y));
    } else {
        const ByteAxis axisY = ByteAxis::forRange(0, m_maxY, std::max(2, int(plot.height() / 50)));
        for (const double y : axisY.ticks())
            ticksY.emplace_back(y, axisY.label(y));
    }
    for (const auto& [y, label] : ticksY) {
        const double py = plot.bottom() - fractionY(y) * plot.height();
        painter.setPen(grid);
        painter.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
        painter.setPen(text);
        painter.drawText(QRectF(0, py - metrics.height() / 2.0, kLeftMargin - 6, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, label);
    }
    painter.setPen(text);
    painter.drawRect(plot);
    painter.drawText(QRectF(plot.left(), height() - metrics.height() - 2, plot.width(), metrics.height()),
                     Qt::AlignHCenter, m_log ? tr("duration (log)") : tr("duration"));
    painter.save();
    painter.translate(12, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-100, -metrics.height() / 2.0, 200, metrics.height()), Qt::AlignCenter,
                     m_log ? tr("peak gap (log)") : tr("peak gap"));
    painter.restore();

    // the legend, in rows above the plot
    int legendRows = 0;
    const std::vector<QPointF> legendAt = legendLayout(&legendRows);
    for (int i = 0; i < m_legend.size(); ++i) {
        const QPointF at = legendAt[size_t(i)];
        painter.fillRect(QRectF(at.x(), at.y() + (metrics.height() - 9) / 2.0, 9, 9), entryColor(i));
        painter.setPen(text);
        painter.drawText(QPointF(at.x() + 13, at.y() + metrics.ascent()), m_legend[i]);
    }

    // the points: one batch per colour, runs with a finding over those without
    painter.setClipRect(plot.adjusted(-kSelectedSize, -kSelectedSize, kSelectedSize, kSelectedSize));
    std::vector<std::vector<QRectF>> byColor(size_t(std::max<qsizetype>(1, m_legend.size())));
    std::vector<QRectF> selected;
    for (const FleetScatterPoint& p : m_points) {
        const QPointF at = positionIn(plot, p);
        if (p.run >= 0 && size_t(p.run) < m_selected.size() && m_selected[size_t(p.run)]) {
            selected.emplace_back(at.x() - kSelectedSize / 2, at.y() - kSelectedSize / 2, kSelectedSize,
                                  kSelectedSize);
            continue;
        }
        const size_t c = std::min(byColor.size() - 1, size_t(std::max(0, p.colorIndex)));
        byColor[c].emplace_back(at.x() - kPointSize / 2, at.y() - kPointSize / 2, kPointSize, kPointSize);
    }
    painter.setPen(Qt::NoPen);
    for (size_t c = 0; c < byColor.size(); ++c) {
        if (byColor[c].empty())
            continue;
        painter.setBrush(entryColor(int(c)));
        painter.drawRects(byColor[c].data(), int(byColor[c].size()));
    }
    if (!selected.empty()) {
        // the selected runs on top, in their colour, outlined in the highlight colour
        painter.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
        painter.setBrush(Qt::NoBrush);
        for (const FleetScatterPoint& p : m_points)
            if (p.run >= 0 && size_t(p.run) < m_selected.size() && m_selected[size_t(p.run)]) {
                const QPointF at = positionIn(plot, p);
                painter.setBrush(entryColor(p.colorIndex));
                painter.drawEllipse(at, kSelectedSize / 2 + 1, kSelectedSize / 2 + 1);
            }
    }
    painter.setClipping(false);
    if (m_points.empty()) {
        painter.setPen(text);
        painter.drawText(plot, Qt::AlignCenter, tr("No run with a duration and a peak gap"));
    }
    if (m_dragging) {
        QColor fill = pal.color(QPalette::Highlight);
        fill.setAlpha(50);
        painter.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DashLine));
        painter.setBrush(fill);
        painter.drawRect(QRect(m_dragFrom, m_dragTo).normalized());
    }
}

void FleetScatterView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_dragging = true;
    m_dragFrom = m_dragTo = event->position().toPoint();
    update();
}

void FleetScatterView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_dragging)
        return QWidget::mouseMoveEvent(event);
    m_dragTo = event->position().toPoint();
    update();
}

void FleetScatterView::mouseReleaseEvent(QMouseEvent* event)
{
    if (!m_dragging || event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    m_dragging = false;
    m_dragTo = event->position().toPoint();
    const QRect band = QRect(m_dragFrom, m_dragTo).normalized();
    std::vector<int> runs;
    if (band.width() < 3 && band.height() < 3) {
        // a click: the point under it, or nothing
        if (const int run = runAt(m_dragTo); run >= 0)
            runs.push_back(run);
    } else {
        runs = runsInside(band);
    }
    update();
    emit runsBrushed(runs);
}

void FleetScatterView::mouseDoubleClickEvent(QMouseEvent* event)
{
    m_dragging = false;
    if (const int run = runAt(event->position().toPoint()); run >= 0)
        emit runActivated(run);
}

} // namespace gapscope
