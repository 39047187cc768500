#pragma once
// The window's menu bar and the actions only the shell does (File: open, reload, close, quit,
// attach a device log; Analysis > Thresholds), made before the rest of the window; the menus
// are built once every part that contributes actions exists. View > Chart Overlays, Chart Y
// Axis and Chart X Axis hold the choices of the tab in front's pages.

#include <QList>
#include <QObject>

#include <array>

class QAction;
class QMainWindow;
class QMenu;

namespace gapscope {

class CompareWith;
class DocumentTab;
class ExportActions;
class LiveFollow;
class NavigationActions;

enum class WindowAction
{
    Open,
    OpenDirectory,
    OpenSample,
    Reload,
    Close,
    AttachDeviceLog,
    AttachSnapshot,
    Quit,
    Thresholds,
};

class WindowMenus : public QObject
{
    Q_OBJECT
public:
    explicit WindowMenus(QMainWindow* window);

    QAction* action(WindowAction which) const { return m_actions[size_t(which)]; }

    // What the other parts of the window put in the menus.
    struct Parts
    {
        NavigationActions* navigation = nullptr;
        LiveFollow* follow = nullptr;
        CompareWith* compare = nullptr;
        ExportActions* exports = nullptr;
        QList<QAction*> dockToggles; // View: Phases, Bookmarks, Load Problems
    };
    void createMenus(const Parts& parts);
    // File > Open Recent (app/RecentFiles fills it).
    QMenu* recentMenu() const { return m_recentMenu; }
    // The chart choices of tab's pages in View, enabled while the page in front has a result.
    void showChartChoicesOf(const DocumentTab* tab);
    void enableChartChoices(bool enabled);

signals:
    void aboutRequested();

private:
    QMainWindow* m_window;
    std::array<QAction*, size_t(WindowAction::Thresholds) + 1> m_actions{};
    QMenu* m_recentMenu = nullptr;
    QMenu* m_overlaysMenu = nullptr;
    QMenu* m_yAxisMenu = nullptr;
    QMenu* m_xAxisMenu = nullptr;
};

} // namespace gapscope
