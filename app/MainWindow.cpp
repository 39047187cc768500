#include "app/MainWindow.h"
#include "model/text/Text.h"

#include "analysis/Int64Math.h"

#include "app/AboutBox.h"
#include "app/CompareWith.h"
#include "app/DocumentTab.h"
#include "app/DocumentTabs.h"
#include "app/ExportActions.h"
#include "app/LiveFollow.h"
#include "app/NavigationActions.h"
#include "app/OpenDialogs.h"
#include "app/RecentFiles.h"
#include "app/WindowDocks.h"
#include "app/WindowMenus.h"
#include "app/WindowStatusBar.h"
#include "app/pages/DocumentPage.h"
#include "app/pages/ViewState.h"
#include "app/pages/WindowBanner.h"
#include "model/cache/TraceCache.h"
#include "model/document/Document.h"
#include "model/document/JobOpen.h"
#include "model/document/LoadFailure.h"
#include "model/document/OpenPlan.h"
#include "model/document/Recognition.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobData.h"
#include "model/job/JobLoader.h"
#include "model/job/JobRanks.h"
#include "model/work/LoadJob.h"
#include "widgets/common/LoadFailureBanner.h"
#include "widgets/common/ThresholdsDialog.h"
#include "widgets/common/WelcomePage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QPointer>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

// Q_INIT_RESOURCE must be used outside a namespace; the resources live in a static library.
static void initGapscopeResources()
{
    Q_INIT_RESOURCE(gapscope);
}

namespace gapscope {

namespace {

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
    connect(m_loadJob, &LoadJob::documentLoaded, this,
            [this](quint64, const LoadedDocument& document) { onDocumentLoaded(document); });
    connect(m_loadJob, &LoadJob::failed, this,
            [this](quint64, const QString& error) { onLoadFailed(error); });
    connect(m_loadJob, &LoadJob::cancelled, this, [this](quint64) { onLoadCancelled(); });
    // Several documents opened together load one after another, the next once the one before
    // is shown (or has failed); a cancel stops the rest too.
    const auto openNext = [this] {
        QMetaObject::invokeMethod(this, &MainWindow::openNextPending, Qt::QueuedConnection);
    };
    connect(m_loadJob, &LoadJob::documentLoaded, this, openNext);
    connect(m_loadJob, &LoadJob::failed, this, openNext);
    connect(m_loadJob, &LoadJob::cancelled, this, [this] { m_pendingOpens.clear(); });

    // The parts are made in the order their widgets take in the focus chain: the pages, then
    // the docks' panes, then the status bar.
    m_menus = new WindowMenus(this);
    connect(m_menus->action(WindowAction::Open), &QAction::triggered, this, &MainWindow::showOpenFileDialog);
    connect(m_menus->action(WindowAction::OpenDirectory), &QAction::triggered, this,
            &MainWindow::showOpenDirectoryDialog);
    connect(m_menus->action(WindowAction::OpenSample), &QAction::triggered, this, &MainWindow::openSample);
    connect(m_menus->action(WindowAction::Reload), &QAction::triggered, this, &MainWindow::reload);
    connect(m_menus->action(WindowAction::AttachDeviceLog), &QAction::triggered, this,
            &MainWindow::showAttachDeviceLogDialog);
    connect(m_menus->action(WindowAction::AttachSnapshot), &QAction::triggered, this,
            &MainWindow::showAttachSnapshotDialog);
    connect(m_menus->action(WindowAction::Close), &QAction::triggered, this, &MainWindow::closeTrace);
    connect(m_menus->action(WindowAction::Thresholds), &QAction::triggered, this,
            &MainWindow::showThresholdsDialog);
    connect(m_menus, &WindowMenus::aboutRequested, this, &MainWindow::showAbout);

    m_windowBanner = new WindowBanner(this);
    m_docks = new WindowDocks(this);
    m_tabs = new DocumentTabs([this](QWidget* parent) { return makeTab(parent); }, this);
    m_navigation = new NavigationActions(
        this, [this] { return documentPage(); }, m_tabs->tabWidget());
    connect(m_navigation, &NavigationActions::bookmarkAdded, m_docks, &WindowDocks::showBookmarks);
    connect(m_navigation, &NavigationActions::jobOverviewRequested, this, &MainWindow::showJobOverview);
    connect(m_windowBanner, &WindowBanner::resetRequested, this,
            [this] { documentPage()->resetWindowAnalysis(); });
    WelcomePage* welcome = m_tabs->welcome();
    welcome->setIcon(QIcon(kIconResource));
    connect(welcome, &WelcomePage::openFileRequested, this, &MainWindow::showOpenFileDialog);
    connect(welcome, &WelcomePage::openDirectoryRequested, this, &MainWindow::showOpenDirectoryDialog);
    connect(welcome, &WelcomePage::openSampleRequested, this, &MainWindow::openSample);
    connect(welcome, &WelcomePage::recentFileRequested, this, &MainWindow::openPath);
    connect(m_tabs, &DocumentTabs::currentTabChanged, this, &MainWindow::onCurrentTabChanged);
    connect(m_tabs, &DocumentTabs::closeRequested, this, [this](DocumentTab* tab) {
        if (tab == currentTab())
            closeTrace(); // the last tab is emptied, not removed
        else
            closeTab(tab);
    });
    m_tabs->add();
    // a failed open leaves its explanation above the page until dismissed
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    m_loadFailureBanner = new LoadFailureBanner(central);
    centralLayout->addWidget(m_loadFailureBanner);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_liveFollow = new LiveFollow(this);   // reads the trace page
    m_compareWith = new CompareWith(this); // likewise
    m_docks->dock();
    m_exportActions = ExportActions::forDocumentTabs(this, m_tabs);
    connect(m_exportActions, &ExportActions::exported, this,
            [this](const QString& file) { statusBar()->showMessage(tr("Wrote %1").arg(file), 5000); });
    // the chart's and the findings table's context menus (later tabs get them when made)
    decorateTab(currentTab());
    m_menus->createMenus(
        {m_navigation, m_liveFollow, m_compareWith, m_exportActions, m_docks->toggleActions()});
    m_menus->showChartChoicesOf(currentTab());
    m_statusBar = new WindowStatusBar(statusBar());
    connect(m_statusBar, &WindowStatusBar::problemsRequested, m_docks, &WindowDocks::openProblems);
    connect(m_statusBar, &WindowStatusBar::cancelRequested, this, &MainWindow::cancelLoad);
    m_recentFiles = new RecentFiles(m_menus->recentMenu(), this);
    connect(m_recentFiles, &RecentFiles::changed, welcome, &WelcomePage::setRecentFiles);
    connect(m_recentFiles, &RecentFiles::openRequested, this, &MainWindow::openPath);
    m_recentFiles->updateMenu();
    updateActions();
    updateTitle();
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

// ---------------------------------------------------------------------------------------------
// tabs

DocumentTab* MainWindow::makeTab(QWidget* parent)
{
    auto* tab = new DocumentTab(m_navigation->action(Navigation::ResetZoom), m_thresholds, parent);
    for (DocumentPage* page : tab->pages())
        connectPage(page, tab);
    connectTab(tab);
    m_docks->addTab(tab);
    const QList<DocumentPage*> pages = tab->pages();
    if (DocumentTab* front = currentTab()) {
        // a new tab starts with the chart toggles and the layout of the one in front
        const QList<DocumentPage*> frontPages = front->pages();
        for (qsizetype i = 0; i < pages.size() && i < frontPages.size(); ++i)
            pages[i]->adoptChoicesOf(*frontPages[i]);
    }
    if (m_settingsRestored) {
        const QSettings settings;
        for (DocumentPage* page : pages)
            page->restorePageSettings(settings, false);
    }
    if (m_exportActions)
        decorateTab(tab);
    return tab;
}

void MainWindow::decorateTab(DocumentTab* tab)
{
    for (DocumentPage* page : tab->pages()) {
        page->chartWidget()->setContextMenuPolicy(Qt::ActionsContextMenu);
        page->chartWidget()->addAction(m_exportActions->saveChartAction());
        page->chartWidget()->addAction(m_navigation->action(Navigation::ResetZoom));
        page->findingsView()->setContextMenuPolicy(Qt::ActionsContextMenu);
        page->findingsView()->addAction(m_exportActions->copyFindingAction());
    }
}

void MainWindow::onCurrentTabChanged(DocumentTab* tab)
{
    m_docks->showTab(tab);
    m_menus->showChartChoicesOf(tab);
    if (!m_statusBar) // the window is still being built
        return;
    // Follow reads the trace in front: one behind stops being followed (a running sink
    // brought to the front is followed again)
    m_liveFollow->followTabInFront();
    m_statusBar->setCursorValues(tab->state().cursorValues);
    // the message of another tab does not belong here; a measured span of this one does
    QString kept;
    for (const DocumentPage* page : tab->pages())
        kept = kept.isEmpty() ? page->keptStatusMessage() : kept;
    if (!kept.isEmpty())
        statusBar()->showMessage(kept);
    else
        statusBar()->clearMessage();
    if (const ProblemLog* problems = documentPage()->problems()) {
        showProblemsOf(*problems);
    } else {
        m_docks->clearProblems();
        updateProblemsButton();
    }
    // an empty tab among others is one being filled: its page, not the welcome page
    showPage(tab->hasDocument() || m_tabs->tabWidget()->count() > 1
                 ? tab->currentWidget()
                 : static_cast<QWidget*>(m_tabs->welcome()));
    updateActions();
    updateTitle();
}

void MainWindow::closeTab(DocumentTab* tab)
{
    if (tabs()->count() < 2 || tabs()->indexOf(tab) < 0)
        return;
    if (m_tabs->loadTab() == tab)
        m_loadJob->cancel();
    m_tabs->remove(tab);
    // the banner sits in the page shown: the tab in front after the removal takes it
    if (tab->isAncestorOf(m_windowBanner)) {
        m_windowBanner->hide();
        m_windowBanner->setParent(this);
    }
    m_docks->removeTab(tab); // the views the docks held for it
    tab->deleteLater();
    updateActions();
}

void MainWindow::dropTabIfEmpty(DocumentTab* tab)
{
    if (tab && !tab->hasDocument() && m_tabs->tabWidget()->count() > 1)
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
        if (tab == currentTab())
            statusBar()->showMessage(text, timeoutMs);
    });
    connect(page, &DocumentPage::errorOccurred, this, &MainWindow::showError);
    connect(page, &DocumentPage::cursorValuesChanged, this, [this, page, tab](const QString& text) {
        if (page == tab->documentPage())
            tab->state().cursorValues = text;
        if (page == documentPage())
            m_statusBar->setCursorValues(text);
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
        if (tab != currentTab()) {
            tab->setCurrentWidget(page);
            return;
        }
        showPage(page);
        updateTitle();
    });
    connect(tab, &DocumentTab::problemsChanged, this, [this, tab](const ProblemLog& problems) {
        if (tab == currentTab())
            showProblemsOf(problems);
    });
    connect(tab, &DocumentTab::statusMessage, this, [this, tab](const QString& text, int timeoutMs) {
        if (tab == currentTab())
            statusBar()->showMessage(text, timeoutMs);
    });
    connect(tab, &DocumentTab::errorOccurred, this, &MainWindow::showError);
}

// ---------------------------------------------------------------------------------------------
// settings

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    for (DocumentPage* page : currentTab()->pages())
        page->restorePageSettings(settings, true);
    m_settingsRestored = true;
    m_docks->restoreSettings(settings);
    showPage(isWelcomeShown() ? static_cast<QWidget*>(m_tabs->welcome()) : currentTab()->currentWidget());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    for (const DocumentPage* page : currentTab()->pages())
        page->savePageSettings(settings);
    m_docks->saveSettings(settings);
}

// ---------------------------------------------------------------------------------------------
// opening

void MainWindow::showOpenFileDialog()
{
    if (const QStringList paths = askForDocuments(this, m_recentFiles->lastFolder()); !paths.isEmpty())
        openPaths(paths);
}

void MainWindow::showOpenDirectoryDialog()
{
    openPath(askForSinkFolder(this, m_recentFiles->lastFolder()));
}

void MainWindow::openSample()
{
    QString error;
    if (const QString path = m_sample.extract(&error); !path.isEmpty())
        openPath(path);
    else
        showError(error);
}

void MainWindow::openPath(const QString& path)
{
    if (path.isEmpty())
        return;
    if (!QFileInfo::exists(path)) {
        if (recentFiles().contains(path)) {
            m_recentFiles->remove(path);
            showError(tr("%1: no longer exists; removed from the recent files").arg(path));
        } else {
            showLoadFailure(path, tr("%1: no such file or directory").arg(path));
        }
        return;
    }
    openPaths({path});
}

void MainWindow::startDocument(const QString& path, const QString& snapshotBeside)
{
    m_tabs->chooseLoadTab({path});
    m_loadJob->start(path, snapshotBeside);
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
        startDocument(plan.paths.front(), plan.snapshot);
        return;
    case OpenKind::SeveralRuns:
        if (existing.size() == 1)
            m_recentFiles->add(existing.front()); // the folder
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
        m_recentFiles->add(existing.front()); // a job folder
    m_tabs->chooseLoadTab(plan.paths);
    if (m_tabs->loadTab())
        m_tabs->loadTab()->discardWork(); // the analyses of the job it shows are not awaited
    m_loadJob->startJob(plan.paths);
}

bool MainWindow::showJobNow(const QStringList& paths, QString* error)
{
    m_loadJob->cancel();
    m_tabs->chooseLoadTab(paths);
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
    currentTab()->showJobOverview();
    updateActions();
    updateTitle();
}

void MainWindow::openRank(qint64 rank)
{
    currentTab()->openRank(rank);
}

void MainWindow::reload()
{
    // what the page in front reads: its document, or the inputs of its job
    const QStringList paths = documentPage()->reloadPaths();
    if (paths.size() == 1) {
        openPath(paths.front());
    } else if (paths.size() > 1) {
        m_tabs->chooseLoadTab(paths);
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
    m_tabs->chooseLoadTab({path});
    const DocumentOutcome document = loadDocument(path);
    if (!document.ok()) {
        if (error)
            *error = document.failure();
        return false;
    }
    return openLoaded(document.loaded(), OpenMode::Now, error);
}

void MainWindow::closeTrace()
{
    m_liveFollow->stop();
    if (m_tabs->tabWidget()->count() > 1) { // Ctrl+W closes the tab; the last one is emptied instead
        closeTab(currentTab());
        return;
    }
    m_loadJob->cancel();
    currentTab()->clear();
    m_docks->clearProblems();
    m_statusBar->setCursorValues({});
    currentTab()->state().displayPath.clear();
    showPage(m_tabs->welcome());
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
        m_tabs->welcome()->setMessage({});
    m_loadFailureBanner->showFailure(explainLoadFailure(path, error));
    statusBar()->showMessage(error, 15000);
}

QString MainWindow::loadFailureText() const
{
    return m_loadFailureBanner->text();
}

void MainWindow::onLoadProgress(qint64 bytesRead, qint64 totalBytes)
{
    m_statusBar->setProgress(bytesRead, totalBytes);
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
    DocumentTab* tab = m_tabs->takeLoadTab();
    DocumentPage* page = tab->openDocument(document, mode, error);
    if (!page) {
        if (const ProblemLog* problems = document.problems())
            m_docks->listProblems(*problems); // the rejected records are still worth a look
        dropTabIfEmpty(tab);
        return false;
    }
    const QString path = document.path();
    if (document.trace && path == m_sample.path())
        tab->state().displayPath = tr("Bundled sample (phasespike.jsonl)");
    if (const ProblemLog* problems = page->problems())
        showProblemsOf(*problems);
    // a job folder went there when it was opened (openPaths)
    if (mode == OpenMode::Background && !document.job && path != m_sample.path())
        m_recentFiles->add(path);
    const bool analysed = page->analyseOpened(mode, error);
    // a budget log or a job is not followed; a trace opened in the window may be (a running sink)
    if (!document.trace)
        m_liveFollow->stop();
    else if (mode == OpenMode::Background)
        m_liveFollow->traceOpened(document.trace);
    updateActions();
    updateTitle();
    return analysed;
}

void MainWindow::showProblemsOf(const ProblemLog& problems)
{
    m_tabs->welcome()->setMessage({});
    m_docks->showProblems(problems);
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

void MainWindow::listProblems(const ProblemLog& problems)
{
    m_docks->listProblems(problems);
    updateProblemsButton();
}

void MainWindow::showAttachDeviceLogDialog()
{
    if (const std::optional<DeviceLogRequest> request = askForDeviceLog(this))
        attachDeviceLog(request->path, request->timeZone);
}

bool MainWindow::attachDeviceLog(const QString& path, const QString& timeZone)
{
    if (!documentPage()->takesDeviceLog()) {
        showError(tr("Attach Device Log: no trace is shown"));
        return false;
    }
    QString error;
    if (!documentPage()->attachDeviceLog(DeviceLogRequest{path, timeZone}, &error)) {
        showError(error);
        return false;
    }
    return true;
}

void MainWindow::showAttachSnapshotDialog()
{
    if (const QString path = askForSnapshot(this, m_recentFiles->lastFolder()); !path.isEmpty())
        attachSnapshot(path);
}

bool MainWindow::attachSnapshot(const QString& path)
{
    if (!documentPage()->takesSnapshot()) {
        showError(tr("Attach Snapshot: no trace is shown"));
        return false;
    }
    QString error;
    if (!documentPage()->attachSnapshot(path, OpenMode::Background, &error)) {
        showError(error);
        return false;
    }
    return true;
}

void MainWindow::showError(const QString& message)
{
    if (isWelcomeShown())
        m_tabs->welcome()->setMessage(message);
    statusBar()->showMessage(message, 15000);
}

void MainWindow::setLoadingUi(bool loading, const QString& path)
{
    m_statusBar->setLoading(loading, path);
    updateActions();
}
// ---------------------------------------------------------------------------------------------
// state shown

DocumentPage* MainWindow::documentPage() const
{
    return currentTab()->documentPage();
}

void MainWindow::showPage(QWidget* page)
{
    m_tabs->show(page);
    auto* shown = qobject_cast<DocumentPage*>(page);
    if (shown) {
        shown->placeWindowBanner(m_windowBanner);
        m_windowBanner->setText(shown->windowBannerText());
    }
    m_docks->showFor(shown);
    updateActions();
}

bool MainWindow::isLoading() const
{
    return m_loadJob->isRunning();
}

bool MainWindow::isAnalysing() const
{
    const QList<DocumentPage*> pages = currentTab()->pages();
    return std::any_of(pages.begin(), pages.end(),
                       [](const DocumentPage* page) { return page->isAnalysing(); });
}

bool MainWindow::isWindowAnalysis() const
{
    return documentPage()->isWindowAnalysis();
}

QString MainWindow::windowBannerText() const
{
    return m_windowBanner->text();
}

void MainWindow::updateProblemsButton()
{
    m_statusBar->showProblemCount(documentPage()->problems());
}

void MainWindow::updateActions()
{
    const DocumentPage* page = documentPage();
    m_menus->action(WindowAction::Reload)->setEnabled(page->hasDocument());
    m_menus->action(WindowAction::AttachDeviceLog)->setEnabled(page->takesDeviceLog());
    m_menus->action(WindowAction::AttachSnapshot)->setEnabled(page->takesSnapshot());
    m_menus->action(WindowAction::Close)->setEnabled(page->hasDocument() || isLoading());
    if (m_exportActions)
        m_exportActions->updateEnabled();
    if (m_compareWith)
        m_compareWith->updateEnabled();
    m_menus->enableChartChoices(page->hasResult());
    m_navigation->update();
    // the job's overview is the tab's, whichever of its pages is in front
    m_navigation->setEnabled(Navigation::JobOverview, currentTab()->canShowJobOverview());
}

void MainWindow::updateTitle()
{
    const std::optional<QString> name = m_tabs->updateTitle(currentTab(), m_sample.path());
    setWindowTitle(name ? tr("%1 — gapscope").arg(*name) : tr("gapscope"));
}

// ---------------------------------------------------------------------------------------------
// thresholds, about

void MainWindow::setThresholds(const GapThresholds& thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    // each page of every tab re-analyses only the document it holds
    for (DocumentTab* tab : m_tabs->all())
        tab->setThresholds(thresholds);
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
    return aboutGapscopeText();
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
    return reopenCacheText(traceCache().get());
}

void MainWindow::showAbout()
{
    if (const QString done = showAboutBox(this, traceCache()); !done.isEmpty())
        statusBar()->showMessage(done, 5000);
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
