#include "app/NavigationActions.h"

#include "app/pages/DocumentPage.h"
#include "app/pages/ViewState.h"

#include <QAction>
#include <QApplication>
#include <QStyle>
#include <QTabWidget>

namespace gapscope {

NavigationActions::NavigationActions(QObject* window, std::function<DocumentPage*()> pageInFront,
                                     QTabWidget* tabs)
    : QObject(window), m_pageInFront(std::move(pageInFront)), m_tabs(tabs)
{
    setObjectName(QStringLiteral("navigationActions"));
    // each action asks for the page in front when it fires: a tab switched or a document
    // opened since the last update is the one it goes to
    const auto toPage = [this](Navigation which, auto call) {
        connect(action(which), &QAction::triggered, this, [this, call] { call(m_pageInFront()); });
    };

    QAction* resetZoom = make(Navigation::ResetZoom, QStringLiteral("resetZoomAction"), tr("Reset &Zoom"),
                              QKeySequence(Qt::CTRL | Qt::Key_0));
    resetZoom->setIcon(QApplication::style()->standardIcon(QStyle::SP_BrowserReload));
    resetZoom->setToolTip(tr("Show the whole run (Ctrl+0)"));
    toPage(Navigation::ResetZoom, [](DocumentPage* page) { page->resetZoom(); });
    make(Navigation::ZoomBack, QStringLiteral("zoomBackAction"), tr("Zoom &Back"),
         QKeySequence(Qt::CTRL | Qt::Key_BracketLeft))
        ->setToolTip(tr("Return to the range shown before the last zoom step"));
    toPage(Navigation::ZoomBack, [](DocumentPage* page) { page->viewState()->zoomBack(); });
    make(Navigation::ZoomForward, QStringLiteral("zoomForwardAction"), tr("Zoom &Forward"),
         QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    toPage(Navigation::ZoomForward, [](DocumentPage* page) { page->viewState()->zoomForward(); });

    make(Navigation::NextFinding, QStringLiteral("nextFindingAction"), tr("Next &Finding"),
         QKeySequence(Qt::Key_F8));
    toPage(Navigation::NextFinding, [](DocumentPage* page) { page->stepFinding(+1); });
    make(Navigation::PreviousFinding, QStringLiteral("previousFindingAction"), tr("Previous F&inding"),
         QKeySequence(Qt::SHIFT | Qt::Key_F8));
    toPage(Navigation::PreviousFinding, [](DocumentPage* page) { page->stepFinding(-1); });
    make(Navigation::NextPhase, QStringLiteral("nextPhaseAction"), tr("Next &Phase"),
         QKeySequence(Qt::Key_F7));
    toPage(Navigation::NextPhase, [](DocumentPage* page) { page->stepPhase(+1); });
    make(Navigation::PreviousPhase, QStringLiteral("previousPhaseAction"), tr("Previous P&hase"),
         QKeySequence(Qt::SHIFT | Qt::Key_F7));
    toPage(Navigation::PreviousPhase, [](DocumentPage* page) { page->stepPhase(-1); });
    make(Navigation::NextPhaseKind, QStringLiteral("nextPhaseKindAction"), tr("Next Phase &Kind"),
         QKeySequence(Qt::CTRL | Qt::Key_F7))
        ->setStatusTip(tr("The first phase of the next run of another name: warm-up, then train, then eval"));
    toPage(Navigation::NextPhaseKind, [](DocumentPage* page) { page->stepPhaseKind(+1); });
    make(Navigation::PreviousPhaseKind, QStringLiteral("previousPhaseKindAction"), tr("Previous Phase Ki&nd"),
         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F7))
        ->setStatusTip(tr("The first phase of this run of same-named phases, or of the run before it"));
    toPage(Navigation::PreviousPhaseKind, [](DocumentPage* page) { page->stepPhaseKind(-1); });

    make(Navigation::AddBookmark, QStringLiteral("addBookmarkAction"), tr("Add &Bookmark"),
         QKeySequence(Qt::CTRL | Qt::Key_B))
        ->setToolTip(tr("Bookmark the cursor's time (Ctrl+B); rename it in the Bookmarks list"));
    toPage(Navigation::AddBookmark, [this](DocumentPage* page) {
        if (page->addBookmarkAtCursor() >= 0)
            emit bookmarkAdded();
    });
    make(Navigation::NextBookmark, QStringLiteral("nextBookmarkAction"), tr("Next Boo&kmark"),
         QKeySequence(Qt::Key_F4));
    toPage(Navigation::NextBookmark, [](DocumentPage* page) { page->stepBookmark(+1); });
    make(Navigation::PreviousBookmark, QStringLiteral("previousBookmarkAction"), tr("Previous Bookm&ark"),
         QKeySequence(Qt::SHIFT | Qt::Key_F4));
    toPage(Navigation::PreviousBookmark, [](DocumentPage* page) { page->stepBookmark(-1); });

    make(Navigation::StepForward, QStringLiteral("stepForwardAction"), tr("Step Cursor &Forward"),
         QKeySequence(Qt::ALT | Qt::Key_Right));
    toPage(Navigation::StepForward, [](DocumentPage* page) { page->stepCursor(+1); });
    make(Navigation::StepBack, QStringLiteral("stepBackAction"), tr("Step Cursor &Back"),
         QKeySequence(Qt::ALT | Qt::Key_Left));
    toPage(Navigation::StepBack, [](DocumentPage* page) { page->stepCursor(-1); });
    make(Navigation::StepForwardFast, QStringLiteral("stepForwardFastAction"), tr("Step Cursor 10 Forward"),
         QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Right));
    toPage(Navigation::StepForwardFast, [](DocumentPage* page) { page->stepCursor(+10); });
    make(Navigation::StepBackFast, QStringLiteral("stepBackFastAction"), tr("Step Cursor 10 Back"),
         QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Left));
    toPage(Navigation::StepBackFast, [](DocumentPage* page) { page->stepCursor(-10); });

    make(Navigation::ResetWindow, QStringLiteral("resetWindowAction"), tr("&Reset Window Analysis"),
         QKeySequence(Qt::CTRL | Qt::Key_R));
    toPage(Navigation::ResetWindow, [](DocumentPage* page) { page->resetWindowAnalysis(); });
    make(Navigation::SummaryOrChart, QStringLiteral("summaryOrChartAction"), tr("Summary or &Chart"),
         QKeySequence(Qt::Key_F9))
        ->setStatusTip(tr("Switch between the summary of the open file and its chart"));
    toPage(Navigation::SummaryOrChart,
           [](DocumentPage* page) { page->isSummaryShown() ? page->showChart() : page->showSummary(); });

    QAction* nextTab = make(Navigation::NextTab, QStringLiteral("nextTabAction"), tr("Next &Tab"), {});
    nextTab->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    connect(nextTab, &QAction::triggered, this,
            [this] { m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count()); });
    QAction* previousTab =
        make(Navigation::PreviousTab, QStringLiteral("previousTabAction"), tr("Previous T&ab"), {});
    previousTab->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    connect(previousTab, &QAction::triggered, this, [this] {
        m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % m_tabs->count());
    });

    make(Navigation::JobOverview, QStringLiteral("jobOverviewAction"), tr("&Job Overview"),
         QKeySequence(Qt::CTRL | Qt::Key_J))
        ->setToolTip(tr("Every rank of the distributed job on one page"));
    connect(action(Navigation::JobOverview), &QAction::triggered, this,
            &NavigationActions::jobOverviewRequested);
}

QAction* NavigationActions::make(Navigation which, const QString& objectName, const QString& text,
                                 const QKeySequence& key)
{
    auto* action = new QAction(text, this);
    action->setObjectName(objectName);
    if (!key.isEmpty())
        action->setShortcut(key);
    m_actions[size_t(which)] = action;
    return action;
}

void NavigationActions::setEnabled(Navigation which, bool enabled)
{
    action(which)->setEnabled(enabled);
}

void NavigationActions::update()
{
    m_pageInFront()->updateNavigation(*this);
    setEnabled(Navigation::NextTab, m_tabs->count() > 1);
    setEnabled(Navigation::PreviousTab, m_tabs->count() > 1);
}

} // namespace gapscope
