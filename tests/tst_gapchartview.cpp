// GapChartView on a synthetic 100k-sample run: decimation budget, zoom, cursor, findings,
// overlays, rendering and mouse/keyboard interaction (offscreen).
#include "tests/SyntheticAnalysis.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/GapChartView.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace gapscope;
using namespace gapscope::testing;

namespace {

QXYSeries* seriesNamed(QChart* chart, const QString& prefix)
{
    for (QAbstractSeries* series : chart->series()) {
        if (series->name().startsWith(prefix))
            return qobject_cast<QXYSeries*>(series);
    }
    return nullptr;
}

QAbstractSeries* anySeriesNamed(QChart* chart, const QString& prefix)
{
    for (QAbstractSeries* series : chart->series()) {
        if (series->name().startsWith(prefix))
            return series;
    }
    return nullptr;
}

constexpr ChartLine kAllLines[] = {ChartLine::Gap,      ChartLine::OutsideWindow, ChartLine::Allocated,
                                   ChartLine::Reserved, ChartLine::DeviceUsed,    ChartLine::DeviceTotal};

} // namespace

class TestGapChartView : public QObject
{
    Q_OBJECT

    std::unique_ptr<GapChartView> m_view;
    std::shared_ptr<AnalysisResult> m_result;
    QChartView* m_chartView = nullptr;

    QChart* chart() const { return m_chartView->chart(); }
    int pointBudget() const { return 2 * int(chart()->plotArea().width()) + 2; }
    int64_t dataBegin() const { return m_result->trace->store.timestampNs.front(); }
    int64_t dataEnd() const { return m_result->trace->store.timestampNs.back(); }
    QPoint viewPointAt(int64_t ns) const
    {
        const QRectF plot = chart()->plotArea();
        const double f =
            double(ns - m_view->visibleBeginNs()) / double(m_view->visibleEndNs() - m_view->visibleBeginNs());
        const QPointF scene = chart()->mapToScene(QPointF(plot.left() + f * plot.width(), plot.center().y()));
        return m_chartView->mapFromScene(scene);
    }

private slots:
    void init()
    {
        m_result = makeSyntheticAnalysis();
        m_view = std::make_unique<GapChartView>();
        m_view->resize(1200, 500);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_chartView = m_view->findChild<QChartView*>();
        QVERIFY(m_chartView);
        m_view->setAnalysis(m_result);
        QCoreApplication::processEvents();
    }
    void cleanup()
    {
        m_view.reset();
        m_result.reset();
    }

    void decimatesToPlotWidth()
    {
        QCOMPARE(m_view->analysis(), std::shared_ptr<const AnalysisResult>(m_result));
        QCOMPARE(m_view->visibleBeginNs(), dataBegin());
        QCOMPARE(m_view->visibleEndNs(), dataEnd());
        QVERIFY(chart()->plotArea().width() > 600);
        const int drawn = m_view->drawnGapPointCount();
        QVERIFY2(drawn > int(chart()->plotArea().width()), qPrintable(QString::number(drawn)));
        QVERIFY2(drawn <= pointBudget(), qPrintable(QStringLiteral("%1 > %2").arg(drawn).arg(pointBudget())));
        QVERIFY(seriesNamed(chart(), QStringLiteral("Gap")));
        const QList<QPointF> gap = m_view->drawnPoints(ChartLine::Gap);
        QCOMPARE(gap.size(), drawn);
        // no series or line ever holds more than the budget
        for (QAbstractSeries* series : chart()->series()) {
            if (auto* xy = qobject_cast<QXYSeries*>(series))
                QVERIFY2(xy->count() <= pointBudget(), qPrintable(series->name()));
        }
        for (ChartLine line : kAllLines)
            QVERIFY(m_view->drawnPoints(line).size() <= pointBudget());
        // the extremes survive decimation: the largest spike is among the drawn points
        const EventStore& s = m_result->trace->store;
        const uint32_t maxRow = m_result->usableRows[*m_result->statistics.maxGapIndex];
        double drawnMax = -1e300;
        for (const QPointF& p : gap)
            drawnMax = std::max(drawnMax, p.y());
        QCOMPARE(drawnMax, double(s.used[maxRow] - s.reserved[maxRow]));
    }

    // What the chart hands to the painter for a visible range: per pixel column of the plot at
    // most two points (plus the first and last of the run), and among them the smallest and the
    // largest gap of every column, so the line has the envelope of the full data.
    void drawnPointsPerPixelColumn_data()
    {
        QTest::addColumn<qint64>("beginOffsetNs");
        QTest::addColumn<qint64>("endOffsetNs"); // 0: to the end of the data
        QTest::newRow("whole run") << qint64(0) << qint64(0);
        QTest::newRow("a third, from the start") << qint64(0) << qint64(333'000'000'000);
        QTest::newRow("a third, in the middle") << qint64(333'000'000'000) << qint64(666'000'000'000);
        QTest::newRow("30 s: ~3 samples per column") << qint64(100'000'000'000) << qint64(130'000'000'000);
        QTest::newRow("5 s: fewer samples than columns")
            << qint64(500'005'000'000) << qint64(505'005'000'000);
        QTest::newRow("to the end") << qint64(700'000'000'000) << qint64(0);
    }
    void drawnPointsPerPixelColumn()
    {
        QFETCH(qint64, beginOffsetNs);
        QFETCH(qint64, endOffsetNs);
        m_view->setVisibleRange(dataBegin() + beginOffsetNs,
                                endOffsetNs ? dataBegin() + endOffsetNs : dataEnd());
        QCoreApplication::processEvents();
        const int64_t begin = m_view->visibleBeginNs();
        const int64_t end = m_view->visibleEndNs();
        const int columns = int(std::floor(chart()->plotArea().width()));
        QVERIFY(columns > 600);
        // the column of a time, as the decimation computes it
        const double columnsPerNs = double(columns) / double(std::max<int64_t>(end - begin, 1));
        auto columnOf = [&](int64_t t) {
            return std::clamp<int64_t>(int64_t(std::floor(double(t - begin) * columnsPerNs)), 0, columns - 1);
        };
        const EventStore& s = m_result->trace->store;
        const std::vector<uint32_t>& rows = m_result->usableRows;
        std::map<int64_t, std::pair<double, double>> dataExtent; // column -> min, max
        size_t firstInside = rows.size();
        size_t lastInside = 0;
        for (size_t pos = 0; pos < rows.size(); ++pos) {
            const int64_t t = s.timestampNs[rows[pos]];
            if (t < begin || t > end)
                continue;
            firstInside = std::min(firstInside, pos);
            lastInside = pos;
            const double v = double(s.used[rows[pos]] - s.reserved[rows[pos]]);
            auto [it, added] = dataExtent.try_emplace(columnOf(t), v, v);
            it->second.first = std::min(it->second.first, v);
            it->second.second = std::max(it->second.second, v);
        }
        QVERIFY(firstInside <= lastInside);

        const QList<QPointF> drawn = m_view->drawnPoints(ChartLine::Gap);
        QVERIFY(drawn.size() >= 2);
        QVERIFY(drawn.size() <= 2 * columns + 2);
        auto timeOf = [&](const QPointF& p) { return dataBegin() + std::llround(p.x() * 1e9); };
        // the line reaches both plot edges: the first and last drawn points are the samples just
        // outside the range (or the first and last of the data)
        const size_t firstPos = firstInside > 0 ? firstInside - 1 : 0;
        const size_t lastPos = std::min(lastInside + 1, rows.size() - 1);
        QCOMPARE(timeOf(drawn.front()), s.timestampNs[rows[firstPos]]);
        QCOMPARE(timeOf(drawn.back()), s.timestampNs[rows[lastPos]]);
        for (qsizetype i = 1; i < drawn.size(); ++i)
            QVERIFY(drawn[i].x() >= drawn[i - 1].x()); // in time order

        std::map<int64_t, int> perColumn;
        std::map<int64_t, std::pair<double, double>> drawnExtent;
        for (qsizetype i = 0; i < drawn.size(); ++i) {
            const int64_t t = timeOf(drawn[i]);
            if (t < begin || t > end)
                continue;
            const int64_t column = columnOf(t);
            if (i > 0 && i + 1 < drawn.size())
                ++perColumn[column];
            const double v = drawn[i].y();
            auto [it, added] = drawnExtent.try_emplace(column, v, v);
            it->second.first = std::min(it->second.first, v);
            it->second.second = std::max(it->second.second, v);
        }
        for (const auto& [column, count] : perColumn)
            QVERIFY2(count <= 2, qPrintable(QStringLiteral("column %1: %2 points").arg(column).arg(count)));
        QCOMPARE(drawnExtent.size(), dataExtent.size());
        for (const auto& [column, extent] : dataExtent) {
            QVERIFY2(drawnExtent.count(column), qPrintable(QString::number(column)));
            QCOMPARE(drawnExtent[column].first, extent.first);
            QCOMPARE(drawnExtent[column].second, extent.second);
        }
    }

    // Values to pixels and the cut of the lines at the plot edges: plot (0,0 100x100) showing
    // x 0..100 and y 0..100, lines kept up to 10 px beyond the left and right edges.
    void plotPolyline_data()
    {
        QTest::addColumn<QList<QPointF>>("values");
        QTest::addColumn<QList<QPointF>>("expected");
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("inside") << QList<QPointF>{{0, 0}, {50, 50}, {100, 0}}
                                << QList<QPointF>{{0, 100}, {50, 50}, {100, 100}};
        QTest::newRow("within the margin")
            << QList<QPointF>{{-5, 0}, {105, 20}} << QList<QPointF>{{-5, 100}, {105, 80}};
        QTest::newRow("far left neighbour")
            << QList<QPointF>{{-990, 0}, {10, 100}} << QList<QPointF>{{-10, 2}, {10, 0}};
        QTest::newRow("far right neighbour")
            << QList<QPointF>{{90, 0}, {1090, 100}} << QList<QPointF>{{90, 100}, {110, 98}};
        QTest::newRow("one segment across the plot")
            << QList<QPointF>{{-1000, 0}, {1000, 100}} << QList<QPointF>{{-10, 50.5}, {110, 44.5}};
        QTest::newRow("several points outside")
            << QList<QPointF>{{-3000, 7}, {-2000, 9}, {-1000, 0}, {50, 30}, {1000, 100}, {2000, 5}}
            << QList<QPointF>{{-10, 100 - 30.0 * 990.0 / 1050.0}, {50, 70}, {110, 70 - 70.0 * 60.0 / 950.0}};
        QTest::newRow("NaN skipped") << QList<QPointF>{{0, 0}, {50, nan}, {nan, 10}, {100, 0}}
                                     << QList<QPointF>{{0, 100}, {100, 100}};
        QTest::newRow("all left of the plot") << QList<QPointF>{{-50, 0}, {-20, 10}} << QList<QPointF>{};
        QTest::newRow("all right of the plot") << QList<QPointF>{{120, 0}, {200, 10}} << QList<QPointF>{};
        QTest::newRow("empty") << QList<QPointF>{} << QList<QPointF>{};
        QTest::newRow("far in y is bounded")
            << QList<QPointF>{{0, 0}, {50, 1e12}} << QList<QPointF>{{0, 100}, {50, -1e6}};
    }
    void plotPolyline()
    {
        QFETCH(QList<QPointF>, values);
        QFETCH(QList<QPointF>, expected);
        const PlotMapping mapping = PlotMapping::fromRanges(QRectF(0, 0, 100, 100), 0, 100, 0, 100);
        const QPolygonF line = gapscope::plotPolyline(values, mapping, 0, 100, 10);
        QCOMPARE(line.size(), expected.size());
        for (qsizetype i = 0; i < line.size(); ++i) {
            QVERIFY2(std::abs(line[i].x() - expected[i].x()) < 1e-9 &&
                         std::abs(line[i].y() - expected[i].y()) < 1e-9,
                     qPrintable(QStringLiteral("point %1: (%2, %3), expected (%4, %5)")
                                    .arg(i)
                                    .arg(line[i].x())
                                    .arg(line[i].y())
                                    .arg(expected[i].x())
                                    .arg(expected[i].y())));
        }
    }

    void absoluteTime_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("expected");
        QTest::newRow("epoch") << qint64(0) << QStringLiteral("1970-01-01 00:00:00.000000000 UTC");
        QTest::newRow("before the epoch")
            << qint64(-1) << QStringLiteral("1969-12-31 23:59:59.999999999 UTC");
        QTest::newRow("a trace") << qint64(1796000000102000000)
                                 << QStringLiteral("2026-11-30 00:53:20.102000000 UTC");
        QTest::newRow("int64 min") << std::numeric_limits<qint64>::min()
                                   << QStringLiteral("1677-09-21 00:12:43.145224192 UTC");
        QTest::newRow("int64 max") << std::numeric_limits<qint64>::max()
                                   << QStringLiteral("2262-04-11 23:47:16.854775807 UTC");
    }
    // At the ends of the int64 range too (the job heatmap's tooltip met INT64_MIN + 5 under UBSan).
    void absoluteTime()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, expected);
        QCOMPARE(formatAbsoluteTime(ns), expected);
    }

    void plotMapping()
    {
        const QRectF plot(10, 20, 300, 200);
        const PlotMapping m = PlotMapping::fromRanges(plot, -1, 2, 0, 8 * kGiB);
        QCOMPARE(m.map(QPointF(-1, 0)), plot.bottomLeft());
        QCOMPARE(m.map(QPointF(2, 8 * kGiB)), plot.topRight());
        QCOMPARE(m.map(QPointF(0.5, 4 * kGiB)), plot.center());
        // an empty range maps to the left or bottom edge instead of dividing by zero
        const PlotMapping flat = PlotMapping::fromRanges(plot, 1, 1, 5, 5);
        QCOMPARE(flat.map(QPointF(7, 9)), plot.bottomLeft());
    }

    void resizeKeepsBudget()
    {
        m_view->resize(500, 300);
        QTRY_VERIFY(chart()->plotArea().width() < 500);
        QTRY_VERIFY(m_view->drawnGapPointCount() <= pointBudget());
        QVERIFY(m_view->drawnGapPointCount() > 0);
    }

    void zoomWithSetVisibleRange()
    {
        QSignalSpy spy(m_view.get(), &GapChartView::visibleRangeChanged);
        const int64_t begin = dataBegin() + 100'000'000'000; // 100 s
        const int64_t end = dataBegin() + 130'000'000'000;
        m_view->setVisibleRange(begin, end);
        QCOMPARE(m_view->visibleBeginNs(), begin);
        QCOMPARE(m_view->visibleEndNs(), end);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toLongLong(), begin);
        QCOMPARE(spy.at(0).at(1).toLongLong(), end);
        // 3000 samples in 30 s: still decimated to the width
        QVERIFY(m_view->drawnGapPointCount() > 0);
        QVERIFY(m_view->drawnGapPointCount() <= pointBudget());
        // every drawn point lies in the range or is the neighbour just outside it
        const double x0 = double(begin - dataBegin()) / 1e9 - 0.0101;
        const double x1 = double(end - dataBegin()) / 1e9 + 0.0101;
        for (const QPointF& p : m_view->drawnPoints(ChartLine::Gap))
            QVERIFY(p.x() >= x0 && p.x() <= x1);

        m_view->setVisibleRange(begin, end); // unchanged: no signal
        QCOMPARE(spy.count(), 1);

        // a range reaching before the data is moved inside, keeping its span
        m_view->setVisibleRange(dataBegin() - 50'000'000'000, dataBegin() + 10'000'000'000);
        QCOMPARE(m_view->visibleBeginNs(), dataBegin());
        QCOMPARE(m_view->visibleEndNs(), dataBegin() + 60'000'000'000);
        QCOMPARE(spy.count(), 2);

        m_view->resetZoom();
        QCOMPARE(m_view->visibleBeginNs(), dataBegin());
        QCOMPARE(m_view->visibleEndNs(), dataEnd());
        QCOMPARE(spy.count(), 3);
    }

    void zoomToFewSamplesShowsAll()
    {
        // 11 samples in view: nothing to decimate, plus the neighbours at both sides
        m_view->setVisibleRange(dataBegin() + 50 * kIntervalNs, dataBegin() + 60 * kIntervalNs);
        QCOMPARE(m_view->drawnGapPointCount(), 13);
    }

    void cursor()
    {
        const int64_t t = dataBegin() + 123 * kIntervalNs;
        m_view->setCursorTime(t);
        QCOMPARE(m_view->cursorTime(), t);
    }

    void highlightFinding()
    {
        m_view->setVisibleRange(dataBegin() + 10'000'000'000, dataBegin() + 900'000'000'000);
        const int64_t begin = m_view->visibleBeginNs();
        const int64_t end = m_view->visibleEndNs();
        auto* regression = seriesNamed(chart(), QStringLiteral("Drift fit"));
        auto* maxSpike = qobject_cast<QScatterSeries*>(seriesNamed(chart(), QStringLiteral("Largest spike")));
        auto* samples =
            qobject_cast<QScatterSeries*>(seriesNamed(chart(), QStringLiteral("Finding samples")));
        QVERIFY(regression && maxSpike && samples);
        const double plainWidth = regression->pen().widthF();
        const double plainSize = maxSpike->markerSize();
        QCOMPARE(m_view->highlightedFinding(), -1);

        m_view->highlightFinding(0); // spike
        QCOMPARE(m_view->highlightedFinding(), 0);
        QVERIFY(maxSpike->markerSize() > plainSize);
        QCOMPARE(regression->pen().widthF(), plainWidth);

        m_view->highlightFinding(1); // drift
        QVERIFY(regression->pen().widthF() > plainWidth);
        QCOMPARE(maxSpike->markerSize(), plainSize);

        m_view->highlightFinding(2); // fragmentation: the samples at the largest ratio
        QVERIFY(samples->count() > 0);
        QVERIFY(samples->isVisible());
        const EventStore& s = m_result->trace->store;
        const uint32_t fragRow = m_result->findings[2].evidenceRow;
        const double fragX = double(s.timestampNs[fragRow] - dataBegin()) / 1e9;
        const QList<QPointF> marked = samples->points();
        QVERIFY(std::any_of(marked.begin(), marked.end(),
                            [&](const QPointF& p) { return std::abs(p.x() - fragX) < 1e-9; }));
        QCOMPARE(regression->pen().widthF(), plainWidth);

        // nothing else moved
        QCOMPARE(m_view->visibleBeginNs(), begin);
        QCOMPARE(m_view->visibleEndNs(), end);

        m_view->highlightFinding(99);
        QCOMPARE(m_view->highlightedFinding(), -1);
        QCOMPARE(samples->count(), 0);
    }

    void overlaysToggle()
    {
        QVERIFY(!m_view->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(!m_view->isOverlayVisible(ChartOverlay::Reserved));
        QVERIFY(!m_view->isOverlayVisible(ChartOverlay::DeviceUsed));
        QVERIFY(!m_view->isOverlayVisible(ChartOverlay::DeviceTotal));
        QVERIFY(m_view->isOverlayVisible(ChartOverlay::Spikes));
        QVERIFY(m_view->isOverlayVisible(ChartOverlay::Regression));
        QXYSeries* allocated = seriesNamed(chart(), QStringLiteral("Allocated"));
        QVERIFY(allocated);
        QVERIFY(!allocated->isVisible());
        QCOMPARE(m_view->drawnPoints(ChartLine::Allocated).size(), 0);

        for (ChartOverlay overlay : {ChartOverlay::Allocated, ChartOverlay::Reserved,
                                     ChartOverlay::DeviceUsed, ChartOverlay::DeviceTotal})
            m_view->setOverlayVisible(overlay, true);
        QVERIFY(m_view->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(allocated->isVisible());
        QVERIFY(m_view->drawnPoints(ChartLine::Allocated).size() > 0);
        QVERIFY(m_view->drawnPoints(ChartLine::Allocated).size() <= pointBudget());
        // device total (16 GiB) now sets the top of the y axis
        const QList<QAbstractAxis*> vertical = chart()->axes(Qt::Vertical);
        QCOMPARE(vertical.size(), 1);
        auto* yAxis = qobject_cast<QValueAxis*>(vertical.front());
        QVERIFY(yAxis);
        QVERIFY(yAxis->max() >= 16 * kGiB);

        m_view->setOverlayVisible(ChartOverlay::Allocated, false);
        QVERIFY(!allocated->isVisible());
        QCOMPARE(m_view->drawnPoints(ChartLine::Allocated).size(), 0);
        m_view->setOverlayVisible(ChartOverlay::Spikes, false);
        QVERIFY(!seriesNamed(chart(), QStringLiteral("Spikes"))->isVisible());
        m_view->setOverlayVisible(ChartOverlay::ThresholdBand, false);
        QVERIFY(!anySeriesNamed(chart(), QStringLiteral("Spike threshold"))->isVisible());
        m_view->setOverlayVisible(ChartOverlay::ThresholdBand, true);
        QVERIFY(anySeriesNamed(chart(), QStringLiteral("Spike threshold"))->isVisible());
    }

    void noDriftNoRegression()
    {
        SyntheticOptions options;
        options.drift = false;
        m_view->setAnalysis(makeSyntheticAnalysis(options));
        QVERIFY(!seriesNamed(chart(), QStringLiteral("Drift fit"))->isVisible());
        QVERIFY(m_view->isOverlayVisible(ChartOverlay::Regression)); // the toggle itself is kept
    }

    void windowAnalysisShowsTheRunAround()
    {
        SyntheticOptions options;
        options.window = TimeWindow{kStartNs + 200'000'000'000, kStartNs + 400'000'000'000};
        auto windowed = makeSyntheticAnalysis(options);
        m_view->setAnalysis(windowed);
        QCOMPARE(m_view->visibleBeginNs(), kStartNs); // the whole partition
        QCOMPARE(m_view->visibleEndNs(), windowed->trace->store.timestampNs.back());
        QXYSeries* outside = seriesNamed(chart(), QStringLiteral("Outside window"));
        QVERIFY(outside && outside->isVisible());
        QVERIFY(m_view->drawnPoints(ChartLine::OutsideWindow).size() > 0);
        QVERIFY(m_view->drawnPoints(ChartLine::OutsideWindow).size() <= pointBudget());
        QVERIFY(m_view->drawnGapPointCount() > 0);
        QCoreApplication::processEvents(); // the legend relabels itself from queued signals
        m_view->grab().save(QStringLiteral("/tmp/chart-window.png"));
    }

    void emptyAndNull()
    {
        auto empty = std::make_shared<AnalysisResult>();
        empty->trace = std::make_shared<TraceData>();
        m_view->setAnalysis(empty);
        QCOMPARE(m_view->drawnGapPointCount(), 0);
        m_view->setVisibleRange(0, 100); // nothing to show: ignored
        m_view->highlightFinding(0);
        QCOMPARE(m_view->highlightedFinding(), -1);
        // rows beyond the store and columns of different lengths draw nothing instead of crashing
        auto broken = makeSyntheticAnalysis(hundredSamples());
        broken->usableRows.push_back(100'000);
        m_view->setAnalysis(broken);
        QCOMPARE(m_view->drawnGapPointCount(), 0);
        auto ragged = makeSyntheticAnalysis(hundredSamples());
        std::const_pointer_cast<TraceData>(ragged->trace)->store.reserved.resize(50);
        m_view->setAnalysis(ragged);
        QCOMPARE(m_view->drawnGapPointCount(), 0);
        QVERIFY(!m_view->grab().isNull());

        m_view->setAnalysis(nullptr);
        QCOMPARE(m_view->drawnGapPointCount(), 0);
        QVERIFY(!m_view->grab().isNull());
    }

    void rendersSomething()
    {
        m_view->setCursorTime(dataBegin() + 250'000'000'000);
        m_view->highlightFinding(0);
        QCoreApplication::processEvents();
        const QPixmap pixmap = m_view->grab();
        QVERIFY(!pixmap.isNull());
        QCOMPARE(pixmap.size(), QSize(1200, 500));
        const QImage image = pixmap.toImage();
        std::set<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        pixmap.save(QStringLiteral("/tmp/chart.png"));
        m_view->setOverlayVisible(ChartOverlay::Reserved, true);
        m_view->setOverlayVisible(ChartOverlay::DeviceUsed, true);
        m_view->highlightFinding(1);
        m_view->setVisibleRange(dataBegin() + 380'000'000'000, dataBegin() + 760'000'000'000);
        QCoreApplication::processEvents();
        m_view->grab().save(QStringLiteral("/tmp/chart-zoomed.png"));
    }

    void followsDarkPalette()
    {
        QPalette dark = m_view->palette();
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x30));
        dark.setColor(QPalette::Text, QColor(0xdf, 0xe1, 0xe5));
        dark.setColor(QPalette::WindowText, QColor(0xdf, 0xe1, 0xe5));
        m_view->setPalette(dark);
        m_view->setOverlayVisible(ChartOverlay::DeviceTotal, true);
        m_view->highlightFinding(1);
        QCoreApplication::processEvents();
        const QImage image = m_view->grab().toImage();
        // no white background anywhere at the corners: the palette's base colour is used
        QCOMPARE(QColor(image.pixel(1, 1)), dark.color(QPalette::Base));
        QCOMPARE(QColor(image.pixel(image.width() - 2, image.height() - 2)), dark.color(QPalette::Base));
        // the axis labels are drawn in the palette's text colour (light on dark)
        auto* yAxis = qobject_cast<QValueAxis*>(chart()->axes(Qt::Vertical).front());
        QCOMPARE(yAxis->labelsBrush().color(), dark.color(QPalette::Text));
        image.save(QStringLiteral("/tmp/chart-dark.png"));
    }

    void shiftDragSelectsRange()
    {
        QSignalSpy selected(m_view.get(), &GapChartView::rangeSelected);
        QSignalSpy zoomed(m_view.get(), &GapChartView::visibleRangeChanged);
        const int64_t a = dataBegin() + 200'000'000'000;
        const int64_t b = dataBegin() + 500'000'000'000;
        const QPoint from = viewPointAt(a);
        const QPoint to = viewPointAt(b);
        QWidget* viewport = m_chartView->viewport();
        QTest::mousePress(viewport, Qt::LeftButton, Qt::ShiftModifier, from);
        QTest::mouseMove(viewport, (from + to) / 2);
        QTest::mouseMove(viewport, to);
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::ShiftModifier, to);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(zoomed.count(), 0); // selecting does not zoom
        const int64_t nsPerPixel = (dataEnd() - dataBegin()) / int64_t(chart()->plotArea().width());
        QVERIFY(std::abs(selected.at(0).at(0).toLongLong() - a) <= 2 * nsPerPixel);
        QVERIFY(std::abs(selected.at(0).at(1).toLongLong() - b) <= 2 * nsPerPixel);
    }

    void dragZoomsAndClickRequestsCursor()
    {
        QSignalSpy zoomed(m_view.get(), &GapChartView::visibleRangeChanged);
        QSignalSpy cursor(m_view.get(), &GapChartView::cursorRequested);
        QWidget* viewport = m_chartView->viewport();
        const int64_t a = dataBegin() + 300'000'000'000;
        const int64_t b = dataBegin() + 400'000'000'000;
        const QPoint from = viewPointAt(a);
        const QPoint to = viewPointAt(b);
        QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, from);
        QTest::mouseMove(viewport, to);
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, to);
        QCOMPARE(zoomed.count(), 1);
        const int64_t nsPerPixel = (dataEnd() - dataBegin()) / int64_t(chart()->plotArea().width());
        QVERIFY(std::abs(m_view->visibleBeginNs() - a) <= 2 * nsPerPixel);
        QVERIFY(std::abs(m_view->visibleEndNs() - b) <= 2 * nsPerPixel);
        QCOMPARE(cursor.count(), 0);

        const int64_t c = dataBegin() + 350'000'000'000;
        QTest::mouseClick(viewport, Qt::LeftButton, Qt::NoModifier, viewPointAt(c));
        QCOMPARE(cursor.count(), 1);
        QVERIFY(std::abs(cursor.at(0).at(0).toLongLong() - c) <=
                2 * (b - a) / int64_t(chart()->plotArea().width()));
        QCOMPARE(zoomed.count(), 1);

        QTest::mouseDClick(viewport, Qt::LeftButton, Qt::NoModifier, viewPointAt(c));
        QCOMPARE(m_view->visibleBeginNs(), dataBegin());
        QCOMPARE(m_view->visibleEndNs(), dataEnd());
    }

    void ctrlDragPans()
    {
        m_view->setVisibleRange(dataBegin() + 300'000'000'000, dataBegin() + 400'000'000'000);
        const int64_t span = m_view->visibleEndNs() - m_view->visibleBeginNs();
        QWidget* viewport = m_chartView->viewport();
        const QPoint from = viewPointAt(dataBegin() + 350'000'000'000);
        QTest::mousePress(viewport, Qt::LeftButton, Qt::ControlModifier, from);
        QTest::mouseMove(viewport, from + QPoint(100, 0));
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::ControlModifier, from + QPoint(100, 0));
        // content follows the mouse: earlier times come into view
        QVERIFY(m_view->visibleBeginNs() < dataBegin() + 300'000'000'000);
        QCOMPARE(m_view->visibleEndNs() - m_view->visibleBeginNs(), span);
    }

    void wheelZoomsAboutTheMouse()
    {
        const int64_t anchor = dataBegin() + 250'000'000'000;
        const QPoint at = viewPointAt(anchor);
        const int64_t spanBefore = m_view->visibleEndNs() - m_view->visibleBeginNs();
        QWheelEvent wheel(at, m_chartView->viewport()->mapToGlobal(at), QPoint(), QPoint(0, 120),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(m_chartView->viewport(), &wheel);
        const int64_t spanAfter = m_view->visibleEndNs() - m_view->visibleBeginNs();
        QVERIFY(spanAfter < spanBefore);
        QVERIFY(std::abs(double(spanAfter) / double(spanBefore) - 0.8) < 0.01);
        // the time under the mouse stays there
        const double fBefore = double(anchor - dataBegin()) / double(spanBefore);
        const double fAfter = double(anchor - m_view->visibleBeginNs()) / double(spanAfter);
        QVERIFY(std::abs(fBefore - fAfter) < 0.005);
    }

    void keyboard()
    {
        m_view->setVisibleRange(dataBegin() + 300'000'000'000, dataBegin() + 400'000'000'000);
        m_chartView->setFocus();
        const int64_t before = m_view->visibleBeginNs();
        QTest::keyClick(m_chartView, Qt::Key_Right);
        QVERIFY(m_view->visibleBeginNs() > before);
        QTest::keyClick(m_chartView, Qt::Key_Left);
        QCOMPARE(m_view->visibleBeginNs(), before);
        QTest::keyClick(m_chartView, Qt::Key_Plus);
        QVERIFY(m_view->visibleEndNs() - m_view->visibleBeginNs() < 100'000'000'000);
        QTest::keyClick(m_chartView, Qt::Key_Home);
        QCOMPARE(m_view->visibleBeginNs(), dataBegin());
        QCOMPARE(m_view->visibleEndNs(), dataEnd());
    }

    void toolTipNamesTimeValuesAndPhase()
    {
        m_view->setOverlayVisible(ChartOverlay::Reserved, true);
        // 20 % into the run lies in "train / epoch 1" (10 % to 30 %: its middle, so a pixel of
        // rounding in the plot's geometry cannot move the hover to the next epoch)
        const int64_t t = dataBegin() + (dataEnd() - dataBegin()) * 2 / 10;
        const QPoint at = viewPointAt(t);
        QHelpEvent help(QEvent::ToolTip, at, m_chartView->viewport()->mapToGlobal(at));
        QTest::ignoreMessage(QtWarningMsg, "This plugin does not support raise()"); // offscreen platform
        QCoreApplication::sendEvent(m_chartView->viewport(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString text = QToolTip::text();
        QVERIFY2(text.contains(QStringLiteral("Gap")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("MiB")) || text.contains(QStringLiteral("GiB")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Reserved")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("Allocated")), qPrintable(text)); // hidden overlay
        QVERIFY2(text.contains(QStringLiteral("train / epoch 1")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("UTC")), qPrintable(text)); // absolute time
        QToolTip::hideText();
    }

    void hoverEmitsSampleTime()
    {
        QSignalSpy hovered(m_view.get(), &GapChartView::hoveredTime);
        const int64_t t = dataBegin() + 123'456'789'000;
        QTest::mouseMove(m_chartView->viewport(), viewPointAt(t));
        QCOMPARE(hovered.count(), 1);
        const int64_t sample = hovered.at(0).at(0).toLongLong();
        QCOMPARE((sample - dataBegin()) % kIntervalNs, 0); // snapped to a sample
        const int64_t nsPerPixel = (dataEnd() - dataBegin()) / int64_t(chart()->plotArea().width());
        QVERIFY(std::abs(sample - t) <= 2 * nsPerPixel);
    }
};

QTEST_MAIN(TestGapChartView)
#include "tst_gapchartview.moc"
