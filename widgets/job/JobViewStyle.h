#pragma once
// What the heatmap and the small multiples of a job share: the colour scale of a measure
// (sequential from zero for positive gaps, a second hue for negative ones, readable on light
// and dark palettes), the colours and pen styles of the collective-attribution classes and of
// the first-cause confidences, and how a measure's values are written.

#include "model/job/JobViewData.h"

#include <QColor>
#include <QPalette>
#include <QPen>
#include <QString>

#include <array>

class QPainter;
class QRectF;

namespace gapscope {

class HeatmapColorScale
{
public:
    static constexpr int kSteps = 256;

    HeatmapColorScale() = default;
    // Magnitudes are coloured from zero to the largest of |low| and |high| (one scale for
    // both signs, so equal magnitudes read equal); negative values take the second hue.
    HeatmapColorScale(double low, double high, const QPalette& palette);

    double low() const { return m_low; }
    double high() const { return m_high; }
    double maxMagnitude() const { return m_max; }
    bool hasNegative() const { return m_low < 0; }
    QRgb colorOf(double value) const;
    // The colour of empty cells (no sample), the background of the plot.
    QRgb emptyColor() const { return m_empty; }

private:
    double m_low = 0;
    double m_high = 0;
    double m_max = 1;
    QRgb m_empty = 0xffffffff;
    std::array<QRgb, kSteps> m_positive{};
    std::array<QRgb, kSteps> m_negative{};
};

// The outline of an interval of a class: colour and style differ, so classes read apart in
// grey scale and for colour-blind eyes too.
QPen collectiveClassPen(CollectiveClass classification, const QPalette& palette);
QString collectiveClassName(CollectiveClass classification); // "confident", "likely", "suspect"

QColor suspectColor(SuspectConfidence confidence, const QPalette& palette);
// A rank that departs from its peers (rank_divergence, a warning): the findings' warning colour.
QColor divergenceColor(const QPalette& palette);

// "Gap" / "Gap ratio", and the long form for legends.
QString measureName(JobMeasure measure);
QString measureDescription(JobMeasure measure);
// bytes ("1.50 GiB") or percent of the device total ("9.38 %"); "n/a" for NaN.
QString measureValueText(JobMeasure measure, double value);

// A first-cause marker: a triangle pointing right, filled with the confidence's colour.
void drawSuspectMarker(QPainter& painter, const QRectF& box, SuspectConfidence confidence,
                       const QPalette& palette);

} // namespace gapscope
