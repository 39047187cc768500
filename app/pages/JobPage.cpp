#include "app/pages/JobPage.h"

#include "analysis/Int64Math.h"
#include "app/pages/ViewState.h"
#include "model/document/Recognition.h"
#include "model/items/FindingsModel.h"
#include "model/items/RankTableModel.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobLoader.h"
#include "model/job/JobRanks.h"
#include "model/report/ReportContent.h" // formatRelativeTime
#include "model/text/Text.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/job/JobViewStyle.h"
#include "widgets/job/RankSparklinesView.h"
#include "widgets/trace/FindingDetailView.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>

#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

// The deepest folder holding every path (a job folder), or the one path.
QString commonFolder(const QStringList& paths)
{
    if (paths.isEmpty())
        return {};
    if (paths.size() == 1)
        return paths.front();
    QStringList common = QDir::cleanPath(QFileInfo(paths.front()).absoluteFilePath()).split(QLatin1Char('/'));
    for (const QString& path : paths) {
        const QStringList parts = QDir::cleanPath(QFileInfo(path).absoluteFilePath()).split(QLatin1Char('/'));
        qsizetype shared = 0;
        while (shared < common.size() && shared < parts.size() && common[shared] == parts[shared])
            ++shared;
        common = common.mid(0, shared);
    }
    const QString folder = common.join(QLatin1Char('/'));
    return folder.isEmpty() ? QStringLiteral("/") : folder;
}

// Each rank's own gap analysis with the thresholds (64 ranks x 100 000 samples: ~0.25 s), in
// the order of JobData::ranks, which JobViewData::ranks keeps: the rank table's findings column.
std::vector<int64_t> rankGapFindingCounts(const JobData& job, const GapThresholds& thresholds)
{
    AnalysisRequest each;
    each.thresholds = thresholds;
    const auto results = analyzeJobRanks(job, each);
    std::vector<int64_t> counts;
    counts.reserve(results.size());
    for (const auto& result : results)
        counts.push_back(result ? int64_t(result->findings.size()) : 0);
    return counts;
}

} // namespace

JobPage::JobPage(QAction* resetZoomAction, QWidget* parent) : DocumentPage(resetZoomAction, parent)
{
    // toolbar: what the cells and lines show, the sparklines' scale, zoom reset, the job
    toolBar()->addWidget(new QLabel(tr("  Show: "), toolBar()));
    m_measureGroup = new QActionGroup(this);
    m_measureGroup->setExclusive(true);
    m_gapAction = new QAction(tr("Gap"), m_measureGroup);
    m_gapAction->setToolTip(tr("Device used − allocator reserved, in bytes"));
    m_ratioAction = new QAction(tr("Gap Ratio"), m_measureGroup);
    m_ratioAction->setToolTip(tr("The gap as a share of the device total"));
    for (QAction* action : {m_gapAction, m_ratioAction}) {
        action->setCheckable(true);
        toolBar()->addAction(action);
    }
    m_gapAction->setChecked(true);
    connect(m_gapAction, &QAction::toggled, this, [this](bool on) {
        if (on)
            setMeasure(JobMeasure::Gap);
    });
    connect(m_ratioAction, &QAction::toggled, this, [this](bool on) {
        if (on)
            setMeasure(JobMeasure::GapRatio);
    });
    toolBar()->addSeparator();
    m_sharedScaleAction = new QAction(tr("Same Scale"), this);
    m_sharedScaleAction->setCheckable(true);
    m_sharedScaleAction->setChecked(true);
    m_sharedScaleAction->setToolTip(
        tr("One y scale for every rank's sparkline (off: each row fitted to its own values)"));
    toolBar()->addAction(m_sharedScaleAction);
    addZoomToToolBar();
    m_infoLabel = new QLabel(toolBar());
    m_infoLabel->setObjectName(QStringLiteral("jobInfo"));
    m_infoLabel->setContentsMargins(6, 0, 12, 0);
    toolBar()->addWidget(m_infoLabel);

    // the heatmap over the small multiples beside the rank table
    m_jobSplitter = new QSplitter(Qt::Vertical, this);
    m_jobSplitter->setObjectName(QStringLiteral("jobSplitter"));
    m_jobSplitter->setChildrenCollapsible(false);
    m_heatmap = new JobHeatmapView(m_jobSplitter);
    m_heatmap->setObjectName(QStringLiteral("jobHeatmap"));
    m_heatmap->setMinimumHeight(160);
    m_ranksSplitter = new QSplitter(Qt::Horizontal, m_jobSplitter);
    m_ranksSplitter->setObjectName(QStringLiteral("ranksSplitter"));
    m_ranksSplitter->setChildrenCollapsible(false);
    m_sparklines = new RankSparklinesView(m_ranksSplitter);
    m_sparklines->setObjectName(QStringLiteral("rankSparklines"));
    m_rankModel = new RankTableModel(this);
    m_rankDecorations = new RankTableDecorationProxy(this);
    m_rankDecorations->setSourceModel(m_rankModel);
    m_rankSort = new QSortFilterProxyModel(this);
    m_rankSort->setSourceModel(m_rankDecorations);
    m_rankSort->setSortRole(RankTableModel::SortRole);
    m_rankTable = new QTableView(m_ranksSplitter);
    m_rankTable->setObjectName(QStringLiteral("rankTable"));
    m_rankTable->setModel(m_rankSort);
    m_rankTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rankTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_rankTable->setAlternatingRowColors(true);
    m_rankTable->setShowGrid(false);
    m_rankTable->setWordWrap(false);
    m_rankTable->setSortingEnabled(true);
    m_rankTable->sortByColumn(RankTableModel::RankColumn, Qt::AscendingOrder);
    m_rankTable->verticalHeader()->hide();
    m_rankTable->verticalHeader()->setDefaultSectionSize(m_rankTable->fontMetrics().height() + 8);
    QHeaderView* header = m_rankTable->horizontalHeader();
    header->setHighlightSections(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    m_jobSplitter->setStretchFactor(0, 3);
    m_jobSplitter->setStretchFactor(1, 2);
    m_ranksSplitter->setStretchFactor(0, 3);
    m_ranksSplitter->setStretchFactor(1, 2);

    // The views follow the view state; what the user does in one of them goes to the state.
    // The sparklines are told first: the heatmap may clamp the range, which is then told again.
    connect(m_viewState, &ViewState::visibleRangeChanged, m_sparklines, &RankSparklinesView::setVisibleRange);
    connect(m_viewState, &ViewState::visibleRangeChanged, m_heatmap, &JobHeatmapView::setVisibleRange);
    connect(m_heatmap, &JobHeatmapView::visibleRangeChanged, m_viewState, &ViewState::setVisibleRange);
    connect(m_sparklines, &RankSparklinesView::visibleRangeRequested, m_viewState,
            &ViewState::setVisibleRange);
    connect(m_viewState, &ViewState::cursorChanged, m_heatmap, &JobHeatmapView::setCursorTime);
    connect(m_viewState, &ViewState::cursorChanged, m_sparklines, &RankSparklinesView::setCursorTime);
    connect(m_viewState, &ViewState::cursorChanged, this, &JobPage::updateCursorValues);
    connect(m_heatmap, &JobHeatmapView::cursorRequested, this, &JobPage::setCursorTime);
    connect(m_sparklines, &RankSparklinesView::cursorRequested, this, &JobPage::setCursorTime);
    connect(m_sharedScaleAction, &QAction::toggled, m_sparklines, &RankSparklinesView::setSharedScale);
    // a rank is opened from the table (double click, Enter), its sparkline or its heatmap label
    connect(m_rankTable, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        if (index.isValid())
            emit rankActivated(index.data(RankTableModel::RankRole).toLongLong());
    });
    connect(m_heatmap, &JobHeatmapView::rankActivated, this, &JobPage::selectRank);
    connect(m_sparklines, &RankSparklinesView::rankActivated, this, &JobPage::selectRank);
    connect(m_heatmap, &JobHeatmapView::rankActivated, this, &JobPage::rankActivated);
    connect(m_sparklines, &RankSparklinesView::rankActivated, this, &JobPage::rankActivated);
    connect(m_rankTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onRankCurrentChanged(current); });

    setUpLayout(m_jobSplitter);
    setChartStretch(4, 1); // the job's views are the page; its findings are fewer than a trace's
    m_detail->showMessage(tr("No distributed job loaded."));
    updateInfoLabel();
}

JobPage::~JobPage() = default;

QWidget* JobPage::chartWidget() const
{
    return m_heatmap;
}

bool JobPage::hasFindings() const
{
    return m_findingsModel && m_findingsModel->rowCount() > 0;
}

QString JobPage::documentPath() const
{
    if (!m_job)
        return {};
    QStringList paths;
    for (const JobInput& input : m_job->inputs)
        paths << input.path;
    return commonFolder(paths);
}

const ProblemLog* JobPage::problems() const
{
    return m_view ? &m_problems : nullptr;
}

void JobPage::analyseWindow(qint64 beginNs, qint64 endNs)
{
    Q_UNUSED(beginNs);
    Q_UNUSED(endNs);
}

std::optional<int64_t> JobPage::currentRank() const
{
    const QModelIndex current = m_rankTable->currentIndex();
    if (!current.isValid())
        return std::nullopt;
    return current.data(RankTableModel::RankRole).toLongLong();
}

std::optional<AlignedRange> JobPage::alignedRange() const
{
    return m_view ? alignedRangeOf(*m_view, summary()) : std::nullopt;
}

bool JobPage::open(const LoadedDocument& document, QString* /*error*/)
{
    if (!document.job)
        return false;
    m_showFirst = false;
    setJob(document.job);
    return true;
}

bool JobPage::analyseOpened(OpenMode mode, QString* /*error*/)
{
    startAnalyses();
    if (mode == OpenMode::Now)
        waitForWork();
    return true;
}

void JobPage::openBeside(const LoadedDocument& document, OpenMode mode)
{
    clear();
    m_showFirst = false;
    // screenshots show the trace as it is, on its own page
    if (!document.trace || mode == OpenMode::Now)
        return;
    const auto session = jobSessionOf(*document.trace);
    if (!session)
        return;
    // a session of several ranks opens on its job page; its lowest rank is one click away
    setJob(jobFromTraceSession(document.trace, *session));
    startAnalyses();
    m_showFirst = true;
}

void JobPage::setThresholds(const GapThresholds& thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    countRankFindings(); // the rank table's counts (and the export) use them
}

void JobPage::startAnalyses()
{
    if (!m_job)
        return;
    // The cross-rank analyses take ~1 s at 64 ranks x 100 000 samples: off the GUI thread, and
    // dropped when another job is shown meanwhile (a new generation).
    m_analysisWork.start(
        [job = m_job](const BackgroundWork::Run&) { return analyzeJob(*job); },
        [this](std::shared_ptr<const JobAnalysisResult> analysis) { setJobAnalysis(std::move(analysis)); });
    countRankFindings();
}

void JobPage::countRankFindings()
{
    if (!m_job)
        return;
    m_countWork.start([job = m_job, thresholds = m_thresholds](
                          const BackgroundWork::Run&) { return rankGapFindingCounts(*job, thresholds); },
                      [this](std::vector<int64_t> counts) { setGapFindingCounts(std::move(counts)); });
}

void JobPage::discardWork()
{
    m_analysisWork.discard();
    m_countWork.discard();
}

void JobPage::waitForWork()
{
    m_analysisWork.waitForDone();
    m_countWork.waitForDone();
}

QStringList JobPage::reloadPaths() const
{
    QStringList paths;
    if (m_job)
        for (const JobInput& input : m_job->inputs)
            paths << input.path;
    return paths;
}

std::vector<JobCollectiveInterval>
JobPage::collectiveIntervalsOf(const std::shared_ptr<const TraceData>& trace) const
{
    std::vector<JobCollectiveInterval> intervals;
    if (!m_job || !m_findings || !trace)
        return intervals;
    for (const JobCollectiveInterval& interval : m_findings->intervals) {
        // the rank's shown part is read from this trace (a rank found twice shows its first)
        const JobRank* rank = m_job->findRank(interval.rank);
        if (rank && rank->present && !rank->parts.empty() &&
            m_job->inputs[rank->parts.front().inputIndex].trace == trace)
            intervals.push_back(interval);
    }
    return intervals;
}

std::optional<JobPage::RankInput> JobPage::rankInput(qint64 rankNumber) const
{
    const JobRank* rank = m_job ? m_job->findRank(rankNumber) : nullptr;
    if (!rank || !rank->present)
        return std::nullopt;
    const JobInput& input = m_job->inputs[rank->parts.front().inputIndex];
    return RankInput{input.trace, input.sessionIndex, input.path};
}

void JobPage::keepRankView(qint64 rank)
{
    // The cursor and range are on the aligned clock, the trace page's on the rank's own: they
    // move over once the rank's analysis is shown (a fresh result places the cursor).
    int64_t offset = 0;
    if (const auto analysis = jobAnalysis(); analysis && analysis->crossRank)
        for (const RankValue& value : analysis->crossRank->alignmentOffsetsNs)
            if (value.rank == rank)
                offset = value.value;
    m_rankView = RankView{saturatingAdd(m_viewState->cursorNs(), offset),
                          saturatingAdd(m_viewState->visibleRange().beginNs, offset),
                          saturatingAdd(m_viewState->visibleRange().endNs, offset)};
}

void JobPage::setJob(std::shared_ptr<const JobData> job)
{
    setJobView(job ? buildJobViewData(std::move(job)) : nullptr);
}

void JobPage::setJobView(std::shared_ptr<const JobViewData> view)
{
    if (!view) {
        clear();
        return;
    }
    discardWork(); // the analyses of another job do not apply
    m_view = std::move(view);
    m_job = m_view->job;
    m_summary.reset();
    m_problems = ProblemLog{};
    if (m_job) {
        m_problems.merge(m_job->problems);
        for (const JobInput& input : m_job->inputs)
            if (input.trace)
                m_problems.merge(input.trace->problems);
    }
    m_findings.reset(); // another job's analyses and counts do not apply
    m_gapFindingCounts.clear();
    m_findingsModel->setJobFindings(nullptr, 0);
    m_viewState->reset(); // the zoom steps of another job do not apply
    m_rankModel->setJob(m_view);
    m_rankModel->setDivergentRanks({});
    m_heatmap->setDivergentRanks({});
    m_heatmap->setCollectiveIntervals({});
    m_sparklines->setCollectiveIntervals({});
    m_heatmap->setCrossRankSummary(std::nullopt);
    m_sparklines->setCrossRankSummary(std::nullopt);
    m_sparklines->setJob(m_view);
    m_heatmap->setJob(m_view); // announces its range through the view state
    if (m_sparklines->isOverLimit()) {
        // the sparklines only point at the heatmap: the table takes most of the width
        const int width = std::max(m_ranksSplitter->width(), 400);
        m_ranksSplitter->setSizes({width / 4, width - width / 4});
    }
    if (const auto range = alignedRange())
        setCursorTime(range->beginNs);
    m_detail->showMessage(tr("No findings of this job to show."));
    updateInfoLabel();
    emit stateChanged();
    emit resultShown();
    qint64 missing = 0;
    for (const RankSeries& series : m_view->ranks)
        missing += series.present ? 0 : 1;
    QString message =
        englishPlural(tr("%n rank(s)", nullptr, int(m_view->ranks.size())), qint64(m_view->ranks.size()));
    if (missing > 0)
        message += englishPlural(tr(", %n missing", nullptr, int(missing)), missing);
    emit statusMessage(message, 4000);
}

void JobPage::setJobAnalysis(std::shared_ptr<const JobAnalysisResult> analysis)
{
    setJobFindings(buildJobFindings(std::move(analysis), m_job.get()));
    emit jobAnalysisChanged();
}

void JobPage::setJobFindings(std::shared_ptr<const JobFindings> findings)
{
    m_findings = std::move(findings);
    setCollectiveIntervals(m_findings ? m_findings->intervals : std::vector<JobCollectiveInterval>{});
    setCrossRankSummary(m_findings ? m_findings->summary : std::nullopt); // before the time origin
    const std::vector<JobDivergentRank> divergent =
        m_findings ? m_findings->divergentRanks : std::vector<JobDivergentRank>{};
    m_rankModel->setDivergentRanks(divergent);
    m_heatmap->setDivergentRanks(divergent);
    updateInfoLabel();
    showFindings();
    updateFindingCounts();
    emit stateChanged();
}

void JobPage::showFindings()
{
    const auto range = alignedRange();
    const int64_t origin = range ? range->beginNs : 0;
    m_findingsModel->setJobFindings(m_findings, origin);
    if (m_findings)
        m_detail->showJobFinding(m_findings, -1, origin);
    else
        m_detail->showMessage(m_view ? tr("No findings of this job to show.")
                                     : tr("No distributed job loaded."));
}

void JobPage::setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals)
{
    m_sparklines->setCollectiveIntervals(intervals);
    m_heatmap->setCollectiveIntervals(std::move(intervals));
}

void JobPage::setCrossRankSummary(std::optional<JobCrossRankSummary> summary)
{
    const auto before = alignedRange();
    m_summary = std::move(summary);
    m_rankModel->setCrossRankSummary(m_summary);
    m_sparklines->setCrossRankSummary(m_summary);
    m_heatmap->setCrossRankSummary(m_summary); // new offsets: its range goes to the view state
    updateInfoLabel();
    // a cursor at the start of the job stays at its start
    const auto after = alignedRange();
    if (before && after && m_viewState->cursorNs() == before->beginNs)
        setCursorTime(after->beginNs);
    else
        updateCursorValues();
}

void JobPage::setGapFindingCounts(std::vector<int64_t> countsByRankIndex)
{
    m_gapFindingCounts = std::move(countsByRankIndex);
    updateFindingCounts();
}

void JobPage::updateFindingCounts()
{
    // empty: the table shows the counts as unknown until either kind of findings is known
    if (!m_view || (!m_findings && m_gapFindingCounts.empty())) {
        m_rankModel->setFindingCounts({});
        return;
    }
    std::vector<int64_t> ranks;
    ranks.reserve(m_view->ranks.size());
    for (const RankSeries& series : m_view->ranks)
        ranks.push_back(series.rank);
    m_rankModel->setFindingCounts(rankFindingCounts(ranks, m_gapFindingCounts, m_findings.get()));
}

void JobPage::setMeasure(JobMeasure measure)
{
    if (m_measure == measure)
        return;
    m_measure = measure;
    (measure == JobMeasure::Gap ? m_gapAction : m_ratioAction)->setChecked(true);
    m_heatmap->setMeasure(measure);
    m_sparklines->setMeasure(measure);
    updateCursorValues();
}

void JobPage::selectRank(qint64 rank)
{
    const int row = m_rankModel->rowOfRank(rank);
    if (row < 0)
        return;
    const QModelIndex index =
        m_rankSort->mapFromSource(m_rankDecorations->mapFromSource(m_rankModel->index(row, 0)));
    m_rankTable->scrollTo(index);
    m_rankTable->setCurrentIndex(index);
}

void JobPage::onRankCurrentChanged(const QModelIndex& current)
{
    std::optional<int64_t> rank;
    if (current.isValid())
        rank = current.data(RankTableModel::RankRole).toLongLong();
    m_heatmap->setHighlightedRank(rank);
    m_sparklines->setHighlightedRank(rank);
    updateCursorValues();
}

void JobPage::onFindingCurrentChanged(const QModelIndex& current)
{
    const int index = current.isValid() ? current.data(FindingsModel::FindingIndexRole).toInt() : -1;
    const Finding* finding = m_findings ? m_findingsModel->finding(index) : nullptr;
    if (m_findings) {
        const auto range = alignedRange();
        m_detail->showJobFinding(m_findings, finding ? index : -1, range ? range->beginNs : 0);
    }
    if (finding) {
        // its rank outlined, the cursor at its evidence in the job's aligned clock
        if (finding->rank)
            selectRank(*finding->rank);
        const int64_t ns = m_findings->alignedTimeNs(*finding);
        setCursorTime(ns);
        ensureTimeVisible(ns);
    }
    emit stateChanged(); // Copy Finding follows the selection
}

void JobPage::setCursorTime(qint64 ns)
{
    m_viewState->setCursor(ns);
}

void JobPage::stepCursor(int samples)
{
    if (!m_view)
        return;
    // the current rank's samples, else those of the first rank that has any
    const RankSeries* series = nullptr;
    if (const auto rank = currentRank())
        series = m_view->findRank(*rank);
    if (!series || series->rows.empty()) {
        const auto first = std::find_if(m_view->ranks.begin(), m_view->ranks.end(),
                                        [](const RankSeries& s) { return !s.rows.empty(); });
        series = first == m_view->ranks.end() ? nullptr : &*first;
    }
    if (!series)
        return;
    const int64_t offset = m_summary ? m_summary->offsetOf(series->rank) : 0;
    const auto position = series->nearestPosition(saturatingAdd(m_viewState->cursorNs(), offset));
    const size_t next =
        CursorNavigation::steppedIndex(int64_t(position.value_or(0)), samples, series->rows.size());
    const int64_t ns = saturatingSub(series->timeAt(next), offset);
    setCursorTime(ns);
    ensureTimeVisible(ns);
}

void JobPage::resetZoom()
{
    if (const auto range = alignedRange())
        m_viewState->zoomTo(range->beginNs, range->endNs);
}

QString JobPage::documentTitle(const QString& displayPath) const
{
    if (m_job && !m_job->jobId.isEmpty())
        return tr("%1 — %2 ranks").arg(m_job->jobId).arg(m_job->ranks.size());
    return DocumentPage::documentTitle(displayPath);
}

PageExport JobPage::pageExport() const
{
    PageExport shown;
    if (m_job)
        shown.job = JobExport{m_job, m_findings, m_thresholds, documentPath()};
    return shown;
}

void JobPage::clear()
{
    discardWork();
    m_rankView.reset();
    m_showFirst = false;
    m_view.reset();
    m_job.reset();
    m_summary.reset();
    m_findings.reset();
    m_gapFindingCounts.clear();
    m_findingsModel->setJobFindings(nullptr, 0);
    m_problems = ProblemLog{};
    m_rankModel->setJob(nullptr);
    m_rankModel->setDivergentRanks({});
    m_heatmap->setDivergentRanks({});
    m_heatmap->setCollectiveIntervals({});
    m_sparklines->setCollectiveIntervals({});
    m_heatmap->setCrossRankSummary(std::nullopt);
    m_sparklines->setCrossRankSummary(std::nullopt);
    m_heatmap->setJob(nullptr);
    m_sparklines->setJob(nullptr);
    m_detail->showMessage(tr("No distributed job loaded."));
    m_viewState->reset();
    updateInfoLabel();
    emit cursorValuesChanged(QString());
    emit stateChanged();
}

void JobPage::updateInfoLabel()
{
    if (!m_view) {
        m_infoLabel->setText(tr("<b>Distributed job</b>"));
        return;
    }
    QStringList parts;
    parts << (m_view->jobId.isEmpty() ? tr("<b>Distributed job</b>")
                                      : tr("<b>Job</b> %1").arg(htmlEscape(m_view->jobId)));
    const qint64 ranks = qint64(m_view->ranks.size());
    qint64 missing = 0;
    for (const RankSeries& series : m_view->ranks)
        missing += series.present ? 0 : 1;
    parts << englishPlural(tr("%n rank(s)", nullptr, int(ranks)), ranks);
    if (m_view->worldSize > 0)
        parts << tr("world size %1").arg(m_view->worldSize);
    if (missing > 0)
        parts << englishPlural(tr("%n missing", nullptr, int(missing)), missing);
    if (m_summary)
        if (const auto leading = m_summary->leadingSuspects(); !leading.empty())
            parts << tr("first cause: rank %1 (%2)")
                         .arg(leading.front()->rank)
                         .arg(leading.front()->atStartup
                                  ? tr("%1, start-up").arg(toString(leading.front()->confidence))
                                  : toString(leading.front()->confidence));
    if (m_findings && !m_findings->divergentRanks.empty()) {
        QStringList ranks;
        for (const JobDivergentRank& mark : m_findings->divergentRanks)
            ranks << tr("rank %1 (%2)").arg(mark.rank).arg(mark.series);
        ranks.removeDuplicates();
        parts << tr("<span style='color:%1'>diverges: %2</span>")
                     .arg(divergenceColor(palette()).name(), ranks.join(QStringLiteral(", ")));
    }
    m_infoLabel->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
}

void JobPage::updateCursorValues()
{
    const auto range = alignedRange();
    if (!m_view || !range) {
        emit cursorValuesChanged(m_view ? tr("No rank has samples") : QString());
        return;
    }
    const qint64 cursorNs = m_viewState->cursorNs();
    // every rank's value at the cursor: the sample at or before it (held until the next)
    struct AtCursor
    {
        int64_t rank = 0;
        double value = 0;
    };
    std::optional<AtCursor> largest, smallest, current;
    qint64 sampled = 0, present = 0;
    const auto currentRankValue = currentRank();
    for (const RankSeries& series : m_view->ranks) {
        if (series.rows.empty())
            continue;
        ++present;
        const int64_t offset = m_summary ? m_summary->offsetOf(series.rank) : 0;
        const auto position = series.positionAtOrBefore(saturatingAdd(cursorNs, offset));
        if (!position)
            continue;
        const double value = series.valueAt(m_measure, *position);
        if (std::isnan(value))
            continue;
        ++sampled;
        const AtCursor at{series.rank, value};
        if (!largest || value > largest->value)
            largest = at;
        if (!smallest || value < smallest->value)
            smallest = at;
        if (currentRankValue && *currentRankValue == series.rank)
            current = at;
    }
    QStringList parts;
    parts << tr("t %1 (aligned)").arg(formatRelativeTime(cursorNs, range->beginNs));
    const QString name = measureName(m_measure).toLower();
    if (current)
        parts
            << tr("rank %1: %2 %3").arg(current->rank).arg(name, measureValueText(m_measure, current->value));
    if (largest)
        parts << tr("largest %1: rank %2, %3")
                     .arg(name)
                     .arg(largest->rank)
                     .arg(measureValueText(m_measure, largest->value));
    if (smallest && sampled > 1)
        parts << tr("smallest: rank %1, %2")
                     .arg(smallest->rank)
                     .arg(measureValueText(m_measure, smallest->value));
    parts << tr("%1 of %2 ranks sampled").arg(sampled).arg(present);
    emit cursorValuesChanged(parts.join(QStringLiteral("   ·   ")));
}

} // namespace gapscope
