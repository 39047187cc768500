#include "widgets/job/JobViewStyle.h"

#include "model/text/Text.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace gapscope {

namespace {

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// kSteps colours interpolated (in RGB) through evenly spaced stops.
template <size_t N> void fillRamp(std::array<QRgb, N>& ramp, std::initializer_list<const char*> stops)
{
    std::vector<QColor> colors;
    for (const char* stop : stops)
        colors.emplace_back(QLatin1String(stop));
    const double segments = double(colors.size() - 1);
    for (size_t i = 0; i < N; ++i) {
        const double t = double(i) / double(N - 1) * segments;
        const auto segment = std::min(size_t(t), colors.size() - 2);
        const double f = t - double(segment);
        const QColor& a = colors[segment];
        const QColor& b = colors[segment + 1];
        auto mix = [f](int x, int y) { return int(std::lround(double(x) + (double(y) - double(x)) * f)); };
        ramp[i] = qRgb(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
    }
}

QString trStyle(const char* text)
{
    return QCoreApplication::translate("JobViews", text);
}

} // namespace

HeatmapColorScale::HeatmapColorScale(double low, double high, const QPalette& palette)
    : m_low(std::isfinite(low) ? std::min(low, 0.0) : 0.0),
      m_high(std::isfinite(high) ? std::max(high, 0.0) : 0.0)
{
    m_max = std::max(std::abs(m_low), m_high);
    if (!(m_max > 0))
        m_max = 1;
    m_empty = palette.color(QPalette::Base).rgb();
    // Zero is a pale (light) or deep (dark) tint near the background but distinct from an
    // empty cell; the largest magnitude is the most salient colour of each palette.
    if (isDark(palette)) {
        fillRamp(m_positive, {"#2b1d3f", "#5b2169", "#a4314f", "#e3632b", "#f7b538", "#fcf3a0"});
        fillRamp(m_negative, {"#1c2a40", "#1f4e79", "#3c86bf", "#8cc4ec"});
    } else {
        fillRamp(m_positive, {"#fff8cf", "#fed976", "#fd8d3c", "#e31a1c", "#bd0026", "#800026"});
        fillRamp(m_negative, {"#eaf3fb", "#9ecae1", "#3f8ec4", "#0b4a8c"});
    }
}

QRgb HeatmapColorScale::colorOf(double value) const
{
    if (std::isnan(value))
        return m_empty;
    const double t = std::clamp(std::abs(value) / m_max, 0.0, 1.0);
    const auto index = size_t(t * (kSteps - 1) + 0.5); // t is in [0, 1]: no llround call per cell
    return value < 0 ? m_negative[index] : m_positive[index];
}

QPen collectiveClassPen(CollectiveClass classification, const QPalette& palette)
{
    const bool dark = isDark(palette);
    switch (classification) {
    case CollectiveClass::Confident:
        return QPen(QColor(QLatin1String(dark ? "#5ac8fa" : "#0b3d91")), 2, Qt::SolidLine, Qt::SquareCap,
                    Qt::MiterJoin);
    case CollectiveClass::Likely:
        return QPen(QColor(QLatin1String(dark ? "#4fd1d4" : "#0e7c7b")), 2, Qt::DashLine, Qt::FlatCap,
                    Qt::MiterJoin);
    case CollectiveClass::Suspect:
        break;
    }
    return QPen(QColor(QLatin1String(dark ? "#d6b4fc" : "#5b2c8f")), 1.5, Qt::DotLine, Qt::FlatCap,
                Qt::MiterJoin);
}

QString collectiveClassName(CollectiveClass classification)
{
    switch (classification) {
    case CollectiveClass::Confident:
        return trStyle("confident");
    case CollectiveClass::Likely:
        return trStyle("likely");
    case CollectiveClass::Suspect:
        break;
    }
    return trStyle("suspect");
}

QColor suspectColor(SuspectConfidence confidence, const QPalette& palette)
{
    const bool dark = isDark(palette);
    switch (confidence) {
    case SuspectConfidence::High:
        return QColor(QLatin1String(dark ? "#ff5f5f" : "#c92a2a"));
    case SuspectConfidence::Medium:
        return QColor(QLatin1String(dark ? "#ffb347" : "#d9730d"));
    case SuspectConfidence::Low:
        break;
    }
    return QColor(QLatin1String(dark ? "#a0a0a0" : "#7a7a7a"));
}

QColor divergenceColor(const QPalette& palette)
{
    return QColor(QLatin1String(isDark(palette) ? "#ffb74d" : "#b25e00"));
}

QString measureName(JobMeasure measure)
{
    return measure == JobMeasure::Gap ? trStyle("Gap") : trStyle("Gap ratio");
}

QString measureDescription(JobMeasure measure)
{
    return measure == JobMeasure::Gap ? trStyle("Gap: device used − allocator reserved")
                                      : trStyle("Gap ratio: gap / device total");
}

QString measureValueText(JobMeasure measure, double value)
{
    if (std::isnan(value))
        return trStyle("n/a");
    return measure == JobMeasure::Gap ? bytesText(value) : percentText(value, 2);
}

void drawSuspectMarker(QPainter& painter, const QRectF& box, SuspectConfidence confidence,
                       const QPalette& palette)
{
    const double size = std::min(box.width(), box.height());
    const QPointF centre = box.center();
    QPolygonF triangle;
    triangle << QPointF(centre.x() - size / 2, centre.y() - size / 2)
             << QPointF(centre.x() + size / 2, centre.y())
             << QPointF(centre.x() - size / 2, centre.y() + size / 2);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(palette.color(QPalette::Base), 1));
    painter.setBrush(suspectColor(confidence, palette));
    painter.drawPolygon(triangle);
    painter.restore();
}

} // namespace gapscope
