#include "widgets/fleet/FleetScatterView.h"

#include "model/text/Text.h"
#include "widgets/chart/ByteAxis.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

constexpr int kLeftMargin = 78;
constexpr int kRightMargin = 16;
constexpr int kTopMargin = 28; // the legend
constexpr int kBottomMargin = 40;
constexpr double kPointSize = 4;
constexpr double kSelectedSize = 7;
constexpr int kPickRadius = 6;

// 1, 2 or 5 times a power of ten, so that range / step is at most maxTicks.
double niceStep(double range, int maxTicks)
{
    if (range <= 0)
        return 1;
    const double raw = range / std::max(1, maxTicks);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (m * power >= raw)
            return m * power;
    return 10 * power;
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

void FleetScatterView::updateRanges()
{
    m_maxX = 0;
    m_maxY = 0;
    for (const FleetScatterPoint& p : m_points) {
        m_maxX = std::max(m_maxX, p.durationS);
        m_maxY = std::max(m_maxY, p.peakGapBytes);
    }
    m_maxX = m_maxX > 0 ? m_maxX * 1.04 : 1;
    m_maxY = byteAxisRange(0, m_maxY > 0 ? m_maxY * 1.04 : 0, ByteRangeMode::FromZero).max;
}

QRectF FleetScatterView::plotRect() const
{
    return QRectF(kLeftMargin, kTopMargin, std::max(10, width() - kLeftMargin - kRightMargin),
                  std::max(10, height() - kTopMargin - kBottomMargin));
}

QPointF FleetScatterView::pointPosition(const FleetScatterPoint& point) const
{
    const QRectF plot = plotRect();
    return {plot.left() + point.durationS / m_maxX * plot.width(),
            plot.bottom() - point.peakGapBytes / m_maxY * plot.height()};
}

std::vector<int> FleetScatterView::runsInside(const QRect& rect) const
{
    std::vector<int> runs;
    const QRectF r = QRectF(rect).normalized();
    for (const FleetScatterPoint& p : m_points)
        if (r.contains(pointPosition(p)))
            runs.push_back(p.run);
    std::sort(runs.begin(), runs.end());
    return runs;
}

int FleetScatterView::runAt(const QPoint& pos) const
{
    int best = -1;
    double bestDistance = kPickRadius * kPickRadius + 1;
    for (const FleetScatterPoint& p : m_points) {
        const QPointF d = pointPosition(p) - QPointF(pos);
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
    const double stepX = niceStep(m_maxX, std::max(2, int(plot.width() / 90)));
    painter.setPen(grid);
    for (double x = 0; x <= m_maxX + stepX * 1e-9; x += stepX) {
        const double px = plot.left() + x / m_maxX * plot.width();
        painter.setPen(grid);
        painter.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
        painter.setPen(text);
        const QString label = secondsText(x);
        painter.drawText(QRectF(px - 50, plot.bottom() + 2, 100, metrics.height()), Qt::AlignHCenter, label);
    }
    const ByteAxis axisY = ByteAxis::forRange(0, m_maxY, std::max(2, int(plot.height() / 50)));
    for (const double y : axisY.ticks()) {
        const double py = plot.bottom() - y / m_maxY * plot.height();
        painter.setPen(grid);
        painter.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
        painter.setPen(text);
        painter.drawText(QRectF(0, py - metrics.height() / 2.0, kLeftMargin - 6, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, axisY.label(y));
    }
    painter.setPen(text);
    painter.drawRect(plot);
    painter.drawText(QRectF(plot.left(), height() - metrics.height() - 2, plot.width(), metrics.height()),
                     Qt::AlignHCenter, tr("duration"));
    painter.save();
    painter.translate(12, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-100, -metrics.height() / 2.0, 200, metrics.height()), Qt::AlignCenter,
                     tr("peak gap"));
    painter.restore();

    // the legend, on one line above the plot
    double lx = plot.left();
    for (int i = 0; i < m_legend.size(); ++i) {
        const QString& entry = m_legend[i];
        const double w = metrics.horizontalAdvance(entry) + 22;
        if (lx + w > width())
            break;
        painter.fillRect(QRectF(lx, 8, 9, 9), entryColor(i));
        painter.setPen(text);
        painter.drawText(QPointF(lx + 13, 8 + metrics.ascent() - 1), entry);
        lx += w;
    }

    // the points: one batch per colour, runs with a finding over those without
    painter.setClipRect(plot.adjusted(-kSelectedSize, -kSelectedSize, kSelectedSize, kSelectedSize));
    std::vector<std::vector<QRectF>> byColor(size_t(std::max<qsizetype>(1, m_legend.size())));
    std::vector<QRectF> selected;
    for (const FleetScatterPoint& p : m_points) {
        const QPointF at = pointPosition(p);
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
                const QPointF at = pointPosition(p);
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
