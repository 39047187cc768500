// The main window with memory-budget logs: opened like traces (background load, recent files,
// screenshots), findings with their evidence tick, the tick at the cursor, window analysis,
// exports; a trace opened afterwards goes to a tab of its own, in front of the budget log.
#include "app/ExportActions.h"
#include "app/Gui.h"
#include "app/MainWindow.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/TracePage.h"
#include "model/items/FindingsModel.h"
#include "model/report/ReportContent.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/budget/BudgetTickDetailView.h"
#include "widgets/budget/VerdictLane.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString budgetPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/") + name;
}

bool waitBudget(MainWindow& window)
{
    return QTest::qWaitFor([&] { return !window.isBusy() && front(window).budgetAnalysis() != nullptr; },
                           kLoadTimeoutMs);
}

QStringList shownClassifications(MainWindow& window)
{
    QStringList keys;
    FindingsModel* model = front(window).findingsModel();
    for (int row = 0; row < model->rowCount(); ++row)
        keys << model->index(row, 0).data(FindingsModel::ClassificationKeyRole).toString();
    return keys;
}

} // namespace

class TestMainWindowBudget : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_budget")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void init() { QSettings().clear(); }

    void opensBudgetLogs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("leak text") << QStringLiteral("leak.text") << QStringLiteral("leak_outside_caches");
        QTest::newRow("leak json") << QStringLiteral("leak.json") << QStringLiteral("leak_outside_caches");
        QTest::newRow("wedge") << QStringLiteral("wedge_info_only.text") << QStringLiteral("wedged_budget");
        QTest::newRow("lease") << QStringLiteral("lease_healthy.text") << QStringLiteral("lease_pressure");
    }

    // A lease window in a retention run is lease pressure, listed by its name after the
    // retention finding that needs action.
    void leasePressureInTheFindingsList()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(QStringLiteral("lease_retention.jsonl")));
        QVERIFY(waitBudget(window));
        QCOMPARE(shownClassifications(window),
                 (QStringList{QStringLiteral("allocator_retention"), QStringLiteral("lease_pressure")}));
        const QAbstractItemModel* shown = front(window).findingsView()->model();
        QCOMPARE(shown->rowCount(), 2);
        QCOMPARE(shown->index(1, FindingsModel::ClassificationColumn).data().toString(),
                 QStringLiteral("Lease pressure"));
        QCOMPARE(shown->index(1, FindingsModel::SeverityColumn).data().toString(), QStringLiteral("Info"));
        // the most severe finding is selected first
        QCOMPARE(front(window).detailView()->findingIndex(), 0);
    }

    void opensBudgetLogs()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(name));
        QVERIFY(waitBudget(window));
        QVERIFY(front(window).isBudgetShown());
        QVERIFY(!front(window).trace());
        QVERIFY(!window.isWelcomeShown());
        // a log opens on its summary (tst_summarypage); the chart is one click away
        QVERIFY(front(window).budgetPage()->isSummaryShown());
        front(window).budgetPage()->showChart();
        QVERIFY(front(window).budgetChart()->isVisible());
        QVERIFY(front(window).verdictLane()->isVisible());
        QVERIFY(front(window).tickDetailView()->isVisible());
        QVERIFY(!front(window).chart()->isVisible());
        const QStringList keys = shownClassifications(window);
        QVERIFY2(keys.contains(expected), qPrintable(keys.join(QLatin1Char(','))));
        QCOMPARE(front(window).findingsModel()->rowCount(),
                 int(front(window).budgetAnalysis()->findings.size()));
        QVERIFY(window.windowTitle().contains(name));
        QCOMPARE(window.recentFiles().value(0), budgetPath(name));
        QVERIFY(window.exportActions()->exportReportAction()->isEnabled());
        QVERIFY(window.cursorValuesText().contains(QStringLiteral("verdict")));

        // the most severe finding is selected; the cursor sits on its evidence tick
        const int selected = front(window).detailView()->findingIndex();
        QCOMPARE(selected, 0);
        const Finding* finding = front(window).findingsModel()->finding(0);
        QVERIFY(finding);
        QCOMPARE(front(window).verdictLane()->cursorTime(), finding->evidenceTimestampNs);
        const auto tick = front(window).tickDetailView()->tick();
        QVERIFY(tick);
        QCOMPARE(front(window).budgetData()->ticks.timestampNs[*tick], finding->evidenceTimestampNs);
        QVERIFY(
            front(window).detailView()->plainText().contains(classificationTitle(finding->classification)));
    }

    void findingSelectionMovesTheCursor()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(QStringLiteral("wedge_info_only.text")));
        QVERIFY(waitBudget(window));
        const int rows = front(window).findingsModel()->rowCount();
        QVERIFY(rows >= 1);
        for (int row = 0; row < rows; ++row) {
            front(window).selectFinding(row);
            const Finding* f = front(window).findingsModel()->finding(
                front(window).findingsView()->currentIndex().data(FindingsModel::FindingIndexRole).toInt());
            QVERIFY(f);
            QCOMPARE(front(window).budgetChart()->cursorTime(), f->evidenceTimestampNs);
            QCOMPARE(front(window).detailView()->findingIndex(), row);
        }
        QVERIFY(window.exportActions()->copyFindingAction()->isEnabled());
        QVERIFY(window.exportActions()->selectedFindingMarkdown().startsWith(QStringLiteral("###")) ||
                window.exportActions()->selectedFindingMarkdown().contains(QStringLiteral("###")));
    }

    void cursorShowsTheTick()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(QStringLiteral("leak.text")));
        QVERIFY(waitBudget(window));
        const BudgetTicks& t = front(window).budgetData()->ticks;
        front(window).setCursorTime(t.timestampNs[5] + 1); // snaps to the tick
        QCOMPARE(front(window).tickDetailView()->tick(), std::optional<size_t>(5));
        QCOMPARE(front(window).verdictLane()->cursorTime(), t.timestampNs[5]);
        QCOMPARE(front(window).budgetChart()->cursorTime(), t.timestampNs[5]);
        QVERIFY(front(window).tickDetailView()->plainText().contains(
            QStringLiteral("Tick 6 of %1").arg(t.size())));
        // the timeline's keys step ticks; the window's step actions too
        front(window).verdictLane()->setFocus();
        QTest::keyClick(front(window).verdictLane(), Qt::Key_Right);
        QCOMPARE(front(window).tickDetailView()->tick(), std::optional<size_t>(6));
        QAction* step = window.findChild<QAction*>(QStringLiteral("stepForwardFastAction"));
        QVERIFY(step && step->isEnabled());
        step->trigger();
        QCOMPARE(front(window).tickDetailView()->tick(), std::optional<size_t>(16));
        QVERIFY(window.cursorValuesText().contains(QStringLiteral("rss")));
    }

    void rangeSelectionAnalysesTheWindow()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(QStringLiteral("leak.text")));
        QVERIFY(waitBudget(window));
        front(window).budgetPage()->showChart();
        QVERIFY(!window.isWindowAnalysis());
        QVERIFY(window.windowBannerText().isEmpty());
        const size_t fullFindings = front(window).budgetAnalysis()->findings.size();
        const auto& times = front(window).budgetData()->ticks.timestampNs;
        // Shift+drag over the first ticks of the chart
        BudgetBreakdownView* chart = front(window).budgetChart();
        const QRectF plot = chart->plotRect();
        const QPoint a(int(chart->xOfTime(times[0])) + 1, int(plot.center().y()));
        const QPoint b(int(chart->xOfTime(times[5])) + 1, int(plot.center().y()));
        QTest::mousePress(chart, Qt::LeftButton, Qt::ShiftModifier, a);
        QMouseEvent move(QEvent::MouseMove, b, chart->mapToGlobal(b), Qt::LeftButton, Qt::LeftButton,
                         Qt::ShiftModifier);
        QApplication::sendEvent(chart, &move);
        QTest::mouseRelease(chart, Qt::LeftButton, Qt::ShiftModifier, b);
        QVERIFY(window.isWindowAnalysis());
        const auto windowResult = front(window).budgetAnalysis();
        QVERIFY(windowResult->window);
        QCOMPARE(windowResult->firstTick, size_t(1));
        QCOMPARE(windowResult->lastTick, size_t(6));
        QVERIFY2(window.windowBannerText().contains(QStringLiteral("Window analysis")),
                 qPrintable(window.windowBannerText()));
        QVERIFY(window.windowBannerText().contains(QStringLiteral("in 5 ticks")));
        // five ticks are too few for a trend: the leak is not claimed inside the window
        QVERIFY(!shownClassifications(window).contains(QStringLiteral("leak_outside_caches")));
        QAction* reset = window.findChild<QAction*>(QStringLiteral("resetWindowAction"));
        QVERIFY(reset && reset->isEnabled());
        reset->trigger();
        QVERIFY(!window.isWindowAnalysis());
        QVERIFY(window.windowBannerText().isEmpty());
        QCOMPARE(front(window).budgetAnalysis()->findings.size(), fullFindings);
    }

    void exportsFromTheWindow()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(QStringLiteral("retention.text")));
        QVERIFY(waitBudget(window));
        QTemporaryDir dir;
        QString error;
        const QString json = dir.filePath(QStringLiteral("report.json"));
        QVERIFY2(
            window.exportActions()->writeReport(json, ExportFormat::Json, QSize(800, 400), false, &error),
            qPrintable(error));
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(report.value(QStringLiteral("kind")).toString(), QStringLiteral("budget_log"));
        const QString png = dir.filePath(QStringLiteral("chart.png"));
        QCoreApplication::processEvents(); // the layout settles first: the chart as shown
        const QSize shown = front(window).budgetChart()->size();
        QVERIFY2(window.exportActions()->writeChart(png, ExportFormat::Png, false, &error),
                 qPrintable(error));
        QCOMPARE(QImage(png).size(), shown);
        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QVERIFY2(window.exportActions()->writeChart(svg, ExportFormat::Svg, false, &error),
                 qPrintable(error));
        // the chart's context menu and the File menu carry the actions
        QVERIFY(front(window).budgetChart()->actions().contains(window.exportActions()->saveChartAction()));
        QVERIFY(
            front(window).findingsView()->actions().contains(window.exportActions()->copyFindingAction()));
        QVERIFY(window.exportActions()->exportReportAction()->shortcut() ==
                QKeySequence(Qt::CTRL | Qt::Key_E));
    }

    void traceAfterBudgetAndBack()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(budgetPath(QStringLiteral("leak.text")));
        QVERIFY(waitBudget(window));
        window.openPath(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl"));
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis() != nullptr; },
                                kLoadTimeoutMs));
        QVERIFY(!front(window).isBudgetShown());
        QVERIFY(!front(window).budgetAnalysis());
        QVERIFY(front(window).tracePage()->isSummaryShown()); // opens on its summary
        front(window).tracePage()->showChart();
        QVERIFY(front(window).chart()->isVisible());
        QVERIFY(!front(window).budgetChart()->isVisible());
        QVERIFY(!front(window).tickDetailView()->isVisible());
        QVERIFY(!shownClassifications(window).contains(QStringLiteral("leak_outside_caches")));
        window.openPath(budgetPath(QStringLiteral("wedge_info_only.text")));
        QVERIFY(waitBudget(window));
        QVERIFY(!front(window).trace());
        QVERIFY(shownClassifications(window).contains(QStringLiteral("wedged_budget")));
        // each file opened in a tab of its own: Ctrl+W closes them one by one, the last to the
        // welcome page
        QCOMPARE(window.tabs()->count(), 3);
        window.closeTrace();
        QVERIFY(front(window).trace()); // the trace's tab is in front again
        QVERIFY(!front(window).isBudgetShown());
        while (window.tabs()->count() > 1)
            window.closeTrace();
        window.closeTrace();
        QVERIFY(window.isWelcomeShown());
        QVERIFY(!front(window).isBudgetShown());
        QCOMPARE(front(window).findingsModel()->rowCount(), 0);
    }

    void screenshotOfABudgetLog()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("budget.png"));
        QString error;
        QCOMPARE(
            renderScreenshot(budgetPath(QStringLiteral("retention.text")), out, QSize(1000, 700), &error), 0);
        QCOMPARE(QImage(out).size(), QSize(1000, 700));
        MainWindow window;
        QVERIFY(window.showTraceNow(budgetPath(QStringLiteral("leak.jsonl")), &error));
        QVERIFY(front(window).isBudgetShown());
        QVERIFY(shownClassifications(window).contains(QStringLiteral("leak_outside_caches")));
    }
};

QTEST_MAIN(TestMainWindowBudget)
#include "tst_mainwindow_budget.moc"
