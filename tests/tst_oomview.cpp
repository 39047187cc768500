// The OOM bundle opened in the window: the gap chart marks the OOM at its time with a red line
// labelled "OOM: <reason>" that explains itself in the tooltip, the timeline marks it too, and
// the summary leads with it (headline, the exception's message, key facts, and metadata.json
// and environment.json as trees). An error event that is not the OOM's own gets a tick.
// GAPSCOPE_OOM_PNG_DIR=folder saves the window on the chart and on the summary (chart.png,
// summary.png).
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "model/document/Document.h"
#include "tests/WindowAccess.h"
#include "widgets/common/SummaryView.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QChart>
#include <QChartView>
#include <QDir>
#include <QStandardPaths>
#include <QTest>
#include <QTreeWidget>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString bundleFolder()
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR
                          "/fixtures/real-gpu/oom/oom_dumps/oom_dump_20261204T172219Z_601_cuda_1");
}

void savePng(QWidget& window, const QString& name)
{
    const QByteArray folder = qgetenv("GAPSCOPE_OOM_PNG_DIR");
    if (folder.isEmpty())
        return;
    QVERIFY(QDir().mkpath(QString::fromLocal8Bit(folder)));
    QVERIFY(window.grab().save(QDir(QString::fromLocal8Bit(folder)).filePath(name)));
}

} // namespace

class TestOomView : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // recent files go to a test folder
    }

    void bundleInTheWindow()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openPath(bundleFolder());
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        const auto& trace = *front(window).analysis()->trace;
        QCOMPARE(trace.ooms.size(), size_t(1));
        const int64_t oomNs = *trace.ooms[0].timeNs;
        TracePage* page = front(window).tracePage();

        // the summary leads with the OOM
        QVERIFY(page->isSummaryShown());
        const SummaryContent& content = page->summaryView()->content();
        QCOMPARE(content.ooms.size(), size_t(1));
        QVERIFY2(content.ooms[0].headline.startsWith(QStringLiteral("Out of memory at +1.0")),
                 qPrintable(content.ooms[0].headline));
        QVERIFY(content.ooms[0].headline.endsWith(QStringLiteral("torch.cuda.OutOfMemoryError")));
        QCOMPARE(content.ooms[0].message, trace.ooms[0].exceptionMessage);
        const QList<QTreeWidget*> trees = page->summaryView()->oomTrees();
        QCOMPARE(trees.size(), 1);
        QVERIFY(trees[0]->isVisible());
        QCOMPARE(trees[0]->topLevelItemCount(), 3);
        QCOMPARE(trees[0]->topLevelItem(0)->text(0), QStringLiteral("Key facts"));
        QVERIFY(trees[0]->topLevelItem(0)->isExpanded());
        QCOMPARE(trees[0]->topLevelItem(1)->text(0), QStringLiteral("metadata.json"));
        QCOMPARE(trees[0]->topLevelItem(2)->text(0), QStringLiteral("environment.json"));
        // metadata.json as written: custom_metadata.tracker_stats.peak_memory
        const QList<QTreeWidgetItem*> peak =
            trees[0]->findItems(QStringLiteral("peak_memory"), Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(peak.size(), 1);
        QCOMPARE(peak[0]->text(1), QStringLiteral("2952790016"));
        QCOMPARE(peak[0]->parent()->text(0), QStringLiteral("tracker_stats"));
        savePng(window, QStringLiteral("summary.png"));

        // the chart: a red line at the OOM, labelled, inside the plot
        page->showChart();
        GapChartView* chart = page->chart();
        QVERIFY(QTest::qWaitFor([&] { return !chart->eventMarkers().isEmpty(); }, 5000));
        const QList<GapChartView::EventMarker> markers = chart->eventMarkers();
        QCOMPARE(markers.size(), 1); // the one error event is the OOM's own: no tick of its own
        QVERIFY(markers[0].oom);
        QCOMPARE(markers[0].timeNs, oomNs);
        QCOMPARE(markers[0].label, QStringLiteral("OOM: torch.cuda.OutOfMemoryError"));
        QVERIFY(markers[0].toolTip.contains(trace.ooms[0].exceptionMessage));
        auto* chartView = chart->findChild<QChartView*>();
        const QRectF plot = chartView->chart()->plotArea();
        QVERIFY2(plot.contains(markers[0].rect), "the label lies inside the plot");

        // the timeline marks it at its time
        QCOMPARE(page->scrubber()->oomMarkerTimes(), std::vector<qint64>{oomNs});
        savePng(window, QStringLiteral("chart.png"));
    }

    // An error event that is not an OOM's: a tick, its context in the tooltip.
    void errorEventTick()
    {
        // the bundle's events without its OOM facts: events.json loaded as a plain trace
        LoadOutcome loaded =
            loadTrace(bundleFolder() + QStringLiteral("/events.json"), {}, [](TraceData&) {});
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        QVERIFY(loaded.data->ooms.empty());
        auto result = runAnalysis(loaded.data, AnalysisRequest{});
        QVERIFY(result);
        GapChartView chart;
        chart.resize(1000, 420);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setAnalysis(result);
        QVERIFY(QTest::qWaitFor([&] { return !chart.eventMarkers().isEmpty(); }, 5000));
        const QList<GapChartView::EventMarker> markers = chart.eventMarkers();
        QCOMPARE(markers.size(), 1);
        QVERIFY(!markers[0].oom);
        QVERIFY(markers[0].label.isEmpty());
        QCOMPARE(markers[0].toolTip,
                 QStringLiteral("Error event: OOM detected (torch.cuda.OutOfMemoryError)"));
    }
};

QTEST_MAIN(TestOomView)
#include "tst_oomview.moc"
