#include "app/WindowMenus.h"

#include "app/CompareWith.h"
#include "app/DocumentTab.h"
#include "app/ExportActions.h"
#include "app/LiveFollow.h"
#include "app/NavigationActions.h"
#include "app/Theme.h"
#include "app/pages/DocumentPage.h"
#include "widgets/common/ShortcutSheet.h"

#include <QAction>
#include <QApplication>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStyle>

namespace gapscope {

namespace {

// The page actions in a menu, a null entry a separator.
void fillMenu(QMenu* menu, const QList<QAction*>& actions)
{
    for (QAction* action : actions) {
        if (action)
            menu->addAction(action);
        else
            menu->addSeparator();
    }
}

} // namespace

WindowMenus::WindowMenus(QMainWindow* window) : QObject(window), m_window(window)
{
    QStyle* style = window->style();
    const auto make = [this, window](WindowAction which, const QString& text) {
        auto* action = new QAction(text, window);
        m_actions[size_t(which)] = action;
        return action;
    };
    QAction* open = make(WindowAction::Open, tr("&Open..."));
    open->setIcon(style->standardIcon(QStyle::SP_DialogOpenButton));
    open->setObjectName(QStringLiteral("openAction"));
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open a stormlog trace or a memory-budget log"));

    QAction* openDirectory = make(WindowAction::OpenDirectory, tr("Open Sink &Directory..."));
    openDirectory->setIcon(style->standardIcon(QStyle::SP_DirOpenIcon));
    openDirectory->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openDirectory->setStatusTip(tr("Open an append-only telemetry sink directory"));

    make(WindowAction::OpenSample, tr("Open the Bundled &Sample"));

    QAction* reload = make(WindowAction::Reload, tr("&Reload"));
    reload->setIcon(style->standardIcon(QStyle::SP_BrowserReload));
    reload->setShortcut(QKeySequence::Refresh);
    QAction* attachDeviceLog = make(WindowAction::AttachDeviceLog, tr("Attach &Device Log..."));
    attachDeviceLog->setObjectName(QStringLiteral("attachDeviceLogAction"));
    attachDeviceLog->setStatusTip(
        tr("Take device used from nvidia-smi's CSV log, joined to the trace's samples by time"));

    QAction* attachSnapshot = make(WindowAction::AttachSnapshot, tr("Attach &Snapshot..."));
    attachSnapshot->setObjectName(QStringLiteral("attachSnapshotAction"));
    attachSnapshot->setStatusTip(tr("Draw a PyTorch memory snapshot of the same process (torch.cuda.memory."
                                    "_dump_snapshot) on the trace's time axis"));

    make(WindowAction::Close, tr("&Close Trace"))->setShortcut(QKeySequence::Close);

    QAction* quit = make(WindowAction::Quit, tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, window, &QWidget::close);

    QAction* thresholds = make(WindowAction::Thresholds, tr("&Thresholds..."));
    thresholds->setObjectName(QStringLiteral("thresholdsAction"));
    thresholds->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
}

void WindowMenus::createMenus(const Parts& parts)
{
    const auto nav = [&parts](Navigation which) { return parts.navigation->action(which); };
    QMenuBar* bar = m_window->menuBar();
    QMenu* file = bar->addMenu(tr("&File"));
    file->addAction(action(WindowAction::Open));
    file->addAction(action(WindowAction::OpenDirectory));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(action(WindowAction::OpenSample));
    file->addSeparator();
    file->addAction(action(WindowAction::Reload));
    file->addAction(action(WindowAction::Close));
    file->addSeparator();
    file->addAction(parts.follow->followAction());
    file->addAction(parts.compare->action());
    file->addAction(parts.compare->folderAction());
    file->addAction(action(WindowAction::AttachDeviceLog));
    file->addAction(action(WindowAction::AttachSnapshot));
    file->addSeparator();
    file->addAction(parts.exports->exportReportAction());
    file->addAction(parts.exports->saveChartAction());
    file->addAction(parts.exports->copyFindingAction());
    file->addSeparator();
    file->addAction(action(WindowAction::Quit));

    QMenu* view = bar->addMenu(tr("&View"));
    m_overlaysMenu = view->addMenu(tr("Chart &Overlays"));
    m_yAxisMenu = view->addMenu(tr("Chart &Y Axis"));
    m_xAxisMenu = view->addMenu(tr("Chart &X Axis"));
    view->addAction(nav(Navigation::JobOverview));
    view->addSeparator();
    view->addAction(nav(Navigation::NextTab));
    view->addAction(nav(Navigation::PreviousTab));
    view->addSeparator();
    view->addAction(nav(Navigation::ResetZoom));
    view->addAction(nav(Navigation::ZoomBack));
    view->addAction(nav(Navigation::ZoomForward));
    view->addAction(parts.follow->pinAction());
    view->addSeparator();
    view->addActions(parts.dockToggles);
    view->addSeparator();
    view->addAction(nav(Navigation::SummaryOrChart));
    new ThemeMenu(view);

    QMenu* navigate = bar->addMenu(tr("&Navigate"));
    fillMenu(navigate,
             {nav(Navigation::NextFinding), nav(Navigation::PreviousFinding), nullptr,
              nav(Navigation::NextPhase), nav(Navigation::PreviousPhase), nav(Navigation::NextPhaseKind),
              nav(Navigation::PreviousPhaseKind), nullptr, nav(Navigation::AddBookmark),
              nav(Navigation::NextBookmark), nav(Navigation::PreviousBookmark), nullptr,
              nav(Navigation::StepForward), nav(Navigation::StepBack), nav(Navigation::StepForwardFast),
              nav(Navigation::StepBackFast)});

    QMenu* analysisMenu = bar->addMenu(tr("&Analysis"));
    analysisMenu->addAction(action(WindowAction::Thresholds));
    analysisMenu->addAction(nav(Navigation::ResetWindow));

    QMenu* help = bar->addMenu(tr("&Help"));
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        auto* sheet = new ShortcutSheet(m_window, m_window); // lists the actions as they are now
        sheet->setAttribute(Qt::WA_DeleteOnClose);
        sheet->show();
    });
    shortcuts->setShortcuts({QKeySequence(Qt::Key_Question), QKeySequence(QKeySequence::HelpContents)});
    shortcuts->setStatusTip(tr("Every action's keyboard shortcut"));
    help->addSeparator();
    help->addAction(tr("&About gapscope"), this, &WindowMenus::aboutRequested);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void WindowMenus::showChartChoicesOf(const DocumentTab* tab)
{
    if (!m_overlaysMenu)
        return;
    m_overlaysMenu->clear();
    m_yAxisMenu->clear();
    m_xAxisMenu->clear();
    for (const DocumentPage* page : tab->pages()) {
        fillMenu(m_overlaysMenu, page->overlayMenuActions());
        fillMenu(m_yAxisMenu, page->yAxisMenuActions());
        fillMenu(m_xAxisMenu, page->xAxisMenuActions());
    }
}

void WindowMenus::enableChartChoices(bool enabled)
{
    for (QAction* action : m_overlaysMenu->actions())
        action->setEnabled(enabled);
}

} // namespace gapscope
