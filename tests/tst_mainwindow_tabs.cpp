// Several documents in one window: a second file opens in a new tab (the tab bar shows from
// two on), each tab keeps its own view state (zoom, cursor), the title follows the tab in
// front, Ctrl+Tab / Ctrl+Shift+Tab switch, Ctrl+W closes the tab in front (the last one is
// emptied to the welcome page), reopening the file shown reloads it in place, and a file
// that fails to load leaves no tab behind.
#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString parityPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name;
}

QString budgetPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/") + name;
}

bool waitIdle(MainWindow& window)
{
    return QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs);
}

QAction* action(MainWindow& window, const char* name)
{
    return window.findChild<QAction*>(QLatin1String(name));
}

} // namespace

class TestMainWindowTabs : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_tabs")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void init() { QSettings().clear(); }

    void twoFilesInTwoTabs()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTabWidget* tabs = window.tabs();
        QCOMPARE(tabs->count(), 1);
        QVERIFY(!tabs->tabBar()->isVisible()); // one document: no tab bar

        QString error;
        QVERIFY2(window.showTraceNow(parityPath(QStringLiteral("drift.jsonl")), &error), qPrintable(error));
        DocumentTab* first = window.currentTab();
        QCOMPARE(tabs->count(), 1);
        QCOMPARE(window.windowTitle(), QStringLiteral("drift.jsonl — gapscope"));
        TracePage* firstPage = front(window).tracePage();
        const qint64 firstBegin = firstPage->viewState()->visibleRange().beginNs;
        const qint64 firstEnd = firstPage->viewState()->visibleRange().endNs;
        QVERIFY(firstEnd > firstBegin);
        firstPage->setCursorTime(firstBegin + (firstEnd - firstBegin) / 3);

        // the second file in a tab of its own, in front
        QVERIFY2(window.showTraceNow(parityPath(QStringLiteral("spikes.jsonl")), &error), qPrintable(error));
        QCOMPARE(tabs->count(), 2);
        QVERIFY(tabs->tabBar()->isVisible());
        DocumentTab* second = window.currentTab();
        QVERIFY(second != first);
        QVERIFY(front(window).tracePage() != firstPage);
        QCOMPARE(window.windowTitle(), QStringLiteral("spikes.jsonl — gapscope"));
        QCOMPARE(tabs->tabText(0), QStringLiteral("drift.jsonl"));
        QCOMPARE(tabs->tabText(1), QStringLiteral("spikes.jsonl"));
        QCOMPARE(tabs->tabToolTip(1), parityPath(QStringLiteral("spikes.jsonl")));
        QVERIFY(front(window).trace()->path.endsWith(QStringLiteral("spikes.jsonl")));
        QVERIFY(front(window).chart()->isVisible());
        QVERIFY(!firstPage->isVisible());

        // each tab its own view state: zoom the second, the first keeps its range and cursor
        ViewState* secondView = front(window).tracePage()->viewState();
        const TimeRange full = secondView->visibleRange();
        const qint64 quarter = (full.endNs - full.beginNs) / 4;
        secondView->zoomTo(full.beginNs + quarter, full.endNs - quarter);
        QCOMPARE(front(window).chart()->visibleBeginNs(), full.beginNs + quarter);

        QAction* next = action(window, "nextTabAction");
        QAction* previous = action(window, "previousTabAction");
        QVERIFY(next && previous && next->isEnabled());
        QVERIFY(next->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Tab)));
        next->trigger(); // wraps around to the first
        QCOMPARE(window.currentTab(), first);
        QCOMPARE(window.windowTitle(), QStringLiteral("drift.jsonl — gapscope"));
        QVERIFY(front(window).trace()->path.endsWith(QStringLiteral("drift.jsonl")));
        QCOMPARE(front(window).chart()->visibleBeginNs(), firstBegin);
        QCOMPARE(front(window).chart()->visibleEndNs(), firstEnd);
        QCOMPARE(front(window).tracePage()->viewState()->cursorNs(),
                 firstBegin + (firstEnd - firstBegin) / 3);
        QVERIFY(front(window).chart()->isVisible());

        // the keys themselves, wherever the focus is in the window
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(front(window).chart(), Qt::Key_Tab, Qt::ControlModifier);
        QCOMPARE(window.currentTab(), second);
        QTest::keyClick(front(window).chart(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(window.currentTab(), first);

        previous->trigger();
        QCOMPARE(window.currentTab(), second);
        QCOMPARE(front(window).chart()->visibleBeginNs(), full.beginNs + quarter);

        // a measured span is in the status bar while its tab is in front
        front(window).chart()->measureRange(full.beginNs + quarter, full.endNs - quarter);
        const QString measured = window.statusBar()->currentMessage();
        QVERIFY2(measured.startsWith(QStringLiteral("Δt ")), qPrintable(measured));
        next->trigger();
        QVERIFY(window.statusBar()->currentMessage().isEmpty());
        previous->trigger();
        QCOMPARE(window.statusBar()->currentMessage(), measured);
        QVERIFY(front(window).tracePage()->viewState()->canZoomBack()); // its own zoom history

        // the Phases dock shows the tree of the tab in front
        auto* phasesDock = window.findChild<QDockWidget*>(QStringLiteral("phasesDock"));
        QVERIFY(phasesDock);
        QVERIFY(front(window).phasesView()->isVisibleTo(phasesDock) || !phasesDock->isVisible());
        QVERIFY(!first->tracePage()->phasesView()->isVisibleTo(phasesDock));

        // opening the file shown again reloads it in its tab
        QVERIFY(window.showTraceNow(parityPath(QStringLiteral("spikes.jsonl")), &error));
        QCOMPARE(tabs->count(), 2);
        QCOMPARE(window.currentTab(), second);

        // Ctrl+W closes the tab in front; the other comes to the front
        QPointer<DocumentTab> closed(second);
        window.closeTrace();
        QCOMPARE(tabs->count(), 1);
        QCOMPARE(window.currentTab(), first);
        QCOMPARE(window.windowTitle(), QStringLiteral("drift.jsonl — gapscope"));
        QVERIFY(!tabs->tabBar()->isVisible());
        QTRY_VERIFY(!closed); // deleted
        QVERIFY(!next->isEnabled());

        // the last tab is emptied, not removed
        window.closeTrace();
        QCOMPARE(tabs->count(), 1);
        QVERIFY(window.isWelcomeShown());
        QCOMPARE(window.windowTitle(), QStringLiteral("gapscope"));
    }

    // Files opened the usual way (background load): the second goes to a new tab when it has
    // loaded; a budget log is a tab like a trace; the tab close button closes a tab behind.
    void backgroundLoadsOpenTabs()
    {
        MainWindow window;
        window.show();
        window.openPath(parityPath(QStringLiteral("mixed.jsonl")));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.tabs()->count(), 1);
        window.openPath(budgetPath(QStringLiteral("leak.jsonl")));
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).budgetAnalysis(); },
                                kLoadTimeoutMs));
        QCOMPARE(window.tabs()->count(), 2);
        QVERIFY(front(window).isBudgetShown());
        QCOMPARE(window.windowTitle(), QStringLiteral("leak.jsonl — gapscope"));
        // the trace's tab still holds its trace and analysis
        auto* first = qobject_cast<DocumentTab*>(window.tabs()->widget(0));
        QVERIFY(first && first->tracePage()->analysis());
        QVERIFY(first->tracePage()->trace()->path.endsWith(QStringLiteral("mixed.jsonl")));

        // a third, then the close button of the first (behind) removes it
        window.openPath(parityPath(QStringLiteral("quiet.jsonl")));
        QVERIFY(QTest::qWaitFor(
            [&] { return !window.isBusy() && window.tabs()->count() == 3 && front(window).analysis(); },
            kLoadTimeoutMs));
        DocumentTab* front = window.currentTab();
        emit window.tabs()->tabCloseRequested(0);
        QCOMPARE(window.tabs()->count(), 2);
        QCOMPARE(window.currentTab(), front);
        QVERIFY(gapscope::front(window).trace()->path.endsWith(QStringLiteral("quiet.jsonl")));
    }

    void failedLoadLeavesNoTab_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("not a trace") << QByteArray("this is not a trace\n");
        // a stormlog trace none of whose records can be used: loaded, then refused
        QTest::newRow("no usable event") << QByteArray("{\"schema_version\": 3, \"event_type\": \"sample\"}\n"
                                                       "{\"schema_version\": 3, \"timestamp_ns\": \"x\"}\n");
    }

    void failedLoadLeavesNoTab()
    {
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();

        MainWindow window;
        window.show();
        QString error;
        QVERIFY(window.showTraceNow(parityPath(QStringLiteral("drift.jsonl")), &error));
        QVERIFY(!window.showTraceNow(bad, &error));
        QCOMPARE(window.tabs()->count(), 1);
        QVERIFY(front(window).trace()->path.endsWith(QStringLiteral("drift.jsonl")));
        QCOMPARE(window.windowTitle(), QStringLiteral("drift.jsonl — gapscope"));

        window.openPath(bad);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy(); }, kLoadTimeoutMs));
        QTest::qWait(50);
        QCOMPARE(window.tabs()->count(), 1);
        QVERIFY(front(window).trace()->path.endsWith(QStringLiteral("drift.jsonl")));
    }
};

QTEST_MAIN(TestMainWindowTabs)
#include "tst_mainwindow_tabs.moc"
