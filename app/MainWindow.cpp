#include "app/MainWindow.h"

#include "app/CompareWith.h"
#include "app/ExportActions.h"
#include "app/LiveFollow.h"
#include "analysis/Units.h"
#include "model/report/AnalysisReport.h"
#include "model/items/FindingsModel.h"
#include "model/jobs/LoadJob.h"
#include "model/items/PhasesModel.h"
#include "model/items/SessionsModel.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/budget/BudgetTickDetailView.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/common/ProblemsPanel.h"
#include "widgets/trace/SessionPicker.h"
#include "widgets/common/ThresholdsDialog.h"
#include "widgets/trace/TimelineScrubber.h"
#include "widgets/budget/VerdictLane.h"
#include "widgets/common/WelcomePage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
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

// Qt resolves "%n ...(s)" plurals only through a translation; without one, English is
// written out here.
QString englishPlural(QString text, qint64 n)
{
    return text.replace(QStringLiteral("(s)"), n == 1 ? QString() : QStringLiteral("s"));
}

const QString kSampleResource = QStringLiteral(":/gapscope/sample.jsonl");
const QString kIconResource = QStringLiteral(":/gapscope/gapscope.svg");

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString bytesText(int64_t bytes)
{
    if (bytes == kNullInt)
        return MainWindow::tr("n/a");
    return qs(formatBytes(double(bytes)));
}

struct OverlayInfo
{
    ChartOverlay overlay;
    const char* text;
    const char* toolTip;
    const char* key;
};

const OverlayInfo kOverlays[] = {
    {ChartOverlay::Allocated, QT_TRANSLATE_NOOP("MainWindow", "Allocated"),
     QT_TRANSLATE_NOOP("MainWindow", "Allocator allocated bytes"), "allocated"},
    {ChartOverlay::Reserved, QT_TRANSLATE_NOOP("MainWindow", "Reserved"),
     QT_TRANSLATE_NOOP("MainWindow", "Allocator reserved bytes"), "reserved"},
    {ChartOverlay::DeviceUsed, QT_TRANSLATE_NOOP("MainWindow", "Device Used"),
     QT_TRANSLATE_NOOP("MainWindow", "Device used bytes"), "device_used"},
    {ChartOverlay::DeviceTotal, QT_TRANSLATE_NOOP("MainWindow", "Device Total"),
     QT_TRANSLATE_NOOP("MainWindow", "Device total bytes"), "device_total"},
    {ChartOverlay::Phases, QT_TRANSLATE_NOOP("MainWindow", "Phases"),
     QT_TRANSLATE_NOOP("MainWindow", "Phase spans shaded behind the gap"), "phases"},
    {ChartOverlay::ThresholdBand, QT_TRANSLATE_NOOP("MainWindow", "Band"),
     QT_TRANSLATE_NOOP("MainWindow", "Spike threshold band: mean ± z × std of the gap"), "band"},
    {ChartOverlay::Regression, QT_TRANSLATE_NOOP("MainWindow", "Regression"),
     QT_TRANSLATE_NOOP("MainWindow", "Least-squares drift line of the gap"), "regression"},
    {ChartOverlay::Spikes, QT_TRANSLATE_NOOP("MainWindow", "Spikes"),
     QT_TRANSLATE_NOOP("MainWindow", "Samples whose gap z-score exceeds the threshold"), "spikes"},
};

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
    m_budgetThresholds.osGap = m_thresholds;

    m_loadJob = new LoadJob(this);
    m_analysisJob = new AnalysisJob(this);
    connect(m_loadJob, &LoadJob::started, this, &MainWindow::onLoadStarted);
    connect(m_loadJob, &LoadJob::progress, this, &MainWindow::onLoadProgress);
    connect(m_loadJob, &LoadJob::loaded, this, &MainWindow::onLoaded);
    connect(m_loadJob, &LoadJob::budgetLoaded, this, &MainWindow::onBudgetLoaded);
    connect(m_loadJob, &LoadJob::failed, this, &MainWindow::onLoadFailed);
    connect(m_loadJob, &LoadJob::cancelled, this, &MainWindow::onLoadCancelled);
    connect(m_analysisJob, &AnalysisJob::finished, this, &MainWindow::onAnalysisFinished);
    connect(m_analysisJob, &AnalysisJob::failed, this, &MainWindow::onAnalysisFailed);

    createActions();
    m_liveFollow = new LiveFollow(this);
    m_compareWith = new CompareWith(this);
    createCentralArea();
    createDocks();
    m_exportActions = new ExportActions(
        this, [this] { return m_result; },
        [this]() -> QWidget* { return m_budget ? static_cast<QWidget*>(m_budgetChart) : m_chart; },
        [this] { return m_detail->findingIndex(); });
    m_exportActions->setBudgetProvider([this] { return m_budgetResult; });
    connect(m_exportActions, &ExportActions::exported, this,
            [this](const QString& file) { statusBar()->showMessage(tr("Wrote %1").arg(file), 5000); });
    // the chart's and the findings table's context menus
    for (QWidget* chart : {static_cast<QWidget*>(m_chart), static_cast<QWidget*>(m_budgetChart)}) {
        chart->setContextMenuPolicy(Qt::ActionsContextMenu);
        chart->addAction(m_exportActions->saveChartAction());
        chart->addAction(m_resetZoomAction);
    }
    m_findingsView->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_findingsView->addAction(m_exportActions->copyFindingAction());
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
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a stormlog trace file"));
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

    m_closeAction = new QAction(tr("&Close Trace"), this);
    m_closeAction->setShortcut(QKeySequence::Close);
    connect(m_closeAction, &QAction::triggered, this, &MainWindow::closeTrace);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_resetZoomAction = new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Reset &Zoom"), this);
    m_resetZoomAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_resetZoomAction->setToolTip(tr("Show the whole run (Ctrl+0)"));

    for (const OverlayInfo& info : kOverlays) {
        auto* action = new QAction(tr(info.text), this);
        action->setCheckable(true);
        action->setToolTip(tr(info.toolTip));
        action->setData(QString::fromLatin1(info.key));
        m_overlayActions.emplace_back(info.overlay, action);
    }

    const auto makeNav = [this](const QString& objectName, const QString& text, const QKeySequence& key,
                                auto slot) {
        auto* action = new QAction(text, this);
        action->setObjectName(objectName);
        action->setShortcut(key);
        connect(action, &QAction::triggered, this, slot);
        return action;
    };
    m_nextFindingAction = makeNav(QStringLiteral("nextFindingAction"), tr("Next &Finding"),
                                  QKeySequence(Qt::Key_F8), [this] { stepFinding(+1); });
    m_prevFindingAction = makeNav(QStringLiteral("previousFindingAction"), tr("Previous F&inding"),
                                  QKeySequence(Qt::SHIFT | Qt::Key_F8), [this] { stepFinding(-1); });
    m_nextPhaseAction = makeNav(QStringLiteral("nextPhaseAction"), tr("Next &Phase"),
                                QKeySequence(Qt::Key_F7), [this] { stepPhase(+1); });
    m_prevPhaseAction = makeNav(QStringLiteral("previousPhaseAction"), tr("Previous P&hase"),
                                QKeySequence(Qt::SHIFT | Qt::Key_F7), [this] { stepPhase(-1); });
    m_stepForwardAction = makeNav(QStringLiteral("stepForwardAction"), tr("Step Cursor &Forward"),
                                  QKeySequence(Qt::ALT | Qt::Key_Right), [this] { stepCursor(+1); });
    m_stepBackAction = makeNav(QStringLiteral("stepBackAction"), tr("Step Cursor &Back"),
                               QKeySequence(Qt::ALT | Qt::Key_Left), [this] { stepCursor(-1); });
    m_stepForwardFastAction =
        makeNav(QStringLiteral("stepForwardFastAction"), tr("Step Cursor 10 Forward"),
                QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Right), [this] { stepCursor(+10); });
    m_stepBackFastAction =
        makeNav(QStringLiteral("stepBackFastAction"), tr("Step Cursor 10 Back"),
                QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_Left), [this] { stepCursor(-10); });

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
    file->addSeparator();
    file->addAction(m_exportActions->exportReportAction());
    file->addAction(m_exportActions->saveChartAction());
    file->addAction(m_exportActions->copyFindingAction());
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* overlays = view->addMenu(tr("Chart &Overlays"));
    for (const auto& [overlay, action] : m_overlayActions)
        overlays->addAction(action);
    view->addAction(m_resetZoomAction);
    view->addAction(m_liveFollow->pinAction());
    view->addSeparator();
    view->addAction(m_phasesDock->toggleViewAction());
    view->addAction(m_problemsPanel->toggleViewAction());

    QMenu* navigate = menuBar()->addMenu(tr("&Navigate"));
    navigate->addAction(m_nextFindingAction);
    navigate->addAction(m_prevFindingAction);
    navigate->addSeparator();
    navigate->addAction(m_nextPhaseAction);
    navigate->addAction(m_prevPhaseAction);
    navigate->addSeparator();
    navigate->addAction(m_stepForwardAction);
    navigate->addAction(m_stepBackAction);
    navigate->addAction(m_stepForwardFastAction);
    navigate->addAction(m_stepBackFastAction);

    QMenu* analysisMenu = menuBar()->addMenu(tr("&Analysis"));
    analysisMenu->addAction(m_thresholdsAction);
    analysisMenu->addAction(m_resetWindowAction);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About gapscope"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createCentralArea()
{
    m_stack = new QStackedWidget(this);
    m_welcome = new WelcomePage(m_stack);
    m_welcome->setIcon(QIcon(kIconResource));
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::showOpenFileDialog);
    connect(m_welcome, &WelcomePage::openDirectoryRequested, this, &MainWindow::showOpenDirectoryDialog);
    connect(m_welcome, &WelcomePage::openSampleRequested, this, &MainWindow::openSample);
    connect(m_welcome, &WelcomePage::recentFileRequested, this, &MainWindow::openPath);
    m_stack->addWidget(m_welcome);

    m_analysisPage = new QWidget(m_stack);
    auto* pageLayout = new QVBoxLayout(m_analysisPage);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(0);

    // chart toolbar: overlay toggles, zoom reset, and the session picker on the right
    m_chartToolBar = new QToolBar(tr("Chart"), m_analysisPage);
    m_chartToolBar->setObjectName(QStringLiteral("chartToolBar"));
    m_chartToolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_chartToolBar->setIconSize(QSize(16, 16));
    auto* overlaysLabel = new QLabel(tr("  Show: "), m_chartToolBar);
    m_overlaysLabelAction = m_chartToolBar->addWidget(overlaysLabel);
    m_budgetInfoLabel = new QLabel(m_chartToolBar);
    m_budgetInfoLabel->setObjectName(QStringLiteral("budgetInfo"));
    m_budgetInfoLabel->setContentsMargins(6, 0, 12, 0);
    m_budgetInfoAction = m_chartToolBar->addWidget(m_budgetInfoLabel);
    m_budgetInfoAction->setVisible(false);
    for (const auto& [overlay, action] : m_overlayActions)
        m_chartToolBar->addAction(action);
    m_chartToolBar->addSeparator();
    m_chartToolBar->addAction(m_resetZoomAction);
    auto* spacer = new QWidget(m_chartToolBar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_chartToolBar->addWidget(spacer);
    m_sessionPicker = new SessionPicker(m_chartToolBar);
    connect(m_sessionPicker, &SessionPicker::selectionChanged, this, &MainWindow::selectSession);
    m_sessionPickerAction = m_chartToolBar->addWidget(m_sessionPicker);
    pageLayout->addWidget(m_chartToolBar);

    // banner shown while the findings are those of a time window
    m_windowBanner = new QFrame(m_analysisPage);
    m_windowBanner->setObjectName(QStringLiteral("windowBanner"));
    m_windowBanner->setAutoFillBackground(true);
    {
        QPalette pal = m_windowBanner->palette();
        const QColor highlight = pal.color(QPalette::Highlight);
        QColor tint = pal.color(QPalette::Window);
        tint = QColor::fromRgbF(tint.redF() * 0.8f + highlight.redF() * 0.2f,
                                tint.greenF() * 0.8f + highlight.greenF() * 0.2f,
                                tint.blueF() * 0.8f + highlight.blueF() * 0.2f);
        pal.setColor(QPalette::Window, tint);
        m_windowBanner->setPalette(pal);
    }
    m_windowBanner->setFrameShape(QFrame::StyledPanel);
    auto* bannerLayout = new QHBoxLayout(m_windowBanner);
    bannerLayout->setContentsMargins(8, 4, 8, 4);
    auto* bannerIcon = new QLabel(m_windowBanner);
    bannerIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxInformation).pixmap(16, 16));
    bannerLayout->addWidget(bannerIcon);
    m_windowBannerLabel = new QLabel(m_windowBanner);
    m_windowBannerLabel->setObjectName(QStringLiteral("windowBannerLabel"));
    bannerLayout->addWidget(m_windowBannerLabel, 1);
    auto* resetButton = new QPushButton(tr("Reset"), m_windowBanner);
    resetButton->setObjectName(QStringLiteral("resetWindowButton"));
    resetButton->setToolTip(tr("Return to the analysis of the whole run (Ctrl+R)"));
    connect(resetButton, &QPushButton::clicked, this, &MainWindow::resetWindowAnalysis);
    bannerLayout->addWidget(resetButton);
    m_windowBanner->hide();
    pageLayout->addWidget(m_windowBanner);

    // chart over timeline: the gap chart of a trace, or the breakdown of a budget log
    m_chartStack = new QStackedWidget(m_analysisPage);
    auto* chartArea = new QWidget(m_chartStack);
    m_traceChartArea = chartArea;
    auto* chartLayout = new QVBoxLayout(chartArea);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->setSpacing(0);
    m_chart = new GapChartView(chartArea);
    m_chart->setObjectName(QStringLiteral("gapChart"));
    m_chart->setMinimumHeight(200);
    chartLayout->addWidget(m_chart, 1);
    m_scrubber = new TimelineScrubber(chartArea);
    m_scrubber->setObjectName(QStringLiteral("timelineScrubber"));
    chartLayout->addWidget(m_scrubber);

    for (const auto& [overlay, action] : m_overlayActions) {
        action->setChecked(m_chart->isOverlayVisible(overlay));
        const ChartOverlay o = overlay;
        connect(action, &QAction::toggled, this, [this, o](bool on) { m_chart->setOverlayVisible(o, on); });
    }
    connect(m_resetZoomAction, &QAction::triggered, m_chart, &GapChartView::resetZoom);
    connect(m_chart, &GapChartView::visibleRangeChanged, m_scrubber, &TimelineScrubber::setVisibleRange);
    connect(m_chart, &GapChartView::cursorRequested, this, &MainWindow::setCursorTime);
    connect(m_chart, &GapChartView::rangeSelected, this, &MainWindow::analyseWindow);
    connect(m_scrubber, &TimelineScrubber::cursorMoved, this, &MainWindow::onCursorMoved);
    m_chartStack->addWidget(m_traceChartArea);

    m_budgetChartArea = new QWidget(m_chartStack);
    auto* budgetLayout = new QVBoxLayout(m_budgetChartArea);
    budgetLayout->setContentsMargins(0, 0, 0, 0);
    budgetLayout->setSpacing(0);
    m_budgetChart = new BudgetBreakdownView(m_budgetChartArea);
    m_budgetChart->setObjectName(QStringLiteral("budgetChart"));
    m_budgetChart->setMinimumHeight(200);
    budgetLayout->addWidget(m_budgetChart, 1);
    m_verdictLane = new VerdictLane(m_budgetChartArea);
    m_verdictLane->setObjectName(QStringLiteral("verdictLane"));
    budgetLayout->addWidget(m_verdictLane);
    m_chartStack->addWidget(m_budgetChartArea);
    connect(m_resetZoomAction, &QAction::triggered, m_budgetChart, &BudgetBreakdownView::resetZoom);
    connect(m_budgetChart, &BudgetBreakdownView::visibleRangeChanged, m_verdictLane,
            &VerdictLane::setVisibleRange);
    connect(m_budgetChart, &BudgetBreakdownView::cursorRequested, this, &MainWindow::setCursorTime);
    connect(m_budgetChart, &BudgetBreakdownView::rangeSelected, this, &MainWindow::analyseWindow);
    connect(m_verdictLane, &VerdictLane::cursorMoved, this, &MainWindow::onCursorMoved);
    connect(m_budgetChart, &BudgetBreakdownView::plotMarginsChanged, m_verdictLane,
            &VerdictLane::setPlotMargins);

    // findings table beside the detail of the selected one
    m_findingsModel = new FindingsModel(this);
    m_findingsProxy = new FindingsDecorationProxy(this);
    m_findingsProxy->setSourceModel(m_findingsModel);
    m_findingsView = new QTableView(m_analysisPage);
    m_findingsView->setObjectName(QStringLiteral("findingsView"));
    m_findingsView->setModel(m_findingsProxy);
    m_findingsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_findingsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_findingsView->setAlternatingRowColors(true);
    m_findingsView->setShowGrid(false);
    m_findingsView->setWordWrap(false);
    m_findingsView->verticalHeader()->hide();
    m_findingsView->verticalHeader()->setDefaultSectionSize(m_findingsView->fontMetrics().height() + 8);
    QHeaderView* header = m_findingsView->horizontalHeader();
    header->setHighlightSections(false);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(FindingsModel::PhaseColumn, QHeaderView::Stretch);
    header->setMinimumSectionSize(70);
    connect(m_findingsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onFindingCurrentChanged(current); });

    m_detail = new FindingDetailView(m_analysisPage);
    m_detail->setObjectName(QStringLiteral("findingDetail"));

    m_findingsSplitter = new QSplitter(Qt::Horizontal, m_analysisPage);
    m_findingsSplitter->setObjectName(QStringLiteral("findingsSplitter"));
    m_findingsSplitter->addWidget(m_findingsView);
    m_findingsSplitter->addWidget(m_detail);
    m_tickDetail = new BudgetTickDetailView(m_analysisPage);
    m_tickDetail->setObjectName(QStringLiteral("tickDetail"));
    m_tickDetail->hide(); // budget logs only
    m_findingsSplitter->addWidget(m_tickDetail);
    m_findingsSplitter->setStretchFactor(0, 3);
    m_findingsSplitter->setStretchFactor(1, 2);
    m_findingsSplitter->setStretchFactor(2, 2);
    m_findingsSplitter->setChildrenCollapsible(false);

    m_mainSplitter = new QSplitter(Qt::Vertical, m_analysisPage);
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplitter->addWidget(m_chartStack);
    m_mainSplitter->addWidget(m_findingsSplitter);
    m_mainSplitter->setStretchFactor(0, 3);
    m_mainSplitter->setStretchFactor(1, 2);
    m_mainSplitter->setChildrenCollapsible(false);
    pageLayout->addWidget(m_mainSplitter, 1);

    m_stack->addWidget(m_analysisPage);
    setCentralWidget(m_stack);
}

void MainWindow::createDocks()
{
    m_phasesModel = new PhasesModel(this);
    m_phasesProxy = new PhasesDecorationProxy(this);
    m_phasesProxy->setSourceModel(m_phasesModel);
    m_phasesView = new QTreeView(this);
    m_phasesView->setObjectName(QStringLiteral("phasesView"));
    m_phasesView->setModel(m_phasesProxy);
    m_phasesView->setUniformRowHeights(true);
    m_phasesView->setAlternatingRowColors(true);
    m_phasesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_phasesView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_phasesView->header()->setStretchLastSection(false);
    m_phasesView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_phasesView->header()->setSectionResizeMode(PhasesModel::NameColumn, QHeaderView::Stretch);
    m_phasesView->header()->setMinimumSectionSize(40);
    connect(m_phasesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onPhaseCurrentChanged(current); });

    m_phasesDock = new QDockWidget(tr("Phases"), this);
    m_phasesDock->setObjectName(QStringLiteral("phasesDock"));
    m_phasesDock->setWidget(m_phasesView);
    addDockWidget(Qt::RightDockWidgetArea, m_phasesDock);

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
    m_mainSplitter->restoreState(settings.value(QStringLiteral("mainWindow/mainSplitter")).toByteArray());
    m_findingsSplitter->restoreState(
        settings.value(QStringLiteral("mainWindow/findingsSplitter")).toByteArray());
    m_phasesDockWanted = settings.value(QStringLiteral("mainWindow/phasesDock"), true).toBool();
    showPage(m_stack->currentWidget());
    for (const auto& [overlay, action] : m_overlayActions) {
        const QVariant on = settings.value(QStringLiteral("chart/overlay/") + action->data().toString());
        if (on.isValid())
            action->setChecked(on.toBool());
    }
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    settings.setValue(QStringLiteral("mainWindow/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(QStringLiteral("mainWindow/findingsSplitter"), m_findingsSplitter->saveState());
    settings.setValue(QStringLiteral("mainWindow/phasesDock"), m_phasesDockWanted);
    for (const auto& [overlay, action] : m_overlayActions)
        settings.setValue(QStringLiteral("chart/overlay/") + action->data().toString(), action->isChecked());
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
        const QFileInfo info(path);
        QString text = info.fileName().isEmpty() ? path : info.fileName();
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
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Trace"), dir,
        tr("Stormlog traces and memory-budget logs (*.jsonl *.ndjson *.json *.csv *.log *.text *.txt);;"
           "All files (*)"));
    if (!path.isEmpty())
        openPath(path);
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
            showError(tr("%1: no such file or directory").arg(path));
        }
        return;
    }
    // Results of the trace shown now must not land after the new one starts loading.
    m_analysisJob->discard();
    m_loadJob->start(path);
}

void MainWindow::reload()
{
    if (m_budget)
        openPath(m_budget->path);
    else if (m_trace)
        openPath(m_trace->path);
}

void MainWindow::cancelLoad()
{
    m_loadJob->cancel();
}

bool MainWindow::showTraceNow(const QString& path, QString* error)
{
    m_loadJob->cancel();
    m_analysisJob->discard();
    const DocumentOutcome document = loadDocument(path);
    if (!document.ok()) {
        if (error)
            *error = document.failure();
        return false;
    }
    if (document.budget) {
        if (!acceptBudget(document.budget, error))
            return false;
        runBudget(std::nullopt, true);
        return true;
    }
    if (!acceptTrace(document.trace, error))
        return false;
    QString analysisError;
    auto result = runAnalysis(m_trace, baseRequest(), &analysisError);
    if (!result) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, analysisError);
        return false;
    }
    m_fullResult = result;
    applyResult(result, true);
    return true;
}

void MainWindow::closeTrace()
{
    m_liveFollow->stop();
    m_loadJob->cancel();
    m_analysisJob->discard();
    forgetBudget();
    showBudgetViews(false);
    m_trace.reset();
    m_result.reset();
    m_fullResult.reset();
    m_pendingWindow.reset();
    m_chart->setAnalysis(nullptr);
    m_scrubber->setAnalysis(nullptr);
    m_findingsModel->setAnalysis(nullptr);
    m_phasesModel->setAnalysis(nullptr);
    m_detail->clear();
    m_problemsPanel->clear();
    m_problemsPanel->hide();
    m_cursorLabel->clear();
    m_displayPath.clear();
    showPage(m_welcome);
    updateWindowBanner();
    updateProblemsButton();
    updateActions();
    updateTitle();
}

void MainWindow::onLoadStarted(quint64, const QString& path)
{
    setLoadingUi(true, path);
}

void MainWindow::onLoadProgress(quint64 generation, qint64 bytesRead, qint64 totalBytes)
{
    if (generation != m_loadJob->generation())
        return;
    if (totalBytes <= 0) {
        m_progress->setRange(0, 0); // busy indicator when the size is unknown
        return;
    }
    m_progress->setRange(0, 1000);
    m_progress->setValue(
        int(std::clamp<double>(double(bytesRead) * 1000.0 / double(totalBytes), 0.0, 1000.0)));
    m_progress->setToolTip(tr("%1 of %2 read").arg(bytesText(bytesRead), bytesText(totalBytes)));
}

void MainWindow::onLoaded(quint64 generation, std::shared_ptr<const TraceData> data)
{
    if (generation != m_loadJob->generation())
        return;
    setLoadingUi(false);
    QString error;
    if (!acceptTrace(std::move(data), &error)) {
        showError(error);
        return;
    }
    if (m_trace->path != m_samplePath)
        addRecentFile(m_trace->path);
    m_freshTrace = true;
    startAnalysis(baseRequest());
    m_liveFollow->traceOpened(m_trace);
}

void MainWindow::onBudgetLoaded(quint64 generation, std::shared_ptr<const BudgetData> data)
{
    if (generation != m_loadJob->generation())
        return;
    setLoadingUi(false);
    QString error;
    if (!acceptBudget(std::move(data), &error)) {
        showError(error);
        return;
    }
    addRecentFile(m_budget->path);
    runBudget(std::nullopt, true);
}

bool MainWindow::acceptBudget(std::shared_ptr<const BudgetData> data, QString* error)
{
    if (!data)
        return false;
    if (data->ticks.empty()) {
        if (error) {
            QString why = tr("%1: no memory-budget ticks could be read").arg(data->path);
            if (!data->problems.kept().empty())
                why += tr(" (first problem: %1)").arg(data->problems.kept().front().toString());
            *error = why;
        }
        m_problemsPanel->setProblems(data->problems);
        return false;
    }
    forgetTrace();
    m_budget = std::move(data);
    m_budgetResult.reset();
    m_budgetFullResult.reset();
    m_budgetThresholds.osGap = m_thresholds;
    m_displayPath = m_budget->path;
    m_welcome->setMessage({});
    m_problemsPanel->setProblems(m_budget->problems);
    if (m_budget->problems.errorCount() > 0 && m_problemsPanel->isHidden()) {
        m_problemsPanel->show();
        resizeDocks({m_problemsPanel}, {170}, Qt::Vertical);
    }
    updateProblemsButton();
    updateTitle();
    return true;
}

void MainWindow::runBudget(std::optional<TimeWindow> window, bool fresh)
{
    if (!m_budget)
        return;
    // The rules are linear in the ticks (a day at 5 s ticks is 17 280 of them): no job needed.
    applyBudgetResult(runBudgetAnalysis(m_budget, m_budgetThresholds, window), fresh);
}

void MainWindow::applyBudgetResult(std::shared_ptr<const BudgetAnalysisResult> result, bool fresh)
{
    if (!result || result->data != m_budget)
        return;
    m_budgetResult = std::move(result);
    if (!m_budgetResult->window)
        m_budgetFullResult = m_budgetResult;
    m_budgetChart->setAnalysis(m_budgetResult);
    m_verdictLane->setAnalysis(m_budgetResult);
    m_verdictLane->setVisibleRange(m_budgetChart->visibleBeginNs(), m_budgetChart->visibleEndNs());
    m_tickDetail->setAnalysis(m_budgetResult);
    m_findingsModel->setBudgetAnalysis(m_budgetResult);
    m_detail->showBudgetFinding(m_budgetResult, -1);
    showBudgetViews(true);
    showPage(m_analysisPage);
    if (fresh && !m_budget->ticks.empty())
        setCursorTime(m_budget->ticks.timestampNs.front());
    else
        setCursorTime(m_verdictLane->cursorTime());
    updateWindowBanner();
    updateActions();
    updateTitle();
    if (fresh && m_findingsModel->rowCount() > 0)
        selectFinding(0);
    const qsizetype findings = qsizetype(m_budgetResult->findings.size());
    statusBar()->showMessage(findings == 0
                                 ? tr("No memory-budget findings")
                                 : englishPlural(tr("%n finding(s)", nullptr, int(findings)), findings),
                             4000);
}

void MainWindow::forgetTrace()
{
    m_liveFollow->stop(); // a budget log is not followed
    m_analysisJob->discard();
    m_trace.reset();
    m_result.reset();
    m_fullResult.reset();
    m_pendingWindow.reset();
    m_chart->setAnalysis(nullptr);
    m_scrubber->setAnalysis(nullptr);
    m_phasesModel->setAnalysis(nullptr);
    if (m_findingsModel->analysis())
        m_findingsModel->setAnalysis(nullptr);
}

void MainWindow::forgetBudget()
{
    m_budget.reset();
    m_budgetResult.reset();
    m_budgetFullResult.reset();
    m_budgetChart->setAnalysis(nullptr);
    m_verdictLane->setAnalysis(nullptr);
    m_tickDetail->clear();
    if (m_findingsModel->budgetAnalysis())
        m_findingsModel->setBudgetAnalysis(nullptr);
}

void MainWindow::showBudgetViews(bool budget)
{
    m_chartStack->setCurrentWidget(budget ? m_budgetChartArea : m_traceChartArea);
    m_tickDetail->setVisible(budget);
    m_overlaysLabelAction->setVisible(!budget);
    m_budgetInfoAction->setVisible(budget);
    if (budget && m_budget) {
        int64_t missing = 0;
        for (const TickGap& gap : m_budget->gaps)
            missing += gap.missingTicks;
        QStringList parts;
        parts << tr("<b>Memory breakdown</b>");
        parts << englishPlural(tr("%n tick(s)", nullptr, int(m_budget->ticks.size())),
                               qint64(m_budget->ticks.size()));
        if (m_budget->tickPeriodNs > 0)
            parts << tr("every %1").arg(formatReportDuration(m_budget->tickPeriodNs));
        if (missing > 0)
            parts << englishPlural(tr("%n not logged", nullptr, int(missing)), missing);
        parts << (m_budget->ticks.hasJemalloc(0) ? tr("jemalloc") : tr("system allocator"));
        m_budgetInfoLabel->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
    }
    for (const auto& [overlay, action] : m_overlayActions)
        action->setVisible(!budget);
    if (budget)
        m_sessionPickerAction->setVisible(false);
}

void MainWindow::onLoadFailed(quint64 generation, const QString& error)
{
    if (generation != m_loadJob->generation())
        return;
    setLoadingUi(false);
    showError(error);
}

void MainWindow::onLoadCancelled(quint64 generation)
{
    if (generation != m_loadJob->generation())
        return;
    setLoadingUi(false);
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
}

bool MainWindow::acceptTrace(std::shared_ptr<const TraceData> data, QString* error)
{
    if (!data)
        return false;
    const auto sessionIndex = data->defaultSessionIndex();
    if (!sessionIndex || data->store.size() == 0) {
        if (error) {
            QString why = tr("%1: no events could be loaded").arg(data->path);
            if (!data->problems.kept().empty())
                why += englishPlural(tr(" (%n record(s) rejected; first: %1)", nullptr,
                                        int(data->problems.errorCount())),
                                     data->problems.errorCount())
                           .arg(data->problems.kept().front().toString());
            *error = why;
        }
        // the rejected records are still worth a look
        m_problemsPanel->setProblems(data->problems);
        return false;
    }
    forgetBudget();
    showBudgetViews(false);
    m_trace = std::move(data);
    m_sessionIndex = *sessionIndex;
    m_rank.reset();
    m_fullResult.reset();
    m_pendingWindow.reset();
    m_displayPath = m_trace->path == m_samplePath ? tr("Bundled sample (phasespike.jsonl)") : m_trace->path;
    m_welcome->setMessage({});
    m_problemsPanel->setProblems(m_trace->problems);
    if (m_trace->problems.errorCount() > 0 && m_problemsPanel->isHidden()) {
        m_problemsPanel->show();
        // a strip under the chart, not half the window
        resizeDocks({m_problemsPanel}, {170}, Qt::Vertical);
    }
    updateProblemsButton();
    updateTitle();
    return true;
}

AnalysisRequest MainWindow::baseRequest() const
{
    AnalysisRequest request;
    request.sessionIndex = m_sessionIndex;
    request.rank = m_rank;
    request.thresholds = m_thresholds;
    return request;
}

void MainWindow::startAnalysis(const AnalysisRequest& request)
{
    if (!m_trace)
        return;
    m_pendingWindow = request.window;
    m_analysisJob->start(m_trace, request);
    updateWindowBanner();
    updateActions();
}

void MainWindow::onAnalysisFinished(quint64 generation, std::shared_ptr<const AnalysisResult> result)
{
    if (generation != m_analysisJob->generation() || !result || result->trace != m_trace)
        return;
    if (!result->request.window)
        m_fullResult = result;
    const bool fresh = m_freshTrace;
    m_freshTrace = false;
    applyResult(std::move(result), fresh);
}

void MainWindow::onAnalysisFailed(quint64 generation, const QString& error)
{
    if (generation != m_analysisJob->generation())
        return;
    m_pendingWindow.reset();
    showError(error);
    updateWindowBanner();
    updateActions();
}

void MainWindow::applyResult(std::shared_ptr<const AnalysisResult> result, bool freshTrace)
{
    m_result = std::move(result);
    m_pendingWindow.reset();
    m_sessionIndex = m_result->sessionIndex;
    m_rank = m_result->rank;
    if (freshTrace && m_result->usableRows.empty() && !m_result->counterRows.empty()) {
        // No gap to draw (e.g. a CPU trace without a device total): show the counters instead.
        for (const auto& [overlay, action] : m_overlayActions) {
            if (overlay == ChartOverlay::Allocated || overlay == ChartOverlay::Reserved ||
                overlay == ChartOverlay::DeviceUsed)
                action->setChecked(true);
        }
    }
    m_chart->setAnalysis(m_result);
    m_scrubber->setAnalysis(m_result);
    m_scrubber->setVisibleRange(m_chart->visibleBeginNs(), m_chart->visibleEndNs());
    m_findingsModel->setAnalysis(m_result);
    m_phasesModel->setAnalysis(m_result);
    m_phasesView->expandAll();
    m_detail->showFinding(m_result, -1);
    m_sessionPicker->setTrace(m_trace, m_result->sessionIndex, m_result->rank);
    m_sessionPickerAction->setVisible(m_sessionPicker->hasChoice());
    showPage(m_analysisPage);
    m_cursorNs = m_scrubber->cursorTime();
    updateCursorValues();
    updateWindowBanner();
    updateActions();
    updateTitle();
    // The most severe finding of a newly opened trace is what the user came for.
    if (freshTrace && m_findingsModel->rowCount() > 0)
        selectFinding(0);
    const qsizetype findings = qsizetype(m_result->findings.size());
    statusBar()->showMessage(findings == 0
                                 ? tr("No hidden-memory findings")
                                 : englishPlural(tr("%n finding(s)", nullptr, int(findings)), findings),
                             4000);
}

void MainWindow::showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest)
{
    if (!result || !m_trace || result->trace->path != m_trace->path || result->partition.size() == 0)
        return;
    m_trace = result->trace;
    m_fullResult = result;
    m_problemsPanel->setProblems(m_trace->problems);
    updateProblemsButton();
    if (isWindowAnalysis())
        return; // the window stays as analysed; Reset shows the latest run
    const qint64 oldBegin = m_chart->visibleBeginNs();
    const qint64 oldEnd = m_chart->visibleEndNs();
    const qint64 oldCursor = m_cursorNs;
    const bool zoomed = m_result && m_result->partition.size() > 0 &&
                        (oldBegin > m_result->trace->store.timestampNs[m_result->partition.begin] ||
                         oldEnd < m_result->trace->store.timestampNs[m_result->partition.end - 1]);
    applyResult(std::move(result), false);
    const qint64 latest = m_result->trace->store.timestampNs[m_result->partition.end - 1];
    if (pinToLatest) {
        if (zoomed)
            m_chart->setVisibleRange(latest - (oldEnd - oldBegin), latest);
        setCursorTime(latest);
    } else {
        if (zoomed)
            m_chart->setVisibleRange(oldBegin, oldEnd);
        setCursorTime(oldCursor);
    }
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

void MainWindow::showPage(QWidget* page)
{
    m_stack->setCurrentWidget(page);
    const bool analysis = page == m_analysisPage;
    // a trace without phases gives the chart the room of an empty tree
    const bool hasPhases = m_result && !m_result->phases.empty();
    m_phasesDock->setVisible(analysis && hasPhases && m_phasesDockWanted);
    m_phasesDock->toggleViewAction()->setEnabled(analysis);
    if (!analysis)
        m_problemsPanel->hide();
}

bool MainWindow::isLoading() const
{
    return m_loadJob->isRunning();
}

bool MainWindow::isAnalysing() const
{
    return m_analysisJob->isRunning();
}

bool MainWindow::isWindowAnalysis() const
{
    if (m_budget)
        return m_budgetResult && m_budgetResult->window.has_value();
    return (m_result && m_result->request.window) || m_pendingWindow.has_value();
}

bool MainWindow::isWelcomeShown() const
{
    return m_stack->currentWidget() == m_welcome;
}

QString MainWindow::windowBannerText() const
{
    return m_windowBanner->isHidden() ? QString() : m_windowBannerLabel->text();
}

QString MainWindow::cursorValuesText() const
{
    return m_cursorLabel->text();
}

QString MainWindow::problemsButtonText() const
{
    return m_problemsButton->isHidden() ? QString() : m_problemsButton->text();
}

QString MainWindow::relativeTime(qint64 ns) const
{
    if (m_budgetResult)
        return formatRelativeTime(ns, m_budgetResult->originNs());
    return formatRelativeTime(ns, m_result ? FindingsModel::originNs(*m_result) : 0);
}

void MainWindow::updateWindowBanner()
{
    if (m_budget) {
        if (!m_budgetResult || !m_budgetResult->window) {
            m_windowBanner->hide();
            return;
        }
        const auto& times = m_budget->ticks.timestampNs;
        const BudgetAnalysisResult& r = *m_budgetResult;
        QString text = r.analysedTicks() == 0
                           ? tr("Window analysis: %1 – %2  ·  no ticks in the window")
                                 .arg(relativeTime(r.window->beginNs), relativeTime(r.window->endNs))
                           : tr("Window analysis: %1 – %2")
                                 .arg(relativeTime(times[r.firstTick]), relativeTime(times[r.lastTick - 1]));
        if (r.analysedTicks() > 0)
            text += englishPlural(tr("  ·  %n finding(s) in %1 ticks", nullptr, int(r.findings.size())),
                                  qint64(r.findings.size()))
                        .arg(r.analysedTicks());
        m_windowBannerLabel->setText(text);
        m_windowBanner->show();
        return;
    }
    std::optional<TimeWindow> window = m_pendingWindow;
    if (!window && m_result)
        window = m_result->request.window;
    if (!window) {
        m_windowBanner->hide();
        return;
    }
    QString text =
        tr("Window analysis: %1 – %2").arg(relativeTime(window->beginNs), relativeTime(window->endNs));
    if (m_pendingWindow)
        text += tr("  (analysing...)");
    else if (m_result)
        text += englishPlural(tr("  ·  %n finding(s) in %1 samples", nullptr, int(m_result->findings.size())),
                              qint64(m_result->findings.size()))
                    .arg(m_result->usableRows.size());
    m_windowBannerLabel->setText(text);
    m_windowBanner->show();
}

void MainWindow::updateProblemsButton()
{
    const ProblemLog* problems = m_budget ? &m_budget->problems : m_trace ? &m_trace->problems : nullptr;
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
    const bool hasResult = m_result != nullptr || m_budgetResult != nullptr;
    const bool hasFindings =
        (m_result && !m_result->findings.empty()) || (m_budgetResult && !m_budgetResult->findings.empty());
    const bool hasPhases = m_result && !m_result->phases.empty();
    m_reloadAction->setEnabled(m_trace != nullptr || m_budget != nullptr);
    m_closeAction->setEnabled(m_trace != nullptr || m_budget != nullptr || isLoading());
    if (m_exportActions)
        m_exportActions->updateEnabled();
    m_compareWith->updateEnabled();
    m_resetZoomAction->setEnabled(hasResult);
    for (const auto& [overlay, action] : m_overlayActions)
        action->setEnabled(hasResult);
    m_nextFindingAction->setEnabled(hasFindings);
    m_prevFindingAction->setEnabled(hasFindings);
    m_nextPhaseAction->setEnabled(hasPhases);
    m_prevPhaseAction->setEnabled(hasPhases);
    for (QAction* a : {m_stepForwardAction, m_stepBackAction, m_stepForwardFastAction, m_stepBackFastAction})
        a->setEnabled(hasResult);
    m_resetWindowAction->setEnabled(isWindowAnalysis());
}

void MainWindow::updateTitle()
{
    if (m_displayPath.isEmpty()) {
        setWindowTitle(tr("gapscope"));
        return;
    }
    const QFileInfo info(m_displayPath);
    const QString name = m_trace && m_trace->path == m_samplePath ? m_displayPath : info.fileName();
    setWindowTitle(tr("%1 — gapscope").arg(name));
}

// ---------------------------------------------------------------------------------------------
// analysis requests

void MainWindow::analyseWindow(qint64 beginNs, qint64 endNs)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    if (m_budget) {
        runBudget(TimeWindow{beginNs, endNs}, false);
        return;
    }
    if (!m_trace)
        return;
    AnalysisRequest request = baseRequest();
    request.window = TimeWindow{beginNs, endNs};
    startAnalysis(request);
}

void MainWindow::resetWindowAnalysis()
{
    if (!isWindowAnalysis())
        return;
    if (m_budget) {
        if (m_budgetFullResult && m_budgetFullResult->data == m_budget)
            applyBudgetResult(m_budgetFullResult, false);
        else
            runBudget(std::nullopt, false);
        return;
    }
    if (m_fullResult && m_fullResult->trace == m_trace && m_fullResult->request.thresholds == m_thresholds &&
        m_fullResult->sessionIndex == m_sessionIndex) {
        m_analysisJob->discard(); // a window analysis still running must not replace it
        applyResult(m_fullResult, false);
        return;
    }
    startAnalysis(baseRequest());
}

void MainWindow::setThresholds(const GapThresholds& thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    m_fullResult.reset();
    m_budgetThresholds.osGap = thresholds;
    if (m_budget) {
        m_budgetFullResult.reset();
        runBudget(m_budgetResult ? m_budgetResult->window : std::nullopt, false);
        return;
    }
    if (!m_trace)
        return;
    AnalysisRequest request = baseRequest();
    if (m_result && m_result->request.window)
        request.window = m_result->request.window;
    startAnalysis(request);
}

void MainWindow::selectSession(int sessionIndex, qint64 rank)
{
    if (!m_trace || sessionIndex < 0 || size_t(sessionIndex) >= m_trace->sessions.size())
        return;
    m_sessionIndex = size_t(sessionIndex);
    m_rank = rank;
    m_fullResult.reset();
    m_freshTrace = true;
    startAnalysis(baseRequest());
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

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About gapscope"),
        tr("<h3>gapscope %1</h3><p>Finds hidden memory: what a process holds that its allocator "
           "does not account for, in stormlog telemetry traces.</p>")
            .arg(QApplication::applicationVersion()));
}

// ---------------------------------------------------------------------------------------------
// navigation

void MainWindow::selectFinding(int findingIndex)
{
    if (findingIndex < 0 || findingIndex >= m_findingsModel->rowCount())
        return;
    m_findingsView->setCurrentIndex(m_findingsProxy->index(findingIndex, 0));
}

void MainWindow::selectPhase(int spanIndex)
{
    const QModelIndex source = m_phasesModel->indexOfSpan(size_t(std::max(spanIndex, 0)));
    if (spanIndex < 0 || !source.isValid())
        return;
    const QModelIndex index = m_phasesProxy->mapFromSource(source);
    m_phasesView->scrollTo(index);
    m_phasesView->setCurrentIndex(index);
}

void MainWindow::onFindingCurrentChanged(const QModelIndex& current)
{
    if (m_exportActions)
        m_exportActions->updateEnabled();
    if (m_budgetResult) {
        const int findingIndex =
            current.isValid() ? current.data(FindingsModel::FindingIndexRole).toInt() : -1;
        m_detail->showBudgetFinding(m_budgetResult, findingIndex);
        if (const Finding* finding = m_findingsModel->finding(findingIndex)) {
            // the evidence tick: the cursor and the tick detail go there
            setCursorTime(finding->evidenceTimestampNs);
            ensureTimeVisible(finding->evidenceTimestampNs);
        }
        return;
    }
    if (!current.isValid() || !m_result) {
        m_detail->showFinding(m_result, -1);
        return;
    }
    const int findingIndex = current.data(FindingsModel::FindingIndexRole).toInt();
    const Finding* finding = m_findingsModel->finding(findingIndex);
    if (!finding)
        return;
    m_detail->showFinding(m_result, findingIndex);
    m_chart->highlightFinding(findingIndex);
    setCursorTime(finding->evidenceTimestampNs);
    ensureTimeVisible(finding->evidenceTimestampNs);
}

void MainWindow::onPhaseCurrentChanged(const QModelIndex& current)
{
    const PhaseSpan* span = m_phasesModel->spanAt(m_phasesProxy->mapToSource(current));
    if (!span)
        return;
    // a little room either side so the phase edges are visible
    const qint64 duration = span->endNs - span->startNs;
    const qint64 margin = std::max<qint64>(duration / 50, 1'000'000);
    m_chart->setVisibleRange(span->startNs - margin, span->endNs + margin);
    statusBar()->showMessage(
        tr("Phase %1: %2 – %3").arg(qs(span->label), relativeTime(span->startNs), relativeTime(span->endNs)),
        4000);
}

void MainWindow::ensureTimeVisible(qint64 ns)
{
    if (m_budget) {
        const qint64 begin = m_budgetChart->visibleBeginNs();
        const qint64 end = m_budgetChart->visibleEndNs();
        if (ns < begin || ns > end)
            m_budgetChart->setVisibleRange(ns - (end - begin) / 2, ns - (end - begin) / 2 + (end - begin));
        return;
    }
    const qint64 begin = m_chart->visibleBeginNs();
    const qint64 end = m_chart->visibleEndNs();
    if (ns >= begin && ns <= end)
        return;
    const qint64 width = end - begin;
    if (width <= 0) {
        m_chart->resetZoom();
        return;
    }
    m_chart->setVisibleRange(ns - width / 2, ns - width / 2 + width);
}

void MainWindow::stepFinding(int delta)
{
    const int rows = m_findingsModel->rowCount();
    if (rows == 0)
        return;
    const QModelIndex current = m_findingsView->currentIndex();
    int row = current.isValid() ? current.row() + delta : (delta > 0 ? 0 : rows - 1);
    row = std::clamp(row, 0, rows - 1);
    selectFinding(row);
}

void MainWindow::stepPhase(int delta)
{
    const int spans = int(m_phasesModel->spanCount());
    if (spans == 0)
        return;
    // spans are in start order, so stepping the span index walks the run chronologically
    const PhaseSpan* current =
        m_phasesModel->spanAt(m_phasesProxy->mapToSource(m_phasesView->currentIndex()));
    int next = delta > 0 ? 0 : spans - 1;
    if (current)
        next = std::clamp(m_phasesView->currentIndex().data(PhasesModel::SpanIndexRole).toInt() + delta, 0,
                          spans - 1);
    selectPhase(next);
}

void MainWindow::stepCursor(int samples)
{
    if (m_budget)
        m_verdictLane->stepCursor(samples); // ticks; emits cursorMoved
    else
        m_scrubber->stepCursor(samples); // emits cursorMoved
}

void MainWindow::setCursorTime(qint64 ns)
{
    if (m_budget) {
        // the cursor sits on logged ticks only
        if (const auto tick = nearestBudgetTick(m_budget->ticks, ns))
            ns = m_budget->ticks.timestampNs[*tick];
        m_verdictLane->setCursorTime(ns);
        onCursorMoved(ns);
        return;
    }
    m_scrubber->setCursorTime(ns);
    onCursorMoved(ns);
}

void MainWindow::onCursorMoved(qint64 ns)
{
    m_cursorNs = ns;
    if (m_budget) {
        m_budgetChart->setCursorTime(ns);
        m_tickDetail->showTime(ns);
    } else {
        m_chart->setCursorTime(ns);
    }
    updateCursorValues();
}

void MainWindow::updateCursorValues()
{
    if (m_budgetResult) {
        const auto tick = nearestBudgetTick(m_budget->ticks, m_cursorNs);
        if (!tick) {
            m_cursorLabel->clear();
            return;
        }
        const BudgetTicks& t = m_budget->ticks;
        QStringList parts;
        parts << tr("t %1").arg(relativeTime(t.timestampNs[*tick]));
        parts << tr("verdict %1").arg(qs(t.labelOf(*tick)));
        parts << tr("rss %1").arg(bytesText(t.rssBytes[*tick]));
        parts << tr("target %1").arg(bytesText(t.effectiveTargetBytes[*tick]));
        parts << tr("cache %1").arg(bytesText(m_budgetResult->buckets.cache[*tick]));
        parts << tr("non-cache %1").arg(bytesText(m_budgetResult->buckets.nonCache[*tick]));
        m_cursorLabel->setText(parts.join(QStringLiteral("   ·   ")));
        return;
    }
    if (!m_result || m_result->usableRows.empty()) {
        m_cursorLabel->setText(m_result ? tr("No usable samples") : QString());
        return;
    }
    const EventStore& store = m_result->trace->store;
    const auto& rows = m_result->usableRows;
    // the last usable sample at or before the cursor (the first one when the cursor is earlier)
    auto it = std::upper_bound(rows.begin(), rows.end(), m_cursorNs,
                               [&](qint64 t, uint32_t row) { return t < store.timestampNs[row]; });
    const uint32_t row = it == rows.begin() ? rows.front() : *(it - 1);
    const int64_t used = store.used[row];
    const int64_t reserved = store.reserved[row];
    const int64_t gap = (used == kNullInt || reserved == kNullInt) ? kNullInt : used - reserved;

    const PhaseSpan* deepest = nullptr;
    for (const PhaseSpan& span : m_result->phases)
        if (span.contains(m_cursorNs) && (!deepest || span.depth >= deepest->depth))
            deepest = &span;

    QStringList parts;
    parts << tr("t %1").arg(relativeTime(m_cursorNs));
    parts << tr("gap %1").arg(bytesText(gap));
    parts << tr("allocated %1").arg(bytesText(store.allocated[row]));
    parts << tr("reserved %1").arg(bytesText(reserved));
    parts << tr("used %1").arg(bytesText(used));
    parts << tr("phase %1").arg(deepest ? qs(deepest->label) : tr("—"));
    m_cursorLabel->setText(parts.join(QStringLiteral("   ·   ")));
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
    openPath(urls.front().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!testAttribute(Qt::WA_DontShowOnScreen))
        saveSettings();
    m_loadJob->cancel();
    QMainWindow::closeEvent(event);
}

} // namespace gapscope
