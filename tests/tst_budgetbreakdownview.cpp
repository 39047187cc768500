// The breakdown chart of memory-budget logs: layers add up to rss, missing ticks break the
// areas (gaps, not zeros), tooltips carry every value, interaction, decimation, export.
#include "analysis/Units.h"
#include "app/cli/ExportCommand.h"
#include "model/budget/BudgetLoader.h"
#include "model/text/Text.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/export/ChartExport.h"

#include <QImage>
#include <QSignalSpy>
#include <QTest>

using namespace gapscope;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/") + name;
}

std::shared_ptr<const BudgetAnalysisResult> analyse(const QString& name)
{
    const BudgetLoadOutcome loaded = loadBudgetLog(fixture(name));
    if (!loaded.data)
        return nullptr;
    return runBudgetAnalysis(loaded.data, BudgetThresholds{});
}

// A long synthetic log: n ticks of 5 s, one cache, rss rising and falling.
std::shared_ptr<const BudgetData> syntheticLog(size_t n)
{
    auto data = std::make_shared<BudgetData>();
    BudgetTicks& t = data->ticks;
    const uint32_t hold = t.names.intern("hold");
    const uint32_t cache = t.names.intern("row_cache");
    for (size_t i = 0; i < n; ++i) {
        const int64_t wave = int64_t((i * 7919) % 1000) * kMiB / 10;
        t.timestampNs.push_back(int64_t(1'800'000'000'000'000'000) + int64_t(i) * 5'000'000'000);
        t.targetBytes.push_back(4096 * kMiB);
        t.effectiveTargetBytes.push_back(4096 * kMiB);
        t.rssBytes.push_back(2048 * kMiB + wave);
        t.rssSysinfoBytes.push_back(2048 * kMiB + wave);
        t.leaseBytesActive.push_back(0);
        t.jeAllocatedBytes.push_back(1800 * kMiB + wave);
        t.jeActiveBytes.push_back(1900 * kMiB);
        t.jeMetadataBytes.push_back(30 * kMiB);
        t.jeResidentBytes.push_back(2000 * kMiB);
        t.jeMappedBytes.push_back(2100 * kMiB);
        t.jeRetainedBytes.push_back(50 * kMiB);
        t.verdictLabel.push_back(hold);
        t.verdictDetail.push_back(kEmptyName);
        t.verdictStreak.push_back(int64_t(i) + 1);
        t.previousVerdictLabel.push_back(kEmptyName);
        t.previousVerdictStreak.push_back(0);
        t.level.push_back(BudgetLogLevel::Debug);
        t.sourceLine.push_back(int64_t(i) + 1);
        t.caches.push_back(BudgetCacheRow{uint32_t(i), cache, 1024 * kMiB, 1200 * kMiB, 1200 * kMiB, 0, 0.9});
    }
    data->tickPeriodNs = budgetTickPeriodNs(t);
    data->gaps = findTickGaps(t, data->tickPeriodNs);
    return data;
}

} // namespace

class TestBudgetBreakdownView : public QObject
{
    Q_OBJECT

private slots:
    void layersAddUpToRss_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("leak") << QStringLiteral("leak.text");
        QTest::newRow("retention") << QStringLiteral("retention.text");
        QTest::newRow("wedge") << QStringLiteral("wedge_info_only.text");
        QTest::newRow("leak jsonl") << QStringLiteral("leak.jsonl");
    }

    void layersAddUpToRss()
    {
        QFETCH(QString, name);
        const auto result = analyse(name);
        QVERIFY(result);
        BudgetBreakdownView view;
        view.setAnalysis(result);
        const BudgetTicks& t = result->data->ticks;
        const BudgetBuckets& b = result->buckets;
        QVERIFY(!view.layers().empty());
        for (size_t i = 0; i < t.size(); ++i) {
            // cache + lease + reporters + non-cache other + retention = cache + lease + non_cache
            QCOMPARE(view.stackedTotal(i), b.cache[i] + t.leaseBytesActive[i] + b.nonCache[i]);
            QCOMPARE(view.stackedTotal(i), t.rssBytes[i]);
        }
        // every cache and reporter of the log is a layer of its own, by name
        QStringList names;
        for (const auto& layer : view.layers())
            names << layer.name;
        for (const BudgetCacheRow& row : t.caches)
            QVERIFY2(names.contains(qs(t.names.text(row.name))), qPrintable(names.join(QLatin1Char(','))));
        for (const BudgetReporterRow& row : t.reporters)
            QVERIFY(names.contains(qs(t.names.text(row.name))));
        QCOMPARE(view.layers().back().name, QStringLiteral("Allocator retention"));
    }

    void gapsAreGaps()
    {
        // wedge_info_only: an INFO capture of 25 ticks with two runs of held ticks missing
        const auto result = analyse(QStringLiteral("wedge_info_only.text"));
        QVERIFY(result);
        const BudgetData& data = *result->data;
        QCOMPARE(data.ticks.size(), size_t(25));
        QCOMPARE(data.gaps.size(), size_t(2));
        BudgetBreakdownView view;
        view.setAnalysis(result);
        QCOMPARE(view.segments().size(), size_t(3));
        size_t covered = 0;
        for (size_t s = 0; s < view.segments().size(); ++s) {
            const auto [first, last] = view.segments()[s];
            covered += last - first + 1;
            if (s + 1 < view.segments().size())
                QCOMPARE(size_t(data.gaps[s].beforeTick), last); // a segment ends where a gap starts
        }
        QCOMPARE(covered, data.ticks.size());

        // drawn: inside a gap, no layer colour near the bottom of the plot (no zero-filled area)
        view.resize(1000, 500);
        QImage image(view.size(), QImage::Format_ARGB32);
        view.render(&image);
        const QRectF plot = view.plotRect();
        for (const TickGap& gap : data.gaps) {
            const int x = int(view.xOfTime(gap.startNs + (gap.endNs - gap.startNs) / 2));
            for (int y = int(plot.bottom()) - 30; y < int(plot.bottom()) - 2; ++y) {
                const QColor pixel = image.pixelColor(x, y);
                for (const auto& layer : view.layers())
                    QVERIFY2(std::abs(pixel.red() - layer.color.red()) +
                                     std::abs(pixel.green() - layer.color.green()) +
                                     std::abs(pixel.blue() - layer.color.blue()) >
                                 40,
                             qPrintable(QStringLiteral("layer %1 drawn in the gap at x=%2 y=%3")
                                            .arg(layer.name)
                                            .arg(x)
                                            .arg(y)));
            }
            // and a logged tick beside it is drawn: the bottom layer's colour is there
            const int xTick = int(view.xOfTime(data.ticks.timestampNs[gap.beforeTick])) - 1;
            const QColor bottom = image.pixelColor(xTick, int(plot.bottom()) - 3);
            QVERIFY2(bottom != view.palette().color(QPalette::Base), "no area at a logged tick");
        }
        QVERIFY(view.gapToolTip(data.gaps.front()).contains(QStringLiteral("not logged")));
        QVERIFY(view.gapToolTip(data.gaps.front())
                    .contains(BudgetBreakdownView::ticksNotLoggedText(data.gaps.front().missingTicks)));
    }

    void toolTipHasEveryValue()
    {
        const auto result = analyse(QStringLiteral("leak.text"));
        QVERIFY(result);
        BudgetBreakdownView view;
        view.setAnalysis(result);
        const BudgetTicks& t = result->data->ticks;
        const size_t tick = t.size() / 2;
        const QString tip = view.tickToolTip(tick);
        QVERIFY(tip.contains(QString::fromStdString(formatBytes(double(t.rssBytes[tick])))));
        QVERIFY(tip.contains(QString::fromStdString(formatBytes(double(t.targetBytes[tick])))));
        QVERIFY(tip.contains(QString::fromStdString(formatBytes(double(t.jeRetainedBytes[tick])))));
        QVERIFY(
            tip.contains(QString::fromStdString(formatBytes(double(result->buckets.nonCacheOther[tick])))));
        for (const auto& layer : view.layers())
            QVERIFY2(tip.contains(layer.name.toHtmlEscaped()), qPrintable(layer.name));
        QVERIFY(tip.contains(QStringLiteral("jemalloc retained")));
        QVERIFY(tip.contains(QString::fromStdString(t.labelOf(tick))));
        QVERIFY(view.tickToolTip(t.size()).isEmpty());
    }

    void interaction()
    {
        const auto result = analyse(QStringLiteral("leak.text"));
        QVERIFY(result);
        BudgetBreakdownView view;
        view.resize(900, 400);
        view.setAnalysis(result);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto& times = result->data->ticks.timestampNs;
        QCOMPARE(view.visibleBeginNs(), times.front());
        QCOMPARE(view.visibleEndNs(), times.back());
        const QRectF plot = view.plotRect();

        // a click asks for the cursor at the nearest logged tick
        QSignalSpy cursor(&view, &BudgetBreakdownView::cursorRequested);
        const QPoint middle(int(plot.center().x()), int(plot.center().y()));
        QTest::mouseClick(&view, Qt::LeftButton, {}, middle);
        QCOMPARE(cursor.count(), 1);
        QVERIFY(std::binary_search(times.begin(), times.end(), cursor.front().front().toLongLong()));

        // Shift+drag selects a range
        QSignalSpy range(&view, &BudgetBreakdownView::rangeSelected);
        const QPoint a(int(plot.left() + plot.width() * 0.25), middle.y());
        const QPoint b(int(plot.left() + plot.width() * 0.6), middle.y());
        QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, a);
        QMouseEvent move(QEvent::MouseMove, b, view.mapToGlobal(b), Qt::LeftButton, Qt::LeftButton,
                         Qt::ShiftModifier);
        QApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, b);
        QCOMPARE(range.count(), 1);
        QVERIFY(std::abs(range.front()[0].toLongLong() - view.timeOfX(a.x())) <= 1);
        QVERIFY(std::abs(range.front()[1].toLongLong() - view.timeOfX(b.x())) <= 1);

        // the wheel zooms about the mouse, reset shows the whole log
        QSignalSpy visible(&view, &BudgetBreakdownView::visibleRangeChanged);
        QWheelEvent wheel(QPointF(middle), view.mapToGlobal(QPointF(middle)), {}, QPoint(0, 240),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QCOMPARE(visible.count(), 1);
        QVERIFY(view.visibleEndNs() - view.visibleBeginNs() < times.back() - times.front());
        view.resetZoom();
        QCOMPARE(view.visibleBeginNs(), times.front());
        QCOMPARE(view.visibleEndNs(), times.back());
    }

    void decimatesLongLogs()
    {
        const auto data = syntheticLog(50'000);
        BudgetBreakdownView view;
        view.resize(600, 300);
        view.setAnalysis(runBudgetAnalysis(data, BudgetThresholds{}));
        QImage image(view.size(), QImage::Format_ARGB32);
        view.render(&image);
        const size_t columns = size_t(view.plotRect().width()) + 1;
        QVERIFY(view.drawnTickCount() > columns / 2);
        // the min and the max of the stack top per pixel column, plus the ends
        QVERIFY2(view.drawnTickCount() <= 2 * columns + 2,
                 qPrintable(QString::number(view.drawnTickCount())));
        // zoomed in far enough, every tick is drawn
        view.setVisibleRange(data->ticks.timestampNs[100], data->ticks.timestampNs[200]);
        view.render(&image);
        QVERIFY(view.drawnTickCount() >= 101);
        QVERIFY(view.drawnTickCount() <= 103);
    }

    void exportsHeadless()
    {
        const auto result = analyse(QStringLiteral("retention.text"));
        QVERIFY(result);
        const QSize size(800, 400);
        const auto chart = createExportBudgetChart(result, size);
        const QByteArray png = chartPng(chart.get(), size);
        QVERIFY(png.startsWith("\x89PNG"));
        QCOMPARE(QImage::fromData(png).size(), size);
        const QByteArray svg = chartSvg(chart.get(), size, QStringLiteral("Memory breakdown"));
        QVERIFY(svg.contains("<svg"));
        QVERIFY(svg.contains("Memory breakdown"));

        BudgetExportInput input{result->data, result->findings, result->thresholds};
        for (ExportFormat format : {ExportFormat::Png, ExportFormat::Svg, ExportFormat::Html}) {
            QVERIFY(budgetExportSupports(format));
            const ExportOutcome out = renderBudgetExport(input, format, size);
            QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
            QVERIFY(!out.data.isEmpty());
        }
        QCOMPARE(QImage::fromData(renderBudgetExport(input, ExportFormat::Png, size).data).size(), size);
        QVERIFY(renderBudgetExport(input, ExportFormat::Html, size).data.contains("data:image/svg+xml"));
    }

    void emptyAndCleared()
    {
        BudgetBreakdownView view;
        view.resize(400, 300);
        QImage image(view.size(), QImage::Format_ARGB32);
        view.render(&image); // nothing loaded: a message, no crash
        QCOMPARE(view.drawnTickCount(), size_t(0));
        view.setAnalysis(analyse(QStringLiteral("leak.text")));
        QVERIFY(!view.layers().empty());
        view.setAnalysis(nullptr);
        QVERIFY(view.layers().empty());
        QVERIFY(view.segments().empty());
        view.render(&image);
    }
};

QTEST_MAIN(TestBudgetBreakdownView)
#include "tst_budgetbreakdownview.moc"
