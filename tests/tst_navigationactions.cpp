// The navigation actions (app/NavigationActions): made once per window with their shortcuts,
// found in the menus, and shared by every page: each goes to the page in front. With one
// document in a tab behind and another in front (a trace and a budget log, either way round),
// an action changes what the page in front shows and leaves the tab behind as it was.
#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/NavigationActions.h"
#include "app/pages/DocumentPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "tests/OwnSettings.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace gapscope;

Q_DECLARE_METATYPE(gapscope::Navigation)

namespace {

QString fixture(const QString& kind)
{
    return kind == QLatin1String("trace")
               ? QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/phasespike.jsonl")
               : QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/budget_mixed.text");
}

// What a page shows that a navigation action may change.
struct Shown
{
    TimeRange range;
    size_t zoomStep = 0;
    qint64 cursorNs = 0;
    int findingRow = -1;
    bool summary = false;
    bool windowAnalysis = false;
    int bookmarks = 0;
    int phaseRow = -1;
    bool operator==(const Shown&) const = default;
};

Shown shownBy(const DocumentPage* page)
{
    Shown shown;
    shown.range = page->viewState()->visibleRange();
    shown.zoomStep = page->viewState()->zoomStep();
    shown.cursorNs = page->viewState()->cursorNs();
    shown.findingRow = page->findingsView()->currentIndex().row();
    shown.summary = page->isSummaryShown();
    shown.windowAnalysis = page->isWindowAnalysis();
    if (const auto* bookmarks = qobject_cast<const QTableView*>(page->bookmarksPane()))
        shown.bookmarks = bookmarks->model()->rowCount();
    if (const auto* trace = qobject_cast<const TracePage*>(page))
        shown.phaseRow = trace->phasesView()->currentIndex().row();
    return shown;
}

// What is set up on the page in front before the action.
enum class Before
{
    Nothing,
    NoFindingSelected,
    ZoomedIn,
    ZoomedInAndBack,
    WindowAnalysed,
    TwoBookmarks,
};

QMenu* menuTitled(const MainWindow& window, const QString& title)
{
    for (QAction* top : window.menuBar()->actions())
        if (top->menu() && top->menu()->title().remove(QLatin1Char('&')) == title)
            return top->menu();
    return nullptr;
}

} // namespace

Q_DECLARE_METATYPE(Before)

class TestNavigationActions : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_navigationactions")); }
    void cleanupTestCase() { test::removeOwnSettings(); }

    void shortcutsAndMenus_data()
    {
        QTest::addColumn<Navigation>("which");
        QTest::addColumn<QString>("objectName");
        QTest::addColumn<QList<QKeySequence>>("keys");
        QTest::addColumn<QString>("menu");
        const auto row = [](const char* name, Navigation which, QList<QKeySequence> keys, const char* menu) {
            QTest::newRow(name) << which << QString::fromLatin1(name) << keys << QString::fromLatin1(menu);
        };
        row("resetZoomAction", Navigation::ResetZoom, {QKeySequence(Qt::CTRL | Qt::Key_0)}, "View");
        row("zoomBackAction", Navigation::ZoomBack, {QKeySequence(Qt::CTRL | Qt::Key_BracketLeft)}, "View");
        row("zoomForwardAction", Navigation::ZoomForward, {QKeySequence(Qt::CTRL | Qt::Key_BracketRight)},
            "View");
        row("nextFindingAction", Navigation::NextFinding, {QKeySequence(Qt::Key_F8)}, "Navigate");
        row("previousFindingAction", Navigation::PreviousFinding, {QKeySequence(Qt::SHIFT | Qt::Key_F8)},
            "Navigate");
        row("nextPhaseAction", Navigation::NextPhase, {QKeySequence(Qt::Key_F7)}, "Navigate");
        row("previousPhaseAction", Navigation::PreviousPhase, {QKeySequence(Qt::SHIFT | Qt::Key_F7)},
            "Navigate");
        row("nextPhaseKindAction", Navigation::NextPhaseKind, {QKeySequence(Qt::CTRL | Qt::Key_F7)},
            "Navigate");
        row("previousPhaseKindAction", Navigation::PreviousPhaseKind,
            {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F7)}, "Navigate");
        row("addBookmarkAction", Navigation::AddBookmark, {QKeySequence(Qt::CTRL | Qt::Key_B)}, "Navigate");
        row("nextBookmarkAction", Navigation::NextBookmark, {QKeySequence(Qt::Key_F4)}, "Navigate");
        row("previousBookmarkAction", Navigation::PreviousBookmark, {QKeySequence(Qt::SHIFT | Qt::Key_F4)},
            "Navigate");
        row("stepForwardAction", Navigation::StepForward, {QKeySequence(Qt::ALT | Qt::Key_Right)},
            "Navigate");
        row("stepBackAction", Navigation::StepBack, {QKeySequence(Qt::ALT | Qt::Key_Left)}, "Navigate");
        row("stepForwardFastAction", Navigation::StepForwardFast,
            {QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Right)}, "Navigate");
        row("stepBackFastAction", Navigation::StepBackFast,
            {QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Left)}, "Navigate");
        row("resetWindowAction", Navigation::ResetWindow, {QKeySequence(Qt::CTRL | Qt::Key_R)}, "Analysis");
        row("summaryOrChartAction", Navigation::SummaryOrChart, {QKeySequence(Qt::Key_F9)}, "View");
        row("nextTabAction", Navigation::NextTab,
            {QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)}, "View");
        row("previousTabAction", Navigation::PreviousTab,
            {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)},
            "View");
        row("jobOverviewAction", Navigation::JobOverview, {QKeySequence(Qt::CTRL | Qt::Key_J)}, "View");
    }

    void shortcutsAndMenus()
    {
        QFETCH(Navigation, which);
        QFETCH(QString, objectName);
        QFETCH(QList<QKeySequence>, keys);
        QFETCH(QString, menu);
        MainWindow window;
        QAction* action = window.navigation()->action(which);
        QVERIFY(action);
        QCOMPARE(action->objectName(), objectName);
        QCOMPARE(action->shortcuts(), keys);
        // one action per window, whichever tab or page asks
        QCOMPARE(window.findChildren<QAction*>(objectName).size(), 1);
        QMenu* shownIn = menuTitled(window, menu);
        QVERIFY2(shownIn && shownIn->actions().contains(action), qPrintable(menu));
        // nothing to navigate on the welcome page (Summary or Chart answers, doing nothing)
        QCOMPARE(action->isEnabled(), which == Navigation::SummaryOrChart);
    }

    void reachesThePageInFront_data()
    {
        QTest::addColumn<Navigation>("which");
        QTest::addColumn<QString>("behind");
        QTest::addColumn<QString>("inFront");
        QTest::addColumn<Before>("before");
        const auto row = [](const char* name, Navigation which, const char* inFront, Before before) {
            const QString front = QString::fromLatin1(inFront);
            QTest::newRow(name) << which
                                << (front == QLatin1String("trace") ? QStringLiteral("budget")
                                                                    : QStringLiteral("trace"))
                                << front << before;
        };
        row("reset zoom, trace", Navigation::ResetZoom, "trace", Before::ZoomedIn);
        row("reset zoom, budget", Navigation::ResetZoom, "budget", Before::ZoomedIn);
        row("zoom back, trace", Navigation::ZoomBack, "trace", Before::ZoomedIn);
        row("zoom back, budget", Navigation::ZoomBack, "budget", Before::ZoomedIn);
        row("zoom forward, trace", Navigation::ZoomForward, "trace", Before::ZoomedInAndBack);
        row("zoom forward, budget", Navigation::ZoomForward, "budget", Before::ZoomedInAndBack);
        row("next finding, trace", Navigation::NextFinding, "trace", Before::NoFindingSelected);
        row("next finding, budget", Navigation::NextFinding, "budget", Before::NoFindingSelected);
        row("previous finding, trace", Navigation::PreviousFinding, "trace", Before::NoFindingSelected);
        row("previous finding, budget", Navigation::PreviousFinding, "budget", Before::NoFindingSelected);
        row("next phase", Navigation::NextPhase, "trace", Before::Nothing);
        row("previous phase", Navigation::PreviousPhase, "trace", Before::Nothing);
        row("next phase kind", Navigation::NextPhaseKind, "trace", Before::Nothing);
        row("add bookmark", Navigation::AddBookmark, "trace", Before::Nothing);
        row("next bookmark", Navigation::NextBookmark, "trace", Before::TwoBookmarks);
        row("previous bookmark", Navigation::PreviousBookmark, "trace", Before::TwoBookmarks);
        row("step forward, trace", Navigation::StepForward, "trace", Before::Nothing);
        row("step forward, budget", Navigation::StepForward, "budget", Before::Nothing);
        row("step back, trace", Navigation::StepBack, "trace", Before::Nothing);
        row("step back, budget", Navigation::StepBack, "budget", Before::Nothing);
        row("step 10 forward, trace", Navigation::StepForwardFast, "trace", Before::Nothing);
        row("step 10 back, budget", Navigation::StepBackFast, "budget", Before::Nothing);
        row("reset window, trace", Navigation::ResetWindow, "trace", Before::WindowAnalysed);
        row("reset window, budget", Navigation::ResetWindow, "budget", Before::WindowAnalysed);
        row("summary or chart", Navigation::SummaryOrChart, "trace", Before::Nothing);
    }

    void reachesThePageInFront()
    {
        QFETCH(Navigation, which);
        QFETCH(QString, behind);
        QFETCH(QString, inFront);
        QFETCH(Before, before);
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY2(window.showTraceNow(fixture(behind), &error), qPrintable(error));
        DocumentTab* back = window.currentTab();
        QVERIFY2(window.showTraceNow(fixture(inFront), &error), qPrintable(error));
        QCOMPARE(window.tabs()->count(), 2);
        DocumentTab* tab = window.currentTab();
        QVERIFY(tab != back);
        DocumentPage* page = tab->documentPage();
        QCOMPARE(page->hasDocument(), true);
        QCOMPARE(page == tab->tracePage(), inFront == QLatin1String("trace"));

        const TimeRange whole = page->viewState()->visibleRange();
        const qint64 third = (whole.endNs - whole.beginNs) / 3;
        const qint64 middle = whole.beginNs + (whole.endNs - whole.beginNs) / 2;
        page->setCursorTime(middle);
        switch (before) {
        case Before::Nothing:
            break;
        case Before::NoFindingSelected:
            page->findingsView()->setCurrentIndex({});
            break;
        case Before::ZoomedIn:
            page->viewState()->zoomTo(whole.beginNs + third, whole.endNs - third);
            break;
        case Before::ZoomedInAndBack:
            page->viewState()->zoomTo(whole.beginNs + third, whole.endNs - third);
            page->viewState()->zoomBack();
            break;
        case Before::WindowAnalysed:
            page->analyseWindow(whole.beginNs + third, whole.endNs - third);
            QTRY_VERIFY(!window.isBusy() && page->isWindowAnalysis());
            break;
        case Before::TwoBookmarks:
            page->setCursorTime(whole.beginNs + third);
            QVERIFY(page->addBookmarkAtCursor() >= 0);
            page->setCursorTime(whole.endNs - third);
            QVERIFY(page->addBookmarkAtCursor() >= 0);
            page->setCursorTime(middle);
            break;
        }

        QAction* action = window.navigation()->action(which);
        QVERIFY2(action->isEnabled(), qPrintable(action->objectName()));
        const Shown frontBefore = shownBy(page);
        const Shown backBefore = shownBy(back->documentPage());
        action->trigger();
        QTRY_VERIFY(!window.isBusy());
        QVERIFY2(!(shownBy(page) == frontBefore), "the page in front shows what it showed");
        QVERIFY2(shownBy(back->documentPage()) == backBefore, "the tab behind changed");
    }

    void tabsAndJobOverview()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QAction* next = window.navigation()->action(Navigation::NextTab);
        QAction* previous = window.navigation()->action(Navigation::PreviousTab);
        QAction* overview = window.navigation()->action(Navigation::JobOverview);
        QString error;
        QVERIFY2(window.showJobNow(
                     {QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/synthetic-jobs/gapleak-job")}, &error),
                 qPrintable(error));
        QVERIFY(!next->isEnabled() && !previous->isEnabled()); // one tab
        DocumentTab* job = window.currentTab();
        QVERIFY(!overview->isEnabled()); // the job page is in front
        window.openRank(1);
        QCOMPARE(job->currentWidget(), job->tracePage());
        QVERIFY(overview->isEnabled());
        overview->trigger();
        QCOMPARE(job->currentWidget(), job->jobPage());
        QVERIFY(!overview->isEnabled());

        QVERIFY2(window.showTraceNow(fixture(QStringLiteral("trace")), &error), qPrintable(error));
        QCOMPARE(window.tabs()->count(), 2);
        DocumentTab* trace = window.currentTab();
        QVERIFY(next->isEnabled() && previous->isEnabled());
        QVERIFY(!overview->isEnabled()); // a trace of one rank
        next->trigger();
        QCOMPARE(window.currentTab(), job);
        next->trigger();
        QCOMPARE(window.currentTab(), trace);
        previous->trigger();
        QCOMPARE(window.currentTab(), job);
    }
};

QTEST_MAIN(TestNavigationActions)
#include "tst_navigationactions.moc"
