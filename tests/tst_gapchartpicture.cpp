// GapChartView over the parity fixtures and the CPU sink, checked on the picture it draws
// (offscreen grab) and on what it hands to the painter: markers only where the findings are,
// a legend entry for every mark, the drift fit under the gap line, y axes in one unit with
// 1-2-5 steps that fit the data (the threshold band clipped), "from zero" mode, the visible
// span readout, phase labels that never overlap, and the no-device-total note off the data.
#include "model/text/Text.h"
#include "model/trace/TraceLoader.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/GapChartView.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace gapscope;

namespace {

std::shared_ptr<const AnalysisResult> analyse(const QString& relativePath)
{
    const LoadOutcome loaded =
        loadTrace(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/") + relativePath);
    return loaded.data ? runAnalysis(loaded.data, AnalysisRequest{}) : nullptr;
}

int colorDistance(QColor a, QColor b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

// Pixels of `image` inside `area` within `tolerance` of `color`.
int pixelsNear(const QImage& image, const QRect& area, QColor color, int tolerance)
{
    int count = 0;
    const QRect r = area.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            if (colorDistance(image.pixelColor(x, y), color) <= tolerance)
                ++count;
    return count;
}

// The numbers of labels like "1.35 GiB" with their common unit; fails on mixed units.
std::vector<double> labelNumbers(const QStringList& labels, QString* unit)
{
    std::vector<double> numbers;
    for (const QString& label : labels) {
        const qsizetype space = label.indexOf(QLatin1Char(' '));
        if (space < 0)
            return {};
        const QString u = label.mid(space + 1);
        if (unit->isEmpty())
            *unit = u;
        if (u != *unit)
            return {};
        numbers.push_back(label.left(space).toDouble());
    }
    return numbers;
}

} // namespace

class TestGapChartPicture : public QObject
{
    Q_OBJECT

    std::unique_ptr<GapChartView> m_view;

    QChart* chart() const { return m_view->findChild<QChartView*>()->chart(); }
    QCategoryAxis* yAxis() const { return qobject_cast<QCategoryAxis*>(chart()->axes(Qt::Vertical).front()); }
    QRect plotInView() const
    {
        auto* canvas = m_view->findChild<QChartView*>();
        return canvas->mapFromScene(chart()->mapRectToScene(chart()->plotArea())).boundingRect();
    }
    QAbstractSeries* series(const QString& prefix) const
    {
        for (QAbstractSeries* s : chart()->series())
            if (s->name().startsWith(prefix))
                return s;
        return nullptr;
    }
    // a drawn point (chart values) in view pixels
    QPointF toView(QPointF value) const
    {
        auto* canvas = m_view->findChild<QChartView*>();
        return canvas->mapFromScene(
            chart()->mapToScene(chart()->mapToPosition(value, chart()->series().front())));
    }
    void show(std::shared_ptr<const AnalysisResult> result)
    {
        QVERIFY(result);
        m_view->setAnalysis(std::move(result));
        QCoreApplication::processEvents();
    }

private slots:
    void init()
    {
        m_view = std::make_unique<GapChartView>();
        m_view->resize(1100, 520);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    }
    void cleanup() { m_view.reset(); }

    // item 4: no finding, no spike markers; a spike finding shows them
    void spikeMarkersFollowTheFindings_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<bool>("markers");
        QTest::newRow("quiet: no findings") << QStringLiteral("parity/quiet.jsonl") << false;
        QTest::newRow("drift: no spike finding") << QStringLiteral("parity/drift.jsonl") << false;
        QTest::newRow("spikes") << QStringLiteral("parity/spikes.jsonl") << true;
    }
    void spikeMarkersFollowTheFindings()
    {
        QFETCH(QString, fixture);
        QFETCH(bool, markers);
        const auto result = analyse(fixture);
        show(result);
        const bool spikeFinding =
            std::any_of(result->findings.begin(), result->findings.end(),
                        [](const Finding& f) { return f.classification == Classification::TransientSpike; });
        QCOMPARE(spikeFinding, markers);
        const ChartColors colors = chartColors(m_view->palette());
        const QImage image = m_view->grab().toImage();
        const int red = pixelsNear(image, plotInView(), colors.maxSpike, 30);
        const int orange = pixelsNear(image, plotInView(), colors.spike, 30);
        if (markers) {
            QVERIFY2(red > 20 && orange > 20, qPrintable(QStringLiteral("%1 %2").arg(red).arg(orange)));
        } else {
            QVERIFY2(red == 0 && orange == 0, qPrintable(QStringLiteral("%1 %2").arg(red).arg(orange)));
            QVERIFY(!series(QStringLiteral("Spikes"))->isVisible());
            QVERIFY(!series(QStringLiteral("Largest spike"))->isVisible());
        }
    }

    // item 4: every mark drawn has a legend entry; fragmentation does not mark every sample
    void everyMarkHasALegendEntry_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("frag") << QStringLiteral("parity/frag.jsonl");
        QTest::newRow("spikes") << QStringLiteral("parity/spikes.jsonl");
        QTest::newRow("drift") << QStringLiteral("parity/drift.jsonl");
        QTest::newRow("mixed") << QStringLiteral("parity/mixed.jsonl");
    }
    void everyMarkHasALegendEntry()
    {
        QFETCH(QString, fixture);
        const auto result = analyse(fixture);
        show(result);
        for (int finding = -1; finding < int(result->findings.size()); ++finding) {
            m_view->highlightFinding(finding);
            for (QAbstractSeries* s : chart()->series()) {
                const auto* xy = qobject_cast<QXYSeries*>(s);
                const bool drawsSomething = s->isVisible() && (!xy || xy->count() > 0 ||
                                                               s->type() == QAbstractSeries::SeriesTypeLine);
                if (!drawsSomething)
                    continue;
                const QList<QLegendMarker*> markers = chart()->legend()->markers(s);
                QVERIFY2(!markers.isEmpty() && markers.front()->isVisible(), qPrintable(s->name()));
            }
            auto* samples = qobject_cast<QScatterSeries*>(series(QStringLiteral("Finding samples")));
            QVERIFY(samples);
            // marks on (nearly) every sample say nothing about where
            QVERIFY2(samples->count() * 2 <= qsizetype(result->usableRows.size()),
                     qPrintable(QString::number(samples->count())));
        }
    }

    // item 4: on a drift the fit lies on the data; the gap line stays visible on top of it
    void gapLineDrawnOverTheDriftFit()
    {
        const auto result = analyse(QStringLiteral("parity/drift.jsonl"));
        show(result);
        QVERIFY(series(QStringLiteral("Drift fit"))->isVisible());
        const ChartColors colors = chartColors(m_view->palette());
        const QImage image = m_view->grab().toImage();
        const QList<QPointF> points = m_view->drawnPoints(ChartLine::Gap);
        QVERIFY(points.size() > 100);
        int gapOnTop = 0;
        int checked = 0;
        for (const QPointF& value : points) {
            const QPoint p = toView(value).toPoint();
            if (!plotInView().adjusted(4, 4, -4, -4).contains(p))
                continue;
            ++checked;
            if (colorDistance(image.pixelColor(p), colors.gap) <
                colorDistance(image.pixelColor(p), colors.regression))
                ++gapOnTop;
        }
        QVERIFY(checked > 100);
        QVERIFY2(gapOnTop >= checked * 95 / 100,
                 qPrintable(QStringLiteral("%1 of %2").arg(gapOnTop).arg(checked)));
    }

    // item 3: tick labels in one unit, 1-2-5 steps, on every fixture
    void yTicksInOneUnitWithNiceSteps_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char* name : {"quiet", "spikes", "drift", "frag", "phases", "mixed"})
            QTest::newRow(name) << QStringLiteral("parity/%1.jsonl").arg(QLatin1String(name));
        QTest::newRow("cpu sink") << QStringLiteral("real/cpu_sink");
    }
    void yTicksInOneUnitWithNiceSteps()
    {
        QFETCH(QString, fixture);
        show(analyse(fixture));
        m_view->setOverlayVisible(ChartOverlay::Allocated, true); // the CPU sink has no gap
        for (ByteRangeMode mode : {ByteRangeMode::FitData, ByteRangeMode::FromZero}) {
            m_view->setYRangeMode(mode);
            const QStringList labels = m_view->yAxisLabels();
            QVERIFY2(labels.size() >= 3, qPrintable(labels.join(QLatin1String(", "))));
            QCOMPARE(yAxis()->categoriesLabels().size(), labels.size());
            QString unit;
            const std::vector<double> numbers = labelNumbers(labels, &unit);
            QVERIFY2(numbers.size() == size_t(labels.size()), qPrintable(labels.join(QLatin1String(", "))));
            const double step = numbers[1] - numbers[0];
            const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
            QVERIFY2(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
                         std::abs(mantissa - 5) < 1e-6,
                     qPrintable(labels.join(QLatin1String(", "))));
            for (size_t i = 1; i < numbers.size(); ++i)
                QVERIFY(std::abs(numbers[i] - numbers[i - 1] - step) < step * 1e-6);
        }
    }

    // item 3: the axis follows the data, not the threshold band; "from zero" starts at zero
    void yRangeFromTheData()
    {
        const auto result = analyse(QStringLiteral("parity/spikes.jsonl"));
        show(result);
        const GapStatistics& stats = result->statistics;
        const double bandLow = stats.meanGap - result->request.thresholds.spikeZScore * stats.stdGap;
        double dataMin = 1e300;
        double dataMax = -1e300;
        for (const QPointF& p : m_view->drawnPoints(ChartLine::Gap)) {
            dataMin = std::min(dataMin, p.y());
            dataMax = std::max(dataMax, p.y());
        }
        QVERIFY(m_view->isOverlayVisible(ChartOverlay::ThresholdBand));
        QVERIFY2(bandLow < std::min(dataMin, 0.0) - 0.05 * (dataMax - dataMin),
                 "the band reaches below the data");
        QVERIFY2(yAxis()->min() >= std::min(dataMin, 0.0) - 0.05 * (dataMax - dataMin),
                 qPrintable(QString::number(yAxis()->min())));
        QVERIFY(yAxis()->max() >= dataMax);

        m_view->setYRangeMode(ByteRangeMode::FromZero);
        QCOMPARE(yAxis()->min(), 0.0);
        QVERIFY(yAxis()->max() >= dataMax);
        // a non-negative series starts at zero also when it is far from it
        show(analyse(QStringLiteral("parity/quiet.jsonl")));
        QCOMPARE(yAxis()->min(), 0.0);
        m_view->setYRangeMode(ByteRangeMode::FitData);
        QVERIFY(yAxis()->min() > 1024.0 * 1024 * 1024); // quiet's gap stays near 1.5 GiB
    }

    // item 3: a log scale: ticks at powers of two, the markers placed in the same scale
    void logScale()
    {
        const auto result = analyse(QStringLiteral("parity/spikes.jsonl"));
        show(result);
        m_view->setLogScale(true);
        QVERIFY(m_view->isLogScale());
        const QStringList labels = m_view->yAxisLabels();
        QVERIFY2(labels.size() >= 2, qPrintable(labels.join(QLatin1String(", "))));
        for (const QString& label : labels) {
            const QStringList parts = label.split(QLatin1Char(' '));
            QCOMPARE(parts.size(), 2);
            const int number = parts[0].toInt();
            QVERIFY2(number > 0 && (number & (number - 1)) == 0, qPrintable(label));
        }
        // the largest spike sits at log2 of its gap, inside the axis
        auto* maxSpike = qobject_cast<QScatterSeries*>(series(QStringLiteral("Largest spike")));
        QVERIFY(maxSpike && maxSpike->count() == 1);
        const EventStore& s = result->trace->store;
        const uint32_t row = result->usableRows[*result->statistics.maxGapIndex];
        QCOMPARE(maxSpike->at(0).y(), std::log2(double(s.gapAt(row))));
        QVERIFY(maxSpike->at(0).y() <= yAxis()->max() && maxSpike->at(0).y() >= yAxis()->min());
        // the points handed to the painter stay in bytes
        const QList<QPointF> gap = m_view->drawnPoints(ChartLine::Gap);
        QVERIFY(std::any_of(gap.begin(), gap.end(),
                            [&](const QPointF& p) { return p.y() == double(s.gapAt(row)); }));
        m_view->setLogScale(false);
        QCOMPARE(maxSpike->at(0).y(), double(s.gapAt(row)));
    }

    // item 3: the readout says how much the visible values span
    void visibleSpanReadout()
    {
        show(analyse(QStringLiteral("real/cpu_sink")));
        m_view->setOverlayVisible(ChartOverlay::Allocated, true);
        double low = 1e300;
        double high = -1e300;
        for (const QPointF& p : m_view->drawnPoints(ChartLine::Allocated)) {
            low = std::min(low, p.y());
            high = std::max(high, p.y());
        }
        QVERIFY(high > low);
        const QString text = m_view->visibleSpanText();
        QVERIFY2(text.contains(bytesText(high - low)), qPrintable(text));
        QVERIFY2(text.contains(bytesText(low)) && text.contains(bytesText(high)), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("showing")), qPrintable(text));
        QCOMPARE(qobject_cast<QCategoryAxis*>(chart()->axes(Qt::Horizontal).front())->titleText(), text);
    }

    // item 6: phase labels of overlapping spans (train holds evaluate in the same lane) never
    // run together, at any zoom
    void phaseLabelsNeverOverlap_data()
    {
        QTest::addColumn<double>("fromS");
        QTest::addColumn<double>("toS");
        QTest::newRow("whole run") << 0.0 << 31.0;
        QTest::newRow("evaluate (F7)") << 20.0 << 30.0;
        QTest::newRow("step") << 10.0 << 20.2;
        QTest::newRow("around evaluate's start") << 19.0 << 22.0;
    }
    void phaseLabelsNeverOverlap()
    {
        QFETCH(double, fromS);
        QFETCH(double, toS);
        const auto result = analyse(QStringLiteral("parity/phases.jsonl"));
        show(result);
        const int64_t origin = result->trace->store.timestampNs.front();
        m_view->setVisibleRange(origin + int64_t(fromS * 1e9), origin + int64_t(toS * 1e9));
        QCoreApplication::processEvents();
        const QList<QRectF> rects = m_view->phaseLabelRects();
        QVERIFY(!rects.isEmpty());
        for (qsizetype i = 0; i < rects.size(); ++i)
            for (qsizetype j = i + 1; j < rects.size(); ++j)
                QVERIFY2(!rects[i].intersects(rects[j]),
                         qPrintable(QStringLiteral("label %1 and %2 overlap").arg(i).arg(j)));
        QVERIFY(!m_view->grab().isNull());
    }

    // item 6: the note of a trace without device total has a place of its own above the data
    void noteStaysOffTheData()
    {
        show(analyse(QStringLiteral("real/cpu_sink")));
        for (ChartOverlay overlay :
             {ChartOverlay::Allocated, ChartOverlay::Reserved, ChartOverlay::DeviceUsed})
            m_view->setOverlayVisible(overlay, true);
        QCoreApplication::processEvents();
        const QRectF note = m_view->noteRect();
        QVERIFY(!note.isEmpty());
        QVERIFY(plotInView().contains(note.center().toPoint()));
        const ChartColors colors = chartColors(m_view->palette());
        const QImage image = m_view->grab().toImage();
        for (const QColor& line : {colors.allocated, colors.reserved, colors.deviceUsed})
            QCOMPARE(pixelsNear(image, note.toAlignedRect(), line, 40), 0);
        for (ChartLine line : {ChartLine::Allocated, ChartLine::Reserved, ChartLine::DeviceUsed})
            for (const QPointF& value : m_view->drawnPoints(line))
                QVERIFY(toView(value).y() > note.bottom());
    }

    // issue 30 item 2: a real trace of stormlog's stock collector (device used recorded as
    // max(allocated, reserved)) says on the chart that its gap cannot be observed, draws the
    // flat zero muted under another name, and keeps the allocator's counters readable; the same
    // run recorded with cudaMemGetInfo draws its gap as ever.
    void gapNotObservable_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("blind");
        QTest::newRow("stock collector") << QStringLiteral("real-gpu/single/stock/telemetry_sink") << true;
        QTest::newRow("truth collector") << QStringLiteral("real-gpu/single/truth/telemetry_sink") << false;
    }
    void gapNotObservable()
    {
        QFETCH(QString, path);
        QFETCH(bool, blind);
        const LoadOutcome loaded = loadTrace(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/") + path);
        QVERIFY(loaded.data);
        show(runAnalysis(loaded.data, AnalysisRequest{}));
        for (ChartOverlay overlay : {ChartOverlay::Allocated, ChartOverlay::Reserved})
            m_view->setOverlayVisible(overlay, true);
        QCoreApplication::processEvents();

        const QString note = m_view->noteText();
        const QRectF box = m_view->noteRect();
        auto* gap = qobject_cast<QLineSeries*>(series(QStringLiteral("Gap")));
        QVERIFY(gap);
        QVERIFY(gap->isVisible());
        const ChartColors colors = chartColors(m_view->palette());
        if (!blind) {
            QVERIFY2(note.isEmpty(), qPrintable(note));
            QVERIFY(box.isEmpty());
            QCOMPARE(gap->name(), QStringLiteral("Gap (used − reserved)"));
            QCOMPARE(gap->pen().color().alpha(), 255);
            return;
        }
        QVERIFY(note.startsWith(QStringLiteral("The gap cannot be observed in this trace: device used is "
                                               "recorded as max(allocated, reserved)")));
        QVERIFY(!box.isEmpty());
        QVERIFY(plotInView().contains(box.center().toPoint()));
        QCOMPARE(gap->name(), QStringLiteral("Gap (not observable: 0 by construction)"));
        QVERIFY(gap->pen().color().alpha() < 128);
        // the note sits above the data: no counter line runs through its words
        for (ChartLine line : {ChartLine::Allocated, ChartLine::Reserved})
            for (const QPointF& value : m_view->drawnPoints(line))
                QVERIFY(toView(value).y() > box.bottom());
        // the zero line is still there, muted, for what it is
        const QList<QPointF> zero = m_view->drawnPoints(ChartLine::Gap);
        QVERIFY(!zero.isEmpty());
        QVERIFY(std::all_of(zero.begin(), zero.end(), [](const QPointF& p) { return p.y() == 0; }));
        const QImage image = m_view->grab().toImage();
        QCOMPARE(pixelsNear(image, box.toAlignedRect(), colors.allocated, 40), 0);
        if (const QByteArray png = qgetenv("GAPSCOPE_NOTICE_CHART_PNG"); !png.isEmpty())
            QVERIFY(image.save(QString::fromLocal8Bit(png)));
    }
};

QTEST_MAIN(TestGapChartPicture)
#include "tst_gapchartpicture.moc"
