#include "app/WindowDocks.h"

#include "app/DocumentTab.h"
#include "app/pages/DocumentPage.h"
#include "model/store/LoadProblem.h"
#include "widgets/common/ProblemsPanel.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QSettings>
#include <QStackedWidget>

namespace gapscope {

WindowDocks::WindowDocks(QMainWindow* window) : QObject(window), m_window(window)
{
    m_phasesStack = new QStackedWidget;
    m_bookmarksStack = new QStackedWidget;
}

void WindowDocks::dock()
{
    QMainWindow* window = m_window;
    m_phasesDock = new QDockWidget(tr("Phases"), window);
    m_phasesDock->setObjectName(QStringLiteral("phasesDock"));
    m_phasesDock->setWidget(m_phasesStack);
    window->addDockWidget(Qt::RightDockWidgetArea, m_phasesDock);

    m_bookmarksDock = new QDockWidget(tr("Bookmarks"), window);
    m_bookmarksDock->setObjectName(QStringLiteral("bookmarksDock"));
    m_bookmarksDock->setWidget(m_bookmarksStack);
    window->addDockWidget(Qt::RightDockWidgetArea, m_bookmarksDock);
    m_bookmarksDock->hide(); // shown with a trace that has bookmarks, or by Ctrl+B

    m_problemsPanel = new ProblemsPanel(window);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_problemsPanel);
    m_problemsPanel->hide();
    window->resizeDocks({m_phasesDock}, {470}, Qt::Horizontal);
    connect(m_phasesDock->toggleViewAction(), &QAction::triggered, this,
            [this](bool visible) { m_phasesDockWanted = visible; });
    m_phasesDock->hide(); // the welcome page comes first
}

void WindowDocks::addTab(const DocumentTab* tab)
{
    for (const DocumentPage* page : tab->pages()) {
        if (QWidget* pane = page->phasesPane())
            m_phasesStack->addWidget(pane);
        if (QWidget* pane = page->bookmarksPane())
            m_bookmarksStack->addWidget(pane);
    }
}

void WindowDocks::removeTab(const DocumentTab* tab)
{
    for (const DocumentPage* page : tab->pages()) {
        delete page->phasesPane(); // the stacks hold them
        delete page->bookmarksPane();
    }
}

void WindowDocks::showTab(const DocumentTab* tab)
{
    for (const DocumentPage* page : tab->pages()) {
        if (QWidget* pane = page->phasesPane())
            m_phasesStack->setCurrentWidget(pane);
        if (QWidget* pane = page->bookmarksPane())
            m_bookmarksStack->setCurrentWidget(pane);
    }
}

void WindowDocks::showFor(const DocumentPage* page)
{
    // a trace without phases gives the chart the room of an empty tree
    m_phasesDock->setVisible(page && page->phasesPane() && page->hasPhases() && m_phasesDockWanted);
    m_phasesDock->toggleViewAction()->setEnabled(page != nullptr);
    m_bookmarksDock->setVisible(page && page->bookmarksPane() && page->hasBookmarks());
    m_bookmarksDock->toggleViewAction()->setEnabled(page && page->bookmarksPane());
    if (!page)
        m_problemsPanel->hide();
}

void WindowDocks::showBookmarks()
{
    m_bookmarksDock->show();
}

void WindowDocks::showProblems(const ProblemLog& problems)
{
    m_problemsPanel->setProblems(problems);
    if (problems.empty()) {
        // a clean file: the panel of an earlier one would only show "No problems"
        // (View > Load Problems still opens it)
        m_problemsPanel->hide();
    } else if (problems.errorCount() > 0 && m_problemsPanel->isHidden()) {
        m_problemsPanel->show();
        // a strip under the chart, not half the window
        m_window->resizeDocks({m_problemsPanel}, {170}, Qt::Vertical);
    }
}

void WindowDocks::listProblems(const ProblemLog& problems)
{
    m_problemsPanel->setProblems(problems);
}

void WindowDocks::clearProblems()
{
    m_problemsPanel->clear();
    m_problemsPanel->hide();
}

void WindowDocks::openProblems()
{
    m_problemsPanel->show();
    m_problemsPanel->raise();
}

QList<QAction*> WindowDocks::toggleActions() const
{
    return {m_phasesDock->toggleViewAction(), m_bookmarksDock->toggleViewAction(),
            m_problemsPanel->toggleViewAction()};
}

void WindowDocks::restoreSettings(const QSettings& settings)
{
    m_phasesDockWanted = settings.value(QStringLiteral("mainWindow/phasesDock"), true).toBool();
}

void WindowDocks::saveSettings(QSettings& settings) const
{
    settings.setValue(QStringLiteral("mainWindow/phasesDock"), m_phasesDockWanted);
}

} // namespace gapscope
