#include "app/pages/TracePage.h"

#include "app/pages/ViewState.h"
#include "model/items/FindingsModel.h"
#include "model/items/PhasesModel.h"
#include "model/jobs/LoadJob.h"
#include "model/report/ReportContent.h"
#include "model/text/Text.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/SessionPicker.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QAction>
#include <QActionGroup>
#include <QCoreApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
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
};

QString trMain(const char* text)
{
    return QCoreApplication::translate("MainWindow", text);
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

    for (const auto& [overlay, action] : m_overlayActions) {
        action->setChecked(m_chart->isOverlayVisible(overlay));
        const ChartOverlay o = overlay;
        connect(action, &QAction::toggled, this, [this, o](bool on) { m_chart->setOverlayVisible(o, on); });
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

    setUpLayout(chartArea);
    createPhasesView();
}

TracePage::~TracePage() = default;

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
}

QWidget* TracePage::chartWidget() const
{
    return m_chart;
}

bool TracePage::isAnalysing() const
{
    return m_analysisJob->isRunning();
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
    m_trace = std::move(data);
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
    applyResult(result, true);
    return true;
}

void TracePage::discardAnalysis()
{
    m_analysisJob->discard();
}

void TracePage::clear()
{
    m_analysisJob->discard();
    m_trace.reset();
    m_result.reset();
    m_fullResult.reset();
    m_pendingWindow.reset();
    m_chart->setAnalysis(nullptr);
    m_scrubber->setAnalysis(nullptr);
    if (m_findingsModel->analysis())
        m_findingsModel->setAnalysis(nullptr);
    m_phasesModel->setAnalysis(nullptr);
    m_detail->clear();
    m_viewState->reset();
    updateWindowBanner();
    emit stateChanged();
}

AnalysisRequest TracePage::baseRequest() const
{
    AnalysisRequest request;
    request.sessionIndex = m_sessionIndex;
    request.rank = m_rank;
    request.thresholds = m_thresholds;
    return request;
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
    if (!result || result->trace != m_trace)
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
    if (freshTrace)
        m_viewState->reset(); // the zoom steps of another session or trace do not apply
    m_chart->setAnalysis(m_result);
    m_scrubber->setAnalysis(m_result);
    const TimeRange visible = m_viewState->visibleRange();
    m_scrubber->setVisibleRange(visible.beginNs, visible.endNs);
    m_findingsModel->setAnalysis(m_result);
    m_phasesModel->setAnalysis(m_result);
    m_phasesView->expandAll();
    hideEmptyPhaseColumns();
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
    const qsizetype findings = qsizetype(m_result->findings.size());
    emit statusMessage(findings == 0
                           ? trMain("No hidden-memory findings")
                           : englishPlural(QCoreApplication::translate("MainWindow", "%n finding(s)", nullptr,
                                                                       int(findings)),
                                           findings),
                       4000);
}

bool TracePage::showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest)
{
    if (!result || !m_trace || result->trace->path != m_trace->path || result->partition.size() == 0)
        return false;
    m_trace = result->trace;
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
    if (m_fullResult && m_fullResult->trace == m_trace && m_fullResult->request.thresholds == m_thresholds &&
        m_fullResult->sessionIndex == m_sessionIndex) {
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
    const QModelIndex index = m_phasesProxy->mapFromSource(source);
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
    setCursorTime(finding->evidenceTimestampNs);
    ensureTimeVisible(finding->evidenceTimestampNs);
}

void TracePage::onPhaseCurrentChanged(const QModelIndex& current)
{
    const PhaseSpan* span = m_phasesModel->spanAt(m_phasesProxy->mapToSource(current));
    if (!span)
        return;
    // a little room either side so the phase edges are visible
    const qint64 duration = span->endNs - span->startNs;
    const qint64 margin = std::max<qint64>(duration / 50, 1'000'000);
    m_viewState->zoomTo(span->startNs - margin, span->endNs + margin);
    emit statusMessage(trMain("Phase %1: %2 – %3")
                           .arg(qs(span->label), relativeTime(span->startNs), relativeTime(span->endNs)),
                       4000);
}

void TracePage::stepPhase(int delta)
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
    return formatRelativeTime(ns, m_result ? FindingsModel::originNs(*m_result) : 0);
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

    const PhaseSpan* deepest = nullptr;
    for (const PhaseSpan& span : m_result->phases)
        if (span.contains(cursorNs) && (!deepest || span.depth >= deepest->depth))
            deepest = &span;

    QStringList parts;
    parts << trMain("t %1").arg(relativeTime(cursorNs));
    parts << trMain("gap %1").arg(bytesText(gap));
    parts << trMain("allocated %1").arg(bytesText(store.allocated[row]));
    parts << trMain("reserved %1").arg(bytesText(reserved));
    parts << trMain("used %1").arg(bytesText(used));
    parts << trMain("phase %1").arg(deepest ? qs(deepest->label) : trMain("—"));
    emit cursorValuesChanged(parts.join(QStringLiteral("   ·   ")));
}

} // namespace gapscope
