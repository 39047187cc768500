#pragma once
// What the gap chart and the timeline scrubber share: the time range an analysis is drawn
// over and the series colours derived from the widget palette (the gap of a store row is
// EventStore::gapAt).

#include "model/trace/AnalysisRunner.h"
#include "widgets/chart/ByteAxis.h"

#include <QColor>
#include <QHelpEvent>
#include <QPainter>
#include <QPalette>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace gapscope {

struct AnalysisTimeRange
{
    bool valid = false;
    int64_t beginNs = 0;         // first event of the partition (or of the usable samples)
    int64_t endNs = 0;           // last event
    int64_t originNs = 0;        // relative times count from here
    int64_t analysedBeginNs = 0; // first and last usable sample
    int64_t analysedEndNs = 0;
};

// The whole partition when the result names one inside its store (so a window analysis
// still shows the run around the window), else the usable samples.
AnalysisTimeRange timeRangeOf(const AnalysisResult& result);

// Lane of a phase span: its depth counted from the shallowest span (traces number depths from
// 0 or from 1), so the top lane is never empty.
int64_t shallowestPhaseDepth(const std::vector<PhaseSpan>& phases);

// Position in result.usableRows of the usable sample nearest to ns; nullopt without samples.
std::optional<size_t> nearestUsableSample(const AnalysisResult& result, int64_t ns);

// Values (x, y) to pixels the way a chart's plot area maps its axis ranges: xMin at the left
// edge, xMax at the right, yMin at the bottom, yMax at the top. Affine in each axis.
struct PlotMapping
{
    double xOffset = 0;
    double xScale = 1;
    double yOffset = 0;
    double yScale = 1;

    // A degenerate range (max <= min) maps everything to the left or bottom edge.
    static PlotMapping fromRanges(const QRectF& plot, double xMin, double xMax, double yMin, double yMax);
    QPointF map(QPointF value) const { return {xOffset + xScale * value.x(), yOffset + yScale * value.y()}; }
};

// The polyline to stroke for a line through `values` (ascending x, as decimation returns them):
// mapped to pixels, points with a NaN coordinate skipped (the line joins their neighbours), and
// cut where it leaves [left - margin, right + margin]: the neighbours just outside a zoomed view
// may map millions of pixels away. Also keeps y within a million pixels of the plot.
QPolygonF plotPolyline(std::span<const QPointF> values, const PlotMapping& mapping, double left, double right,
                       double margin);

// Series colours: fixed hues, lightened on dark palettes so they stay readable.
struct ChartColors
{
    bool dark = false;
    QColor background;
    QColor text;
    QColor grid;
    QColor gap;
    QColor allocated;
    QColor reserved;
    QColor deviceUsed;
    QColor deviceTotal;
    QColor regression;
    QColor spike;
    QColor maxSpike;
    QColor cursor;
    QColor outside;    // samples outside an analysis window
    QColor comparison; // a line from another run (the compare window's B − A)
    QColor phaseA;     // translucent phase shading, alternating
    QColor phaseB;
};
ChartColors chartColors(const QPalette& palette);

QColor severityTint(Severity severity, const QPalette& palette);
// A notice's tint: the finding severity's of the same name.
QColor noticeTint(NoticeSeverity severity, const QPalette& palette);

// Bookmark flags on the gap chart and the timeline: a gold apart from the series' hues (text
// on it: black on dark backgrounds, white on light ones).
QColor bookmarkColor(const ChartColors& colors);

// Out-of-memory markers on the gap chart and the timeline: a red apart from the series' hues
// and the bookmarks' gold (text on it as on a bookmark).
QColor oomColor(const ChartColors& colors);

// The grid of a byte axis across plot, each line labelled right-aligned in [labelLeft,
// plot.left() - 6]; yOf maps bytes to the widget's y.
void drawByteGrid(QPainter& painter, const ByteAxis& axis, const QRectF& plot, double labelLeft,
                  const std::function<double(double)>& yOf, const ChartColors& colors);

// A view's answer to QEvent::ToolTip: text shown at the help event's position, hidden where the
// view has nothing to say there (an empty text).
void showToolTip(const QHelpEvent& help, const QString& text, QWidget* view);

// "2026-11-30 19:41:19.123456789 UTC"
QString formatAbsoluteTime(int64_t epochNs);

} // namespace gapscope
