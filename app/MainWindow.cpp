#include "app/MainWindow.h"
#include "model/text/Text.h"

#include "app/Version.h"

#include "app/CompareWith.h"
#include "app/DocumentTab.h"
#include "app/ExportActions.h"
#include "app/LiveFollow.h"
#include "app/Theme.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "app/pages/WindowBanner.h"
#include "model/cache/TraceCache.h"
#include "model/document/Document.h"
#include "model/document/LoadFailure.h"
#include "model/document/JobOpen.h"
#include "model/document/OpenPlan.h"
#include "model/document/Recognition.h"
#include "model/items/BookmarksModel.h"
#include "model/job/JobData.h"
#include "model/job/JobLoader.h"
#include "model/work/LoadJob.h"
#include "widgets/common/LoadFailureBanner.h"
#include "widgets/common/ProblemsPanel.h"
#include "widgets/common/ShortcutSheet.h"
#include "widgets/common/ThresholdsDialog.h"
#include "widgets/common/WelcomePage.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

// Q_INIT_RESOURCE must be used outside a namespace; the resources live in a static library.
static void initGapscopeResources()
{
    Q_INIT_RESOURCE(gapscope);
}

namespace gapscope {

namespace {

const QString kSampleResource = QStringLiteral(":/gapscope/sample.jsonl");
const QString kIconResource = QStringLiteral(":/gapscope/gapscope.svg");

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    initGapscopeResources();
    setObjectName(QStringLiteral("gapscopeMainWindow"));
    setWindowIcon(QIcon(kIconResource));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    {
        QSettings settings;
        m_thresholds = ThresholdsDialog::loadThresholds(settings);
    }

    // The job drops the results of superseded loads itself.
    m_loadJob = new LoadJob(this);
    connect(m_loadJob, &LoadJob::started, this,
            [this](quint64, const QString& path) { onLoadStarted(path); });
    connect(m_loadJob, &LoadJob::progress, this,
            [this](quint64, qint64 bytesRead, qint64 totalBytes) { onLoadProgress(bytesRead, totalBytes); });
    // whatever was loaded goes to the tab, and from there to the page that takes it
    connect(m_loadJob, &LoadJob::loaded, this, [this](quint64, std::shared_ptr<const TraceData> data) {
        onDocumentLoaded(LoadedDocument{std::move(data), nullptr, nullptr});
    });
    connect(m_loadJob, &LoadJob::budgetLoaded, this, [this](quint64, std::shared_ptr<const BudgetData> data) {
        onDocumentLoaded(LoadedDocument{nullptr, std::move(data), nullptr});
    });
    connect(m_loadJob, &LoadJob::jobLoaded, this, [this](quint64, std::shared_ptr<const JobData> job) {
        onDocumentLoaded(LoadedDocument{nullptr, nullptr, std::move(job)});
    });
    connect(m_loadJob, &LoadJob::failed, this,
            [this](quint64, const QString& error) { onLoadFailed(error); });
    connect(m_loadJob, &LoadJob::cancelled, this, [this](quint64) { onLoadCancelled(); });
    // Several documents opened together load one after another, the next once the one before
    // is shown (or has failed); a cancel stops the rest too.
    const auto openNext = [this] {
        QMetaObject::invokeMethod(this, &MainWindow::openNextPending, Qt::QueuedConnection);
    };
    connect(m_loadJob, &LoadJob::loaded, this, openNext);
    connect(m_loadJob, &LoadJob::budgetLoaded, this, openNext);
    connect(m_loadJob, &LoadJob::jobLoaded, this, openNext);
    connect(m_loadJob, &LoadJob::failed, this, openNext);
    connect(m_loadJob, &LoadJob::cancelled, this, [this] { m_pendingOpens.clear(); });

    createActions();
    createCentralArea();
    m_liveFollow = new LiveFollow(this);   // reads the trace page
    m_compareWith = new CompareWith(this); // likewise
    createDocks();
    m_exportActions = new ExportActions(
        this, [this] { return m_tracePage->analysis(); }, [this] { return documentPage()->chartWidget(); },
        [this] { return documentPage()->detailView()->findingIndex(); });
    m_exportActions->setBudgetProvider([this] { return m_budgetPage->analysis(); });
    m_exportActions->setBookmarkProvider([this] {
        std::vector<ReportBookmark> out;
        for (const Bookmark& bookmark : m_tracePage->bookmarksModel()->bookmarks())
            out.push_back({bookmark.timeNs, bookmark.name});
        return out;
    });
    // on the job page the actions export the job and copy its findings, not the trace page's
    m_exportActions->setJobProvider([this] {
        if (isWelcomeShown() || m_tab->currentWidget() != m_jobPage || !m_jobPage->job())
            return ExportActions::JobSource{};
        return ExportActions::JobSource{m_jobPage->job(), m_jobPage->jobFindings(), m_jobPage->thresholds(),
                                        m_jobPage->documentPath()};
    });
    connect(m_exportActions, &ExportActions::exported, this,
            [this](const QString& file) { statusBar()->showMessage(tr("Wrote %1").arg(file), 5000); });
    // the chart's and the findings table's context menus (later tabs get them when made)
    decorateTab(m_tab);
    createMenus();
    createStatusBar();
    updateRecentMenu();
    updateActions();
    updateTitle();
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

// ---------------------------------------------------------------------------------------------
// construction

void MainWindow::createActions()
{
    m_openAction = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open..."), this);
    m_openAction->setObjectName(QStringLiteral("openAction"));
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a stormlog trace or a memory-budget log"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::showOpenFileDialog);

    m_openDirAction =
        new QAction(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open Sink &Directory..."), this);
    m_openDirAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openDirAction->setStatusTip(tr("Open an append-only telemetry sink directory"));
    connect(m_openDirAction, &QAction::triggered, this, &MainWindow::showOpenDirectoryDialog);

    m_openSampleAction = new QAction(tr("Open the Bundled &Sample"), this);
    connect(m_openSampleAction, &QAction::triggered, this, &MainWindow::openSample);

    m_reloadAction = new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Reload"), this);
    m_reloadAction->setShortcut(QKeySequence::Refresh);
    connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reload);
    m_attachDeviceLogAction = new QAction(tr("Attach &Device Log..."), this);
    m_attachDeviceLogAction->setStatusTip(
        tr("Take device used from nvidia-smi's CSV log, joined to the trace's samples by time"));
    connect(m_attachDeviceLogAction, &QAction::triggered, this, &MainWindow::showAttachDeviceLogDialog);

    m_jobOverviewAction = new QAction(tr("&Job Overview"), this);
    m_jobOverviewAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
    m_jobOverviewAction->setToolTip(tr("Every rank of the distributed job on one page"));
    connect(m_jobOverviewAction, &QAction::triggered, this, &MainWindow::showJobOverview);

    m_closeAction = new QAction(tr("&Close Trace"), this);
    m_closeAction->setShortcut(QKeySequence::Close);
    connect(m_closeAction, &QAction::triggered, this, &MainWindow::closeTrace);

    m_nextTabAction = new QAction(tr("Next &Tab"), this);
    m_nextTabAction->setObjectName(QStringLiteral("nextTabAction"));
    m_nextTabAction->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    connect(m_nextTabAction, &QAction::triggered, this,
            [this] { m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count()); });
    m_previousTabAction = new QAction(tr("Previous T&ab"), this);
    m_previousTabAction->setObjectName(QStringLiteral("previousTabAction"));
    m_previousTabAction->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    connect(m_previousTabAction, &QAction::triggered, this, [this] {
        m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % m_tabs->count());
    });

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_resetZoomAction = new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Reset &Zoom"), this);
    m_resetZoomAction->setObjectName(QStringLiteral("resetZoomAction"));
    m_resetZoomAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_resetZoomAction->setToolTip(tr("Show the whole run (Ctrl+0)"));

    connect(m_resetZoomAction, &QAction::triggered, this, [this] { documentPage()->resetZoom(); });
    m_zoomBackAction = new QAction(tr("Zoom &Back"), this);
    m_zoomBackAction->setObjectName(QStringLiteral("zoomBackAction"));
    m_zoomBackAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketLeft));
    m_zoomBackAction->setToolTip(tr("Return to the range shown before the last zoom step"));
    connect(m_zoomBackAction, &QAction::triggered, this, [this] { documentPage()->viewState()->zoomBack(); });
    m_zoomForwardAction = new QAction(tr("Zoom &Forward"), this);
    m_zoomForwardAction->setObjectName(QStringLiteral("zoomForwardAction"));
    m_zoomForwardAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    connect(m_zoomForwardAction, &QAction::triggered, this,
            [this] { documentPage()->viewState()->zoomForward(); });

    const auto makeNav = [this](const QString& objectName, const QString& text, const QKeySequence& key,
                                auto slot) {
        auto* action = new QAction(text, this);
        action->setObjectName(objectName);
        action->setShortcut(key);
        connect(action, &QAction::triggered, this, slot);
        return action;
    };
    m_nextFindingAction = makeNav(QStringLiteral("nextFindingAction"), tr("Next &Finding"),
                                  QKeySequence(Qt::Key_F8), [this] { documentPage()->stepFinding(+1); });
    m_prevFindingAction =
        makeNav(QStringLiteral("previousFindingAction"), tr("Previous F&inding"),
                QKeySequence(Qt::SHIFT | Qt::Key_F8), [this] { documentPage()->stepFinding(-1); });
    m_nextPhaseAction = makeNav(QStringLiteral("nextPhaseAction"), tr("Next &Phase"),
                                QKeySequence(Qt::Key_F7), [this] { documentPage()->stepPhase(+1); });
    m_prevPhaseAction =
        makeNav(QStringLiteral("previousPhaseAction"), tr("Previous P&hase"),
                QKeySequence(Qt::SHIFT | Qt::Key_F7), [this] { documentPage()->stepPhase(-1); });
    m_nextPhaseKindAction =
        makeNav(QStringLiteral("nextPhaseKindAction"), tr("Next Phase &Kind"),
                QKeySequence(Qt::CTRL | Qt::Key_F7), [this] { documentPage()->stepPhaseKind(+1); });
    m_nextPhaseKindAction->setStatusTip(
        tr("The first phase of the next run of another name: warm-up, then train, then eval"));
    m_prevPhaseKindAction = makeNav(QStringLiteral("previousPhaseKindAction"), tr("Previous Phase Ki&nd"),
                                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F7),
                                    [this] { documentPage()->stepPhaseKind(-1); });
    m_prevPhaseKindAction->setStatusTip(
        tr("The first phase of this run of same-named phases, or of the run before it"));
    m_addBookmarkAction = makeNav(QStringLiteral("addBookmarkAction"), tr("Add &Bookmark"),
                                  QKeySequence(Qt::CTRL | Qt::Key_B), [this] {
                                      if (m_tracePage->addBookmarkAtCursor() >= 0)
                                          m_bookmarksDock->show(); // to name it
                                  });
    m_addBookmarkAction->setToolTip(
        tr("Bookmark the cursor's time (Ctrl+B); rename it in the Bookmarks list"));
    m_nextBookmarkAction = makeNav(QStringLiteral("nextBookmarkAction"), tr("Next Boo&kmark"),
                                   QKeySequence(Qt::Key_F4), [this] { m_tracePage->stepBookmark(+1); });
    m_prevBookmarkAction =
        makeNav(QStringLiteral("previousBookmarkAction"), tr("Previous Bookm&ark"),
                QKeySequence(Qt::SHIFT | Qt::Key_F4), [this] { m_tracePage->stepBookmark(-1); });
    m_stepForwardAction =
        makeNav(QStringLiteral("stepForwardAction"), tr("Step Cursor &Forward"),
                QKeySequence(Qt::ALT | Qt::Key_Right), [this] { documentPage()->stepCursor(+1); });
    m_stepBackAction =
        makeNav(QStringLiteral("stepBackAction"), tr("Step Cursor &Back"),
                QKeySequence(Qt::ALT | Qt::Key_Left), [this] { documentPage()->stepCursor(-1); });
    m_stepForwardFastAction = makeNav(QStringLiteral("stepForwardFastAction"), tr("Step Cursor 10 Forward"),
                                      QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Right),
                                      [this] { documentPage()->stepCursor(+10); });
    m_stepBackFastAction = makeNav(QStringLiteral("stepBackFastAction"), tr("Step Cursor 10 Back"),
                                   QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Left),
                                   [this] { documentPage()->stepCursor(-10); });

    m_thresholdsAction = new QAction(tr("&Thresholds..."), this);
    m_thresholdsAction->setObjectName(QStringLiteral("thresholdsAction"));
    m_thresholdsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(m_thresholdsAction, &QAction::triggered, this, &MainWindow::showThresholdsDialog);
    m_resetWindowAction = new QAction(tr("&Reset Window Analysis"), this);
    m_resetWindowAction->setObjectName(QStringLiteral("resetWindowAction"));
    m_resetWindowAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_resetWindowAction, &QAction::triggered, this, &MainWindow::resetWindowAnalysis);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openDirAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    file->addAction(m_openSampleAction);
    file->addSeparator();
    file->addAction(m_reloadAction);
    file->addAction(m_closeAction);
    file->addSeparator();
    file->addAction(m_liveFollow->followAction());
    file->addAction(m_compareWith->action());
    file->addAction(m_compareWith->folderAction());
    file->addAction(m_attachDeviceLogAction);
    file->addSeparator();
    file->addAction(m_exportActions->exportReportAction());
    file->addAction(m_exportActions->saveChartAction());
    file->addAction(m_exportActions->copyFindingAction());
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_overlaysMenu = view->addMenu(tr("Chart &Overlays"));
    for (const auto& [overlay, action] : m_tracePage->overlayActions())
        m_overlaysMenu->addAction(action);
    m_yAxisMenu = view->addMenu(tr("Chart &Y Axis"));
    m_xAxisMenu = view->addMenu(tr("Chart &X Axis"));
    fillAxisMenus();
    view->addAction(m_jobOverviewAction);
    view->addSeparator();
    view->addAction(m_nextTabAction);
    view->addAction(m_previousTabAction);
    view->addSeparator();
    view->addAction(m_resetZoomAction);
    view->addAction(m_zoomBackAction);
    view->addAction(m_zoomForwardAction);
    view->addAction(m_liveFollow->pinAction());
    view->addSeparator();
    view->addAction(m_phasesDock->toggleViewAction());
    view->addAction(m_bookmarksDock->toggleViewAction());
    view->addAction(m_problemsPanel->toggleViewAction());
    view->addSeparator();
    QAction* summary = view->addAction(tr("Summary or &Chart"), this, [this] {
        DocumentPage* page = documentPage();
        page->isSummaryShown() ? page->showChart() : page->showSummary();
    });
    summary->setShortcut(QKeySequence(Qt::Key_F9));
    summary->setStatusTip(tr("Switch between the summary of the open file and its chart"));
    new ThemeMenu(view);

    QMenu* navigate = menuBar()->addMenu(tr("&Navigate"));
    navigate->addAction(m_nextFindingAction);
    navigate->addAction(m_prevFindingAction);
    navigate->addSeparator();
    navigate->addAction(m_nextPhaseAction);
    navigate->addAction(m_prevPhaseAction);
    navigate->addAction(m_nextPhaseKindAction);
    navigate->addAction(m_prevPhaseKindAction);
    navigate->addSeparator();
    navigate->addAction(m_addBookmarkAction);
    navigate->addAction(m_nextBookmarkAction);
    navigate->addAction(m_prevBookmarkAction);
    navigate->addSeparator();
    navigate->addAction(m_stepForwardAction);
    navigate->addAction(m_stepBackAction);
    navigate->addAction(m_stepForwardFastAction);
    navigate->addAction(m_stepBackFastAction);

    QMenu* analysisMenu = menuBar()->addMenu(tr("&Analysis"));
    analysisMenu->addAction(m_thresholdsAction);
    analysisMenu->addAction(m_resetWindowAction);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        auto* sheet = new ShortcutSheet(this, this); // lists the actions as they are now
        sheet->setAttribute(Qt::WA_DeleteOnClose);
        sheet->show();
    });
    shortcuts->setShortcuts({QKeySequence(Qt::Key_Question), QKeySequence(QKeySequence::HelpContents)});
    shortcuts->setStatusTip(tr("Every action's keyboard shortcut"));
    help->addSeparator();
    help->addAction(tr("&About gapscope"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createCentralArea()
{
    m_central = new QStackedWidget(this);
    m_welcome = new WelcomePage(m_central);
    m_welcome->setIcon(QIcon(kIconResource));
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::showOpenFileDialog);
    connect(m_welcome, &WelcomePage::openDirectoryRequested, this, &MainWindow::showOpenDirectoryDialog);
    connect(m_welcome, &WelcomePage::openSampleRequested, this, &MainWindow::openSample);
    connect(m_welcome, &WelcomePage::recentFileRequested, this, &MainWindow::openPath);
    m_central->addWidget(m_welcome);

    m_windowBanner = new WindowBanner(this);
    connect(m_windowBanner, &WindowBanner::resetRequested, this, &MainWindow::resetWindowAnalysis);
    m_tabs = new QTabWidget(m_central);
    m_tabs->setObjectName(QStringLiteral("documentTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setTabBarAutoHide(true); // one document looks as it did before tabs
    m_tabs->setElideMode(Qt::ElideMiddle);
    // Tab walks the panes, not into the tab bar (hidden with one document, it would keep the
    // focus); Ctrl+Tab switches documents
    m_tabs->setFocusPolicy(Qt::NoFocus);
    m_tabs->tabBar()->setFocusPolicy(Qt::NoFocus);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
        auto* tab = qobject_cast<DocumentTab*>(m_tabs->widget(index));
        if (tab == m_tab)
            closeTrace(); // the last tab is emptied, not removed
        else if (tab)
            closeTab(tab);
    });
    m_central->addWidget(m_tabs);
    // the docks show the views of the tab in front
    m_phasesStack = new QStackedWidget;
    m_bookmarksStack = new QStackedWidget;
    addDocumentTab();
    // a failed open leaves its explanation above the page until dismissed
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    m_loadFailureBanner = new LoadFailureBanner(central);
    centralLayout->addWidget(m_loadFailureBanner);
    centralLayout->addWidget(m_central, 1);
    setCentralWidget(central);
}

DocumentTab* MainWindow::addDocumentTab()
{
    auto* tab = new DocumentTab(m_resetZoomAction, m_thresholds, m_tabs);
    for (DocumentPage* page : tab->pages())
        connectPage(page, tab);
    connectTab(tab);
    m_phasesStack->addWidget(tab->tracePage()->phasesPane());
    m_bookmarksStack->addWidget(tab->tracePage()->bookmarksView());
    if (m_tab) {
        // a new tab starts with the chart toggles and the layout of the one in front
        tab->tracePage()->adoptOverlayChoices(*m_tracePage);
        const std::vector<QAction*>& fromY = m_tracePage->yAxisActions();
        const std::vector<QAction*>& toY = tab->tracePage()->yAxisActions();
        for (size_t i = 0; i < fromY.size() && i < toY.size(); ++i)
            toY[i]->setChecked(fromY[i]->isChecked());
        tab->tracePage()->yLogAction()->setChecked(m_tracePage->yLogAction()->isChecked());
    }
    if (m_settingsRestored) {
        const QSettings settings;
        tab->tracePage()->restoreSettings(settings, QStringLiteral("mainWindow"));
        tab->budgetPage()->restoreSettings(settings, QStringLiteral("budgetPage"));
    }
    if (m_exportActions)
        decorateTab(tab);
    m_tabs->addTab(tab, tr("gapscope"));
    if (!m_tab)
        onCurrentTabChanged(m_tabs->indexOf(tab));
    return tab;
}

void MainWindow::fillAxisMenus()
{
    m_xAxisMenu->clear();
    m_xAxisMenu->addAction(m_tracePage->stepAxisAction());
    m_yAxisMenu->clear();
    for (QAction* action : m_tracePage->yAxisActions())
        m_yAxisMenu->addAction(action);
    m_yAxisMenu->addSeparator();
    m_yAxisMenu->addAction(m_tracePage->yLogAction());
}

void MainWindow::decorateTab(DocumentTab* tab)
{
    for (DocumentPage* page : tab->pages()) {
        page->chartWidget()->setContextMenuPolicy(Qt::ActionsContextMenu);
        page->chartWidget()->addAction(m_exportActions->saveChartAction());
        page->chartWidget()->addAction(m_resetZoomAction);
        page->findingsView()->setContextMenuPolicy(Qt::ActionsContextMenu);
        page->findingsView()->addAction(m_exportActions->copyFindingAction());
    }
}

void MainWindow::onCurrentTabChanged(int index)
{
    auto* tab = qobject_cast<DocumentTab*>(m_tabs->widget(index));
    if (!tab || tab == m_tab)
        return;
    m_tab = tab;
    m_tracePage = tab->tracePage();
    m_budgetPage = tab->budgetPage();
    m_jobPage = tab->jobPage();
    m_phasesStack->setCurrentWidget(m_tracePage->phasesPane());
    m_bookmarksStack->setCurrentWidget(m_tracePage->bookmarksView());
    if (m_overlaysMenu) {
        m_overlaysMenu->clear();
        for (const auto& [overlay, action] : m_tracePage->overlayActions())
            m_overlaysMenu->addAction(action);
        fillAxisMenus();
    }
    if (!m_cursorLabel) // the window is still being built
        return;
    // Follow reads the trace in front: one behind stops being followed (a running sink
    // brought to the front is followed again)
    m_liveFollow->traceOpened(m_tracePage->trace());
    m_cursorLabel->setText(tab->state().cursorValues);
    // the message of another tab does not belong here; a measured span of this one does
    if (const std::optional<TimeWindow> span = m_tracePage->chart()->measuredSpan())
        statusBar()->showMessage(GapChartView::measurementText(*span, m_tracePage->chart()->measurement()));
    else
        statusBar()->clearMessage();
    if (const ProblemLog* problems = documentPage()->problems()) {
        showProblemsOf(*problems);
    } else {
        m_problemsPanel->clear();
        m_problemsPanel->hide();
        updateProblemsButton();
    }
    // an empty tab among others is one being filled: its page, not the welcome page
    showPage(tab->hasDocument() || m_tabs->count() > 1 ? tab->currentWidget()
                                                       : static_cast<QWidget*>(m_welcome));
    updateActions();
    updateTitle();
}

void MainWindow::closeTab(DocumentTab* tab)
{
    if (m_tabs->count() < 2 || m_tabs->indexOf(tab) < 0)
        return;
    if (m_loadTab == tab) {
        m_loadJob->cancel();
        m_loadTab = nullptr;
    }
    // the banner sits in the page shown: the tab in front after the removal takes it
    m_tabs->removeTab(m_tabs->indexOf(tab));
    if (tab->isAncestorOf(m_windowBanner)) {
        m_windowBanner->hide();
        m_windowBanner->setParent(this);
    }
    for (QWidget* view : {static_cast<QWidget*>(tab->tracePage()->phasesPane()),
                          static_cast<QWidget*>(tab->tracePage()->bookmarksView())})
        delete view; // the docks' stacks held them
    tab->deleteLater();
    updateActions();
}

bool MainWindow::tabShows(const DocumentTab* tab, const QStringList& paths) const
{
    const auto canonical = [](const QString& path) {
        const QFileInfo info(path);
        return info.canonicalFilePath().isEmpty() ? info.absoluteFilePath() : info.canonicalFilePath();
    };
    QStringList wanted;
    for (const QString& path : paths)
        wanted << canonical(path);
    wanted.sort();
    // a page shows its inputs (a job: every rank's), or its path (a job: their folder)
    for (const DocumentPage* page : tab->pages()) {
        if (!page->hasDocument())
            continue;
        QStringList shown;
        for (const QString& path : page->reloadPaths())
            shown << canonical(path);
        shown.sort();
        if (shown == wanted || (wanted.size() == 1 && canonical(page->documentPath()) == wanted.front()))
            return true;
    }
    return false;
}

void MainWindow::chooseLoadTab(const QStringList& paths)
{
    const bool inFront = !m_tab->hasDocument() || tabShows(m_tab, paths);
    m_loadTab = inFront ? m_tab : nullptr;
    // Results of the document shown now must not land after the new one starts loading in
    // its place.
    if (inFront)
        m_tracePage->discardAnalysis();
}

DocumentTab* MainWindow::takeLoadTab()
{
    DocumentTab* tab = m_loadTab ? m_loadTab.data() : addDocumentTab();
    m_loadTab = tab; // a reload of what it now shows stays in it
    m_tabs->setCurrentWidget(tab);
    return tab;
}

void MainWindow::dropTabIfEmpty(DocumentTab* tab)
{
    if (tab && !tab->hasDocument() && m_tabs->count() > 1)
        closeTab(tab);
}

void MainWindow::connectPage(DocumentPage* page, DocumentTab* tab)
{
    connect(page, &DocumentPage::stateChanged, this, [this] {
        updateActions();
        updateTitle();
    });
    connect(page->viewState(), &ViewState::zoomHistoryChanged, this, &MainWindow::updateActions);
    // a tab behind keeps its messages to itself
    connect(page, &DocumentPage::statusMessage, this, [this, tab](const QString& text, int timeoutMs) {
        if (tab == m_tab)
            statusBar()->showMessage(text, timeoutMs);
    });
    connect(page, &DocumentPage::errorOccurred, this, &MainWindow::showError);
    connect(page, &DocumentPage::cursorValuesChanged, this, [this, page, tab](const QString& text) {
        if (page == tab->documentPage())
            tab->state().cursorValues = text;
        if (page == documentPage())
            m_cursorLabel->setText(text);
    });
    connect(page, &DocumentPage::windowBannerChanged, this, [this, page](const QString& text) {
        if (page == documentPage())
            m_windowBanner->setText(text);
    });
}

void MainWindow::connectTab(DocumentTab* tab)
{
    // a tab behind keeps its pages to itself until it comes to the front
    connect(tab, &DocumentTab::pageShown, this, [this, tab](QWidget* page) {
        if (tab != m_tab) {
            tab->setCurrentWidget(page);
            return;
        }
        showPage(page);
        updateTitle();
    });
    connect(tab, &DocumentTab::problemsChanged, this, [this, tab](const ProblemLog& problems) {
        if (tab == m_tab)
            showProblemsOf(problems);
    });
    connect(tab, &DocumentTab::statusMessage, this, [this, tab](const QString& text, int timeoutMs) {
        if (tab == m_tab)
            statusBar()->showMessage(text, timeoutMs);
    });
    connect(tab, &DocumentTab::errorOccurred, this, &MainWindow::showError);
}

void MainWindow::createDocks()
{
    m_phasesDock = new QDockWidget(tr("Phases"), this);
    m_phasesDock->setObjectName(QStringLiteral("phasesDock"));
    m_phasesDock->setWidget(m_phasesStack);
    addDockWidget(Qt::RightDockWidgetArea, m_phasesDock);

    m_bookmarksDock = new QDockWidget(tr("Bookmarks"), this);
    m_bookmarksDock->setObjectName(QStringLiteral("bookmarksDock"));
    m_bookmarksDock->setWidget(m_bookmarksStack);
    addDockWidget(Qt::RightDockWidgetArea, m_bookmarksDock);
    m_bookmarksDock->hide(); // shown with a trace that has bookmarks, or by Ctrl+B

    m_problemsPanel = new ProblemsPanel(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_problemsPanel);
    m_problemsPanel->hide();
    resizeDocks({m_phasesDock}, {470}, Qt::Horizontal);
    connect(m_phasesDock->toggleViewAction(), &QAction::triggered, this,
            [this](bool visible) { m_phasesDockWanted = visible; });
    m_phasesDock->hide(); // the welcome page comes first
}

void MainWindow::createStatusBar()
{
    m_cursorLabel = new QLabel(statusBar());
    m_cursorLabel->setObjectName(QStringLiteral("cursorValues"));
    m_cursorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // permanent: transient messages (left) must not cover the values at the cursor
    statusBar()->addPermanentWidget(m_cursorLabel);

    m_problemsButton = new QToolButton(statusBar());
    m_problemsButton->setObjectName(QStringLiteral("problemsButton"));
    m_problemsButton->setAutoRaise(true);
    m_problemsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_problemsButton->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_problemsButton->setToolTip(tr("Show the records that could not be loaded"));
    connect(m_problemsButton, &QToolButton::clicked, this, [this] {
        m_problemsPanel->show();
        m_problemsPanel->raise();
    });
    m_problemsButton->hide();
    statusBar()->addPermanentWidget(m_problemsButton);

    m_progressLabel = new QLabel(statusBar());
    m_progressLabel->hide();
    statusBar()->addPermanentWidget(m_progressLabel);
    m_progress = new QProgressBar(statusBar());
    m_progress->setObjectName(QStringLiteral("loadProgress"));
    m_progress->setMaximumWidth(180);
    m_progress->setMaximumHeight(statusBar()->fontMetrics().height() + 4);
    m_progress->setRange(0, 1000);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);
    m_cancelButton = new QToolButton(statusBar());
    m_cancelButton->setObjectName(QStringLiteral("cancelLoadButton"));
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setIcon(style()->standardIcon(QStyle::SP_DialogCancelButton));
    m_cancelButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->hide();
    connect(m_cancelButton, &QToolButton::clicked, this, &MainWindow::cancelLoad);
    statusBar()->addPermanentWidget(m_cancelButton);
}

// ---------------------------------------------------------------------------------------------
// settings

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    m_tracePage->restoreSettings(settings, QStringLiteral("mainWindow"));
    m_budgetPage->restoreSettings(settings, QStringLiteral("budgetPage"));
    m_settingsRestored = true;
    m_phasesDockWanted = settings.value(QStringLiteral("mainWindow/phasesDock"), true).toBool();
    showPage(isWelcomeShown() ? static_cast<QWidget*>(m_welcome) : m_tab->currentWidget());
    m_tracePage->restoreOverlaySettings(settings);
    const QString yAxis = settings.value(QStringLiteral("chart/yAxis")).toString();
    for (QAction* action : m_tracePage->yAxisActions())
        if (action->data().toString() == yAxis)
            action->setChecked(true);
    m_tracePage->yLogAction()->setChecked(settings.value(QStringLiteral("chart/yLog"), false).toBool());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    m_tracePage->saveSettings(settings, QStringLiteral("mainWindow"));
    m_budgetPage->saveSettings(settings, QStringLiteral("budgetPage"));
    settings.setValue(QStringLiteral("mainWindow/phasesDock"), m_phasesDockWanted);
    m_tracePage->saveOverlaySettings(settings);
    for (QAction* action : m_tracePage->yAxisActions())
        if (action->isChecked())
            settings.setValue(QStringLiteral("chart/yAxis"), action->data().toString());
    settings.setValue(QStringLiteral("chart/yLog"), m_tracePage->yLogAction()->isChecked());
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecentFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    updateRecentMenu();
}

void MainWindow::removeRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    const QStringList files = recentFiles();
    m_welcome->setRecentFiles(files);
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    int number = 1;
    for (const QString& path : files) {
        QString text = documentName(path); // a sink by its run: "truth", not "telemetry_sink"
        if (number <= 9)
            text = QStringLiteral("&%1 %2").arg(number).arg(text);
        ++number;
        QAction* action = m_recentMenu->addAction(text);
        action->setToolTip(path);
        action->setStatusTip(path);
        connect(action, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    if (!files.isEmpty())
        m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("Clear Recent Files"));
    clear->setEnabled(!files.isEmpty());
    connect(clear, &QAction::triggered, this, [this] {
        QSettings().remove(QStringLiteral("recentFiles"));
        updateRecentMenu();
    });
    m_recentMenu->setEnabled(true);
}

// ---------------------------------------------------------------------------------------------
// opening

void MainWindow::showOpenFileDialog()
{
    const QString dir = recentFiles().isEmpty() ? QString() : QFileInfo(recentFiles().front()).absolutePath();
    // several files selected are the ranks of one job
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open Trace or Budget Log"), dir,
        tr("Stormlog traces and memory-budget logs (*.jsonl *.ndjson *.json *.csv *.log *.text *.txt);;"
           "All files (*)"));
    if (!paths.isEmpty())
        openPaths(paths);
}

void MainWindow::showOpenDirectoryDialog()
{
    const QString dir = recentFiles().isEmpty() ? QString() : QFileInfo(recentFiles().front()).absolutePath();
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open Sink Directory"), dir);
    if (!path.isEmpty())
        openPath(path);
}

void MainWindow::openSample()
{
    if (m_samplePath.isEmpty() || !QFileInfo::exists(m_samplePath)) {
        // The loader takes a path, so the resource is copied out once per window.
        m_sampleDir = std::make_unique<QTemporaryDir>();
        const QString target = m_sampleDir->filePath(QStringLiteral("phasespike-sample.jsonl"));
        QFile resource(kSampleResource);
        QFile out(target);
        if (!m_sampleDir->isValid() || !resource.open(QIODevice::ReadOnly) ||
            !out.open(QIODevice::WriteOnly) || out.write(resource.readAll()) != resource.size()) {
            showError(tr("Could not extract the bundled sample: %1").arg(out.errorString()));
            return;
        }
        out.close();
        m_samplePath = target;
    }
    openPath(m_samplePath);
}

void MainWindow::openPath(const QString& path)
{
    if (path.isEmpty())
        return;
    if (!QFileInfo::exists(path)) {
        if (recentFiles().contains(path)) {
            removeRecentFile(path);
            showError(tr("%1: no longer exists; removed from the recent files").arg(path));
        } else {
            showLoadFailure(path, tr("%1: no such file or directory").arg(path));
        }
        return;
    }
    openPaths({path});
}

void MainWindow::startDocument(const QString& path)
{
    chooseLoadTab({path});
    m_loadJob->start(path);
}

void MainWindow::openNextPending()
{
    if (m_pendingOpens.isEmpty() || m_loadJob->isRunning())
        return;
    startDocument(m_pendingOpens.takeFirst());
}

void MainWindow::openPaths(const QStringList& paths)
{
    QStringList existing;
    for (const QString& path : paths) {
        if (path.isEmpty())
            continue;
        if (!QFileInfo::exists(path)) {
            showLoadFailure(path, tr("%1: no such file or directory").arg(path));
            return;
        }
        existing << path;
    }
    if (existing.isEmpty())
        return;
    m_pendingOpens.clear(); // a new open replaces what an earlier one had left to open
    const OpenPlan plan = recognizeInputs(existing).plan;
    if (!plan.notes.isEmpty())
        statusBar()->showMessage(plan.notes.join(QLatin1Char(' ')), 15000);
    switch (plan.kind) {
    case OpenKind::Document:
        startDocument(plan.paths.front());
        return;
    case OpenKind::SeveralRuns:
        if (existing.size() == 1)
            addRecentFile(existing.front()); // the folder
        statusBar()->showMessage(tr("%1 holds %2 runs of the same rank: each opens in its own tab")
                                     .arg(existing.join(QStringLiteral(", ")))
                                     .arg(plan.paths.size()),
                                 15000);
        m_pendingOpens = plan.paths.mid(1);
        startDocument(plan.paths.front());
        return;
    case OpenKind::Job:
        break;
    }
    if (existing.size() == 1)
        addRecentFile(existing.front()); // a job folder
    chooseLoadTab(plan.paths);
    if (m_loadTab)
        m_loadTab->discardWork(); // the analyses of the job it shows are not awaited
    m_loadJob->startJob(plan.paths);
}

bool MainWindow::showJobNow(const QStringList& paths, QString* error)
{
    m_loadJob->cancel();
    chooseLoadTab(paths);
    const JobOutcome outcome = loadJob(paths);
    if (!outcome.job) {
        if (error)
            *error = outcome.fatalError;
        return false;
    }
    setLoadingUi(false);
    return openLoaded(LoadedDocument{nullptr, nullptr, outcome.job}, OpenMode::Now, error);
}

void MainWindow::showJobOverview()
{
    m_tab->showJobOverview();
    updateActions();
    updateTitle();
}

void MainWindow::openRank(qint64 rank)
{
    m_tab->openRank(rank);
}

void MainWindow::reload()
{
    // what the page in front reads: its document, or the inputs of its job
    const QStringList paths = documentPage()->reloadPaths();
    if (paths.size() == 1) {
        openPath(paths.front());
    } else if (paths.size() > 1) {
        chooseLoadTab(paths);
        m_loadJob->startJob(paths);
    }
}

void MainWindow::cancelLoad()
{
    m_loadJob->cancel();
}

bool MainWindow::showTraceNow(const QString& path, QString* error)
{
    m_loadJob->cancel();
    chooseLoadTab({path});
    const DocumentOutcome document = loadDocument(path);
    if (!document.ok()) {
        if (error)
            *error = document.failure();
        return false;
    }
    return openLoaded(LoadedDocument{document.trace, document.budget, nullptr}, OpenMode::Now, error);
}

void MainWindow::closeTrace()
{
    m_liveFollow->stop();
    if (m_tabs->count() > 1) { // Ctrl+W closes the tab; the last one is emptied instead
        closeTab(m_tab);
        return;
    }
    m_loadJob->cancel();
    m_tab->clear();
    m_problemsPanel->clear();
    m_problemsPanel->hide();
    m_cursorLabel->clear();
    m_tab->state().displayPath.clear();
    showPage(m_welcome);
    updateProblemsButton();
    updateActions();
    updateTitle();
}

void MainWindow::onLoadStarted(const QString& path)
{
    m_loadPath = path;
    m_loadFailureBanner->dismiss(); // about an earlier open
    setLoadingUi(true, path);
}

void MainWindow::showLoadFailure(const QString& path, const QString& error)
{
    // the explanation above the page says it all (the welcome page's own line would repeat it)
    if (isWelcomeShown())
        m_welcome->setMessage({});
    m_loadFailureBanner->showFailure(explainLoadFailure(path, error));
    statusBar()->showMessage(error, 15000);
}

QString MainWindow::loadFailureText() const
{
    return m_loadFailureBanner->text();
}

void MainWindow::onLoadProgress(qint64 bytesRead, qint64 totalBytes)
{
    if (totalBytes <= 0) {
        m_progress->setRange(0, 0); // busy indicator when the size is unknown
        return;
    }
    m_progress->setRange(0, 1000);
    m_progress->setValue(
        int(std::clamp<double>(double(bytesRead) * 1000.0 / double(totalBytes), 0.0, 1000.0)));
    m_progress->setToolTip(tr("%1 of %2 read").arg(bytesText(bytesRead), bytesText(totalBytes)));
}

void MainWindow::onDocumentLoaded(const LoadedDocument& document)
{
    setLoadingUi(false);
    QString error;
    if (!openLoaded(document, OpenMode::Background, &error))
        showLoadFailure(document.path().isEmpty() ? m_loadPath : document.path(), error);
}

bool MainWindow::openLoaded(const LoadedDocument& document, OpenMode mode, QString* error)
{
    DocumentTab* tab = takeLoadTab();
    DocumentPage* page = tab->openDocument(document, mode, error);
    if (!page) {
        if (const ProblemLog* problems = document.problems())
            m_problemsPanel->setProblems(*problems); // the rejected records are still worth a look
        dropTabIfEmpty(tab);
        return false;
    }
    const QString path = document.path();
    if (document.trace && path == m_samplePath)
        tab->state().displayPath = tr("Bundled sample (phasespike.jsonl)");
    if (const ProblemLog* problems = page->problems())
        showProblemsOf(*problems);
    // a job folder went there when it was opened (openPaths)
    if (mode == OpenMode::Background && !document.job && path != m_samplePath)
        addRecentFile(path);
    const bool analysed = page->analyseOpened(mode, error);
    // a budget log or a job is not followed; a trace opened in the window may be (a running sink)
    if (!trace())
        m_liveFollow->stop();
    else if (mode == OpenMode::Background)
        m_liveFollow->traceOpened(trace());
    updateActions();
    updateTitle();
    return analysed;
}

void MainWindow::showProblemsOf(const ProblemLog& problems)
{
    m_welcome->setMessage({});
    m_problemsPanel->setProblems(problems);
    if (problems.empty()) {
        // a clean file: the panel of an earlier one would only show "No problems"
        // (View > Load Problems still opens it)
        m_problemsPanel->hide();
    } else if (problems.errorCount() > 0 && m_problemsPanel->isHidden()) {
        m_problemsPanel->show();
        // a strip under the chart, not half the window
        resizeDocks({m_problemsPanel}, {170}, Qt::Vertical);
    }
    updateProblemsButton();
    updateTitle();
}

void MainWindow::onLoadFailed(const QString& error)
{
    setLoadingUi(false);
    showLoadFailure(m_loadPath, error);
}

void MainWindow::onLoadCancelled()
{
    setLoadingUi(false);
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
}

void MainWindow::showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest)
{
    if (!m_tab->showLiveSnapshot(std::move(result), pinToLatest))
        return;
    m_problemsPanel->setProblems(trace()->problems);
    updateProblemsButton();
}

void MainWindow::showAttachDeviceLogDialog()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Attach Device Log"), QString(),
                                     tr("nvidia-smi CSV logs (*.csv *.log *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    // nvidia-smi writes local time without an offset: the zone of the machine it ran on
    bool ok = false;
    const QString zone = QInputDialog::getText(
        this, tr("Device Log Time Zone"),
        tr("nvidia-smi writes local time without an offset.\nThe time zone of the machine that wrote the log "
           "(an IANA name, UTC, or an offset such as +02:00):"),
        QLineEdit::Normal, QString::fromUtf8(QTimeZone::systemTimeZoneId()), &ok);
    if (ok)
        attachDeviceLog(path, zone);
}

bool MainWindow::attachDeviceLog(const QString& path, const QString& timeZone)
{
    // the page of the document shown takes it, if it takes one (a trace's)
    QString error = tr("Attach Device Log: no trace is shown");
    DocumentPage* page = documentPage();
    if (!page->hasDocument() || !page->attachDeviceLog(DeviceLogRequest{path, timeZone}, &error)) {
        showError(error);
        return false;
    }
    return true;
}

void MainWindow::showError(const QString& message)
{
    if (isWelcomeShown())
        m_welcome->setMessage(message);
    statusBar()->showMessage(message, 15000);
}

void MainWindow::setLoadingUi(bool loading, const QString& path)
{
    m_progress->setVisible(loading);
    m_progressLabel->setVisible(loading);
    m_cancelButton->setVisible(loading);
    if (loading) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(0);
        m_progressLabel->setText(tr("Loading %1").arg(QFileInfo(path).fileName()));
        statusBar()->clearMessage();
    }
    updateActions();
}

// ---------------------------------------------------------------------------------------------
// state shown

DocumentPage* MainWindow::documentPage() const
{
    return m_tab->documentPage();
}

void MainWindow::showPage(QWidget* page)
{
    if (page == m_welcome) {
        m_central->setCurrentWidget(m_welcome);
    } else {
        m_central->setCurrentWidget(m_tabs);
        m_tab->setCurrentWidget(page);
    }
    if (auto* documentPage = qobject_cast<DocumentPage*>(page)) {
        documentPage->placeWindowBanner(m_windowBanner);
        m_windowBanner->setText(documentPage->windowBannerText());
    }
    const bool analysis = page != m_welcome;
    // a trace without phases gives the chart the room of an empty tree
    const bool hasPhases = page == m_tracePage && m_tracePage->hasPhases();
    m_phasesDock->setVisible(analysis && hasPhases && m_phasesDockWanted);
    m_phasesDock->toggleViewAction()->setEnabled(analysis);
    m_bookmarksDock->setVisible(page == m_tracePage && m_tracePage->hasBookmarks());
    m_bookmarksDock->toggleViewAction()->setEnabled(page == m_tracePage);
    if (!analysis)
        m_problemsPanel->hide();
    updateActions();
}

std::shared_ptr<const TraceData> MainWindow::trace() const
{
    return m_tracePage->trace();
}

std::shared_ptr<const AnalysisResult> MainWindow::analysis() const
{
    return m_tracePage->analysis();
}

bool MainWindow::isBudgetShown() const
{
    return m_budgetPage->hasDocument();
}

std::shared_ptr<const BudgetData> MainWindow::budgetData() const
{
    return m_budgetPage->budgetData();
}

std::shared_ptr<const BudgetAnalysisResult> MainWindow::budgetAnalysis() const
{
    return m_budgetPage->analysis();
}

BudgetThresholds MainWindow::budgetThresholds() const
{
    return m_budgetPage->thresholds();
}

BudgetBreakdownView* MainWindow::budgetChart() const
{
    return m_budgetPage->budgetChart();
}

VerdictLane* MainWindow::verdictLane() const
{
    return m_budgetPage->verdictLane();
}

BudgetTickDetailView* MainWindow::tickDetailView() const
{
    return m_budgetPage->tickDetailView();
}

GapChartView* MainWindow::chart() const
{
    return m_tracePage->chart();
}

TimelineScrubber* MainWindow::scrubber() const
{
    return m_tracePage->scrubber();
}

QTableView* MainWindow::findingsView() const
{
    return documentPage()->findingsView();
}

QTreeView* MainWindow::phasesView() const
{
    return m_tracePage->phasesView();
}

FindingsModel* MainWindow::findingsModel() const
{
    return documentPage()->findingsModel();
}

PhasesModel* MainWindow::phasesModel() const
{
    return m_tracePage->phasesModel();
}

FindingDetailView* MainWindow::detailView() const
{
    return documentPage()->detailView();
}

SessionPicker* MainWindow::sessionPicker() const
{
    return m_tracePage->sessionPicker();
}

bool MainWindow::isLoading() const
{
    return m_loadJob->isRunning();
}

bool MainWindow::isAnalysing() const
{
    return m_tracePage->isAnalysing();
}

bool MainWindow::isWindowAnalysis() const
{
    return documentPage()->isWindowAnalysis();
}

bool MainWindow::isWelcomeShown() const
{
    return m_central->currentWidget() == m_welcome;
}

QString MainWindow::windowBannerText() const
{
    return m_windowBanner->text();
}

QString MainWindow::cursorValuesText() const
{
    return m_cursorLabel->text();
}

QString MainWindow::problemsButtonText() const
{
    return m_problemsButton->isHidden() ? QString() : m_problemsButton->text();
}

void MainWindow::updateProblemsButton()
{
    const ProblemLog* problems = documentPage()->problems();
    const qint64 errors = problems ? problems->errorCount() : 0;
    const qint64 warnings = problems ? problems->warningCount() : 0;
    if (errors + warnings == 0) {
        m_problemsButton->hide();
        return;
    }
    QString text = errors > 0 ? englishPlural(tr("%n rejected record(s)", nullptr, int(errors)), errors)
                              : englishPlural(tr("%n warning(s)", nullptr, int(warnings)), warnings);
    if (errors > 0 && warnings > 0)
        text += englishPlural(tr(", %n warning(s)", nullptr, int(warnings)), warnings);
    m_problemsButton->setText(text);
    m_problemsButton->setIcon(
        style()->standardIcon(errors > 0 ? QStyle::SP_MessageBoxWarning : QStyle::SP_MessageBoxInformation));
    m_problemsButton->show();
}

void MainWindow::updateActions()
{
    const DocumentPage* page = documentPage();
    const bool hasDocument = page->hasDocument();
    const bool hasResult = page->hasResult();
    const bool hasFindings = page->hasFindings();
    const bool hasPhases = page->hasPhases();
    m_reloadAction->setEnabled(hasDocument);
    m_attachDeviceLogAction->setEnabled(page == m_tracePage && hasDocument);
    m_closeAction->setEnabled(hasDocument || isLoading());
    if (m_exportActions)
        m_exportActions->updateEnabled();
    if (m_compareWith)
        m_compareWith->updateEnabled();
    m_resetZoomAction->setEnabled(hasResult);
    m_zoomBackAction->setEnabled(hasResult && page->viewState()->canZoomBack());
    m_zoomForwardAction->setEnabled(hasResult && page->viewState()->canZoomForward());
    for (const auto& [overlay, action] : m_tracePage->overlayActions())
        action->setEnabled(hasResult);
    m_nextFindingAction->setEnabled(hasFindings);
    m_prevFindingAction->setEnabled(hasFindings);
    m_nextPhaseAction->setEnabled(hasPhases);
    m_prevPhaseAction->setEnabled(hasPhases);
    m_nextPhaseKindAction->setEnabled(hasPhases);
    m_prevPhaseKindAction->setEnabled(hasPhases);
    const bool traceShown = page == m_tracePage && hasResult;
    m_addBookmarkAction->setEnabled(traceShown);
    m_nextBookmarkAction->setEnabled(traceShown && m_tracePage->hasBookmarks());
    m_prevBookmarkAction->setEnabled(traceShown && m_tracePage->hasBookmarks());
    for (QAction* a : {m_stepForwardAction, m_stepBackAction, m_stepForwardFastAction, m_stepBackFastAction})
        a->setEnabled(hasResult);
    m_resetWindowAction->setEnabled(page->isWindowAnalysis());
    m_nextTabAction->setEnabled(m_tabs->count() > 1);
    m_previousTabAction->setEnabled(m_tabs->count() > 1);
    if (m_jobOverviewAction)
        m_jobOverviewAction->setEnabled(m_jobPage && m_jobPage->hasDocument() &&
                                        (isWelcomeShown() || m_tab->currentWidget() != m_jobPage));
}

void MainWindow::updateTitle()
{
    const QString& path = m_tab->state().displayPath;
    const int index = m_tabs->indexOf(m_tab);
    if (path.isEmpty()) {
        setWindowTitle(tr("gapscope"));
        m_tabs->setTabText(index, tr("(empty)"));
        m_tabs->setTabToolTip(index, {});
        return;
    }
    // Named by what the document is (model/document/OpenPlan documentName): a job by its id,
    // a run by the folder above its sink and its rank, not "telemetry_sink".
    const auto trace = m_tracePage->trace();
    const std::shared_ptr<const JobData> job = m_jobPage->job();
    QString name;
    if (trace && trace->path == m_samplePath) {
        name = path;
    } else if (job && !job->jobId.isEmpty() && m_tab->currentWidget() == m_jobPage) {
        name = tr("%1 — %2 ranks").arg(job->jobId).arg(job->ranks.size());
    } else if (trace && trace->path == path) {
        const auto shown = analysis();
        name = documentName(path, trace.get(),
                            shown && shown->trace == trace ? std::optional<size_t>(shown->sessionIndex)
                                                           : std::nullopt);
    } else {
        name = documentName(path);
    }
    setWindowTitle(tr("%1 — gapscope").arg(name));
    m_tabs->setTabText(index, name.isEmpty() ? path : name);
    m_tabs->setTabToolTip(index, path);
}

// ---------------------------------------------------------------------------------------------
// requests, passed to the page of the document open

void MainWindow::analyseWindow(qint64 beginNs, qint64 endNs)
{
    documentPage()->analyseWindow(beginNs, endNs);
}

void MainWindow::resetWindowAnalysis()
{
    documentPage()->resetWindowAnalysis();
}

void MainWindow::setThresholds(const GapThresholds& thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    // each page of every tab re-analyses only the document it holds
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (auto* tab = qobject_cast<DocumentTab*>(m_tabs->widget(i))) {
            tab->setThresholds(thresholds);
        }
    }
}

void MainWindow::selectSession(int sessionIndex, qint64 rank)
{
    m_tracePage->selectSession(sessionIndex, rank);
}

void MainWindow::showThresholdsDialog()
{
    if (!m_thresholdsDialog) {
        m_thresholdsDialog = new ThresholdsDialog(this);
        connect(m_thresholdsDialog, &ThresholdsDialog::thresholdsChanged, this, &MainWindow::setThresholds);
    }
    m_thresholdsDialog->setThresholds(m_thresholds);
    m_thresholdsDialog->show();
    m_thresholdsDialog->raise();
    m_thresholdsDialog->activateWindow();
}

QString MainWindow::aboutText()
{
    return tr("<h3>gapscope %1</h3><p>Finds hidden memory: what a process holds that its allocator "
              "does not account for.</p><p>Reads stormlog telemetry traces (GPU and CPU: JSON, JSON lines, "
              "CSV, sink directories) and memory-budget tick logs (tracing text or JSON, snapshot JSON "
              "lines).</p><p>Built with Qt %2, running on Qt %3.</p>")
        .arg(QLatin1String(kGapscopeVersion), QLatin1String(QT_VERSION_STR), QLatin1String(qVersion()));
}

void MainWindow::setTraceCache(std::shared_ptr<const TraceCache> cache)
{
    m_loadJob->setTraceCache(std::move(cache));
}

std::shared_ptr<const TraceCache> MainWindow::traceCache() const
{
    return m_loadJob->traceCache();
}

QString MainWindow::cacheText() const
{
    const std::shared_ptr<const TraceCache>& cache = m_loadJob->traceCache();
    if (!cache)
        return tr("Reopen cache: off (--no-cache).");
    const std::vector<TraceCache::Entry> entries = cache->entries();
    qint64 bytes = 0;
    for (const TraceCache::Entry& entry : entries)
        bytes += entry.bytes;
    const auto count = qint64(entries.size());
    return tr("Reopen cache (traces of %1 or more, read again while unchanged): %2, %3 in %4, at most %5.")
        .arg(bytesText(cache->settings().minInputBytes), cache->folder().toHtmlEscaped(), bytesText(bytes),
             count == 1 ? tr("1 entry") : tr("%1 entries").arg(count), bytesText(cache->settings().maxBytes));
}

void MainWindow::showAbout()
{
    QMessageBox box(this);
    box.setWindowTitle(tr("About gapscope"));
    box.setTextFormat(Qt::RichText);
    box.setText(aboutText() + QStringLiteral("<p>%1</p>").arg(cacheText()));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    QPushButton* clear = nullptr;
    if (traceCache())
        clear = box.addButton(tr("Clear Cache"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Close);
    box.exec();
    if (clear && box.clickedButton() == clear) {
        const bool cleared = traceCache()->clear();
        statusBar()->showMessage(
            cleared ? tr("Reopen cache cleared") : tr("Some cache entries could not be deleted"), 5000);
    }
}

// ---------------------------------------------------------------------------------------------
// navigation

void MainWindow::selectFinding(int findingIndex)
{
    documentPage()->selectFinding(findingIndex);
}

void MainWindow::selectPhase(int spanIndex)
{
    m_tracePage->selectPhase(spanIndex);
}

void MainWindow::setCursorTime(qint64 ns)
{
    documentPage()->setCursorTime(ns);
}

// ---------------------------------------------------------------------------------------------
// events

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    event->acceptProposedAction();
    // several files or folders dropped at once are the ranks of one job
    QStringList paths;
    for (const QUrl& url : urls)
        if (url.isLocalFile())
            paths << url.toLocalFile();
    openPaths(paths);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!testAttribute(Qt::WA_DontShowOnScreen))
        saveSettings();
    m_loadJob->cancel();
    QMainWindow::closeEvent(event);
}

} // namespace gapscope
