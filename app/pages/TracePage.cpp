#include "app/pages/TracePage.h"

#include "analysis/PhaseRuns.h"
#include "analysis/PhaseSteps.h"
#include "app/pages/OverlayToggles.h"
#include "app/pages/PageSummary.h"
#include "app/pages/ViewState.h"
#include "model/document/Recognition.h"
#include "model/items/BookmarksModel.h"
#include "model/items/FindingsModel.h"
#include "model/items/PhasesModel.h"
#include "model/report/ReportContent.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/text/Text.h"
#include "model/trace/CounterCapture.h"
#include "model/work/BackgroundWork.h"
#include "model/work/LoadJob.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/common/PaneKeys.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/SessionPicker.h"
#include "widgets/trace/SnapshotOverlay.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QAction>
#include <QActionGroup>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

namespace gapscope {

namespace {

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
    {ChartOverlay::TrackerWarnings, QT_TRANSLATE_NOOP("MainWindow", "Tracker Warnings"),
     QT_TRANSLATE_NOOP("MainWindow",
                       "The tracker's own warning and critical events (\"High fragmentation\", \"Large "
                       "allocation detected\"): a lane along the bottom of the chart; hover for their text"),
     "tracker_warnings"},
    // shown only while a snapshot is attached (TracePage::attachSnapshot)
    {ChartOverlay::SnapshotAllocated, QT_TRANSLATE_NOOP("MainWindow", "Snapshot Allocated"),
     QT_TRANSLATE_NOOP("MainWindow",
                       "The attached PyTorch snapshot's allocated bytes after each of its trace entries"),
     "snapshot_allocated"},
    {ChartOverlay::SnapshotReserved, QT_TRANSLATE_NOOP("MainWindow", "Snapshot Reserved"),
     QT_TRANSLATE_NOOP("MainWindow",
                       "The attached PyTorch snapshot's reserved bytes (its segments) after each "
                       "of its trace entries, and its segment allocations and frees as ticks"),
     "snapshot_reserved"},
};

QString trMain(const char* text)
{
    return QCoreApplication::translate("MainWindow", text);
}

// The label of the deepest phase containing ns, "—" outside every phase.
QString deepestPhaseLabel(const AnalysisResult& result, qint64 ns)
{
    const PhaseSpan* deepest = nullptr;
    for (const PhaseSpan& span : result.phases)
        if (span.contains(ns) && (!deepest || span.depth >= deepest->depth))
            deepest = &span;
    return deepest ? shownText(qs(deepest->label)) : trMain("—");
}

// The cursor readout's phase: "step 620 · train" where the phases carry steps, else
// "phase train".
QString phaseReadout(const AnalysisResult& result, const StepIndex* steps, qint64 ns)
{
    const TrainingStep* step = steps ? steps->stepAt(ns) : nullptr;
    if (!step)
        return trMain("phase %1").arg(deepestPhaseLabel(result, ns));
    return trMain("%1 · %2").arg(qs(steps->label(*step)), deepestPhaseLabel(result, ns));
}

} // namespace

TracePage::TracePage(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent)
    : DocumentPage(resetZoomAction, parent), m_thresholds(thresholds)
{
    m_analysisJob = new AnalysisJob(this);
    // The job drops results of superseded requests itself.
    connect(m_analysisJob, &AnalysisJob::finished, this,
            [this](quint64, std::shared_ptr<const AnalysisResult> result) {
                onAnalysisFinished(std::move(result));
            });
    connect(m_analysisJob, &AnalysisJob::failed, this,
            [this](quint64, const QString& error) { onAnalysisFailed(error); });
    m_snapshotWork = new BackgroundWork(this);

    for (const OverlayInfo& info : kOverlays) {
        auto* action = new QAction(trMain(info.text), this);
        action->setCheckable(true);
        action->setToolTip(trMain(info.toolTip));
        action->setData(QString::fromLatin1(info.key));
        m_overlayActions.emplace_back(info.overlay, action);
    }

    // chart toolbar: overlay toggles, zoom reset, and the session picker on the right
    toolBar()->addWidget(new QLabel(tr("  Show: "), toolBar()));
    for (const auto& [overlay, action] : m_overlayActions)
        toolBar()->addAction(action);
    showSnapshotToggles();
    addZoomToToolBar();
    m_sessionPicker = new SessionPicker(toolBar());
    connect(m_sessionPicker, &SessionPicker::selectionChanged, this, &TracePage::selectSession);
    m_sessionPickerAction = toolBar()->addWidget(m_sessionPicker);

    auto* chartArea = new QWidget(this);
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

    for (const auto& [overlay, action] : m_overlayActions)
        action->setChecked(m_chart->isOverlayVisible(overlay));
    m_overlayToggles = std::make_unique<OverlayToggles>(m_overlayActions);
    for (const auto& [overlay, action] : m_overlayActions) {
        const ChartOverlay o = overlay;
        connect(action, &QAction::toggled, this, [this, o](bool on) {
            m_chart->setOverlayVisible(o, on);
            m_overlayToggles->remember(o, on);
        });
    }

    // the y axis: fit the data or start at zero, from the View menu or the chart's context menu
    auto* yAxisGroup = new QActionGroup(this);
    for (const auto& [text, key, mode] :
         {std::tuple{QT_TRANSLATE_NOOP("MainWindow", "Fit Data"), "fit", ByteRangeMode::FitData},
          std::tuple{QT_TRANSLATE_NOOP("MainWindow", "From Zero"), "zero", ByteRangeMode::FromZero}}) {
        auto* action = new QAction(trMain(text), yAxisGroup);
        action->setCheckable(true);
        action->setData(QString::fromLatin1(key));
        action->setChecked(m_chart->yRangeMode() == mode);
        const ByteRangeMode m = mode;
        connect(action, &QAction::toggled, this, [this, m](bool on) {
            if (on)
                m_chart->setYRangeMode(m);
        });
        m_yAxisActions.push_back(action);
    }
    m_yLogAction = new QAction(trMain("Logarithmic"), this);
    m_yLogAction->setCheckable(true);
    m_yLogAction->setToolTip(trMain("A log2 byte axis: small and large values both readable; zero and "
                                    "negative values are not drawn"));
    connect(m_yLogAction, &QAction::toggled, m_chart, &GapChartView::setLogScale);
    connect(m_chart, &GapChartView::logScaleChanged, m_yLogAction, &QAction::setChecked);
    m_stepAxisAction = new QAction(trMain("Training &Steps"), this);
    m_stepAxisAction->setObjectName(QStringLiteral("stepAxisAction"));
    m_stepAxisAction->setCheckable(true);
    m_stepAxisAction->setEnabled(false); // until a trace whose phases carry steps is shown
    m_stepAxisAction->setToolTip(trMain("Label the time axis with training steps (the phases' “step” "
                                        "attribute) at step boundaries"));
    connect(m_stepAxisAction, &QAction::toggled, m_chart, &GapChartView::setStepAxis);
    connect(m_chart, &GapChartView::stepAxisChanged, m_stepAxisAction, &QAction::setChecked);
    connect(m_chart, &GapChartView::yRangeModeChanged, this, [this](ByteRangeMode mode) {
        m_yAxisActions[mode == ByteRangeMode::FromZero ? 1 : 0]->setChecked(true);
    });

    // The views follow the view state; what the user does in one of them goes to the state.
    // The scrubber is told first: the chart may clamp the range, which is then told again.
    connect(m_viewState, &ViewState::visibleRangeChanged, m_scrubber, &TimelineScrubber::setVisibleRange);
    connect(m_viewState, &ViewState::visibleRangeChanged, m_chart, &GapChartView::setVisibleRange);
    connect(m_chart, &GapChartView::visibleRangeChanged, m_viewState, &ViewState::setVisibleRange);
    connect(m_viewState, &ViewState::cursorChanged, m_scrubber, &TimelineScrubber::setCursorTime);
    connect(m_viewState, &ViewState::cursorChanged, m_chart, &GapChartView::setCursorTime);
    connect(m_viewState, &ViewState::cursorChanged, this, &TracePage::updateCursorValues);
    connect(m_scrubber, &TimelineScrubber::cursorMoved, m_viewState, &ViewState::setCursor);
    connect(m_chart, &GapChartView::cursorRequested, this, &TracePage::setCursorTime);
    connect(m_chart, &GapChartView::rangeSelected, this, &TracePage::analyseWindow);
    connect(m_chart, &GapChartView::overlayToggleRequested, this, [this](ChartOverlay overlay, bool on) {
        for (const auto& [o, action] : m_overlayActions)
            if (o == overlay)
                action->setChecked(on);
    });
    // the measurement stays in the status bar until it is cleared (Escape) or replaced
    connect(m_chart, &GapChartView::measurementChanged, this,
            [this] { emit statusMessage(keptStatusMessage(), 0); });

    setUpLayout(chartArea);
    createPhasesView();
    createBookmarksView();
}

TracePage::~TracePage()
{
    for (QWidget* pane : {static_cast<QWidget*>(m_phasesPane), static_cast<QWidget*>(m_bookmarksView)})
        if (pane && !pane->parent())
            delete pane;
}

void TracePage::restorePageSettings(const QSettings& settings, bool choices)
{
    restoreSettings(settings, QStringLiteral("mainWindow"));
    if (!choices)
        return;
    m_overlayToggles->restore(settings);
    m_stepAxisAction->setChecked(settings.value(QStringLiteral("chart/stepAxis"), false).toBool());
    const QString yAxis = settings.value(QStringLiteral("chart/yAxis")).toString();
    for (QAction* action : m_yAxisActions)
        if (action->data().toString() == yAxis)
            action->setChecked(true);
    m_yLogAction->setChecked(settings.value(QStringLiteral("chart/yLog"), false).toBool());
}

void TracePage::adoptChoicesOf(const DocumentPage& page)
{
    const auto* other = qobject_cast<const TracePage*>(&page);
    if (!other)
        return;
    m_overlayToggles->adoptChoices(*other->m_overlayToggles);
    m_stepAxisAction->setChecked(other->m_stepAxisAction->isChecked());
    for (size_t i = 0; i < m_yAxisActions.size() && i < other->m_yAxisActions.size(); ++i)
        m_yAxisActions[i]->setChecked(other->m_yAxisActions[i]->isChecked());
    m_yLogAction->setChecked(other->m_yLogAction->isChecked());
}

void TracePage::savePageSettings(QSettings& settings) const
{
    saveSettings(settings, QStringLiteral("mainWindow"));
    m_overlayToggles->save(settings);
    settings.setValue(QStringLiteral("chart/stepAxis"), m_stepAxisAction->isChecked());
    for (QAction* action : m_yAxisActions)
        if (action->isChecked())
            settings.setValue(QStringLiteral("chart/yAxis"), action->data().toString());
    settings.setValue(QStringLiteral("chart/yLog"), m_yLogAction->isChecked());
}

QString TracePage::keptStatusMessage() const
{
    const std::optional<TimeWindow> span = m_chart->measuredSpan();
    return span ? GapChartView::measurementText(*span, m_chart->measurement()) : QString();
}

QWidget* TracePage::bookmarksPane() const
{
    return m_bookmarksView;
}

QList<QAction*> TracePage::overlayMenuActions() const
{
    QList<QAction*> actions;
    for (const auto& [overlay, action] : m_overlayActions)
        actions << action;
    return actions;
}

QList<QAction*> TracePage::yAxisMenuActions() const
{
    QList<QAction*> actions(m_yAxisActions.begin(), m_yAxisActions.end());
    actions << nullptr << m_yLogAction; // a separator before the scale
    return actions;
}

QList<QAction*> TracePage::xAxisMenuActions() const
{
    return {m_stepAxisAction};
}

void TracePage::hideEmptyPhaseColumns()
{
    // a column without a value in any row (no synthetic ends, no findings) only takes room
    QAbstractItemModel* model = m_phasesView->model();
    std::vector<bool> filled(size_t(model->columnCount()), false);
    filled[PhasesModel::NameColumn] = true;
    std::vector<QModelIndex> parents{QModelIndex()};
    while (!parents.empty() && !std::all_of(filled.begin(), filled.end(), [](bool f) { return f; })) {
        const QModelIndex parent = parents.back();
        parents.pop_back();
        for (int row = 0; row < model->rowCount(parent); ++row) {
            for (size_t column = 0; column < filled.size(); ++column)
                if (!filled[column] && !model->index(row, int(column), parent).data().toString().isEmpty())
                    filled[column] = true;
            const QModelIndex child = model->index(row, 0, parent);
            if (model->hasChildren(child))
                parents.push_back(child);
        }
    }
    for (size_t column = 0; column < filled.size(); ++column)
        m_phasesView->setColumnHidden(int(column), !filled[column]);
}

void TracePage::createPhasesView()
{
    // The shell docks the tree; the page fills and follows it.
    m_phasesModel = new PhasesModel(this);
    m_phasesProxy = new PhasesDecorationProxy(this);
    m_phasesProxy->setSourceModel(m_phasesModel);
    m_phasesView = new QTreeView;
    m_phasesView->setObjectName(QStringLiteral("phasesView"));
    m_phasesView->setModel(m_phasesProxy);
    m_phasesView->setUniformRowHeights(true);
    m_phasesView->setAlternatingRowColors(true);
    m_phasesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_phasesView->setSelectionMode(QAbstractItemView::SingleSelection);
    // every column as wide as its content (names are never cut to "ev..." while another
    // column has room), the last one taking what is left; a narrow dock scrolls sideways
    m_phasesView->header()->setStretchLastSection(true);
    m_phasesView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_phasesView->header()->setMinimumSectionSize(40);
    connect(m_phasesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onPhaseCurrentChanged(current); });
    // as the findings table: Tab to the next pane, a visible focus, sort by a header, filter
    tabLeavesItemView(m_phasesView);
    showFocusFrame(m_phasesView);
    sortByHeaderClick(m_phasesView, m_phasesView->header());
    m_phasesPane = new QWidget;
    m_phasesPane->setObjectName(QStringLiteral("phasesPane"));
    auto* layout = new QVBoxLayout(m_phasesPane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_phasesFilter = new QLineEdit(m_phasesPane);
    m_phasesFilter->setObjectName(QStringLiteral("phasesFilter"));
    m_phasesFilter->setPlaceholderText(tr("Filter phases"));
    m_phasesFilter->setToolTip(
        tr("Show the phases with this text in any column (and the phases holding them)"));
    m_phasesFilter->setClearButtonEnabled(true);
    connect(m_phasesFilter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_phasesProxy->setFilterFixedString(text);
        m_phasesView->expandAll();
    });
    layout->addWidget(m_phasesFilter);
    layout->addWidget(m_phasesView, 1);
}

void TracePage::collapseGroups(const QModelIndex& sourceIndex)
{
    if (m_phasesModel->isGroup(sourceIndex)) {
        m_phasesView->collapse(m_phasesProxy->mapFromSource(sourceIndex));
        return;
    }
    for (int row = 0; row < m_phasesModel->rowCount(sourceIndex); ++row)
        collapseGroups(m_phasesModel->index(row, 0, sourceIndex));
}

void TracePage::createBookmarksView()
{
    m_bookmarks = new BookmarksModel(this);
    connect(m_bookmarks, &BookmarksModel::bookmarksChanged, this, [this] {
        m_chart->setBookmarks(m_bookmarks->bookmarks());
        m_scrubber->setBookmarks(m_bookmarks->bookmarks());
        if (!m_restoringBookmarks && m_trace) {
            QSettings settings;
            BookmarksModel::save(settings, m_trace->path, m_bookmarks->bookmarks());
        }
        emit stateChanged(); // Next/Previous Bookmark
    });
    m_bookmarksView = new QTableView;
    m_bookmarksView->setObjectName(QStringLiteral("bookmarksView"));
    m_bookmarksView->setModel(m_bookmarks);
    m_bookmarksView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_bookmarksView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_bookmarksView->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_bookmarksView->verticalHeader()->hide();
    m_bookmarksView->horizontalHeader()->setSectionResizeMode(BookmarksModel::NameColumn,
                                                              QHeaderView::Stretch);
    m_bookmarksView->horizontalHeader()->setSectionResizeMode(BookmarksModel::TimeColumn,
                                                              QHeaderView::ResizeToContents);
    // selecting a bookmark moves the cursor to it
    connect(m_bookmarksView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    jumpToBookmark(current.data(BookmarksModel::TimeNsRole).toLongLong());
            });
    auto* remove = new QAction(tr("Remove Bookmark"), m_bookmarksView);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    connect(remove, &QAction::triggered, this,
            [this] { m_bookmarks->removeBookmark(m_bookmarksView->currentIndex().row()); });
    m_bookmarksView->addAction(remove);
    m_bookmarksView->setContextMenuPolicy(Qt::ActionsContextMenu);
}

void TracePage::restoreBookmarks()
{
    m_restoringBookmarks = true;
    m_bookmarks->setBookmarks(m_trace ? BookmarksModel::load(QSettings(), m_trace->path)
                                      : std::vector<Bookmark>{});
    m_restoringBookmarks = false;
}

int TracePage::addBookmarkAtCursor()
{
    if (!m_result)
        return -1;
    const int row = m_bookmarks->addBookmark(m_viewState->cursorNs());
    const QModelIndex name = m_bookmarks->index(row, BookmarksModel::NameColumn);
    {
        // the cursor is on it already: no jump
        const QSignalBlocker blocker(m_bookmarksView->selectionModel());
        m_bookmarksView->setCurrentIndex(name);
    }
    if (m_bookmarksView->isVisible())
        m_bookmarksView->edit(name);
    emit statusMessage(tr("Bookmark added at %1").arg(relativeTime(m_viewState->cursorNs())), 4000);
    return row;
}

void TracePage::stepBookmark(int delta)
{
    const qint64 cursor = m_viewState->cursorNs();
    const std::optional<qint64> next =
        delta > 0 ? m_bookmarks->timeAfter(cursor) : m_bookmarks->timeBefore(cursor);
    if (next)
        jumpToBookmark(*next);
}

bool TracePage::hasBookmarks() const
{
    return m_result && !m_bookmarks->isEmpty();
}

void TracePage::jumpToBookmark(qint64 ns)
{
    setCursorTime(ns);
    ensureTimeVisible(ns);
}

QWidget* TracePage::chartWidget() const
{
    return m_chart;
}

bool TracePage::isAnalysing() const
{
    return m_analysisJob->isRunning() || isReadingSnapshot();
}

bool TracePage::isReadingSnapshot() const
{
    return m_snapshotWork->isRunning();
}

bool TracePage::hasFindings() const
{
    return m_result && !m_result->findings.empty();
}

bool TracePage::hasPhases() const
{
    return m_result && !m_result->phases.empty();
}

bool TracePage::isWindowAnalysis() const
{
    return (m_result && m_result->request.window) || m_pendingWindow.has_value();
}

QString TracePage::documentPath() const
{
    return m_trace ? m_trace->path : QString();
}

const ProblemLog* TracePage::problems() const
{
    return m_trace ? &m_trace->problems : nullptr;
}

bool TracePage::setTrace(std::shared_ptr<const TraceData> data, QString* error)
{
    if (!data)
        return false;
    const auto sessionIndex = data->defaultSessionIndex();
    if (!sessionIndex || data->store.size() == 0) {
        if (error) {
            QString why = trMain("%1: no events could be loaded").arg(data->path);
            if (!data->problems.kept().empty())
                why += englishPlural(QCoreApplication::translate("MainWindow",
                                                                 " (%n record(s) rejected; first: %1)",
                                                                 nullptr, int(data->problems.errorCount())),
                                     data->problems.errorCount())
                           .arg(data->problems.kept().front().toString());
            *error = why;
        }
        return false;
    }
    // the views keep the trace shown until the analysis of this one arrives
    const bool samePath = m_trace && m_trace->path == data->path;
    m_trace = std::move(data);
    if (!samePath) {
        restoreBookmarks();
        m_deviceLog.reset(); // attached to the trace that was shown (a reload keeps it)
        m_deviceLogRequest.reset();
        dropSnapshot(); // likewise
    }
    m_sessionIndex = *sessionIndex;
    m_rank.reset();
    m_fullResult.reset();
    m_pendingWindow.reset();
    emit stateChanged();
    return true;
}

void TracePage::analyseFresh()
{
    m_freshTrace = true;
    m_summaryFirst = true;
    startAnalysis(baseRequest());
}

bool TracePage::analyseNow(QString* error)
{
    if (!m_trace)
        return false;
    QString analysisError;
    auto result = runAnalysis(m_trace, baseRequest(), &analysisError);
    if (!result) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(m_trace->path, analysisError);
        return false;
    }
    m_fullResult = result;
    m_summaryFirst = false; // screenshots show the chart
    applyResult(result, true);
    return true;
}

void TracePage::setCollectiveIntervals(std::shared_ptr<const TraceData> trace,
                                       std::vector<JobCollectiveInterval> intervals)
{
    m_collectiveTrace = intervals.empty() ? nullptr : std::move(trace);
    m_collective = std::move(intervals);
    showCollectiveIntervals();
}

void TracePage::showCollectiveIntervals()
{
    std::vector<JobCollectiveInterval> shown;
    if (m_result && m_collectiveTrace && m_result->loadedTrace == m_collectiveTrace)
        for (const JobCollectiveInterval& interval : m_collective)
            if (interval.rank == m_result->rank)
                shown.push_back(interval);
    m_chart->setCollectiveIntervals(std::move(shown));
}

bool TracePage::open(const LoadedDocument& document, QString* error)
{
    if (!document.trace || !setTrace(document.trace, error))
        return false;
    m_snapshotBeside = document.snapshotBeside;
    return true;
}

bool TracePage::analyseOpened(OpenMode mode, QString* error)
{
    if (mode == OpenMode::Now) {
        if (!analyseNow(error))
            return false;
    } else {
        analyseFresh();
    }
    // the snapshot recorded beside the run: a failure to read it is said, the trace stays shown
    if (const QString snapshot = std::exchange(m_snapshotBeside, QString()); !snapshot.isEmpty()) {
        QString why;
        if (!attachSnapshot(snapshot, mode, &why))
            emit errorOccurred(why);
    }
    return true;
}

void TracePage::discardAnalysis()
{
    m_analysisJob->discard();
}

QString TracePage::documentTitle(const QString& displayPath) const
{
    // the run of the session shown when the path is the trace's own (a sink names its run)
    if (!m_trace || m_trace->path != displayPath)
        return DocumentPage::documentTitle(displayPath);
    return documentName(displayPath, m_trace.get(),
                        m_result && m_result->trace == m_trace ? std::optional<size_t>(m_result->sessionIndex)
                                                               : std::nullopt);
}

PageExport TracePage::pageExport() const
{
    PageExport shown;
    shown.trace = m_result;
    for (const Bookmark& bookmark : m_bookmarks->bookmarks())
        shown.bookmarks.push_back({bookmark.timeNs, bookmark.name});
    return shown;
}

void TracePage::clear()
{
    m_analysisJob->discard();
    dropSnapshot();
    m_trace.reset();
    m_deviceLog.reset();
    m_deviceLogRequest.reset();
    m_result.reset();
    m_fullResult.reset();
    m_pendingWindow.reset();
    m_chart->setAnalysis(nullptr);
    m_stepAxisAction->setEnabled(false);
    m_collectiveTrace.reset();
    m_collective.clear();
    m_chart->setCollectiveIntervals({});
    m_scrubber->setAnalysis(nullptr);
    if (m_findingsModel->analysis())
        m_findingsModel->setAnalysis(nullptr);
    m_phasesModel->setAnalysis(nullptr);
    m_detail->clear();
    clearSummary();
    m_viewState->reset();
    restoreBookmarks(); // none: the trace is gone
    updateWindowBanner();
    emit stateChanged();
}

AnalysisRequest TracePage::baseRequest() const
{
    AnalysisRequest request;
    request.sessionIndex = m_sessionIndex;
    request.rank = m_rank;
    request.thresholds = m_thresholds;
    request.deviceLog = m_deviceLog;
    return request;
}

bool TracePage::attachDeviceLog(const DeviceLogRequest& request, QString* error)
{
    if (!m_trace)
        return false;
    QString why;
    auto log = loadRequestedDeviceLog(request, &why);
    if (!log) {
        *error = why;
        return false;
    }
    m_deviceLog = std::move(log);
    m_deviceLogRequest = request;
    // the same session, rank and thresholds, now with the log's device used; a window
    // analysis is redone whole (its rows' device used changed)
    startAnalysis(baseRequest());
    return true;
}

bool TracePage::attachSnapshot(const QString& path, OpenMode mode, QString* error)
{
    if (!m_trace)
        return false;
    // what the path is, from its head: a wrong file is said at once, not after a read
    const InputRecognition input = recognizeInput(path);
    if (input.kind != InputKind::PytorchSnapshot) {
        *error = tr("%1: not a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot's pickle): %2")
                     .arg(path, input.reason.isEmpty() ? toString(input.kind) : input.reason);
        return false;
    }
    m_snapshotPath = path;
    m_snapshotError.clear();
    // ~0.3 s for the real pair's 100 000 entries (gunzip, pickle, timelines): off the GUI thread
    m_snapshotWork->start(
        [path](const BackgroundWork::Run& run) {
            LoadControl control;
            control.cancel = run.cancelFlag();
            return loadSnapshotFile(path, control);
        },
        [this, path](const SnapshotLoadOutcome& outcome) { onSnapshotRead(path, outcome); });
    emit statusMessage(tr("Reading the snapshot %1...").arg(QFileInfo(path).fileName()), 0);
    emit stateChanged();
    if (mode == OpenMode::Now) {
        m_snapshotWork->waitForDone();
        if (!m_snapshot) {
            *error = m_snapshotError;
            return false;
        }
    }
    return true;
}

void TracePage::onSnapshotRead(const QString& path, const SnapshotLoadOutcome& outcome)
{
    if (outcome.cancelled || path != m_snapshotPath)
        return;
    emit stateChanged();
    if (!outcome.data) {
        m_snapshotError =
            outcome.fatalError.isEmpty() ? tr("%1: could not be read").arg(path) : outcome.fatalError;
        m_snapshotPath.clear();
        emit errorOccurred(m_snapshotError);
        return;
    }
    m_snapshot = outcome.data;
    m_snapshotToShow = true;
    if (m_result && m_result->loadedTrace == m_trace)
        showSnapshot();
}

void TracePage::showSnapshot()
{
    m_snapshotToShow = false;
    m_chart->setSnapshot(m_snapshot);
    showSnapshotToggles();
    updateCursorValues();
    const SnapshotOverlay* overlay = m_chart->snapshotOverlay();
    const QString note = m_chart->snapshotNote();
    const QString name = QFileInfo(m_snapshotPath).fileName();
    QString text = tr("Snapshot %1 attached").arg(name);
    if (!note.isEmpty())
        text = note;
    else if (overlay && overlay->timeline())
        text = tr("Snapshot %1 attached: device %2, %3 trace entries on the time axis")
                   .arg(name)
                   .arg(overlay->device())
                   .arg(countText(overlay->timeline()->entryCount));
    emit statusMessage(text, note.isEmpty() ? 8000 : 30000);
}

void TracePage::dropSnapshot()
{
    m_snapshotWork->discard();
    m_snapshot.reset();
    m_snapshotPath.clear();
    m_snapshotError.clear();
    m_snapshotToShow = false;
    m_chart->setSnapshot(nullptr);
    showSnapshotToggles();
}

void TracePage::showSnapshotToggles()
{
    // the two toggles mean nothing without a snapshot
    for (const auto& [overlay, action] : m_overlayActions)
        if (overlay == ChartOverlay::SnapshotAllocated || overlay == ChartOverlay::SnapshotReserved)
            action->setVisible(m_snapshot != nullptr);
}

void TracePage::startAnalysis(const AnalysisRequest& request)
{
    if (!m_trace)
        return;
    m_pendingWindow = request.window;
    m_analysisJob->start(m_trace, request);
    updateWindowBanner();
    emit stateChanged();
}

void TracePage::onAnalysisFinished(std::shared_ptr<const AnalysisResult> result)
{
    // a result of the trace before a live snapshot replaced it is not shown
    if (!result || result->loadedTrace != m_trace)
        return;
    if (!result->request.window)
        m_fullResult = result;
    const bool fresh = m_freshTrace;
    m_freshTrace = false;
    applyResult(std::move(result), fresh);
}

void TracePage::onAnalysisFailed(const QString& error)
{
    m_pendingWindow.reset();
    emit errorOccurred(error);
    updateWindowBanner();
    emit stateChanged();
}

void TracePage::applyResult(std::shared_ptr<const AnalysisResult> result, bool freshTrace)
{
    // another result of the trace shown keeps the finding looked at and the cursor
    const std::optional<KeptSelection> kept =
        !freshTrace && m_result ? std::optional<KeptSelection>(keptSelection()) : std::nullopt;
    m_result = std::move(result);
    m_pendingWindow.reset();
    m_sessionIndex = m_result->sessionIndex;
    m_rank = m_result->rank;
    if (freshTrace) // the toggles of this kind of trace (a CPU capture shows its counters)
        m_overlayToggles->showKind(traceKindOf(*m_result));
    if (freshTrace) {
        m_viewState->reset();      // the zoom steps of another session or trace do not apply
        m_findingsFilter->clear(); // nor its filters: a new trace is shown whole
        m_phasesFilter->clear();
    }
    m_stepAxisAction->setEnabled(!m_result->steps->empty());
    m_chart->setAnalysis(m_result, m_result->steps);
    showCollectiveIntervals();
    m_scrubber->setAnalysis(m_result);
    const TimeRange visible = m_viewState->visibleRange();
    m_scrubber->setVisibleRange(visible.beginNs, visible.endNs);
    m_findingsModel->setAnalysis(m_result);
    m_bookmarks->setOriginNs(FindingsModel::originNs(*m_result));
    m_phasesModel->setAnalysis(m_result);
    // a group of repeated phases stays folded: its row gives count, total, mean and max
    m_phasesView->expandAll();
    for (int row = 0; row < m_phasesModel->rowCount(); ++row)
        collapseGroups(m_phasesModel->index(row, 0));
    hideEmptyPhaseColumns();
    setSummary(traceSummary(*m_result, *m_phasesModel, documentName(m_trace->path)), // a sink by its run
               freshTrace && m_summaryFirst);
    m_detail->showFinding(m_result, -1);
    m_sessionPicker->setTrace(m_trace, m_result->sessionIndex, m_result->rank);
    m_sessionPickerAction->setVisible(m_sessionPicker->hasChoice());
    emit resultShown();
    // the scrubber put its cursor at the start of the analysed samples; the chart keeps its own
    m_viewState->syncCursor(m_scrubber->cursorTime());
    updateCursorValues();
    updateWindowBanner();
    emit stateChanged();
    // The most severe finding of a newly opened trace is what the user came for.
    if (freshTrace && m_findingsModel->rowCount() > 0)
        selectFinding(0);
    else if (kept)
        restoreSelection(*kept);
    const qsizetype findings = qsizetype(m_result->findings.size());
    const bool blind = traceKindOf(*m_result) == TraceKind::Blind;
    const QString found =
        findings == 0 ? (blind ? trMain("No hidden-memory findings: the gap cannot be observed in this trace")
                               : trMain("No hidden-memory findings"))
                      : englishPlural(QCoreApplication::translate("MainWindow", "%n finding(s)", nullptr,
                                                                  int(findings)),
                                      findings);
    // with an attached device log, where device used came from (and how many samples it gave)
    if (const DeviceUsedSource* source = m_result->deviceUsedSource.get())
        emit statusMessage(tr("%1; device used from %2 (times in %3): %4 of %5 samples matched")
                               .arg(found, QFileInfo(source->path).fileName(), source->timeZone)
                               .arg(source->matchedSamples)
                               .arg(source->matchedSamples + source->unmatchedSamples),
                           15000);
    else
        emit statusMessage(found, 4000);
    if (m_snapshotToShow) // read while this result was on its way: said after it
        showSnapshot();
}

bool TracePage::showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest)
{
    if (!result || !m_trace || result->trace->path != m_trace->path || result->partition.size() == 0)
        return false;
    m_trace = result->loadedTrace ? result->loadedTrace : result->trace;
    m_fullResult = result;
    if (isWindowAnalysis())
        return true; // the window stays as analysed; Reset shows the latest run
    const TimeRange old = m_viewState->visibleRange();
    const qint64 oldCursor = m_viewState->cursorNs();
    const bool zoomed = m_result && m_result->partition.size() > 0 &&
                        (old.beginNs > m_result->trace->store.timestampNs[m_result->partition.begin] ||
                         old.endNs < m_result->trace->store.timestampNs[m_result->partition.end - 1]);
    applyResult(std::move(result), false);
    const qint64 latest = m_result->trace->store.timestampNs[m_result->partition.end - 1];
    if (pinToLatest) {
        if (zoomed)
            m_viewState->setVisibleRange(latest - (old.endNs - old.beginNs), latest);
        setCursorTime(latest);
    } else {
        if (zoomed)
            m_viewState->setVisibleRange(old.beginNs, old.endNs);
        setCursorTime(oldCursor);
    }
    return true;
}

void TracePage::analyseWindow(qint64 beginNs, qint64 endNs)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    if (!m_trace)
        return;
    AnalysisRequest request = baseRequest();
    request.window = TimeWindow{beginNs, endNs};
    startAnalysis(request);
}

void TracePage::resetWindowAnalysis()
{
    if (!isWindowAnalysis())
        return;
    if (m_fullResult && m_fullResult->loadedTrace == m_trace &&
        m_fullResult->request.thresholds == m_thresholds && m_fullResult->sessionIndex == m_sessionIndex) {
        m_analysisJob->discard(); // a window analysis still running must not replace it
        applyResult(m_fullResult, false);
        return;
    }
    startAnalysis(baseRequest());
}

void TracePage::setThresholds(const GapThresholds& thresholds)
{
    m_thresholds = thresholds;
    m_fullResult.reset();
    if (!m_trace)
        return;
    AnalysisRequest request = baseRequest();
    if (m_result && m_result->request.window)
        request.window = m_result->request.window;
    startAnalysis(request);
}

void TracePage::selectSession(int sessionIndex, qint64 rank)
{
    if (!m_trace || sessionIndex < 0 || size_t(sessionIndex) >= m_trace->sessions.size())
        return;
    m_sessionIndex = size_t(sessionIndex);
    m_rank = rank;
    m_fullResult.reset();
    analyseFresh();
}

void TracePage::selectPhase(int spanIndex)
{
    const QModelIndex source = m_phasesModel->indexOfSpan(size_t(std::max(spanIndex, 0)));
    if (spanIndex < 0 || !source.isValid())
        return;
    QModelIndex index = m_phasesProxy->mapFromSource(source);
    if (!index.isValid()) {
        m_phasesFilter->clear(); // filtered out: what was asked for is shown
        index = m_phasesProxy->mapFromSource(source);
    }
    m_phasesView->scrollTo(index);
    m_phasesView->setCurrentIndex(index);
}

void TracePage::onFindingCurrentChanged(const QModelIndex& current)
{
    emit stateChanged(); // Copy Finding follows the selection
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
    if (isRestoringSelection())
        return; // the cursor and the view stay where the user left them
    setCursorTime(finding->evidenceTimestampNs);
    ensureTimeVisible(finding->evidenceTimestampNs);
}

void TracePage::onPhaseCurrentChanged(const QModelIndex& current)
{
    if (!current.isValid())
        return;
    // a span, or a group of repeated ones: from its first start to its last end
    const qint64 startNs = current.data(PhasesModel::StartNsRole).toLongLong();
    const qint64 endNs = current.data(PhasesModel::EndNsRole).toLongLong();
    // a little room either side so the phase edges are visible
    const qint64 margin = std::max<qint64>((endNs - startNs) / 50, 1'000'000);
    m_viewState->zoomTo(startNs - margin, endNs + margin);
    // the cursor on its (first) start: one click on "train ×600" reads "step 150 · train"
    setCursorTime(startNs);
    const QString steps = current.data(PhasesModel::StepsRole).toString();
    emit statusMessage((steps.isEmpty() ? trMain("Phase %1: %2 – %3") : trMain("Phase %1: %2 – %3, %4"))
                           .arg(current.data(PhasesModel::PathRole).toString(), relativeTime(startNs),
                                relativeTime(endNs), steps),
                       4000);
}

void TracePage::stepPhase(int delta)
{
    const int spans = int(m_phasesModel->spanCount());
    if (spans == 0)
        return;
    // spans are in start order, so stepping the span index walks the run chronologically
    // a group row stands for its first occurrence (SpanIndexRole)
    const bool current = m_phasesView->currentIndex().isValid();
    int next = delta > 0 ? 0 : spans - 1;
    if (current)
        next = std::clamp(m_phasesView->currentIndex().data(PhasesModel::SpanIndexRole).toInt() + delta, 0,
                          spans - 1);
    selectPhase(next);
}

std::optional<size_t> TracePage::currentPhaseSpan() const
{
    const QModelIndex current = m_phasesView->currentIndex();
    if (!current.isValid())
        return std::nullopt;
    // a group row stands for its first occurrence (SpanIndexRole)
    return size_t(std::max(current.data(PhasesModel::SpanIndexRole).toInt(), 0));
}

void TracePage::stepPhaseKind(int delta)
{
    if (!m_result || m_result->phases.empty())
        return;
    const std::optional<size_t> next = phaseRunStep(m_result->phases, currentPhaseSpan(), delta);
    if (!next) {
        emit statusMessage(
            delta > 0 ? tr("No later phase of another name") : tr("No earlier phase of another name"), 4000);
        return;
    }
    selectPhase(int(*next));
    const PhaseRun run = phaseRunOf(m_result->phases, *next);
    const std::string steps = m_result->steps->rangeLabelWithin(m_result->phases[run.first].startNs,
                                                                m_result->phases[run.last].endNs);
    // what the run ahead holds: "train: 600 in a row, steps 150-749"
    QString text = englishPlural(tr("%1: %n in a row", nullptr, int(run.count)), qint64(run.count))
                       .arg(shownText(qs(m_result->phases[*next].label)));
    if (!steps.empty())
        text += QStringLiteral(", ") + qs(steps);
    emit statusMessage(text, 4000);
}

void TracePage::stepCursor(int samples)
{
    m_scrubber->stepCursor(samples); // emits cursorMoved
}

void TracePage::setCursorTime(qint64 ns)
{
    m_viewState->setCursor(ns);
}

void TracePage::resetZoom()
{
    if (!m_result)
        return;
    const AnalysisTimeRange range = timeRangeOf(*m_result);
    if (range.valid)
        m_viewState->zoomTo(range.beginNs, range.endNs);
}

QString TracePage::relativeTime(qint64 ns) const
{
    if (!m_result)
        return formatRelativeTime(ns, 0);
    return formatRelativeTime(ns, FindingsModel::originNs(*m_result),
                              timeResolutionNs(FindingsModel::spanNs(*m_result)));
}

void TracePage::updateWindowBanner()
{
    std::optional<TimeWindow> window = m_pendingWindow;
    if (!window && m_result)
        window = m_result->request.window;
    m_viewState->setAnalysisWindow(window);
    if (!window) {
        hideWindowBanner();
        return;
    }
    QString text =
        trMain("Window analysis: %1 – %2").arg(relativeTime(window->beginNs), relativeTime(window->endNs));
    if (m_pendingWindow)
        text += trMain("  (analysing...)");
    else if (m_result)
        text += englishPlural(QCoreApplication::translate("MainWindow", "  ·  %n finding(s) in %1 samples",
                                                          nullptr, int(m_result->findings.size())),
                              qint64(m_result->findings.size()))
                    .arg(m_result->usableRows.size());
    showWindowBanner(text);
}

void TracePage::updateCursorValues()
{
    if (m_result && isCounterOnly(*m_result)) {
        emit cursorValuesChanged(counterValuesText(m_viewState->cursorNs()));
        return;
    }
    if (!m_result || m_result->usableRows.empty()) {
        emit cursorValuesChanged(m_result ? trMain("No usable samples") : QString());
        return;
    }
    const qint64 cursorNs = m_viewState->cursorNs();
    const EventStore& store = m_result->trace->store;
    const auto& rows = m_result->usableRows;
    // the last usable sample at or before the cursor (the first one when the cursor is earlier)
    auto it = std::upper_bound(rows.begin(), rows.end(), cursorNs,
                               [&](qint64 t, uint32_t row) { return t < store.timestampNs[row]; });
    const uint32_t row = it == rows.begin() ? rows.front() : *(it - 1);
    const int64_t used = store.used[row];
    const int64_t reserved = store.reserved[row];
    const int64_t gap = (used == kNullInt || reserved == kNullInt) ? kNullInt : used - reserved;

    QStringList parts;
    parts << trMain("t %1").arg(relativeTime(cursorNs));
    parts << trMain("gap %1").arg(bytesText(gap));
    parts << trMain("allocated %1").arg(bytesText(store.allocated[row]));
    parts << trMain("reserved %1").arg(bytesText(reserved));
    parts << trMain("used %1").arg(bytesText(used));
    parts << phaseReadout(*m_result, m_result->steps.get(), cursorNs);
    if (const QString snapshot = snapshotValuesText(cursorNs); !snapshot.isEmpty())
        parts << snapshot;
    emit cursorValuesChanged(parts.join(QStringLiteral("   ·   ")));
}

QString TracePage::snapshotValuesText(qint64 cursorNs) const
{
    const SnapshotOverlay* overlay = m_chart->snapshotOverlay();
    const auto moment = overlay ? overlay->momentAt(cursorNs) : std::nullopt;
    return moment ? trMain("snapshot: %1").arg(overlay->momentText(*moment)) : QString();
}

QString TracePage::counterValuesText(qint64 cursorNs) const
{
    // a capture without a device total: its counters at the sample nearest the cursor
    const EventStore& store = m_result->trace->store;
    const std::optional<size_t> position = nearestTimelineRow(*m_result, cursorNs);
    const uint32_t row = timelineRows(*m_result)[position.value_or(0)];
    QStringList parts;
    parts << trMain("t %1").arg(relativeTime(cursorNs));
    if (m_result->backend == Backend::Cpu) {
        parts << trMain("RSS %1").arg(bytesText(store.used[row]));
    } else {
        parts << trMain("allocated %1").arg(bytesText(store.allocated[row]));
        parts << trMain("reserved %1").arg(bytesText(store.reserved[row]));
        parts << trMain("used %1").arg(bytesText(store.used[row]));
    }
    parts << trMain("no gap: no device total");
    parts << phaseReadout(*m_result, m_result->steps.get(), cursorNs);
    if (const QString snapshot = snapshotValuesText(cursorNs); !snapshot.isEmpty())
        parts << snapshot;
    return parts.join(QStringLiteral("   ·   "));
}

} // namespace gapscope
