#pragma once
// The shell's docks: Phases and Bookmarks (each holds the panes of every tab's pages in a
// stack, the tab in front's shown), and the load problems under the page. Which of them show
// is asked of the page shown (DocumentPage::phasesPane, bookmarksPane); the welcome page
// shows none.

#include <QList>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QSettings;
class QStackedWidget;

namespace gapscope {

class DocumentPage;
class DocumentTab;
class ProblemLog;
class ProblemsPanel;

class WindowDocks : public QObject
{
    Q_OBJECT
public:
    // The stacks are made here and docked by dock(), once the first tab's panes are in them:
    // the panes then follow the pages in the focus chain (Tab walks the pages first).
    explicit WindowDocks(QMainWindow* window);
    void dock();

    // The panes of tab's pages join the docks' stacks, and leave (deleted) with the tab.
    void addTab(const DocumentTab* tab);
    void removeTab(const DocumentTab* tab);
    void showTab(const DocumentTab* tab);
    // The docks of the page shown (nullptr: the welcome page).
    void showFor(const DocumentPage* page);
    // Ctrl+B: the list shows, to name the new bookmark.
    void showBookmarks();
    // The problems of the document in front: the panel opens on errors, a clean file hides it.
    void showProblems(const ProblemLog& problems);
    // The rejected records of a file that could not be shown, without opening the panel.
    void listProblems(const ProblemLog& problems);
    void clearProblems();
    void openProblems();
    ProblemsPanel* problemsPanel() const { return m_problemsPanel; }
    // View: the docks' toggles.
    QList<QAction*> toggleActions() const;

    // Whether the user wants the Phases dock (the welcome page hides it regardless).
    void restoreSettings(const QSettings& settings);
    void saveSettings(QSettings& settings) const;

private:
    QMainWindow* m_window;
    QStackedWidget* m_phasesStack = nullptr;
    QStackedWidget* m_bookmarksStack = nullptr;
    QDockWidget* m_phasesDock = nullptr;
    QDockWidget* m_bookmarksDock = nullptr;
    ProblemsPanel* m_problemsPanel = nullptr;
    bool m_phasesDockWanted = true; // the user's choice
};

} // namespace gapscope
