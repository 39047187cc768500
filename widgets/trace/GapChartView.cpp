#include "widgets/trace/GapChartView.h"

#include "model/store/Decimation.h"
#include "model/text/Text.h"
#include "widgets/chart/ByteAxis.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/chart/StepAxis.h"
#include "widgets/chart/TimeAxis.h"
#include "widgets/job/JobViewStyle.h"
#include "widgets/trace/SnapshotOverlay.h"

#include <QActionGroup>
#include <QApplication>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QEvent>
#include <QGraphicsItem>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QScatterSeries>
#include <QSet>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>
#include <future>
#include <limits>
#include <thread>

namespace gapscope {

namespace {

constexpr int kOverlayCount = 11;
constexpr int64_t kMinVisibleSpanNs = 1000; // 1 us: below that no trace has two samples
constexpr double kDragThresholdPx = 4;
constexpr int kMaxPhaseLanes = 3;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kLineCount = 9;
constexpr std::array<CollectiveClass, 3> kCollectiveClasses{
    CollectiveClass::Confident, CollectiveClass::Likely, CollectiveClass::Suspect};

// Values of the drawn series as doubles, NaN where missing (model/store/Decimation.h).
GapValue gapValueOf(const EventStore& s)
{
    return GapValue(s.used, s.reserved);
}

int overlayIndex(ChartOverlay overlay)
{
    return int(overlay);
}

bool defaultOverlayVisible(ChartOverlay overlay)
{
    switch (overlay) {
    case ChartOverlay::Allocated:
    case ChartOverlay::Reserved:
    case ChartOverlay::DeviceUsed:
    case ChartOverlay::DeviceTotal:
        return false;
    case ChartOverlay::Phases:
    case ChartOverlay::ThresholdBand:
    case ChartOverlay::Regression:
    case ChartOverlay::Spikes:
    case ChartOverlay::TrackerWarnings:
    case ChartOverlay::SnapshotAllocated: // drawn only with a snapshot attached
    case ChartOverlay::SnapshotReserved:
        break;
    }
    return true;
}

QString noDeviceTotalNote()
{
    return GapChartView::tr("No device total in these samples, so there is no gap to analyse: showing the "
                            "allocator and device counters.");
}

QString findingBadgeText(Classification c)
{
    QString name = qs(toString(c));
    name.replace(QLatin1Char('_'), QLatin1Char(' '));
    return name;
}

struct YExtent
{
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    bool positiveOnly = false; // a log scale has no place for zero and below
    void add(double v)
    {
        if (std::isnan(v) || (positiveOnly && v <= 0))
            return;
        min = std::min(min, v);
        max = std::max(max, v);
    }
    bool valid() const { return min <= max; }
};

} // namespace

class GapChartView::Private
{
public:
    class Canvas;
    class LineLayer;
    enum class Drag
    {
        None,
        Pending,
        Zoom,
        Select,
        Measure,
        Pan
    };

    explicit Private(GapChartView* owner);

    // data
    const EventStore& store() const { return result->trace->store; }
    double xOf(int64_t ns) const { return double(ns - range.originNs) / 1e9; }
    bool hasData() const { return result && range.valid; }

    // drawing
    void applyColors();
    void rebuildStaticSeries();
    void redraw();
    void redrawSeries(int columns);
    void updateAxes(const YExtent& extent);
    QString spanReadout() const; // the x axis title: the visible time span and value range
    void updateEmphasis();
    void updateLegendVisibility();
    int plotColumns() const;
    TimeAxis pixelAxis() const; // visible range <-> chart (scene) x
    QRectF plotRect() const;
    int phaseLaneCount() const;
    int phaseLaneHeight() const;
    struct PhaseLabel
    {
        QString text;
        QRectF textBox;   // scene coordinates
        double edgeX = 0; // the span's left edge in the view
        bool startsInView = false;
    };
    // The phase labels to draw, none overlapping another: elided to their span and to the next
    // label of their lane.
    std::vector<PhaseLabel> phaseLabels(const QFontMetrics& metrics) const;
    // The note over the plot: why there is no gap (no device total) or why the gap drawn is not
    // a measurement (gap_not_observable); empty when the gap speaks for itself.
    QString noteText() const;
    bool gapObservable() const;
    QRectF noteRect(const QFontMetrics& metrics) const; // the note's box, or empty
    QLineSeries* seriesOf(ChartLine line) const;
    void setDrawnPoints(ChartLine line, QList<QPointF> points);

    // interaction
    bool setRange(int64_t beginNs, int64_t endNs);
    // hover line and hoveredTime follow the mouse; the tooltip opens after the usual tooltip
    // delay (QEvent::ToolTip) and then follows the mouse while it is open
    void showHover(QPoint viewPos, QPoint globalPos, bool openToolTip);
    void hideHover();
    QString hoverText(size_t samplePos, int64_t mouseNs) const;
    void drawMeasurement(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const;
    void drawBookmarks(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const;
    // The OOMs of the trace and the error events of the partition (see EventMarker).
    void collectEventMarkers();
    void drawEventMarkers(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const;
    // The tooltip lines (HTML) on the markers within a few pixels of mouseNs.
    QString eventMarkerToolTip(int64_t mouseNs) const;
    // the attached snapshot's segment entries, just above the tracker's warnings lane
    void drawSnapshotTicks(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const;
    // the tracker's warnings lane (ChartOverlay::TrackerWarnings)
    void drawTrackerWarnings(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const;
    QString trackerWarningToolTip(int64_t mouseNs) const;
    mutable QList<GapChartView::TrackerWarningMark> paintedWarnings;
    QColor fillOf(CollectiveClass classification) const
    {
        for (size_t i = 0; i < kCollectiveClasses.size(); ++i)
            if (kCollectiveClasses[i] == classification)
                return collectiveFills[i];
        return collectiveFills.back();
    }

    GapChartView* q;
    std::shared_ptr<const AnalysisResult> result;
    std::shared_ptr<const StepIndex> steps; // of the result's (session, rank); may be null
    bool stepAxis = false;                  // setStepAxis
    bool showsStepAxis() const { return stepAxis && steps && !steps->empty(); }
    AnalysisTimeRange range;
    ChartColors colors;

    Canvas* canvas = nullptr;
    QChart* chart = nullptr;
    QCategoryAxis* xAxis = nullptr;
    QCategoryAxis* yAxis = nullptr;
    QLineSeries* gap = nullptr;
    QLineSeries* outside = nullptr; // gap of the samples outside an analysis window
    QLineSeries* allocated = nullptr;
    QLineSeries* reserved = nullptr;
    QLineSeries* deviceUsed = nullptr;
    QLineSeries* deviceTotal = nullptr;
    QLineSeries* regression = nullptr;
    QLineSeries* comparison = nullptr; // setComparisonLine
    // setSnapshot: the data, and what is drawn of it for the trace shown (its device)
    std::shared_ptr<const SnapshotData> snapshotData;
    std::unique_ptr<SnapshotOverlay> snapshot;
    int64_t snapshotForDevice = 0; // the trace's device the overlay was made for
    QLineSeries* snapshotAllocated = nullptr;
    QLineSeries* snapshotReserved = nullptr;
    // The overlay of snapshotData for the trace shown (none without either), built again when
    // the data or the trace's device changes.
    void updateSnapshot();
    bool snapshotDrawn() const
    {
        return hasData() && snapshot && snapshot->overlaps(range.beginNs, range.endNs);
    }
    QString snapshotNote() const;
    QLineSeries* bandUpper = nullptr;
    QLineSeries* bandLower = nullptr;
    QAreaSeries* band = nullptr;
    QScatterSeries* spikes = nullptr;
    QScatterSeries* maxSpike = nullptr;
    QScatterSeries* emphasis = nullptr; // samples a highlighted finding is about
    // a job's collective intervals of the rank shown; the series (no points) are their legend
    // entries, one per class (kCollectiveClasses' order)
    std::vector<JobCollectiveInterval> collective;
    std::array<QAreaSeries*, 3> collectiveSeries{};
    // no points: the legend entry of the tracker-warnings lane (drawn by drawTrackerWarnings)
    QAreaSeries* warningsLegend = nullptr;
    std::array<QColor, 3> collectiveFills;
    // Qt Charts strokes every segment of a QLineSeries on its own (round caps, antialiased),
    // 25 ms for six lines of ~3 000 points. The dense lines and the threshold band are
    // painted by `lines` instead, one polyline each; their series hold no points and give the
    // legend its entries, pens and visibility.
    LineLayer* lines = nullptr;
    std::array<QList<QPointF>, kLineCount> drawnLines; // by ChartLine
    // setComparisonLine: times ascending, values in bytes, rows 0..n-1 for the decimation
    std::vector<int64_t> comparisonTimes;
    std::vector<double> comparisonValues;
    std::vector<uint32_t> comparisonRows;
    QList<QPointF> regressionLine; // the drift fit's two ends, empty without
    ByteRangeMode yRangeMode = ByteRangeMode::FitData;
    bool logScale = false;
    // A value in bytes on the y axis: itself, or its log2 on a log scale (NaN for <= 0, which a
    // log scale cannot show: the line joins the neighbours)
    double yPlot(double bytes) const
    {
        if (!logScale)
            return bytes;
        return bytes > 0 ? std::log2(bytes) : kNaN;
    }
    QList<QPointF> toPlot(QList<QPointF> points) const
    {
        if (logScale)
            for (QPointF& p : points)
                p.setY(yPlot(p.y()));
        return points;
    }
    YExtent visibleExtent; // of the drawn data in the visible range (the band not counted)
    QStringList yLabels;   // of the y axis, bottom to top
    QStringList xLabels;   // of the x axis, left to right
    double bandBeginX = 0, bandEndX = 0;

    std::array<bool, kOverlayCount> overlayVisible{};
    int64_t visibleBeginNs = 0;
    int64_t visibleEndNs = 0;
    std::optional<int64_t> cursorNs;
    // The cursor before the last click moved it: the first click of a double-click (which
    // resets the zoom) must not leave the cursor where it landed.
    std::optional<int64_t> cursorBeforeClick;
    QElapsedTimer sinceClick;
    int highlighted = -1;
    int drawnGapPoints = 0;
    int drawnColumns = 0;
    bool redrawing = false;

    std::vector<uint32_t> spikeRows;   // the analysis's AnalysisResult::spikeRows
    std::vector<uint32_t> outsideRows; // usable samples of the partition outside the window
    // Level-of-detail pyramids of the series over usableRows (and outsideRows), built once per
    // analysis so zooming and panning never scan the full columns.
    struct Pyramids
    {
        MinMaxPyramid gap, allocated, reserved, used, total, outside;
    };
    Pyramids pyramids;
    std::optional<uint32_t> maxSpikeRow;
    int64_t phaseBaseDepth = 0;
    bool hasDrift = false;
    double bandLow = 0, bandHigh = 0;
    bool hasBand = false;

    Drag drag = Drag::None;
    Drag pendingDrag = Drag::None; // what a Pending drag becomes once it moves
    QPointF pressPos;
    QPointF dragPos;
    TimeAxis pressAxis;
    std::optional<int64_t> hoverNs;

    std::optional<TimeWindow> measuredSpan;
    std::optional<RangeMeasurement> measurement;
    std::vector<Bookmark> bookmarks;
    std::vector<GapChartView::EventMarker> eventMarkers; // of the result, ascending time
    mutable QList<GapChartView::EventMarker> paintedMarkers;
};

class GapChartView::Private::Canvas : public QChartView
{
public:
    Canvas(QChart* chart, GapChartView::Private* d, QWidget* parent) : QChartView(chart, parent), d(d)
    {
        setRenderHint(QPainter::Antialiasing, true);
        setFrameShape(QFrame::NoFrame);
        setMouseTracking(true);
        setFocusPolicy(Qt::StrongFocus);
        setRubberBand(QChartView::NoRubberBand);
        setDragMode(QGraphicsView::NoDrag);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    }

    QPointF chartPos(QPointF viewPos) const { return chart()->mapFromScene(mapToScene(viewPos.toPoint())); }

protected:
    void drawBackground(QPainter* painter, const QRectF& rect) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    GapChartView::Private* d;
};

// Paints the dense lines, the drift fit and the threshold band of the chart, in the chart's
// coordinates, between the axes and the Qt Charts series (markers stay on top). The fit is
// painted just under the gap line: on a drift the two lie on each other and the data must
// stay visible.
class GapChartView::Private::LineLayer : public QGraphicsItem
{
public:
    explicit LineLayer(GapChartView::Private* d) : QGraphicsItem(d->chart), d(d)
    {
        setZValue(3.5); // above Qt Charts' axes and grid (3), below its series (4)
        setAcceptedMouseButtons(Qt::NoButton);
        setAcceptHoverEvents(false);
        plotAreaChanged(d->chart->plotArea());
    }

    void plotAreaChanged(const QRectF& area)
    {
        prepareGeometryChange();
        bounds = area.adjusted(-8, -8, 8, 8);
    }
    QRectF boundingRect() const override { return bounds; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    GapChartView::Private* d;
    QRectF bounds;
};

void GapChartView::Private::LineLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                                             QWidget* widget)
{
    Q_UNUSED(option);
    Q_UNUSED(widget);
    if (!d->hasData())
        return;
    const QRectF plot = d->chart->plotArea();
    if (plot.width() <= 0 || plot.height() <= 0)
        return;
    const PlotMapping mapping =
        PlotMapping::fromRanges(plot, d->xAxis->min(), d->xAxis->max(), d->yAxis->min(), d->yAxis->max());
    constexpr double margin = 8; // beyond the clip: line caps and joins at the edges stay whole
    painter->save();
    // the clip Qt Charts gives its series: lines along the plot edges stay visible
    const double x1 = plot.left() - std::trunc(plot.left());
    const double y1 = plot.top() - std::trunc(plot.top());
    const double x2 = plot.width() + 0.5 - std::trunc(plot.width() + 0.5);
    const double y2 = plot.height() + 0.5 - std::trunc(plot.height() + 0.5);
    painter->setClipRect(plot.adjusted(-x1, -y1, std::max(x1, x2), std::max(y1, y2)), Qt::IntersectClip);

    if (d->band->isVisible()) {
        auto x = [&](double value) {
            return std::clamp(mapping.map(QPointF(value, 0)).x(), plot.left() - margin,
                              plot.right() + margin);
        };
        // clipped to the plot; on a log scale a bound at or below zero lies past the bottom
        const double plotHigh = d->yPlot(d->bandHigh);
        const double plotLow = d->yPlot(d->bandLow);
        const double top =
            std::isnan(plotHigh) ? plot.bottom() + margin : mapping.map(QPointF(0, plotHigh)).y();
        const double bottom =
            std::isnan(plotLow) ? plot.bottom() + margin : mapping.map(QPointF(0, plotLow)).y();
        const double left = x(d->bandBeginX);
        const double right = x(d->bandEndX);
        QPolygonF area;
        area << QPointF(left, top) << QPointF(right, top) << QPointF(right, bottom) << QPointF(left, bottom);
        painter->setPen(d->band->pen());
        painter->setBrush(d->band->brush());
        painter->drawPolygon(area);
    }
    painter->setBrush(Qt::NoBrush);
    QList<QLineF> segments;
    const bool raster = painter->paintEngine() && painter->paintEngine()->type() == QPaintEngine::Raster;
    // back to front in the order the series were added: device total first, the gap on top
    for (int i = kLineCount - 1; i >= 0; --i) {
        if (ChartLine(i) == ChartLine::Gap && d->regression->isVisible() && d->regressionLine.size() == 2) {
            // a straight line in bytes is a curve on a log scale: drawn through 64 points
            QList<QPointF> fit = d->regressionLine;
            if (d->logScale) {
                const QPointF a = d->regressionLine[0];
                const QPointF b = d->regressionLine[1];
                fit.clear();
                for (int k = 0; k <= 64; ++k)
                    fit.append(a + (b - a) * (k / 64.0));
            }
            painter->setPen(d->regression->pen());
            painter->drawPolyline(plotPolyline(d->toPlot(fit), mapping, plot.left(), plot.right(), margin));
        }
        QLineSeries* series = d->seriesOf(ChartLine(i));
        if (!series->isVisible())
            continue;
        const QPolygonF polyline =
            plotPolyline(d->toPlot(d->drawnLines[size_t(i)]), mapping, plot.left(), plot.right(), margin);
        if (polyline.size() < 2)
            continue;
        QPen pen = series->pen();
        if (pen.style() != Qt::SolidLine || !raster) {
            // one path keeps a dash pattern running along the line; vector exports (SVG, PDF)
            // get one element per line
            painter->setPen(pen);
            painter->drawPolyline(polyline);
            continue;
        }
        // On screen and in PNGs segments, not a polyline: one stroked outline of a dense zigzag
        // overlaps itself thousands of times and rasterises in seconds. Square caps close the
        // joints like round ones do and let the raster engine draw each segment directly
        // (round caps go through the general stroker: five times slower).
        pen.setCapStyle(Qt::SquareCap);
        painter->setPen(pen);
        segments.resize(polyline.size() - 1);
        for (qsizetype k = 1; k < polyline.size(); ++k)
            segments[k - 1] = QLineF(polyline[k - 1], polyline[k]);
        painter->drawLines(segments);
    }
    painter->restore();
}

GapChartView::Private::Private(GapChartView* owner) : q(owner)
{
    for (int i = 0; i < kOverlayCount; ++i)
        overlayVisible[size_t(i)] = defaultOverlayVisible(ChartOverlay(i));

    chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundVisible(false); // the canvas paints the palette background and phases
    chart->setPlotAreaBackgroundVisible(false);
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(6, 2, 12, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->legend()->setBackgroundVisible(false);
    chart->legend()->setShowToolTips(true);

    xAxis = new QCategoryAxis;
    xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    xAxis->setTitleText(GapChartView::tr("Time since trace start"));
    yAxis = new QCategoryAxis;
    yAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);

    auto addLine = [&](const QString& name) {
        auto* series = new QLineSeries;
        series->setName(name);
        chart->addSeries(series);
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
        return series;
    };
    bandUpper = new QLineSeries(chart);
    bandLower = new QLineSeries(chart);
    band = new QAreaSeries(bandUpper, bandLower);
    band->setName(GapChartView::tr("Spike threshold (mean ± z·σ)"));
    chart->addSeries(band);
    band->attachAxis(xAxis);
    band->attachAxis(yAxis);

    deviceTotal = addLine(GapChartView::tr("Device total"));
    deviceUsed = addLine(GapChartView::tr("Device used"));
    reserved = addLine(GapChartView::tr("Reserved"));
    allocated = addLine(GapChartView::tr("Allocated"));
    outside = addLine(GapChartView::tr("Outside window"));
    gap = addLine(GapChartView::tr("Gap (used − reserved)"));
    regression = addLine(GapChartView::tr("Drift fit"));
    comparison = addLine(QString());
    snapshotAllocated = addLine(GapChartView::tr("Snapshot allocated"));
    snapshotReserved = addLine(GapChartView::tr("Snapshot reserved"));

    auto addScatter = [&](const QString& name, qreal size) {
        auto* series = new QScatterSeries;
        series->setName(name);
        series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        series->setMarkerSize(size);
        chart->addSeries(series);
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
        return series;
    };
    spikes = addScatter(GapChartView::tr("Spikes"), 7);
    maxSpike = addScatter(GapChartView::tr("Largest spike"), 12);
    emphasis = addScatter(GapChartView::tr("Finding samples: largest fragmentation ratio"), 9);
    emphasis->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    for (size_t i = 0; i < kCollectiveClasses.size(); ++i) {
        auto* series = new QAreaSeries(new QLineSeries(chart));
        series->setName(GapChartView::tr("Collective (%1)").arg(collectiveClassName(kCollectiveClasses[i])));
        chart->addSeries(series);
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
        collectiveSeries[i] = series;
    }
    warningsLegend = new QAreaSeries(new QLineSeries(chart));
    warningsLegend->setName(GapChartView::tr("Tracker warnings"));
    chart->addSeries(warningsLegend);
    warningsLegend->attachAxis(xAxis);
    warningsLegend->attachAxis(yAxis);

    lines = new LineLayer(this);

    // A click on a legend entry hides its series: the page unchecks the toggle (the toolbar
    // brings it back).
    const std::pair<QAbstractSeries*, ChartOverlay> toggled[] = {
        {deviceTotal, ChartOverlay::DeviceTotal},
        {deviceUsed, ChartOverlay::DeviceUsed},
        {reserved, ChartOverlay::Reserved},
        {allocated, ChartOverlay::Allocated},
        {band, ChartOverlay::ThresholdBand},
        {regression, ChartOverlay::Regression},
        {spikes, ChartOverlay::Spikes},
        {maxSpike, ChartOverlay::Spikes},
        {warningsLegend, ChartOverlay::TrackerWarnings},
        {snapshotAllocated, ChartOverlay::SnapshotAllocated},
        {snapshotReserved, ChartOverlay::SnapshotReserved},
    };
    for (const auto& [series, overlay] : toggled) {
        const ChartOverlay o = overlay;
        for (QLegendMarker* marker : chart->legend()->markers(series)) {
            marker->setProperty("gapscopeOverlay", int(o));
            QObject::connect(marker, &QLegendMarker::clicked, q,
                             [this, o] { emit q->overlayToggleRequested(o, false); });
        }
    }

    canvas = new Canvas(chart, this, q);
    RangeNavigator::View navigation;
    navigation.axis = [this]() -> std::optional<TimeAxis> {
        if (!hasData())
            return std::nullopt;
        return pixelAxis();
    };
    navigation.pixelX = [this](QPointF viewportPos) { return canvas->mapToScene(viewportPos.toPoint()).x(); };
    navigation.setRange = [this](const TimeAxis& next) { setRange(next.beginNs, next.endNs); };
    navigation.resetRange = [this] {
        if (sinceClick.isValid() && sinceClick.elapsed() <= QApplication::doubleClickInterval()) {
            sinceClick.invalidate();
            if (cursorBeforeClick) {
                cursorNs = cursorBeforeClick;
                emit q->cursorRequested(*cursorBeforeClick);
            }
        }
        q->resetZoom();
    };
    navigation.cursor = [this] { return cursorNs; };
    auto* navigator = new RangeNavigator(std::move(navigation), canvas);
    navigator->watch(canvas->viewport()); // wheel and double-click
    navigator->watch(canvas);             // keys
    // Axis labels change the plot width; decimation follows it.
    QObject::connect(chart, &QChart::plotAreaChanged, q, [this](const QRectF& area) {
        lines->plotAreaChanged(area);
        if (!redrawing && int(area.width()) != drawnColumns)
            redraw();
    });
}

QLineSeries* GapChartView::Private::seriesOf(ChartLine line) const
{
    switch (line) {
    case ChartLine::Gap:
        return gap;
    case ChartLine::OutsideWindow:
        return outside;
    case ChartLine::Allocated:
        return allocated;
    case ChartLine::Reserved:
        return reserved;
    case ChartLine::DeviceUsed:
        return deviceUsed;
    case ChartLine::Comparison:
        return comparison;
    case ChartLine::SnapshotAllocated:
        return snapshotAllocated;
    case ChartLine::SnapshotReserved:
        return snapshotReserved;
    case ChartLine::DeviceTotal:
        break;
    }
    return deviceTotal;
}

void GapChartView::Private::setDrawnPoints(ChartLine line, QList<QPointF> points)
{
    drawnLines[size_t(line)] = std::move(points);
    lines->update();
}

int GapChartView::Private::plotColumns() const
{
    const int width = int(std::floor(chart->plotArea().width()));
    if (width > 0)
        return width;
    return std::max(1, canvas->width() - 100); // before the first layout
}

QRectF GapChartView::Private::plotRect() const
{
    return chart->mapRectToScene(chart->plotArea());
}

TimeAxis GapChartView::Private::pixelAxis() const
{
    const QRectF plot = plotRect();
    return TimeAxis{visibleBeginNs, visibleEndNs, plot.left(), plot.right()};
}

int GapChartView::Private::phaseLaneHeight() const
{
    return canvas->fontMetrics().height() + 2;
}

int GapChartView::Private::phaseLaneCount() const
{
    if (!result || !overlayVisible[size_t(overlayIndex(ChartOverlay::Phases))])
        return 0;
    int64_t maxDepth = -1;
    for (const PhaseSpan& span : result->phases) {
        if (span.endNs >= visibleBeginNs && span.startNs <= visibleEndNs)
            maxDepth = std::max(maxDepth, span.depth - phaseBaseDepth);
    }
    return int(std::min<int64_t>(maxDepth + 1, kMaxPhaseLanes));
}

bool GapChartView::Private::gapObservable() const
{
    return !result || !findNotice(result->notices, notice_code::kGapNotObservable);
}

QString GapChartView::Private::noteText() const
{
    if (!hasData())
        return {};
    QStringList notes;
    if (result->usableRows.empty()) {
        if (!result->counterRows.empty())
            notes << noDeviceTotalNote();
    } else if (!gapObservable()) {
        if (const Notice* n = findNotice(result->notices, notice_code::kGapNotObservable))
            notes << qs(n->title) + GapChartView::tr(
                                        ". The gap line is 0 by construction, not by measurement; allocated "
                                        "and reserved are still what the allocator held.");
    }
    if (const QString note = snapshotNote(); !note.isEmpty())
        notes << note;
    return notes.join(QLatin1Char('\n'));
}

QString GapChartView::Private::snapshotNote() const
{
    return hasData() && snapshot ? snapshot->noteFor(range.beginNs, range.endNs) : QString();
}

void GapChartView::Private::updateSnapshot()
{
    if (!snapshotData || !hasData()) {
        snapshot.reset();
        return;
    }
    // the snapshot's trace of the device the trace recorded (its partition's first row)
    const EventStore& s = store();
    const Partition& partition = result->partition;
    int64_t device = 0;
    if (partition.size() > 0 && partition.begin < s.size() && s.source[partition.begin] < s.sources.size())
        device = s.sources[s.source[partition.begin]].deviceId;
    if (snapshot && snapshot->data() == snapshotData && snapshotForDevice == device)
        return;
    snapshot = std::make_unique<SnapshotOverlay>(snapshotData, device);
    snapshotForDevice = device;
}

QRectF GapChartView::Private::noteRect(const QFontMetrics& metrics) const
{
    const QString note = noteText();
    if (note.isEmpty())
        return {};
    const QRectF plot = plotRect();
    const QRect text = metrics.boundingRect(plot.adjusted(48, 0, -48, 0).toAlignedRect(),
                                            Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, note);
    // below the phase lanes, centred
    const double top = plot.top() + phaseLaneCount() * phaseLaneHeight() + 8;
    return QRectF(plot.center().x() - text.width() / 2.0 - 8, top, text.width() + 16, text.height() + 8);
}

std::vector<GapChartView::Private::PhaseLabel>
GapChartView::Private::phaseLabels(const QFontMetrics& metrics) const
{
    std::vector<PhaseLabel> labels;
    const int lanes = phaseLaneCount();
    if (!hasData() || lanes == 0)
        return labels;
    const QRectF plot = plotRect();
    const TimeAxis axis = pixelAxis();
    const int laneHeight = phaseLaneHeight();
    struct Candidate
    {
        int64_t lane;
        double left;
        double right;
        bool startsInView;
        const PhaseSpan* span;
    };
    std::vector<Candidate> candidates;
    for (const PhaseSpan& span : result->phases) {
        const int64_t lane = span.depth - phaseBaseDepth;
        if (lane < 0 || lane >= lanes || span.endNs < visibleBeginNs || span.startNs > visibleEndNs)
            continue;
        const double start = axis.toPixel(span.startNs);
        candidates.push_back({lane, std::max(start, plot.left()),
                              std::min(axis.toPixel(span.endNs), plot.right()), start >= plot.left(), &span});
    }
    // Spans of one lane may overlap (a phase entered again before the last one ended, or a
    // span reaching in from the left of a zoomed view): a label ends where the next label of
    // its lane starts, and one that no longer fits is dropped, so labels never run together.
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.lane != b.lane ? a.lane < b.lane : a.left < b.left;
    });
    double laneEnd = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        if (i == 0 || candidates[i - 1].lane != c.lane)
            laneEnd = -std::numeric_limits<double>::infinity();
        double right = c.right;
        if (i + 1 < candidates.size() && candidates[i + 1].lane == c.lane)
            right = std::min(right, candidates[i + 1].left);
        const double left = std::max(c.left, laneEnd);
        if (right - left < 14)
            continue;
        const PhaseSpan& span = *c.span;
        const QString text =
            metrics.elidedText(QString::fromStdString(span.name.empty() ? span.label : span.name),
                               Qt::ElideRight, int(right - left) - 8);
        if (text.isEmpty() || text == QStringLiteral("…"))
            continue;
        const QRectF textBox(left + 3, plot.top() + 1 + double(c.lane * laneHeight),
                             metrics.horizontalAdvance(text) + 2, laneHeight - 1);
        labels.push_back({text, textBox, c.left, c.startsInView});
        laneEnd = textBox.right() + 3;
    }
    return labels;
}

void GapChartView::Private::applyColors()
{
    colors = chartColors(q->palette());
    const QPalette palette = q->palette();

    for (QCategoryAxis* axis : {xAxis, yAxis}) {
        axis->setLabelsBrush(colors.text);
        axis->setTitleBrush(colors.text);
        QPen gridPen(colors.grid);
        gridPen.setWidthF(1);
        axis->setGridLinePen(gridPen);
        QColor line = colors.text;
        line.setAlpha(110);
        axis->setLinePen(QPen(line));
        axis->setLabelsFont(q->font());
    }
    QFont titleFont = q->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 0.9);
    xAxis->setTitleFont(titleFont);
    chart->legend()->setLabelColor(colors.text);
    chart->legend()->setFont(q->font());

    auto linePen = [](QColor color, qreal width, Qt::PenStyle style = Qt::SolidLine) {
        QPen pen(color, width, style, Qt::RoundCap, Qt::RoundJoin);
        return pen;
    };
    // a gap that cannot be observed is drawn muted: a flat zero there is no measurement
    QColor gapColor = colors.gap;
    if (!gapObservable())
        gapColor.setAlpha(70);
    gap->setPen(linePen(gapColor, gapObservable() ? 1.6 : 1.2));
    gap->setName(gapObservable() ? GapChartView::tr("Gap (used − reserved)")
                                 : GapChartView::tr("Gap (not observable: 0 by construction)"));
    outside->setPen(linePen(colors.outside, 1.2));
    allocated->setPen(linePen(colors.allocated, 1.3));
    reserved->setPen(linePen(colors.reserved, 1.3));
    deviceUsed->setPen(linePen(colors.deviceUsed, 1.3));
    deviceTotal->setPen(linePen(colors.deviceTotal, 1.3, Qt::DashLine));
    comparison->setPen(linePen(colors.comparison, 1.4));
    // the allocator's own counters as the snapshot walked them: the hues of the trace's, broad and
    // paler (mixed with the background, not translucent: the segments of a dense line would
    // darken where they overlap), under the trace's thin lines where the two lie on each other
    const auto pale = [&](const QColor& color) {
        const QColor& b = colors.background;
        const auto mix = [](int c, int background) { return (c * 11 + background * 9) / 20; };
        return QColor(mix(color.red(), b.red()), mix(color.green(), b.green()), mix(color.blue(), b.blue()));
    };
    snapshotAllocated->setPen(linePen(pale(colors.allocated), 3.2));
    snapshotReserved->setPen(linePen(pale(colors.reserved), 3.2));

    QColor bandFill = colors.gap;
    bandFill.setAlpha(colors.dark ? 40 : 28);
    band->setBrush(bandFill);
    QColor bandEdge = colors.gap;
    bandEdge.setAlpha(110);
    band->setPen(linePen(bandEdge, 1, Qt::DotLine));

    spikes->setColor(colors.spike);
    spikes->setBorderColor(colors.background);
    maxSpike->setColor(colors.maxSpike);
    emphasis->setColor(Qt::transparent);
    emphasis->setBorderColor(palette.color(QPalette::Text));
    for (size_t i = 0; i < kCollectiveClasses.size(); ++i) {
        // the heatmap's outline colour, light enough behind the lines to keep them readable
        const QPen outline = collectiveClassPen(kCollectiveClasses[i], palette);
        QColor fill = outline.color();
        fill.setAlpha(colors.dark ? 70 : 48);
        collectiveFills[i] = fill;
        collectiveSeries[i]->setBrush(fill);
        collectiveSeries[i]->setPen(outline);
    }
    warningsLegend->setBrush(severityTint(Severity::Warning, palette));
    warningsLegend->setPen(Qt::NoPen);
    updateEmphasis(); // regression and max-spike styles depend on the highlight
    canvas->viewport()->update();
}

void GapChartView::Private::updateEmphasis()
{
    const Finding* finding = result && highlighted >= 0 && size_t(highlighted) < result->findings.size()
                                 ? &result->findings[size_t(highlighted)]
                                 : nullptr;
    const Classification c = finding ? finding->classification : Classification::TransientSpike;

    // the fit is an overlay: thinner than the gap line and translucent, so the data stays
    // readable where the two coincide
    const bool driftEmphasised = finding && c == Classification::PersistentDrift;
    QColor fitColor = colors.regression;
    fitColor.setAlpha(driftEmphasised ? 200 : 150);
    regression->setPen(QPen(fitColor, driftEmphasised ? 2.4 : 1.4, Qt::DashLine, Qt::RoundCap));

    const bool spikeEmphasised = finding && c == Classification::TransientSpike;
    maxSpike->setMarkerSize(spikeEmphasised ? 18 : 12);
    QPen ring(spikeEmphasised ? colors.text : colors.background);
    ring.setWidthF(spikeEmphasised ? 2.5 : 1.5);
    maxSpike->setPen(ring);

    QList<QPointF> marked;
    if (finding && c == Classification::FragmentationLike && hasData()) {
        // the samples at the largest fragmentation ratio (reserved - allocated) / reserved
        const EventStore& s = store();
        const double maxRatio = result->statistics.maxFragmentation;
        for (uint32_t row : result->usableRows) {
            const int64_t res = s.reserved[row];
            const int64_t alloc = s.allocated[row];
            if (res <= 0 || res == kNullInt || alloc == kNullInt)
                continue;
            const double ratio = double(std::max<int64_t>(0, res - alloc)) / double(res);
            if (std::abs(ratio - maxRatio) <= 1e-9 * std::max(1.0, maxRatio))
                marked.append(QPointF(xOf(s.timestampNs[row]), double(s.gapAt(row))));
            if (marked.size() >= 4096)
                break; // enough to show where; more would not be readable
        }
        // a ratio most samples share marks the whole run, not where it peaks: the ring on the
        // evidence sample says it then
        if (marked.size() * 2 > qsizetype(result->usableRows.size()))
            marked.clear();
    }
    QColor emphasisColor = finding ? severityTint(finding->severity, q->palette()) : colors.text;
    emphasisColor.setAlpha(170);
    QPen emphasisPen(emphasisColor);
    emphasisPen.setWidthF(1.3);
    emphasis->setPen(emphasisPen);
    emphasis->replace(toPlot(marked));
    updateLegendVisibility();
    canvas->viewport()->update();
}

void GapChartView::Private::updateLegendVisibility()
{
    auto visible = [&](ChartOverlay overlay) { return overlayVisible[size_t(overlayIndex(overlay))]; };
    const bool data = hasData();
    gap->setVisible(data && !result->usableRows.empty());
    outside->setVisible(data && !outsideRows.empty());
    allocated->setVisible(data && visible(ChartOverlay::Allocated));
    reserved->setVisible(data && visible(ChartOverlay::Reserved));
    deviceUsed->setVisible(data && visible(ChartOverlay::DeviceUsed));
    deviceTotal->setVisible(data && visible(ChartOverlay::DeviceTotal));
    band->setVisible(data && hasBand && visible(ChartOverlay::ThresholdBand));
    regression->setVisible(data && hasDrift && visible(ChartOverlay::Regression));
    spikes->setVisible(data && !spikeRows.empty() && visible(ChartOverlay::Spikes));
    maxSpike->setVisible(data && maxSpikeRow.has_value() && visible(ChartOverlay::Spikes));
    emphasis->setVisible(data && emphasis->count() > 0);
    comparison->setVisible(data && !comparisonTimes.empty());
    snapshotAllocated->setVisible(snapshotDrawn() && visible(ChartOverlay::SnapshotAllocated));
    snapshotReserved->setVisible(snapshotDrawn() && visible(ChartOverlay::SnapshotReserved));
    warningsLegend->setVisible(
        data && visible(ChartOverlay::TrackerWarnings) &&
        std::any_of(result->trackerWarnings.begin(), result->trackerWarnings.end(),
                    [](const TrackerWarning& w) { return w.type != EventType::Error; }));
    for (size_t i = 0; i < kCollectiveClasses.size(); ++i)
        collectiveSeries[i]->setVisible(data && std::any_of(collective.begin(), collective.end(),
                                                            [&](const JobCollectiveInterval& interval) {
                                                                return interval.classification ==
                                                                       kCollectiveClasses[i];
                                                            }));

    bool markersChanged = false;
    for (QAbstractSeries* series : chart->series()) {
        const bool shown = series->isVisible(); // every mark drawn has its legend entry
        for (QLegendMarker* marker : chart->legend()->markers(series)) {
            markersChanged |= marker->isVisible() != shown;
            marker->setVisible(shown);
        }
    }
    // the legend does not lay itself out again when a marker changes visibility
    if (markersChanged && chart->legend()->layout()) {
        chart->legend()->layout()->invalidate();
        chart->legend()->layout()->activate();
        chart->layout()->invalidate(); // the legend may need another row
    }
}

void GapChartView::Private::rebuildStaticSeries()
{
    spikeRows.clear();
    outsideRows.clear();
    pyramids = Pyramids{};
    maxSpikeRow.reset();
    hasDrift = false;
    hasBand = false;
    if (!hasData()) {
        for (QAbstractSeries* series : chart->series()) {
            if (auto* xy = qobject_cast<QXYSeries*>(series))
                xy->clear();
        }
        for (QList<QPointF>& points : drawnLines)
            points.clear();
        return;
    }
    const EventStore& s = store();
    const GapStatistics& stats = result->statistics;
    const double zThreshold = result->request.thresholds.spikeZScore;

    auto found = [&](Classification c) {
        return std::any_of(result->findings.begin(), result->findings.end(),
                           [c](const Finding& f) { return f.classification == c; });
    };
    // The spikes the analysis chose (AnalysisResult::spikeRows, empty without a spike finding: the
    // band still shows where the threshold lies), and the largest one, where the spike finding
    // points: the sample of the largest gap, whose z-score is the highest of them.
    if (stats.stdGap > 0) {
        const auto spike =
            std::find_if(result->findings.begin(), result->findings.end(),
                         [](const Finding& f) { return f.classification == Classification::TransientSpike; });
        if (spike != result->findings.end() && !result->spikeRows.empty()) {
            spikeRows = result->spikeRows;
            if (spike->evidenceRow < s.size())
                maxSpikeRow = spike->evidenceRow;
        }
        hasBand = true;
        bandLow = stats.meanGap - zThreshold * stats.stdGap;
        bandHigh = stats.meanGap + zThreshold * stats.stdGap;
        const double x0 = xOf(range.analysedBeginNs);
        const double x1 = xOf(range.analysedEndNs);
        bandBeginX = x0;
        bandEndX = x1;
        band->setName(GapChartView::tr("Spike threshold (mean ± %1σ)").arg(zThreshold));
    }

    // The regression line only means something when the analysis called it a drift.
    if (found(Classification::PersistentDrift) && stats.hasFit) {
        hasDrift = true;
        auto fit = [&](int64_t t) {
            return stats.intercept + stats.slopePerNs * double(t - stats.fitOriginNs);
        };
        // painted by the line layer under the gap line; the series gives the legend entry
        regressionLine = {QPointF(xOf(range.analysedBeginNs), fit(range.analysedBeginNs)),
                          QPointF(xOf(range.analysedEndNs), fit(range.analysedEndNs))};
        const QString slope = bytesPerSecondText(stats.slopePerNs * 1e9);
        regression->setName(
            GapChartView::tr("Drift fit (%1)").arg(stats.slopePerNs > 0 ? QLatin1Char('+') + slope : slope));
    } else {
        regressionLine.clear();
    }

    // A window analysis still shows the rest of the run, greyed out.
    const Partition& partition = result->partition;
    if (result->request.window && partition.size() > 0 && partition.end <= s.size()) {
        const TimeWindow& window = *result->request.window;
        for (uint32_t row = partition.begin; row < partition.end; ++row) {
            const int64_t t = s.timestampNs[row];
            if (t >= window.beginNs && t <= window.endNs)
                continue;
            if (s.type[row] == EventType::Sample && s.total[row] != kNullInt && s.total[row] > 0)
                outsideRows.push_back(row);
        }
    }
    const std::span<const uint32_t> usable(result->usableRows);
    const std::span<const uint32_t> counters(result->counterRows);
    // Six pyramids read the packed columns a block at a time: ~0.3 s at 10 M samples on one
    // core, so a large trace builds half of them on a second thread (each reader is its own).
    auto buildGapAndAllocated = [&] {
        pyramids.gap = MinMaxPyramid(usable, gapValueOf(s));
        pyramids.allocated = MinMaxPyramid(counters, NullableColumnValue(s.allocated));
        pyramids.outside = MinMaxPyramid(outsideRows, gapValueOf(s));
    };
    constexpr size_t kRowsWorthAThread = size_t(1) << 17;
    std::future<void> other;
    if (counters.size() + usable.size() >= kRowsWorthAThread && std::thread::hardware_concurrency() > 1)
        other = std::async(std::launch::async, buildGapAndAllocated);
    else
        buildGapAndAllocated();
    pyramids.reserved = MinMaxPyramid(counters, NullableColumnValue(s.reserved));
    pyramids.used = MinMaxPyramid(counters, NullableColumnValue(s.used));
    pyramids.total = MinMaxPyramid(counters, NullableColumnValue(s.total));
    if (other.valid())
        other.get();
}

void GapChartView::Private::redraw()
{
    if (redrawing)
        return;
    redrawing = true;
    // Labels decide the plot width and the width decides the decimation: settle in two passes.
    for (int pass = 0; pass < 2; ++pass) {
        const int columns = plotColumns();
        redrawSeries(columns);
        chart->layout()->activate();
        if (plotColumns() == columns)
            break;
    }
    redrawing = false;
    canvas->viewport()->update();
}

void GapChartView::Private::redrawSeries(int columns)
{
    drawnColumns = columns;
    updateLegendVisibility();
    YExtent extent;
    extent.positiveOnly = logScale;
    if (!hasData()) {
        drawnGapPoints = 0;
        for (QList<QPointF>& points : drawnLines)
            points.clear();
        lines->update();
        updateAxes(extent);
        return;
    }
    const EventStore& s = store();
    const Int64ColumnView time(s.timestampNs);
    const int64_t begin = visibleBeginNs;
    const int64_t end = visibleEndNs;

    // Decimate the rows to the plot's pixel columns: at most two points per column.
    auto decimated = [&](QXYSeries* series, std::span<const uint32_t> rows, auto valueAt,
                         const MinMaxPyramid* pyramid = nullptr) {
        QList<QPointF> points;
        if (!series->isVisible())
            return points;
        const RowSpan span = withNeighbours(rowsInTimeRange(time, rows, begin, end), rows.size());
        const std::vector<uint32_t> kept =
            pyramid ? pyramid->decimate(time, rows, span, begin, end, columns, valueAt)
                    : decimateMinMax(time, rows, span, begin, end, columns, valueAt);
        points.reserve(qsizetype(kept.size()));
        std::optional<std::pair<int64_t, double>> previous;
        for (uint32_t pos : kept) {
            const uint32_t row = rows[pos];
            const double v = valueAt(row);
            if (std::isnan(v))
                continue;
            const int64_t t = time[row];
            points.append(QPointF(xOf(t), v));
            if (t >= begin && t <= end) {
                extent.add(v);
            }
            // where the line crosses a plot edge, its height there counts too
            if (previous) {
                for (int64_t edge : {begin, end}) {
                    if ((previous->first < edge && t > edge)) {
                        const double f = double(edge - previous->first) / double(t - previous->first);
                        extent.add(previous->second + f * (v - previous->second));
                    }
                }
            }
            previous = std::make_pair(t, v);
        }
        return points;
    };
    const GapValue gapValue = gapValueOf(s);

    const std::span<const uint32_t> usable(result->usableRows);
    setDrawnPoints(ChartLine::Gap, decimated(gap, usable, gapValue, &pyramids.gap));
    drawnGapPoints = int(drawnLines[size_t(ChartLine::Gap)].size());
    setDrawnPoints(ChartLine::OutsideWindow, decimated(outside, outsideRows, gapValue, &pyramids.outside));
    // counters are drawn from every sample, also those without a device total (CPU traces)
    const std::span<const uint32_t> counters(result->counterRows);
    setDrawnPoints(ChartLine::Allocated,
                   decimated(allocated, counters, NullableColumnValue(s.allocated), &pyramids.allocated));
    setDrawnPoints(ChartLine::Reserved,
                   decimated(reserved, counters, NullableColumnValue(s.reserved), &pyramids.reserved));
    setDrawnPoints(ChartLine::DeviceUsed,
                   decimated(deviceUsed, counters, NullableColumnValue(s.used), &pyramids.used));
    setDrawnPoints(ChartLine::DeviceTotal,
                   decimated(deviceTotal, counters, NullableColumnValue(s.total), &pyramids.total));
    QList<QPointF> comparisonPoints;
    if (comparison->isVisible()) {
        const std::span<const int64_t> times(comparisonTimes);
        const std::span<const uint32_t> rows(comparisonRows);
        const RowSpan span = withNeighbours(rowsInTimeRange(times, rows, begin, end), rows.size());
        for (uint32_t pos : decimateMinMax(times, rows, span, begin, end, columns,
                                           [this](uint32_t row) { return comparisonValues[row]; })) {
            const double v = comparisonValues[pos];
            comparisonPoints.append(QPointF(xOf(times[pos]), v));
            if (times[pos] >= begin && times[pos] <= end)
                extent.add(v);
        }
    }
    setDrawnPoints(ChartLine::Comparison, std::move(comparisonPoints));
    for (const auto& [line, level] :
         {std::pair{ChartLine::SnapshotAllocated, SnapshotOverlay::Level::Allocated},
          std::pair{ChartLine::SnapshotReserved, SnapshotOverlay::Level::Reserved}}) {
        QList<QPointF> points;
        if (seriesOf(line)->isVisible()) {
            const auto steps = snapshot->stepLine(level, begin, end, columns);
            for (size_t k = 0; k < steps.size(); ++k) {
                const auto [t, v] = steps[k];
                points.append(QPointF(xOf(t), v));
                // a level counts where it is held in view: from a point inside, or from one
                // before the view until a point after its start
                if ((t >= begin && t <= end) ||
                    (t < begin && k + 1 < steps.size() && steps[k + 1].first > begin))
                    extent.add(v);
            }
        }
        setDrawnPoints(line, std::move(points));
    }
    // one or two markers per pixel column are all a screen can show
    const QList<QPointF> spikePoints = toPlot(decimated(spikes, spikeRows, gapValue));
    if (spikePoints != spikes->points())
        spikes->replace(spikePoints);
    if (maxSpikeRow && maxSpike->isVisible())
        maxSpike->replace(toPlot(QList<QPointF>{QPointF(xOf(time[*maxSpikeRow]), gapValue(*maxSpikeRow))}));
    else
        maxSpike->clear();

    const int64_t analysedBegin = std::max(begin, range.analysedBeginNs);
    const int64_t analysedEnd = std::min(end, range.analysedEndNs);
    // the band does not decide the range: a z = 8 band would drag the axis far below the data;
    // it is clipped to the plot instead
    if (regression->isVisible() && analysedBegin <= analysedEnd) {
        const GapStatistics& stats = result->statistics;
        for (int64_t t : {analysedBegin, analysedEnd})
            extent.add(stats.intercept + stats.slopePerNs * double(t - stats.fitOriginNs));
    }
    updateAxes(extent);
}

void GapChartView::Private::updateAxes(const YExtent& extent)
{
    const QRectF plot = chart->plotArea();
    const double plotWidth = std::max(plot.width(), 50.0);
    const double plotHeight = std::max(plot.height(), 50.0);
    const QFontMetrics metrics(xAxis->labelsFont());

    // x: relative time ticks, as many as fit without labels touching
    for (const QString& label : xAxis->categoriesLabels())
        xAxis->remove(label);
    const int64_t span = std::max<int64_t>(visibleEndNs - visibleBeginNs, 1);
    const double xMin = hasData() ? xOf(visibleBeginNs) : 0.0;
    const double xMax = hasData() ? xOf(visibleEndNs) : 1.0;
    xAxis->setStartValue(xMin - (xMax - xMin) * 1e-9);
    xLabels.clear();
    if (hasData() && showsStepAxis()) {
        // step numbers at the steps' starts, as many as fit without labels touching: room for
        // the widest label of the steps shown
        const std::vector<TrainingStep>& all = steps->steps();
        int widest = 0;
        for (const TrainingStep* step : {&all.front(), &all.back()})
            widest = std::max(widest, metrics.horizontalAdvance(stepTickLabel(*steps, *step, true)));
        const StepAxisTicks ticks =
            stepAxisTicks(*steps, TimeAxis{visibleBeginNs, visibleEndNs, 0, plotWidth}, widest + 24.0);
        xLabels = stepTickLabels(*steps, ticks.ticks);
        QSet<QString> used;
        for (size_t k = 0; k < ticks.ticks.size(); ++k) {
            // QCategoryAxis keys its labels by text: a second epoch's "20" gets zero-width
            // spaces that draw nothing
            QString key = xLabels[qsizetype(k)];
            while (used.contains(key))
                key += QChar(0x200B);
            used.insert(key);
            xAxis->append(key, xOf(ticks.ticks[k].ns));
        }
    } else if (hasData()) {
        for (int maxTicks = std::max(2, int(plotWidth / 70)); maxTicks >= 2; --maxTicks) {
            const int64_t step = niceTimeStepNs(span, maxTicks);
            const std::vector<int64_t> ticks =
                timeTicksNs(visibleBeginNs, visibleEndNs, range.originNs, step);
            int widest = 0;
            for (int64_t tick : ticks)
                widest =
                    std::max(widest, metrics.horizontalAdvance(formatTimeTick(tick - range.originNs, step)));
            const double stepPixels = plotWidth * double(step) / double(span);
            if (widest + 24 <= stepPixels || maxTicks == 2) {
                for (int64_t tick : ticks) {
                    xLabels << formatTimeTick(tick - range.originNs, step);
                    xAxis->append(xLabels.back(), xOf(tick));
                }
                break;
            }
        }
    }
    xAxis->setRange(xMin, xMax);

    // y: the range the mode chooses from the visible data, room at the top for the phase labels
    visibleExtent = extent;
    ByteRange values =
        extent.valid() ? byteAxisRange(extent.min, extent.max, yRangeMode) : byteAxisRange(1, 0, yRangeMode);
    if (logScale) {
        // log2 of the positive values; "from zero" means from one byte; at least one octave
        const double high = std::log2(std::max(extent.valid() ? extent.max : 1024.0 * 1024 * 1024, 2.0));
        double low = std::log2(std::max(extent.valid() ? extent.min : 1.0, 1.0));
        if (yRangeMode == ByteRangeMode::FromZero)
            low = 0;
        values = {std::min(low, high - 1), high};
    }
    // room for the phase labels, the note on a trace without a gap and half the largest marker
    // above the highest point: nothing drawn over the data
    const QRectF note = noteRect(QFontMetrics(canvas->font()));
    const double topPx =
        phaseLaneCount() * phaseLaneHeight() + 14 + (note.isEmpty() ? 0.0 : note.height() + 8);
    const double bottomPx = 6;
    const double perPixel = (values.max - values.min) / std::max(plotHeight - topPx - bottomPx, 10.0);
    const double yMin = values.min == 0 ? 0 : values.min - bottomPx * perPixel;
    const double yMax = values.max + topPx * perPixel;

    for (const QString& label : yAxis->categoriesLabels())
        yAxis->remove(label);
    yAxis->setStartValue(yMin - (yMax - yMin) * 1e-9);
    const int maxTicks = std::max(2, int(plotHeight / 42));
    yLabels.clear();
    if (logScale) {
        for (double tick : logByteTicks(std::exp2(yMin), std::exp2(yMax), maxTicks)) {
            yLabels << logByteTickLabel(tick);
            yAxis->append(yLabels.back(), std::log2(tick));
        }
    } else {
        const ByteAxis ticks = ByteAxis::forRange(yMin, yMax, maxTicks);
        for (double tick : ticks.ticks()) {
            yLabels << ticks.label(tick);
            yAxis->append(yLabels.back(), tick);
        }
    }
    yAxis->setRange(yMin, yMax);
    xAxis->setTitleText(spanReadout());
}

QString GapChartView::Private::spanReadout() const
{
    if (!hasData())
        return GapChartView::tr("Time since trace start");
    const int64_t span = visibleEndNs - visibleBeginNs;
    // two or three significant digits: a 1-2-5 step of about a hundredth of the span
    const QString shown = formatTimeTick(span, niceTimeStepNs(span, 100));
    QString text;
    if (showsStepAxis()) {
        const std::string under = steps->rangeLabelAt(visibleBeginNs, visibleEndNs);
        text = GapChartView::tr("Training step");
        text += under.empty() ? GapChartView::tr("  ·  showing %1, no step").arg(shown)
                              : GapChartView::tr("  ·  showing %1 (%2)").arg(qs(under), shown);
    } else {
        text = GapChartView::tr("Time since trace start");
        text += GapChartView::tr("  ·  showing %1").arg(shown);
    }
    if (visibleExtent.valid()) {
        // what the y axis spans in the data, so a small range drawn tall reads as small
        text += GapChartView::tr(", values %1 to %2 (range %3)")
                    .arg(bytesText(visibleExtent.min), bytesText(visibleExtent.max),
                         bytesText(visibleExtent.max - visibleExtent.min));
    }
    return text;
}

bool GapChartView::Private::setRange(int64_t beginNs, int64_t endNs)
{
    if (!hasData())
        return false;
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    const TimeAxis clamped =
        TimeAxis{beginNs, endNs, 0, 0}.clampedTo(range.beginNs, range.endNs, kMinVisibleSpanNs);
    if (clamped.beginNs == visibleBeginNs && clamped.endNs == visibleEndNs)
        return false;
    visibleBeginNs = clamped.beginNs;
    visibleEndNs = clamped.endNs;
    redraw();
    emit q->visibleRangeChanged(visibleBeginNs, visibleEndNs);
    return true;
}

QString GapChartView::Private::hoverText(size_t samplePos, int64_t mouseNs) const
{
    const EventStore& s = store();
    const uint32_t row = result->usableRows[samplePos];
    const int64_t t = s.timestampNs[row];
    auto line = [](const QColor& color, const QString& name, const QString& value) {
        return QStringLiteral(
                   "<tr><td><span style='color:%1'>■</span> %2</td><td align='right'>&nbsp;%3</td></tr>")
            .arg(color.name(), htmlEscape(name), htmlEscape(value));
    };
    QString html =
        QStringLiteral("<b>%1</b><br/><span style='font-size:small'>%2</span><table>")
            // read at what a pixel of the visible span tells apart, not to the nanosecond
            .arg(
                htmlEscape(durationText(t - range.originNs,
                                        timeResolutionNs(visibleEndNs - visibleBeginNs,
                                                         std::max<int64_t>(int64_t(plotRect().width()), 1)))),
                htmlEscape(formatAbsoluteTime(t)));
    const double gapValue = double(s.gapAt(row));
    QString gapText = bytesText(gapValue);
    if (result->statistics.stdGap > 0)
        gapText += QStringLiteral("  (z %1)")
                       .arg((gapValue - result->statistics.meanGap) / result->statistics.stdGap, 0, 'f', 2);
    html += line(colors.gap, GapChartView::tr("Gap"), gapText);
    auto overlayLine = [&](ChartOverlay overlay, const QColor& color, const QString& name,
                           const std::vector<int64_t>& values) {
        if (!overlayVisible[size_t(overlayIndex(overlay))])
            return;
        html += line(color, name, bytesText(values[row]));
    };
    overlayLine(ChartOverlay::Allocated, colors.allocated, GapChartView::tr("Allocated"), s.allocated);
    overlayLine(ChartOverlay::Reserved, colors.reserved, GapChartView::tr("Reserved"), s.reserved);
    overlayLine(ChartOverlay::DeviceUsed, colors.deviceUsed, GapChartView::tr("Device used"), s.used);
    overlayLine(ChartOverlay::DeviceTotal, colors.deviceTotal, GapChartView::tr("Device total"), s.total);
    if (comparison->isVisible()) {
        if (const auto pos = nearestRowPosition(comparisonTimes, comparisonRows, t))
            html += line(colors.comparison, comparison->name(), signedBytesText(comparisonValues[*pos]));
    }
    if (regression->isVisible()) {
        const GapStatistics& stats = result->statistics;
        html += line(colors.regression, GapChartView::tr("Drift fit"),
                     bytesText(stats.intercept + stats.slopePerNs * double(t - stats.fitOriginNs)));
    }
    html += QStringLiteral("</table>");
    // the attached snapshot's allocator at the sample's moment
    if (snapshotDrawn()) {
        if (const auto moment = snapshot->momentAt(t))
            html += QStringLiteral("<span style='color:%1'>■</span> %2<br/>")
                        .arg(colors.reserved.name(), htmlEscape(GapChartView::tr("Snapshot (device %1): %2")
                                                                    .arg(snapshot->device())
                                                                    .arg(snapshot->momentText(*moment))));
    }
    // the deepest phase containing the sample
    const PhaseSpan* phase = nullptr;
    for (const PhaseSpan& span : result->phases) {
        if (span.contains(t) && (!phase || span.depth >= phase->depth))
            phase = &span;
    }
    // the training step first: the unit an ML engineer counts in (analysis/PhaseSteps.h)
    const TrainingStep* step = steps ? steps->stepAt(t) : nullptr;
    if (step)
        html += QStringLiteral("<b>%1</b>").arg(htmlEscape(qs(steps->label(*step)))) +
                (phase ? QStringLiteral(" · ") : QStringLiteral("<br/>"));
    if (phase)
        html += GapChartView::tr("Phase: %1").arg(htmlEscape(shownText(qs(phase->label))));
    html += q->collectiveToolTip(mouseNs);
    html += eventMarkerToolTip(mouseNs);
    html += trackerWarningToolTip(mouseNs);
    if (snapshotDrawn() && snapshotReserved->isVisible())
        if (const QString segments = snapshot->segmentToolTip(mouseNs, pixelAxis()); !segments.isEmpty())
            html += QStringLiteral("<p>%1</p>")
                        .arg(htmlEscape(segments).replace(QLatin1Char('\n'), QStringLiteral("<br/>")));
    return html;
}

void GapChartView::Private::showHover(QPoint viewPos, QPoint globalPos, bool openToolTip)
{
    const QPointF scenePos = canvas->mapToScene(viewPos);
    const QRectF plot = plotRect();
    if (!hasData() || !plot.contains(scenePos)) {
        hideHover();
        return;
    }
    const int64_t ns = pixelAxis().toNs(scenePos.x());
    const std::optional<size_t> pos = nearestUsableSample(*result, ns);
    if (!pos) {
        hideHover();
        return;
    }
    const int64_t sampleNs = store().timestampNs[result->usableRows[*pos]];
    if (openToolTip || QToolTip::isVisible())
        QToolTip::showText(globalPos, hoverText(*pos, ns), canvas);
    if (hoverNs == sampleNs)
        return;
    hoverNs = sampleNs;
    canvas->viewport()->update();
    emit q->hoveredTime(sampleNs);
}

void GapChartView::Private::hideHover()
{
    if (!hoverNs)
        return;
    hoverNs.reset();
    QToolTip::hideText();
    canvas->viewport()->update();
}

void GapChartView::Private::Canvas::drawBackground(QPainter* painter, const QRectF& rect)
{
    painter->fillRect(rect, d->colors.background);
    if (!d->hasData())
        return;
    const QRectF plot = d->plotRect();
    const TimeAxis axis = d->pixelAxis();
    painter->save();
    painter->setClipRect(plot);
    // Spans shaded behind the series; neighbours and nesting levels alternate colours.
    // Zoomed out, one pixel column holds many spans (a training loop has a phase every few
    // samples), and every fill costs a thread pool hand-off in Qt's raster engine: a fill per
    // span, or even per column, kept a 2 M-sample trace's repaint at 0.35-0.55 s. So each
    // lane marks the columns its spans touch (A, B or both) and fills runs of equal marks; a
    // column holding both colours gets their mean, as it would look blended.
    const int firstColumn = int(std::floor(plot.left())) - 1;
    const int columnCount = int(std::ceil(plot.right())) + 2 - firstColumn;
    constexpr uint8_t kColourA = 1, kColourB = 2, kBoth = kColourA | kColourB;
    std::vector<std::vector<uint8_t>> laneColumns(kMaxPhaseLanes + 1);
    std::vector<int> siblingIndex(kMaxPhaseLanes + 1, 0);
    static const std::vector<PhaseSpan> noPhases;
    const bool phases = d->overlayVisible[size_t(overlayIndex(ChartOverlay::Phases))];
    for (const PhaseSpan& span : phases ? d->result->phases : noPhases) {
        const int depth = int(std::clamp<int64_t>(span.depth - d->phaseBaseDepth, 0, kMaxPhaseLanes));
        const int order = siblingIndex[size_t(depth)]++;
        if (span.endNs < d->visibleBeginNs || span.startNs > d->visibleEndNs)
            continue;
        const double left = std::max(axis.toPixel(span.startNs), plot.left() - 1);
        const double right = std::min(axis.toPixel(span.endNs), plot.right() + 1);
        const int from = std::clamp(int(std::floor(left)) - firstColumn, 0, columnCount - 1);
        const int to = std::clamp(int(std::ceil(left + std::max(right - left, 1.0))) - firstColumn, from + 1,
                                  columnCount); // at least a pixel wide
        std::vector<uint8_t>& columns = laneColumns[size_t(depth)];
        if (columns.empty())
            columns.assign(size_t(columnCount), 0);
        const uint8_t colour = (depth + order) % 2 == 0 ? kColourA : kColourB;
        for (int column = from; column < to; ++column)
            columns[size_t(column)] |= colour;
    }
    const QColor& colourA = d->colors.phaseA;
    const QColor& colourB = d->colors.phaseB;
    const QColor both((colourA.red() + colourB.red()) / 2, (colourA.green() + colourB.green()) / 2,
                      (colourA.blue() + colourB.blue()) / 2, (colourA.alpha() + colourB.alpha()) / 2);
    // the lanes composed on a one-pixel row, drawn over the plot's height in one call
    QImage row(columnCount, 1, QImage::Format_ARGB32_Premultiplied);
    row.fill(Qt::transparent);
    bool anyPhase = false;
    {
        QPainter rowPainter(&row);
        for (const std::vector<uint8_t>& columns : laneColumns) {
            for (int begin = 0; begin < int(columns.size());) {
                int end = begin + 1;
                while (end < int(columns.size()) && columns[size_t(end)] == columns[size_t(begin)])
                    ++end;
                if (const uint8_t mark = columns[size_t(begin)]; mark != 0) {
                    rowPainter.fillRect(QRect(begin, 0, end - begin, 1), mark == kBoth      ? both
                                                                         : mark == kColourA ? colourA
                                                                                            : colourB);
                    anyPhase = true;
                }
                begin = end;
            }
        }
    }
    if (anyPhase)
        painter->drawImage(QRectF(firstColumn, plot.top(), columnCount, plot.height()), row);
    // A fill within the columns the last one covered adds nothing to see: skipped.
    struct Columns
    {
        double first = 0, end = -1; // [first, end) pixel columns of the last fill
        bool covers(double from, double to) const { return from >= first && to <= end; }
    };
    auto fill = [&](Columns& last, double left, double right, const QColor& color) {
        const double width = std::max(right - left, 1.0);
        const double from = std::floor(left), to = std::ceil(left + width);
        if (last.covers(from, to))
            return;
        painter->fillRect(QRectF(left, plot.top(), width, plot.height()), color);
        last = {from, to};
    };
    // the job's collective intervals over the phases, at least a pixel wide
    Columns collectiveFilled;
    for (const JobCollectiveInterval& interval : d->collective) {
        if (interval.endNs < d->visibleBeginNs || interval.startNs > d->visibleEndNs)
            continue;
        const double left = std::max(axis.toPixel(interval.startNs), plot.left() - 1);
        const double right = std::min(axis.toPixel(interval.endNs), plot.right() + 1);
        fill(collectiveFilled, left, right, d->fillOf(interval.classification));
    }
    painter->restore();
}

void GapChartView::Private::Canvas::drawForeground(QPainter* painter, const QRectF& rect)
{
    Q_UNUSED(rect);
    if (!d->hasData())
        return;
    const QRectF plot = d->plotRect();
    const TimeAxis axis = d->pixelAxis();
    const ChartColors& colors = d->colors;
    if (d->result->usableRows.empty() && d->result->counterRows.empty()) {
        QColor hint = colors.text;
        hint.setAlpha(170);
        painter->setPen(hint);
        painter->drawText(plot, Qt::AlignCenter | Qt::TextWordWrap,
                          GapChartView::tr("No usable samples in this partition: the gap needs events of "
                                           "type \"sample\" with a device total above zero."));
    } else if (const QString text = d->noteText(); !text.isEmpty()) {
        // the counters are still worth seeing: say why the gap is missing, or why the one drawn
        // is no measurement, on a background of its own, so no line runs through the words
        const QRectF note = d->noteRect(QFontMetrics(font()));
        QColor fill = colors.background;
        fill.setAlpha(235);
        const bool warning = !d->gapObservable() || !d->snapshotNote().isEmpty();
        QColor frame = warning ? severityTint(Severity::Warning, palette()) : colors.text;
        frame.setAlpha(warning ? 200 : 60);
        painter->setPen(frame);
        painter->setBrush(fill);
        painter->drawRoundedRect(note, 3, 3);
        painter->setBrush(Qt::NoBrush);
        QColor hint = colors.text;
        hint.setAlpha(d->gapObservable() ? 170 : 230);
        painter->setPen(hint);
        painter->drawText(note, Qt::AlignCenter | Qt::TextWordWrap, text);
    }
    painter->save();
    painter->setClipRect(plot.adjusted(-1, -1, 1, 1));
    painter->setRenderHint(QPainter::Antialiasing, true);

    // window analysis: dim what lies outside the analysed window, mark its bounds
    if (d->result->request.window) {
        const TimeWindow& window = *d->result->request.window;
        QColor dim = colors.background;
        dim.setAlpha(150);
        const double left = std::clamp(axis.toPixel(window.beginNs), plot.left(), plot.right());
        const double right = std::clamp(axis.toPixel(window.endNs), plot.left(), plot.right());
        painter->fillRect(QRectF(plot.left(), plot.top(), left - plot.left(), plot.height()), dim);
        painter->fillRect(QRectF(right, plot.top(), plot.right() - right, plot.height()), dim);
        QPen bound(colors.text, 1, Qt::DashLine);
        painter->setPen(bound);
        for (int64_t t : {window.beginNs, window.endNs}) {
            if (t >= d->visibleBeginNs && t <= d->visibleEndNs)
                painter->drawLine(QPointF(axis.toPixel(t), plot.top()),
                                  QPointF(axis.toPixel(t), plot.bottom()));
        }
    }

    // phase labels in lanes at the top of the plot, elided to their span and to the next label
    const int lanes = d->phaseLaneCount();
    if (lanes > 0) {
        QColor labelBackground = colors.background;
        labelBackground.setAlpha(170);
        QColor edgeColor = colors.text;
        edgeColor.setAlpha(70);
        for (const Private::PhaseLabel& label : d->phaseLabels(QFontMetrics(font()))) {
            painter->fillRect(label.textBox.adjusted(-2, 0, 1, 0), labelBackground);
            painter->setPen(colors.text);
            painter->drawText(label.textBox, Qt::AlignLeft | Qt::AlignVCenter, label.text);
            if (label.startsInView) {
                painter->setPen(edgeColor);
                painter->drawLine(QPointF(label.edgeX, label.textBox.top()),
                                  QPointF(label.edgeX, label.textBox.bottom()));
            }
        }
    }

    // the highlighted finding's evidence: a line at its time, a ring on its sample
    if (d->highlighted >= 0 && size_t(d->highlighted) < d->result->findings.size()) {
        const Finding& finding = d->result->findings[size_t(d->highlighted)];
        const int64_t t = finding.evidenceTimestampNs;
        if (t >= d->visibleBeginNs && t <= d->visibleEndNs) {
            const QColor tint = severityTint(finding.severity, palette());
            const double x = axis.toPixel(t);
            QPen pen(tint, 1.5, Qt::DashLine);
            painter->setPen(pen);
            painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            std::optional<QPointF> ringCentre;
            const EventStore& s = d->store();
            const double evidenceY = finding.evidenceRow < s.size() &&
                                             s.used[finding.evidenceRow] != kNullInt &&
                                             s.reserved[finding.evidenceRow] != kNullInt
                                         ? d->yPlot(double(s.gapAt(finding.evidenceRow)))
                                         : kNaN;
            if (!std::isnan(evidenceY)) {
                const QPointF p =
                    chart()->mapToScene(chart()->mapToPosition(QPointF(d->xOf(t), evidenceY), d->gap));
                painter->setPen(QPen(tint, 2.5));
                painter->setBrush(Qt::NoBrush);
                painter->drawEllipse(p, 9, 9);
                ringCentre = p;
            }
            const QString label = findingBadgeText(finding.classification);
            const QFontMetrics metrics(font());
            const double width = metrics.horizontalAdvance(label) + 10;
            const double height = metrics.height() + 2;
            // beside the evidence sample, clear of its ring; else at the top of the plot
            QPointF anchor(x, plot.top() + lanes * d->phaseLaneHeight() + 4 + height / 2);
            if (ringCentre)
                anchor.setY(std::clamp(ringCentre->y(), plot.top() + height, plot.bottom() - height));
            QRectF box(anchor.x() + 14, anchor.y() - height / 2, width, height);
            if (box.right() > plot.right())
                box.moveRight(anchor.x() - 14);
            painter->setPen(Qt::NoPen);
            painter->setBrush(tint);
            painter->drawRoundedRect(box, 3, 3);
            painter->setPen(colors.dark ? QColor(Qt::black) : QColor(Qt::white));
            painter->drawText(box, Qt::AlignCenter, label);
        }
    }

    d->drawBookmarks(painter, plot, axis);
    d->drawEventMarkers(painter, plot, axis);
    d->drawTrackerWarnings(painter, plot, axis);
    d->drawSnapshotTicks(painter, plot, axis);
    d->drawMeasurement(painter, plot, axis);

    // hover line and the cursor
    if (d->hoverNs && *d->hoverNs >= d->visibleBeginNs && *d->hoverNs <= d->visibleEndNs &&
        d->drag == Drag::None) {
        QColor hover = colors.text;
        hover.setAlpha(90);
        painter->setPen(QPen(hover, 1, Qt::DotLine));
        const double x = axis.toPixel(*d->hoverNs);
        painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    if (d->cursorNs && *d->cursorNs >= d->visibleBeginNs && *d->cursorNs <= d->visibleEndNs) {
        const double x = axis.toPixel(*d->cursorNs);
        painter->setPen(QPen(colors.cursor, 1.5));
        painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        QPolygonF handle;
        handle << QPointF(x - 5, plot.top()) << QPointF(x + 5, plot.top()) << QPointF(x, plot.top() + 6);
        painter->setBrush(colors.cursor);
        painter->setPen(Qt::NoPen);
        painter->drawPolygon(handle);
    }

    // rubber band (zoom), selection (Shift) or measurement (Alt)
    if (d->drag == Drag::Zoom || d->drag == Drag::Select || d->drag == Drag::Measure) {
        const double a = std::clamp(mapToScene(d->pressPos.toPoint()).x(), plot.left(), plot.right());
        const double b = std::clamp(mapToScene(d->dragPos.toPoint()).x(), plot.left(), plot.right());
        const QRectF band(std::min(a, b), plot.top(), std::abs(b - a), plot.height());
        QColor fill = d->drag == Drag::Select    ? colors.regression
                      : d->drag == Drag::Measure ? colors.text
                                                 : colors.cursor;
        fill.setAlpha(45);
        painter->fillRect(band, fill);
        fill.setAlpha(200);
        painter->setPen(QPen(fill, 1));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(band);
        const QString span = formatTimeTick(std::abs(axis.toNs(b) - axis.toNs(a)),
                                            std::max<int64_t>(1, int64_t(axis.nsPerPixel())));
        painter->setPen(colors.text);
        painter->drawText(band.adjusted(4, 4, -4, -4), Qt::AlignHCenter | Qt::AlignBottom, span);
    }
    painter->restore();
}

void GapChartView::Private::drawMeasurement(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const
{
    if (!measuredSpan || measuredSpan->endNs < visibleBeginNs || measuredSpan->beginNs > visibleEndNs)
        return;
    const double left = std::clamp(axis.toPixel(measuredSpan->beginNs), plot.left(), plot.right());
    const double right = std::clamp(axis.toPixel(measuredSpan->endNs), plot.left(), plot.right());
    QColor fill = colors.text;
    fill.setAlpha(28);
    painter->fillRect(QRectF(left, plot.top(), right - left, plot.height()), fill);
    QColor edge = colors.text;
    edge.setAlpha(160);
    painter->setPen(QPen(edge, 1, Qt::DashLine));
    for (int64_t t : {measuredSpan->beginNs, measuredSpan->endNs})
        if (t >= visibleBeginNs && t <= visibleEndNs)
            painter->drawLine(QPointF(axis.toPixel(t), plot.top()), QPointF(axis.toPixel(t), plot.bottom()));

    // the label: one line per value, in a box at the top of the span (kept inside the plot)
    QString text = GapChartView::measurementText(*measuredSpan, measurement);
    text.replace(QStringLiteral(" · "), QStringLiteral("\n"));
    const QFontMetrics metrics(canvas->font());
    const QRectF textRect = metrics.boundingRect(QRect(0, 0, 1000, 1000), Qt::AlignLeft, text);
    QRectF box(0, 0, textRect.width() + 12, textRect.height() + 8);
    const double top = plot.top() + phaseLaneCount() * phaseLaneHeight() + 6;
    box.moveTopLeft(QPointF(std::clamp((left + right) / 2 - box.width() / 2, plot.left() + 2,
                                       std::max(plot.left() + 2, plot.right() - box.width() - 2)),
                            top));
    QColor background = colors.background;
    background.setAlpha(225);
    painter->setPen(QPen(edge, 1));
    painter->setBrush(background);
    painter->drawRoundedRect(box, 4, 4);
    painter->setPen(colors.text);
    painter->drawText(box.adjusted(6, 4, -6, -4), Qt::AlignLeft | Qt::AlignTop, text);
}

namespace {

// Error events marked at most: a trace that fails often is told by its first ones.
constexpr size_t kMaxErrorMarkers = 500;

} // namespace

void GapChartView::Private::collectEventMarkers()
{
    eventMarkers.clear();
    paintedMarkers.clear();
    if (!result)
        return;
    const TraceData& trace = *result->trace;
    for (const OomInfo& oom : trace.ooms) {
        if (!oom.timeNs)
            continue;
        GapChartView::EventMarker marker;
        marker.timeNs = *oom.timeNs;
        marker.oom = true;
        marker.label =
            GapChartView::tr("OOM: %1").arg(oom.reason.isEmpty() ? oom.exceptionName() : oom.reason);
        QStringList lines{GapChartView::tr("Out of memory: %1").arg(oom.reason)};
        if (!oom.exceptionName().isEmpty())
            lines << oom.exceptionName();
        if (!oom.exceptionMessage.isEmpty())
            lines << oom.exceptionMessage;
        if (!oom.timeFromEvent)
            lines << GapChartView::tr("(time: the bundle's creation, to the second)");
        marker.toolTip = lines.join(QLatin1Char('\n'));
        eventMarkers.push_back(std::move(marker));
    }
    if (snapshotDrawn()) {
        for (const uint32_t entry : snapshot->oomEntries()) {
            GapChartView::EventMarker marker;
            marker.timeNs = snapshot->entryNs(entry);
            marker.oom = true;
            marker.label = snapshot->oomLabel(entry);
            marker.toolTip = snapshot->oomToolTip(entry);
            eventMarkers.push_back(std::move(marker));
        }
    }
    const EventStore& events = trace.store;
    size_t errors = 0;
    for (uint32_t row = result->partition.begin; row < result->partition.end && errors < kMaxErrorMarkers;
         ++row) {
        if (events.type[row] != EventType::Error)
            continue;
        const int64_t at = events.timestampNs[row];
        // the OOM's own error event is told by its OOM marker
        const bool told = std::any_of(eventMarkers.begin(), eventMarkers.end(), [&](const auto& m) {
            return m.oom && std::llabs(m.timeNs - at) < kMillisecondNs;
        });
        if (told)
            continue;
        GapChartView::EventMarker marker;
        marker.timeNs = at;
        const QString context = qs(events.str(events.context[row]));
        marker.toolTip = context.isEmpty() ? GapChartView::tr("Error event")
                                           : GapChartView::tr("Error event: %1").arg(context);
        eventMarkers.push_back(std::move(marker));
        ++errors;
    }
    std::stable_sort(eventMarkers.begin(), eventMarkers.end(),
                     [](const auto& a, const auto& b) { return a.timeNs < b.timeNs; });
}

void GapChartView::Private::drawEventMarkers(QPainter* painter, const QRectF& plot,
                                             const TimeAxis& axis) const
{
    paintedMarkers.clear();
    const QColor red = oomColor(colors);
    QFont bold = canvas->font();
    bold.setBold(true);
    const QFontMetrics metrics(bold);
    const double top = plot.top() + phaseLaneCount() * phaseLaneHeight() + 4;
    for (const GapChartView::EventMarker& marker : eventMarkers) {
        if (marker.timeNs < visibleBeginNs || marker.timeNs > visibleEndNs)
            continue;
        const double x = axis.toPixel(marker.timeNs);
        GapChartView::EventMarker painted = marker;
        if (!marker.oom) {
            // a tick hanging from the top of the plot
            QPolygonF tick;
            tick << QPointF(x - 5, plot.top()) << QPointF(x + 5, plot.top()) << QPointF(x, plot.top() + 9);
            painter->setPen(Qt::NoPen);
            painter->setBrush(red);
            painter->drawPolygon(tick);
            painted.rect = tick.boundingRect();
            paintedMarkers.push_back(painted);
            continue;
        }
        painter->setPen(QPen(red, 2));
        painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        const QString text =
            metrics.elidedText(marker.label, Qt::ElideRight, int(std::max(80.0, plot.width() / 2)));
        const double width = metrics.horizontalAdvance(text) + 12;
        const double height = metrics.height() + 4;
        // beside its line, to the left where the plot ends first (an OOM ends its trace)
        const bool left = x + 4 + width > plot.right() && x - 4 - width >= plot.left();
        const QRectF box(left ? x - 4 - width : x + 4, top, width, height);
        painter->setPen(Qt::NoPen);
        painter->setBrush(red);
        painter->drawRoundedRect(box, 3, 3);
        painter->setPen(colors.dark ? QColor(Qt::black) : QColor(Qt::white));
        painter->setFont(bold);
        painter->drawText(box, Qt::AlignCenter, text);
        painter->setFont(canvas->font());
        painted.rect = box;
        paintedMarkers.push_back(painted);
    }
}

QString GapChartView::Private::eventMarkerToolTip(int64_t mouseNs) const
{
    const TimeAxis axis = pixelAxis();
    const double x = axis.toPixel(mouseNs);
    QString html;
    for (const GapChartView::EventMarker& marker : eventMarkers) {
        if (std::abs(axis.toPixel(marker.timeNs) - x) > 6)
            continue;
        html += QStringLiteral("<p style=\"color:%1\"><b>%2</b></p>")
                    .arg(oomColor(colors).name(),
                         htmlEscape(marker.toolTip).replace(QLatin1Char('\n'), QStringLiteral("<br/>")));
    }
    return html;
}

namespace {

// The lane's height and how many context texts a cluster's tooltip quotes.
constexpr double kWarningLaneHeight = 9;
constexpr int kWarningToolTipLines = 4;

bool isCriticalWarning(const TrackerWarning& w)
{
    return w.type != EventType::Warning;
}

} // namespace

void GapChartView::Private::drawSnapshotTicks(QPainter* painter, const QRectF& plot,
                                              const TimeAxis& axis) const
{
    if (!snapshotDrawn() || !snapshotReserved->isVisible())
        return;
    const bool lane = !result->trackerWarnings.empty() &&
                      overlayVisible[size_t(overlayIndex(ChartOverlay::TrackerWarnings))];
    snapshot->drawSegmentTicks(painter, plot, axis, plot.bottom() - (lane ? kWarningLaneHeight + 2 : 1),
                               colors.reserved);
}

void GapChartView::Private::drawTrackerWarnings(QPainter* painter, const QRectF& plot,
                                                const TimeAxis& axis) const
{
    paintedWarnings.clear();
    if (!result || result->trackerWarnings.empty() ||
        !overlayVisible[size_t(overlayIndex(ChartOverlay::TrackerWarnings))])
        return;
    // errors are told by the red ticks at the top (collectEventMarkers); this lane holds the
    // tracker's warnings and critical events, clustered so that hundreds stay apart from the line
    const QColor amber = severityTint(Severity::Warning, q->palette());
    const QColor red = oomColor(colors);
    QColor laneFill = colors.text;
    laneFill.setAlpha(18);
    const QRectF lane(plot.left(), plot.bottom() - kWarningLaneHeight, plot.width(), kWarningLaneHeight);
    bool any = false;
    GapChartView::TrackerWarningMark mark;
    double markLeft = 0;
    auto flush = [&] {
        if (mark.count == 0)
            return;
        const double right = axis.toPixel(mark.lastNs);
        const QRectF rect(markLeft - 2, lane.top(), std::max(4.0, right - markLeft + 4), lane.height());
        painter->setPen(Qt::NoPen);
        QColor fill = mark.critical ? red : amber;
        // a cluster of many is drawn solid, a lone warning lighter: density reads at a glance
        fill.setAlpha(mark.count > 1 ? 235 : 170);
        painter->setBrush(fill);
        painter->drawRect(rect);
        mark.rect = rect;
        paintedWarnings.push_back(mark);
        mark = {};
    };
    for (const TrackerWarning& w : result->trackerWarnings) {
        if (w.type == EventType::Error || w.timeNs < visibleBeginNs || w.timeNs > visibleEndNs)
            continue;
        if (!any) {
            painter->fillRect(lane, laneFill);
            any = true;
        }
        const double x = axis.toPixel(w.timeNs);
        if (mark.count > 0 && x - axis.toPixel(mark.lastNs) > GapChartView::kTrackerWarningClusterPx)
            flush();
        if (mark.count == 0) {
            mark.firstNs = w.timeNs;
            markLeft = x;
        }
        mark.lastNs = w.timeNs;
        ++mark.count;
        mark.critical = mark.critical || isCriticalWarning(w);
    }
    flush();
}

QString GapChartView::Private::trackerWarningToolTip(int64_t mouseNs) const
{
    if (!result || !overlayVisible[size_t(overlayIndex(ChartOverlay::TrackerWarnings))])
        return {};
    const TimeAxis axis = pixelAxis();
    const double x = axis.toPixel(mouseNs);
    // the painted cluster under the mouse, else the events within a few pixels of it
    int64_t from = axis.toNs(x - 3);
    int64_t to = axis.toNs(x + 3);
    for (const GapChartView::TrackerWarningMark& mark : paintedWarnings) {
        if (x >= mark.rect.left() && x <= mark.rect.right()) {
            from = std::min<int64_t>(from, mark.firstNs);
            to = std::max<int64_t>(to, mark.lastNs);
        }
    }
    int count = 0;
    QStringList lines;
    std::optional<double> lowest;
    std::optional<double> highest;
    for (const TrackerWarning& w : result->trackerWarnings) {
        if (w.type == EventType::Error || w.timeNs < from || w.timeNs > to)
            continue;
        ++count;
        if (w.fragmentation) {
            lowest = std::min(lowest.value_or(*w.fragmentation), *w.fragmentation);
            highest = std::max(highest.value_or(*w.fragmentation), *w.fragmentation);
        }
        if (lines.size() < kWarningToolTipLines) {
            QString line = htmlEscape(qs(toString(w.type))) + QStringLiteral(": ") +
                           htmlEscape(w.context.isEmpty() ? GapChartView::tr("(no context)") : w.context);
            if (w.fragmentation)
                line += GapChartView::tr(" (fragmentation %1)").arg(percentText(*w.fragmentation));
            lines << line;
        }
    }
    if (count == 0)
        return {};
    QString html = QStringLiteral("<p><b>%1</b>")
                       .arg(count == 1 ? GapChartView::tr("Tracker warning")
                                       : GapChartView::tr("%1 tracker warnings").arg(count));
    if (count > 1 && lowest && highest)
        html +=
            GapChartView::tr(" · fragmentation %1 to %2").arg(percentText(*lowest), percentText(*highest));
    html += QStringLiteral("<br/>") + lines.join(QStringLiteral("<br/>"));
    if (count > lines.size())
        html += QStringLiteral("<br/>") + GapChartView::tr("… and %1 more").arg(count - lines.size());
    return html + QStringLiteral("</p>");
}

QList<GapChartView::TrackerWarningMark> GapChartView::trackerWarningMarks() const
{
    return d->paintedWarnings;
}

QString GapChartView::trackerWarningToolTip(qint64 ns) const
{
    return d->trackerWarningToolTip(ns);
}

QList<GapChartView::EventMarker> GapChartView::eventMarkers() const
{
    return d->paintedMarkers;
}

void GapChartView::Private::drawBookmarks(QPainter* painter, const QRectF& plot, const TimeAxis& axis) const
{
    const QColor flag = bookmarkColor(colors);
    const QFontMetrics metrics(canvas->font());
    for (const Bookmark& bookmark : bookmarks) {
        if (bookmark.timeNs < visibleBeginNs || bookmark.timeNs > visibleEndNs)
            continue;
        const double x = axis.toPixel(bookmark.timeNs);
        // a pole over the whole plot, faint, and a pennant with the name on the time axis
        QColor pole = flag;
        pole.setAlpha(110);
        painter->setPen(QPen(pole, 1, Qt::DashDotLine));
        painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        const double height = metrics.height() + 2;
        const QString name = metrics.elidedText(bookmark.name, Qt::ElideRight, 160);
        const double width = metrics.horizontalAdvance(name) + 10;
        // it flies to the right of its pole, to the left where the plot ends first
        const bool left = x + width > plot.right() && x - width >= plot.left();
        const QRectF pennant(left ? x - width : x, plot.bottom() - height - 2, width, height);
        painter->setPen(QPen(flag, 1.5));
        painter->drawLine(QPointF(x, plot.bottom()), QPointF(x, pennant.top()));
        painter->setPen(Qt::NoPen);
        painter->setBrush(flag);
        const double notchX = left ? pennant.left() + 5 : pennant.right() - 5;
        QPolygonF shape;
        shape << pennant.topLeft() << pennant.topRight();
        if (!left)
            shape << QPointF(notchX, pennant.center().y());
        shape << pennant.bottomRight() << pennant.bottomLeft();
        if (left)
            shape << QPointF(notchX, pennant.center().y());
        painter->drawPolygon(shape);
        painter->setPen(colors.dark ? QColor(Qt::black) : QColor(Qt::white));
        painter->drawText(pennant.adjusted(left ? 8 : 3, 0, left ? -3 : -8, 0),
                          Qt::AlignLeft | Qt::AlignVCenter, name);
    }
}

void GapChartView::Private::Canvas::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    if (!d->hasData()) {
        event->ignore();
        return;
    }
    d->pressPos = event->position();
    d->dragPos = event->position();
    d->pressAxis = d->pixelAxis();
    const Qt::KeyboardModifiers mods = event->modifiers();
    const bool measure = event->button() == Qt::LeftButton &&
                         (mods.testFlag(Qt::AltModifier) ||
                          (mods.testFlag(Qt::ControlModifier) && mods.testFlag(Qt::ShiftModifier)));
    if (measure) {
        d->drag = Drag::Pending;
        d->pendingDrag = Drag::Measure;
    } else if (event->button() == Qt::MiddleButton ||
               (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier))) {
        d->drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
    } else if (event->button() == Qt::LeftButton) {
        d->drag = Drag::Pending;
        d->pendingDrag = (event->modifiers() & Qt::ShiftModifier) ? Drag::Select : Drag::Zoom;
    } else {
        QChartView::mousePressEvent(event);
        return;
    }
    QToolTip::hideText();
    event->accept();
}

void GapChartView::Private::Canvas::mouseMoveEvent(QMouseEvent* event)
{
    d->dragPos = event->position();
    switch (d->drag) {
    case Drag::None:
        d->showHover(event->position().toPoint(), event->globalPosition().toPoint(), false);
        return;
    case Drag::Pending:
        if (std::abs(event->position().x() - d->pressPos.x()) < kDragThresholdPx)
            return;
        d->drag = d->pendingDrag;
        break;
    case Drag::Pan: {
        const TimeAxis panned =
            RangeNavigation::afterDrag(d->pressAxis, d->pressPos.x(), event->position().x());
        d->setRange(panned.beginNs, panned.endNs);
        break;
    }
    case Drag::Zoom:
    case Drag::Select:
    case Drag::Measure:
        break;
    }
    viewport()->update();
    event->accept();
}

void GapChartView::Private::Canvas::mouseReleaseEvent(QMouseEvent* event)
{
    const Drag drag = d->drag;
    d->drag = Drag::None;
    unsetCursor();
    if (!d->hasData() || drag == Drag::None) {
        QChartView::mouseReleaseEvent(event);
        return;
    }
    const QRectF plot = d->plotRect();
    auto timeAt = [&](QPointF viewPos) {
        return d->pressAxis.toNsClamped(mapToScene(viewPos.toPoint()).x());
    };
    if (drag == Drag::Pending) {
        // a click: put the cursor there
        if (plot.contains(mapToScene(event->position().toPoint()))) {
            const int64_t ns = timeAt(event->position());
            d->cursorBeforeClick = d->cursorNs;
            d->sinceClick.start();
            d->cursorNs = ns;
            emit d->q->cursorRequested(ns);
        }
    } else if (drag == Drag::Zoom || drag == Drag::Select || drag == Drag::Measure) {
        int64_t a = timeAt(d->pressPos);
        int64_t b = timeAt(event->position());
        if (b < a)
            std::swap(a, b);
        if (b > a) {
            if (drag == Drag::Zoom)
                d->setRange(a, b);
            else if (drag == Drag::Select)
                emit d->q->rangeSelected(a, b);
            else
                d->q->measureRange(a, b);
        }
    }
    viewport()->update();
    event->accept();
}

// Wheel, double-click and the zoom, pan and Home keys are the RangeNavigator's; Escape cancels
// a drag, else clears the measurement.
void GapChartView::Private::Canvas::keyPressEvent(QKeyEvent* event)
{
    if (!d->hasData() || event->key() != Qt::Key_Escape) {
        QChartView::keyPressEvent(event);
        return;
    }
    if (d->drag == Drag::None && d->measuredSpan)
        d->q->clearMeasurement();
    d->drag = Drag::None;
    viewport()->update();
    event->accept();
}

bool GapChartView::Private::Canvas::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        d->showHover(help->pos(), help->globalPos(), true);
        return true;
    }
    return QChartView::viewportEvent(event);
}

// The y axis choice where the user looks at it; the application remembers it (yRangeModeChanged).
void GapChartView::Private::Canvas::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    auto* group = new QActionGroup(&menu);
    auto add = [&](const QString& text, ByteRangeMode mode) {
        QAction* action = menu.addAction(text);
        action->setCheckable(true);
        action->setChecked(d->yRangeMode == mode);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, mode] {
            d->q->setYRangeMode(mode);
            emit d->q->yRangeModeChanged(mode);
        });
    };
    add(GapChartView::tr("Y Axis: Fit Data"), ByteRangeMode::FitData);
    add(GapChartView::tr("Y Axis: From Zero"), ByteRangeMode::FromZero);
    menu.addSeparator();
    QAction* log = menu.addAction(GapChartView::tr("Y Axis: Logarithmic"));
    log->setCheckable(true);
    log->setChecked(d->logScale);
    connect(log, &QAction::toggled, this, [this](bool on) {
        d->q->setLogScale(on);
        emit d->q->logScaleChanged(on);
    });
    menu.addSeparator();
    QAction* stepAxis = menu.addAction(GapChartView::tr("X Axis: Training Steps"));
    stepAxis->setCheckable(true);
    stepAxis->setChecked(d->stepAxis);
    stepAxis->setEnabled(d->steps && !d->steps->empty()); // phases without a `step`: time only
    connect(stepAxis, &QAction::toggled, this, [this](bool on) {
        d->q->setStepAxis(on);
        emit d->q->stepAxisChanged(on);
    });
    menu.exec(event->globalPos());
    event->accept();
}

void GapChartView::Private::Canvas::leaveEvent(QEvent* event)
{
    d->hideHover();
    QChartView::leaveEvent(event);
}

GapChartView::GapChartView(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->canvas);
    setFocusProxy(d->canvas);
    setMinimumSize(320, 200);
    d->applyColors();
    d->redraw();
}

GapChartView::~GapChartView() = default;

void GapChartView::setAnalysis(std::shared_ptr<const AnalysisResult> result,
                               std::shared_ptr<const StepIndex> steps)
{
    // a measurement outlives a re-analysis of its trace (thresholds, a window, Follow), not
    // another trace
    const bool sameTrace = d->result && result && d->result->trace == result->trace;
    d->result = std::move(result);
    d->steps = d->result ? std::move(steps) : nullptr;
    if (d->measuredSpan) {
        if (sameTrace) {
            d->measurement = measureGapRange(d->result->gapInput(), d->measuredSpan->beginNs,
                                             d->measuredSpan->endNs, d->steps.get());
        } else {
            d->measuredSpan.reset();
            d->measurement.reset();
        }
        emit measurementChanged();
    }
    d->range = d->result ? timeRangeOf(*d->result) : AnalysisTimeRange{};
    d->highlighted = -1;
    d->hoverNs.reset();
    d->drag = Private::Drag::None;
    if (d->cursorNs && (!d->range.valid || *d->cursorNs < d->range.beginNs || *d->cursorNs > d->range.endNs))
        d->cursorNs.reset();
    d->phaseBaseDepth = d->result ? shallowestPhaseDepth(d->result->phases) : 0;
    d->updateSnapshot();
    d->collectEventMarkers();
    d->rebuildStaticSeries();
    d->applyColors(); // the gap's pen and name follow whether it can be observed
    d->updateEmphasis();
    const TimeAxis full = TimeAxis{d->range.beginNs, d->range.endNs, 0, 0}.clampedTo(
        d->range.beginNs, d->range.endNs, kMinVisibleSpanNs);
    d->visibleBeginNs = full.beginNs;
    d->visibleEndNs = full.endNs;
    d->redraw();
    emit visibleRangeChanged(d->visibleBeginNs, d->visibleEndNs);
}

std::shared_ptr<const AnalysisResult> GapChartView::analysis() const
{
    return d->result;
}

std::shared_ptr<const StepIndex> GapChartView::steps() const
{
    return d->steps;
}

bool GapChartView::hasSteps() const
{
    return d->steps && !d->steps->empty();
}

bool GapChartView::isStepAxis() const
{
    return d->stepAxis;
}

bool GapChartView::showsStepAxis() const
{
    return d->showsStepAxis();
}

void GapChartView::setStepAxis(bool on)
{
    if (d->stepAxis == on)
        return;
    d->stepAxis = on;
    d->redraw();
}

QStringList GapChartView::xAxisLabels() const
{
    return d->xLabels;
}

void GapChartView::setSnapshot(std::shared_ptr<const SnapshotData> snapshot)
{
    if (d->snapshotData == snapshot)
        return;
    d->snapshotData = std::move(snapshot);
    d->snapshot.reset();
    d->updateSnapshot();
    d->collectEventMarkers();
    d->redraw();
}

std::shared_ptr<const SnapshotData> GapChartView::snapshot() const
{
    return d->snapshotData;
}

const SnapshotOverlay* GapChartView::snapshotOverlay() const
{
    return d->snapshot.get();
}

QString GapChartView::snapshotNote() const
{
    return d->snapshotNote();
}

void GapChartView::setComparisonLine(const QString& name, std::vector<int64_t> timesNs,
                                     std::vector<double> values)
{
    values.resize(timesNs.size());
    d->comparisonTimes = std::move(timesNs);
    d->comparisonValues = std::move(values);
    d->comparisonRows.resize(d->comparisonTimes.size());
    for (size_t i = 0; i < d->comparisonRows.size(); ++i)
        d->comparisonRows[i] = uint32_t(i);
    d->comparison->setName(name);
    d->redraw();
}

void GapChartView::setOverlayVisible(ChartOverlay overlay, bool visible)
{
    bool& flag = d->overlayVisible[size_t(overlayIndex(overlay))];
    if (flag == visible)
        return;
    flag = visible;
    d->redraw();
}

bool GapChartView::isOverlayVisible(ChartOverlay overlay) const
{
    return d->overlayVisible[size_t(overlayIndex(overlay))];
}

qint64 GapChartView::cursorTime() const
{
    return d->cursorNs.value_or(d->range.valid ? d->range.beginNs : 0);
}

qint64 GapChartView::visibleBeginNs() const
{
    return d->visibleBeginNs;
}

qint64 GapChartView::visibleEndNs() const
{
    return d->visibleEndNs;
}

int GapChartView::highlightedFinding() const
{
    return d->highlighted;
}

int GapChartView::drawnGapPointCount() const
{
    return d->drawnGapPoints;
}

QList<QPointF> GapChartView::drawnPoints(ChartLine line) const
{
    return d->drawnLines[size_t(line)];
}

void GapChartView::setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals)
{
    d->collective = std::move(intervals);
    d->updateLegendVisibility();
    d->canvas->viewport()->update();
}

const std::vector<JobCollectiveInterval>& GapChartView::collectiveIntervals() const
{
    return d->collective;
}

QColor GapChartView::collectiveFill(CollectiveClass classification) const
{
    return d->fillOf(classification);
}

QString GapChartView::collectiveToolTip(qint64 ns) const
{
    QString html;
    const int64_t origin = d->range.valid ? d->range.originNs : 0;
    for (const JobCollectiveInterval& interval : d->collective) {
        if (ns < interval.startNs || ns > interval.endNs)
            continue;
        const auto evidence = [&](const char* name) -> std::optional<double> {
            for (const JobEvidenceValue& value : interval.evidence)
                if (value.name == QLatin1String(name))
                    return value.value;
            return std::nullopt;
        };
        html += QStringLiteral("<br/><b>%1</b> %2")
                    .arg(htmlEscape(tr("Collective interval, %1 (confidence %2)")
                                        .arg(collectiveClassName(interval.classification))
                                        .arg(interval.confidence, 0, 'f', 3)),
                         htmlEscape(tr("of rank %1, %2 to %3")
                                        .arg(interval.rank)
                                        .arg(formatTimeTick(interval.startNs - origin, 1),
                                             formatTimeTick(interval.endNs - origin, 1))));
        QStringList facts;
        if (const auto peak = evidence("peak_gap_bytes"))
            facts << tr("peak gap %1").arg(bytesText(*peak));
        if (const auto ranks = evidence("synchronized_ranks"), world = evidence("expected_world_size");
            ranks && world)
            facts << tr("%1 of %2 ranks spiking together").arg(qint64(*ranks)).arg(qint64(*world));
        if (const auto markers = evidence("marker_hits"))
            facts << tr("%1 collective marker(s) near").arg(qint64(*markers));
        if (!facts.isEmpty())
            html += QStringLiteral("<br/>") + htmlEscape(facts.join(QStringLiteral(", ")));
        if (!interval.reasonCodes.isEmpty())
            html += QStringLiteral("<br/><span style='font-size:small'>%1</span>")
                        .arg(htmlEscape(interval.reasonCodes.join(QStringLiteral(", "))));
    }
    return html;
}

void GapChartView::setCursorTime(qint64 ns)
{
    if (d->cursorNs == ns)
        return;
    d->cursorNs = ns;
    d->canvas->viewport()->update();
}

void GapChartView::setVisibleRange(qint64 beginNs, qint64 endNs)
{
    d->setRange(beginNs, endNs);
}

void GapChartView::resetZoom()
{
    d->setRange(d->range.beginNs, d->range.endNs);
}

void GapChartView::highlightFinding(int findingIndex)
{
    if (!d->result || findingIndex < 0 || size_t(findingIndex) >= d->result->findings.size())
        findingIndex = -1;
    if (d->highlighted == findingIndex)
        return;
    d->highlighted = findingIndex;
    d->updateEmphasis();
}

void GapChartView::measureRange(qint64 beginNs, qint64 endNs)
{
    if (!d->result)
        return;
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    d->measuredSpan = TimeWindow{beginNs, endNs};
    d->measurement = measureGapRange(d->result->gapInput(), beginNs, endNs, d->steps.get());
    d->canvas->viewport()->update();
    emit measurementChanged();
}

void GapChartView::clearMeasurement()
{
    if (!d->measuredSpan)
        return;
    d->measuredSpan.reset();
    d->measurement.reset();
    d->canvas->viewport()->update();
    emit measurementChanged();
}

std::optional<TimeWindow> GapChartView::measuredSpan() const
{
    return d->measuredSpan;
}

std::optional<RangeMeasurement> GapChartView::measurement() const
{
    return d->measurement;
}

QString GapChartView::measurementText(const TimeWindow& span, const std::optional<RangeMeasurement>& m)
{
    const int64_t duration = saturatingSub(span.endNs, span.beginNs);
    const QString dt = tr("Δt %1").arg(formatTimeTick(duration, niceTimeStepNs(duration, 100)));
    if (!m)
        return tr("%1 · no usable sample in this span").arg(dt);
    QStringList parts{dt};
    if (m->steps) // "steps 250-550, 301 steps"; one step is named alone
        parts << (m->steps->count == 1 ? qs(m->steps->label)
                                       : tr("%1, %2 steps").arg(qs(m->steps->label)).arg(m->steps->count));
    parts << QStringList{
        englishPlural(tr("%n sample(s)", nullptr, int(m->sampleCount)), qint64(m->sampleCount)),
        tr("Δgap %1").arg(signedBytesText(double(m->deltaGapBytes))),
        tr("min %1").arg(bytesText(m->minGapBytes)), tr("max %1").arg(bytesText(m->maxGapBytes))};
    if (m->slopeBytesPerSecond) {
        const double slope = *m->slopeBytesPerSecond;
        parts << tr("slope %1 (least squares)")
                     .arg((slope > 0 ? QStringLiteral("+") : QString()) + bytesPerSecondText(slope));
    }
    if (m->steps && m->steps->gapBytesPerStep)
        parts << tr("%1 per step").arg(signedBytesText(*m->steps->gapBytesPerStep));
    return parts.join(QStringLiteral(" · "));
}

void GapChartView::setBookmarks(std::vector<Bookmark> bookmarks)
{
    d->bookmarks = std::move(bookmarks);
    d->canvas->viewport()->update();
}

ByteRangeMode GapChartView::yRangeMode() const
{
    return d->yRangeMode;
}

void GapChartView::setYRangeMode(ByteRangeMode mode)
{
    if (d->yRangeMode == mode)
        return;
    d->yRangeMode = mode;
    d->redraw();
}

QStringList GapChartView::yAxisLabels() const
{
    return d->yLabels;
}

bool GapChartView::isLogScale() const
{
    return d->logScale;
}

void GapChartView::setLogScale(bool on)
{
    if (d->logScale == on)
        return;
    d->logScale = on;
    d->updateEmphasis(); // its marks are placed in the axis' scale
    d->redraw();
}

QString GapChartView::visibleSpanText() const
{
    return d->spanReadout();
}

QList<QRectF> GapChartView::phaseLabelRects() const
{
    QList<QRectF> rects;
    for (const Private::PhaseLabel& label : d->phaseLabels(QFontMetrics(d->canvas->font())))
        rects << d->canvas->mapFromScene(label.textBox).boundingRect();
    return rects;
}

QString GapChartView::noteText() const
{
    return d->noteText();
}

QRectF GapChartView::noteRect() const
{
    const QRectF note = d->noteRect(QFontMetrics(d->canvas->font()));
    return note.isEmpty() ? QRectF() : QRectF(d->canvas->mapFromScene(note).boundingRect());
}

void GapChartView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange ||
        event->type() == QEvent::StyleChange) {
        d->applyColors();
        d->redraw();
    }
}

} // namespace gapscope
