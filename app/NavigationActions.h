#pragma once
// The navigation actions of one window (zoom, findings, phases, bookmarks, cursor steps, the
// window analysis, Summary or Chart, tabs, the job overview), made once with their shortcuts
// and shared by every page of every tab, as Hotspot's and heaptrack's windows share theirs:
// an action goes to the page in front when it fires, and the page in front says which of them
// it can do now (DocumentPage::updateNavigation). The shell puts them in its menus; a page
// adds none of its own for these keys, so a new page gets them all by what it overrides.

#include <QObject>

#include <array>
#include <functional>

class QAction;
class QTabWidget;

namespace gapscope {

class DocumentPage;

enum class Navigation
{
    ResetZoom,
    ZoomBack,
    ZoomForward,
    NextFinding,
    PreviousFinding,
    NextPhase,
    PreviousPhase,
    NextPhaseKind,
    PreviousPhaseKind,
    AddBookmark,
    NextBookmark,
    PreviousBookmark,
    StepForward,
    StepBack,
    StepForwardFast,
    StepBackFast,
    ResetWindow,
    SummaryOrChart,
    NextTab,
    PreviousTab,
    JobOverview,
};
inline constexpr int kNavigationCount = int(Navigation::JobOverview) + 1;

class NavigationActions : public QObject
{
    Q_OBJECT
public:
    // pageInFront: the page an action goes to when it fires (never null); tabs: what Next Tab
    // and Previous Tab walk. The actions are children of this object, itself a child of window.
    NavigationActions(QObject* window, std::function<DocumentPage*()> pageInFront, QTabWidget* tabs);

    QAction* action(Navigation which) const { return m_actions[size_t(which)]; }
    void setEnabled(Navigation which, bool enabled);
    // Asks the page in front which actions it can do now; the tab actions need two tabs. The job
    // overview is the shell's to enable (it belongs to the tab, not to the page in front).
    void update();

signals:
    // A bookmark was added at the cursor (the shell shows the list to name it).
    void bookmarkAdded();
    void jobOverviewRequested();

private:
    QAction* make(Navigation which, const QString& objectName, const QString& text, const QKeySequence& key);

    std::function<DocumentPage*()> m_pageInFront;
    QTabWidget* m_tabs;
    std::array<QAction*, kNavigationCount> m_actions{};
};

} // namespace gapscope
