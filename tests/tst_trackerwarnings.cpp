// The tracker's own warnings and the allocator fragmentation they point at, in the window, on
// the real frag capture (cut copy): the finding on the summary page and in the findings pane,
// the warnings as a lane along the bottom of the gap chart, clustered per few pixels at any
// width (54 warnings in a second stay apart from each other and readable), each cluster's
// tooltip quoting the tracker's text and stormlog's fragmentation share, and an overlay
// toggle that hides the lane. GAPSCOPE_SHOT_DIR=folder saves the chart (frag_chart.png).
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "model/items/FindingsModel.h"
#include "model/trace/TraceLoader.h"
#include "tests/WindowAccess.h"
#include "widgets/common/SummaryView.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QDir>
#include <QStandardPaths>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString fixture(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/") + relative;
}

void savePng(QWidget& window, const QString& name)
{
    const QByteArray folder = qgetenv("GAPSCOPE_SHOT_DIR");
    if (folder.isEmpty())
        return;
    QVERIFY(QDir().mkpath(QString::fromLocal8Bit(folder)));
    QVERIFY(window.grab().save(QDir(QString::fromLocal8Bit(folder)).filePath(name)));
}

int warningsIn(const AnalysisResult& result)
{
    return int(std::count_if(result.trackerWarnings.begin(), result.trackerWarnings.end(),
                             [](const TrackerWarning& w) { return w.type != EventType::Error; }));
}

} // namespace

class TestTrackerWarnings : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void lane_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("warnings");
        QTest::addColumn<bool>("fragmentationFinding");

        QTest::newRow("frag, wide") << fixture("frag/telemetry_sink") << 1400 << 54 << true;
        QTest::newRow("frag, narrow") << fixture("frag/telemetry_sink") << 520 << 54 << true;
        QTest::newRow("truth: a few, no finding")
            << fixture("single/truth/telemetry_sink") << 1400 << 10 << false;
    }

    void lane()
    {
        QFETCH(QString, path);
        QFETCH(int, width);
        QFETCH(int, warnings);
        QFETCH(bool, fragmentationFinding);

        MainWindow window;
        window.resize(width, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openPath(path);
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        const AnalysisResult& result = *front(window).analysis();
        QCOMPARE(warningsIn(result), warnings);
        TracePage* page = front(window).tracePage();

        // the finding where findings are: the summary page and the findings pane
        const SummaryContent& summary = page->summaryView()->content();
        const bool onSummary =
            std::any_of(summary.findings.begin(), summary.findings.end(), [](const SummaryFinding& f) {
                return f.title == QStringLiteral("Allocator fragmentation");
            });
        QCOMPARE(onSummary, fragmentationFinding);
        bool inPane = false;
        const FindingsModel* model = page->findingsModel();
        for (int row = 0; row < model->rowCount(); ++row)
            for (int column = 0; column < model->columnCount(); ++column)
                inPane = inPane ||
                         model->index(row, column).data().toString().contains(QStringLiteral("ragmentation"));
        QCOMPARE(inPane, fragmentationFinding);

        page->showChart();
        GapChartView* chart = page->chart();
        QVERIFY(QTest::qWaitFor([&] { return !chart->trackerWarningMarks().isEmpty(); }, 5000));
        const QList<GapChartView::TrackerWarningMark> marks = chart->trackerWarningMarks();
        // every warning in one mark or another, none twice
        int counted = 0;
        for (const auto& mark : marks) {
            counted += mark.count;
            QVERIFY(mark.firstNs <= mark.lastNs);
            QVERIFY(!mark.critical); // stormlog's warnings here are all `warning` events
        }
        QCOMPARE(counted, warnings);
        // clusters: marks never overlap, so each stays readable however many there are
        for (int i = 1; i < marks.size(); ++i)
            QVERIFY2(
                marks[i].rect.left() > marks[i - 1].rect.right(),
                qPrintable(QStringLiteral("%1 %2").arg(marks[i - 1].rect.right()).arg(marks[i].rect.left())));
        // at most one mark per few pixels of the plot, however many warnings
        QVERIFY2(marks.size() <= int(chart->width() / GapChartView::kTrackerWarningClusterPx) + 1,
                 qPrintable(QString::number(marks.size())));

        // the tooltip on a mark: the tracker's words and the share it measured
        const GapChartView::TrackerWarningMark& first = marks.front();
        const QString tip = chart->trackerWarningToolTip(first.firstNs);
        const auto firstWarning =
            std::find_if(result.trackerWarnings.begin(), result.trackerWarnings.end(),
                         [&](const TrackerWarning& w) { return w.timeNs == first.firstNs; });
        QVERIFY(firstWarning != result.trackerWarnings.end());
        QVERIFY2(tip.contains(firstWarning->context), qPrintable(tip));
        QCOMPARE(tip.contains(QStringLiteral("(fragmentation ")), firstWarning->fragmentation.has_value());
        if (fragmentationFinding)
            QVERIFY2(tip.contains(QStringLiteral("High fragmentation")), qPrintable(tip));
        if (first.count > 1)
            QVERIFY2(tip.contains(QStringLiteral("%1 tracker warnings").arg(first.count)), qPrintable(tip));
        // far from every warning: nothing
        QVERIFY(chart
                    ->trackerWarningToolTip(result.trace->store.timestampNs[result.partition.begin] -
                                            1'000'000'000)
                    .isEmpty());

        if (fragmentationFinding)
            savePng(window, QStringLiteral("frag_chart_%1.png").arg(width));

        // the overlay toggle hides the lane, and brings it back
        QAction* toggle = nullptr;
        for (const auto& [overlay, action] : page->overlayActions())
            if (overlay == ChartOverlay::TrackerWarnings)
                toggle = action;
        QVERIFY(toggle);
        QVERIFY(toggle->isChecked());
        toggle->setChecked(false);
        chart->grab();
        QVERIFY(chart->trackerWarningMarks().isEmpty());
        QVERIFY(chart->trackerWarningToolTip(first.firstNs).isEmpty());
        toggle->setChecked(true);
        chart->grab();
        QCOMPARE(chart->trackerWarningMarks().size(), marks.size());
    }

    // Squeezed into a narrow chart, 54 warnings in one second become a few clusters, each one
    // counting its warnings and saying the range of stormlog's fragmentation share.
    void clustersWhenNarrow()
    {
        const LoadOutcome loaded = loadTrace(fixture("frag/telemetry_sink"));
        QVERIFY(loaded.data);
        const auto result = runAnalysis(loaded.data, AnalysisRequest{});
        QVERIFY(result);
        GapChartView chart;
        chart.resize(280, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setAnalysis(result);
        QVERIFY(QTest::qWaitFor([&] { return !chart.trackerWarningMarks().isEmpty(); }, 5000));
        const QList<GapChartView::TrackerWarningMark> marks = chart.trackerWarningMarks();
        QVERIFY2(marks.size() < 54, qPrintable(QString::number(marks.size())));
        int counted = 0;
        const GapChartView::TrackerWarningMark* largest = &marks.front();
        for (const auto& mark : marks) {
            counted += mark.count;
            if (mark.count > largest->count)
                largest = &mark;
        }
        QCOMPARE(counted, 54);
        QVERIFY(largest->count > 1);
        const QString tip = chart.trackerWarningToolTip((largest->firstNs + largest->lastNs) / 2);
        QVERIFY2(tip.contains(QStringLiteral("%1 tracker warnings").arg(largest->count)), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral(" · fragmentation ")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("more")) || largest->count <= 4, qPrintable(tip));
    }
};

QTEST_MAIN(TestTrackerWarnings)
#include "tst_trackerwarnings.moc"
