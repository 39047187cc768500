#include "app/pages/FleetPage.h"

#include "app/NavigationActions.h"
#include "model/fleetdata/FleetData.h"
#include "model/items/FleetIssuesModel.h"
#include "model/items/FleetRunsModel.h"
#include "model/report/FleetReport.h"
#include "model/text/Text.h"
#include "widgets/fleet/FleetScatterView.h"
#include "widgets/trace/FindingDetailView.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace gapscope {

namespace {

QString trMain(const char* text)
{
    return QCoreApplication::translate("MainWindow", text);
}

// A combo of "any" and the values given.
QComboBox* filterCombo(const QString& objectName, const QString& tip, QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setObjectName(objectName);
    combo->setToolTip(tip);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    combo->setMaximumWidth(220);
    return combo;
}

void setChoices(QComboBox* combo, const QString& any, const QStringList& values)
{
    const QSignalBlocker block(combo);
    combo->clear();
    combo->addItem(any, QString());
    for (const QString& value : values)
        combo->addItem(value, value);
}

QTableView* tableView(const QString& objectName, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(objectName);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSortingEnabled(true);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    view->setAlternatingRowColors(true);
    return view;
}

// The time filter's choices: spans before the newest run's end.
struct TimeChoice
{
    const char* label;
    qint64 spanNs; // 0: any time
};
constexpr TimeChoice kTimeChoices[] = {{"any time", 0},
                                       {"last 24 hours", 24LL * 3600 * 1'000'000'000},
                                       {"last 7 days", 7LL * 24 * 3600 * 1'000'000'000},
                                       {"last 30 days", 30LL * 24 * 3600 * 1'000'000'000}};

} // namespace

FleetPage::FleetPage(QAction* resetZoomAction, QWidget* parent) : DocumentPage(resetZoomAction, parent)
{
    m_infoLabel = new QLabel(toolBar());
    m_infoLabel->setObjectName(QStringLiteral("fleetInfo"));
    m_infoLabel->setContentsMargins(6, 0, 12, 0);
    toolBar()->addWidget(m_infoLabel);
    toolBar()->addSeparator();
    QAction* logAxes = toolBar()->addAction(trMain("Log Axes"));
    logAxes->setObjectName(QStringLiteral("fleetLogAxesAction"));
    logAxes->setCheckable(true);
    logAxes->setToolTip(
        trMain("Both axes of the scatter logarithmic: runs spread over decades of duration and gap"));

    // the runs: the filters over the table
    auto* runsPane = new QWidget(this);
    auto* runsLayout = new QVBoxLayout(runsPane);
    runsLayout->setContentsMargins(0, 0, 0, 0);
    runsLayout->setSpacing(2);
    auto* filters = new QHBoxLayout;
    filters->setSpacing(4);
    m_textFilter = new QLineEdit(runsPane);
    m_textFilter->setObjectName(QStringLiteral("fleetTextFilter"));
    m_textFilter->setPlaceholderText(trMain("Filter runs (path, job, host, session, finding, notice)"));
    m_textFilter->setClearButtonEnabled(true);
    m_textFilter->setMinimumWidth(160);
    m_job = filterCombo(QStringLiteral("fleetJobFilter"), trMain("Only the runs of this job"), runsPane);
    m_host = filterCombo(QStringLiteral("fleetHostFilter"), trMain("Only the runs on this host"), runsPane);
    m_class = filterCombo(QStringLiteral("fleetClassFilter"),
                          trMain("Only the runs whose worst finding is of this class"), runsPane);
    m_severity = filterCombo(QStringLiteral("fleetSeverityFilter"),
                             trMain("Only the runs whose worst finding is at least this severe"), runsPane);
    m_severity->addItem(trMain("any severity"), int(FleetSeverity::None));
    m_severity->addItem(trMain("info or worse"), int(FleetSeverity::Info));
    m_severity->addItem(trMain("warning or worse"), int(FleetSeverity::Warning));
    m_severity->addItem(trMain("critical"), int(FleetSeverity::Critical));
    m_notice =
        filterCombo(QStringLiteral("fleetNoticeFilter"), trMain("Only the runs with this notice"), runsPane);
    m_time = filterCombo(QStringLiteral("fleetTimeFilter"),
                         trMain("Only the runs seen in this span before the newest run's end"), runsPane);
    for (const TimeChoice& choice : kTimeChoices)
        m_time->addItem(trMain(choice.label), choice.spanNs);
    filters->addWidget(m_textFilter, 1);
    for (QComboBox* combo : {m_job, m_host, m_class, m_severity, m_notice, m_time})
        filters->addWidget(combo);
    runsLayout->addLayout(filters);
    m_runsModel = new FleetRunsModel(this);
    m_runsView = tableView(QStringLiteral("fleetRunsView"), runsPane);
    m_runsView->setModel(m_runsModel);
    m_runsView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_runsView->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    runsLayout->addWidget(m_runsView, 1);
    m_shownLabel = new QLabel(runsPane);
    m_shownLabel->setObjectName(QStringLiteral("fleetShownLabel"));
    runsLayout->addWidget(m_shownLabel);

    m_scatter = new FleetScatterView(this);
    m_scatter->setObjectName(QStringLiteral("fleetScatter"));
    m_scatter->setToolTip(trMain("Peak gap against duration, a point per run shown. Drag to select runs; "
                                 "double-click a point to open its run."));

    auto* top = new QSplitter(Qt::Horizontal, this);
    top->setObjectName(QStringLiteral("fleetRunsSplitter"));
    top->addWidget(runsPane);
    top->addWidget(m_scatter);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    setUpLayout(top);
    setChartStretch(3, 2);

    // below: the recurring issues beside the runs of the one selected; the findings table of
    // other pages has nothing to show for a fleet
    m_findingsView->hide();
    m_findingsFilter->hide();
    m_findingsNotice->hide();
    m_detail->hide();
    m_issuesModel = new FleetIssuesModel(this);
    m_issuesProxy = new QSortFilterProxyModel(this);
    m_issuesProxy->setSourceModel(m_issuesModel);
    m_issuesProxy->setSortRole(FleetIssuesModel::SortRole);
    m_issuesView = tableView(QStringLiteral("fleetIssuesView"), this);
    m_issuesView->setModel(m_issuesProxy);
    m_issuesView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_issuesView->sortByColumn(FleetIssuesModel::RunsColumn, Qt::DescendingOrder);
    m_issuesView->setToolTip(trMain("Findings grouped across runs by upstream stormlog's fingerprint"));
    m_issueRunsModel = new FleetRunsModel(this);
    m_issueRunsView = tableView(QStringLiteral("fleetIssueRunsView"), this);
    m_issueRunsView->setModel(m_issueRunsModel);
    m_issueRunsView->setSelectionMode(QAbstractItemView::SingleSelection);
    for (const auto column : {FleetRunColumn::Session, FleetRunColumn::Start, FleetRunColumn::Duration,
                              FleetRunColumn::Samples, FleetRunColumn::LatestGap, FleetRunColumn::Drift,
                              FleetRunColumn::Notices, FleetRunColumn::Findings, FleetRunColumn::Ooms})
        m_issueRunsView->hideColumn(int(column));
    auto* issues = new QSplitter(Qt::Horizontal, this);
    issues->setObjectName(QStringLiteral("fleetIssuesSplitter"));
    issues->addWidget(m_issuesView);
    issues->addWidget(m_issueRunsView);
    issues->setStretchFactor(0, 3);
    issues->setStretchFactor(1, 2);
    addDetailPane(issues);

    connect(logAxes, &QAction::toggled, m_scatter, &FleetScatterView::setLogScale);
    connect(m_textFilter, &QLineEdit::textChanged, this, &FleetPage::applyFilter);
    for (QComboBox* combo : {m_job, m_host, m_class, m_severity, m_notice, m_time})
        connect(combo, &QComboBox::currentIndexChanged, this, &FleetPage::applyFilter);
    connect(m_runsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &FleetPage::onRunsSelectionChanged);
    connect(m_runsModel, &QAbstractItemModel::modelReset, this, &FleetPage::onRunsSelectionChanged);
    connect(m_scatter, &FleetScatterView::runsBrushed, this, &FleetPage::selectRuns);
    connect(m_scatter, &FleetScatterView::runActivated, this, &FleetPage::requestOpen);
    connect(m_runsView, &QAbstractItemView::doubleClicked, this,
            [this](const QModelIndex& index) { requestOpen(m_runsModel->runAt(index.row())); });
    connect(m_issueRunsView, &QAbstractItemView::doubleClicked, this,
            [this](const QModelIndex& index) { requestOpen(m_issueRunsModel->runAt(index.row())); });
    connect(m_issuesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &FleetPage::onIssueSelected);
}

FleetPage::~FleetPage() = default;

QWidget* FleetPage::chartWidget() const
{
    return m_scatter;
}

QString FleetPage::documentPath() const
{
    return m_data ? m_data->path : QString();
}

const ProblemLog* FleetPage::problems() const
{
    return m_data ? &m_data->problems : nullptr;
}

void FleetPage::updateNavigation(NavigationActions& actions) const
{
    DocumentPage::updateNavigation(actions);
}

bool FleetPage::open(const LoadedDocument& document, QString* error)
{
    if (!document.fleet) {
        if (error)
            *error = trMain("%1: not a fleet index").arg(document.path());
        return false;
    }
    m_data = document.fleet;
    fillFilterChoices();
    m_runsModel->setFleet(m_data);
    m_issuesModel->setFleet(m_data);
    m_issueRunsModel->setFleet(m_data);
    FleetRunFilter none;
    none.restricted = true; // no issue selected yet
    m_issueRunsModel->setFilter(none);
    applyFilter();
    m_runsView->resizeColumnsToContents();
    m_runsView->setColumnWidth(int(FleetRunColumn::Path),
                               std::min(m_runsView->columnWidth(int(FleetRunColumn::Path)), 260));
    m_issuesView->resizeColumnsToContents();
    m_issuesView->setColumnWidth(
        FleetIssuesModel::FingerprintColumn,
        std::min(m_issuesView->columnWidth(FleetIssuesModel::FingerprintColumn), 200));
    // the issue seen in most runs, with its runs
    if (m_issuesProxy->rowCount() > 0)
        m_issuesView->setCurrentIndex(m_issuesProxy->index(0, 0));
    updateInfo();
    emit stateChanged();
    return true;
}

bool FleetPage::analyseOpened(OpenMode /*mode*/, QString* /*error*/)
{
    // a fleet is shown as indexed: nothing to analyse here
    emit resultShown();
    return true;
}

void FleetPage::clear()
{
    m_data.reset();
    m_runsModel->setFleet(nullptr);
    m_issuesModel->setFleet(nullptr);
    m_issueRunsModel->setFleet(nullptr);
    m_scatter->setPoints({});
    m_infoLabel->clear();
    m_shownLabel->clear();
    emit stateChanged();
}

void FleetPage::resetZoom()
{
    const QSignalBlocker blockText(m_textFilter);
    m_textFilter->clear();
    for (QComboBox* combo : {m_job, m_host, m_class, m_severity, m_notice, m_time}) {
        const QSignalBlocker block(combo);
        combo->setCurrentIndex(0);
    }
    applyFilter();
}

void FleetPage::fillFilterChoices()
{
    setChoices(m_job, trMain("any job"), m_data->distinct(m_data->runs.jobId));
    setChoices(m_host, trMain("any host"), m_data->distinct(m_data->runs.host));
    m_classes = m_data->distinct(m_data->runs.worstClass);
    setChoices(m_class, trMain("any finding"), QStringList{kFleetNoFinding} + m_classes);
    setChoices(m_notice, trMain("any notice"), m_data->noticeCodes);
    QStringList legend{trMain("no finding")};
    legend += m_classes;
    m_scatter->setLegend(legend);
}

FleetRunFilter FleetPage::currentFilter() const
{
    FleetRunFilter filter;
    filter.text = m_textFilter->text().trimmed();
    filter.jobId = m_job->currentData().toString();
    filter.host = m_host->currentData().toString();
    filter.worstClass = m_class->currentData().toString();
    filter.minSeverity = FleetSeverity(m_severity->currentData().toInt());
    filter.notice = m_notice->currentData().toString();
    const qint64 span = m_time->currentData().toLongLong();
    if (span > 0 && m_data) {
        qint64 newest = kFleetNoValue;
        for (const qint64 end : m_data->runs.endNs)
            newest = std::max(newest, end);
        if (newest != kFleetNoValue)
            filter.fromNs = newest - span;
    }
    return filter;
}

void FleetPage::applyFilter()
{
    if (!m_data)
        return;
    const std::vector<int> selected = selectedRuns();
    m_runsModel->setFilter(currentFilter());
    updateScatter();
    selectRuns(selected); // what is still shown stays selected
    m_shownLabel->setText(trMain("%1 of %2 runs shown")
                              .arg(countText(m_runsModel->rows().size()), countText(m_data->runs.size())));
}

void FleetPage::updateScatter()
{
    std::vector<FleetScatterPoint> points;
    if (m_data) {
        const FleetRuns& r = m_data->runs;
        // class id -> legend entry
        std::vector<int> entryOf(size_t(m_data->strings.size()), 0);
        for (qsizetype i = 0; i < m_classes.size(); ++i)
            entryOf[size_t(m_data->strings.indexOf(m_classes[i]))] = int(i) + 1;
        points.reserve(m_runsModel->rows().size());
        for (const int run : m_runsModel->rows()) {
            const auto i = size_t(run);
            const qint64 duration = r.durationNs(i);
            if (duration == kFleetNoValue || r.peakGapBytes[i] == kFleetNoValue)
                continue;
            points.push_back(
                {double(duration) / 1e9, double(r.peakGapBytes[i]), entryOf[r.worstClass[i]], run});
        }
    }
    m_scatter->setPoints(std::move(points));
}

void FleetPage::updateInfo()
{
    if (!m_data) {
        m_infoLabel->clear();
        return;
    }
    QString text = trMain("%1 · %2 · %3")
                       .arg(QFileInfo(m_data->path).fileName(),
                            englishPlural(trMain("%1 run(s)"), qint64(m_data->runs.size()))
                                .arg(countText(m_data->runs.size())),
                            englishPlural(trMain("%1 recurring issue(s)"), qint64(m_data->issues.size()))
                                .arg(countText(m_data->issues.size())));
    if (m_data->vanishedRuns > 0)
        text += trMain(" · %1 vanished left out").arg(countText(m_data->vanishedRuns));
    m_infoLabel->setText(text);
}

std::vector<int> FleetPage::selectedRuns() const
{
    std::vector<int> runs;
    for (const QModelIndex& index : m_runsView->selectionModel()->selectedRows())
        runs.push_back(m_runsModel->runAt(index.row()));
    std::sort(runs.begin(), runs.end());
    return runs;
}

void FleetPage::selectRuns(const std::vector<int>& runs)
{
    QItemSelection selection;
    const int lastColumn = m_runsModel->columnCount() - 1;
    int firstRow = -1;
    for (const int run : runs) {
        const int row = m_runsModel->rowOfRun(run);
        if (row < 0)
            continue;
        selection.select(m_runsModel->index(row, 0), m_runsModel->index(row, lastColumn));
        if (firstRow < 0 || row < firstRow)
            firstRow = row;
    }
    m_runsView->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (firstRow >= 0)
        m_runsView->scrollTo(m_runsModel->index(firstRow, 0));
}

void FleetPage::onRunsSelectionChanged()
{
    m_scatter->setSelectedRuns(selectedRuns());
}

void FleetPage::onIssueSelected()
{
    FleetRunFilter filter;
    filter.restricted = true;
    const QModelIndex current = m_issuesView->currentIndex();
    if (const FleetIssue* issue =
            current.isValid() ? m_issuesModel->issueAt(m_issuesProxy->mapToSource(current).row()) : nullptr)
        for (const FleetIssueRun& run : issue->runs)
            filter.only.push_back(run.run);
    m_issueRunsModel->setFilter(filter);
    m_issueRunsView->resizeColumnsToContents();
}

void FleetPage::requestOpen(int run)
{
    if (!m_data || run < 0 || size_t(run) >= m_data->runs.size())
        return;
    const QString& path = m_data->text(m_data->runs.path[size_t(run)]);
    emit statusMessage(trMain("Opening %1").arg(path), 5000);
    emit openPathRequested(path);
}

PageExport FleetPage::pageExport() const
{
    PageExport shown;
    if (!m_data)
        return shown;
    const std::shared_ptr<const FleetData> data = m_data;
    const std::vector<int> rows = m_runsModel->rows();
    shown.documents = {
        {trMain("CSV of the runs shown (*.csv)"), QStringLiteral("csv"),
         [data, rows] { return fleetRunsCsv(*data, rows); }},
        {trMain("Markdown of the recurring issues (*.md)"), QStringLiteral("md"),
         [data] { return fleetIssuesMarkdown(*data).toUtf8(); }},
        {trMain("HTML of the recurring issues (*.html *.htm)"), QStringLiteral("html"),
         [data] { return fleetIssuesHtml(*data).toUtf8(); }},
    };
    return shown;
}

} // namespace gapscope
