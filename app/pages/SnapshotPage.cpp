#include "app/pages/SnapshotPage.h"

#include "app/NavigationActions.h"
#include "app/pages/ViewState.h"
#include "model/items/FindingsModel.h"
#include "model/items/SnapshotSitesModel.h"
#include "model/report/ReportContent.h"
#include "model/snapshot/SnapshotData.h"
#include "model/snapshot/SnapshotFragmentation.h"
#include "model/snapshot/SnapshotTimeline.h"
#include "model/snapshot/SnapshotTimelineLayout.h"
#include "model/text/Text.h"
#include "widgets/common/PaneKeys.h"
#include "widgets/common/SummaryView.h"
#include "widgets/snapshot/ActiveMemoryView.h"
#include "widgets/snapshot/SegmentMapView.h"
#include "widgets/trace/FindingDetailView.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QToolBar>
#include <QVBoxLayout>

namespace gapscope {

namespace {

QString trMain(const char* text)
{
    return QCoreApplication::translate("MainWindow", text);
}

// What the summary shows of a snapshot: the totals as the allocator's counters name them, the
// findings, the trace entries by action, the pools and the allocator settings in force.
SummaryContent snapshotSummary(const SnapshotData& data, const SnapshotSummary& summary,
                               const std::vector<Finding>& findings)
{
    const SnapshotTotals& t = summary.totals;
    SummaryContent content;
    content.title = QFileInfo(data.path).fileName();
    QStringList subtitle{trMain("PyTorch memory snapshot")};
    const std::vector<int64_t> devices = data.devices();
    if (devices.size() == 1)
        subtitle << trMain("device %1").arg(devices.front());
    else if (devices.size() > 1)
        subtitle << englishPlural(trMain("%1 device(s)").arg(devices.size()), qint64(devices.size()));
    subtitle << (data.compressed ? trMain("%1 pickle, gzip-compressed") : trMain("%1 pickle"))
                    .arg(bytesText(data.pickleBytes));
    content.subtitle = subtitle.join(QStringLiteral(" · "));
    // segments with no live block: cached, not split (torch.cuda.empty_cache() returns them)
    int64_t idleBytes = 0;
    for (const SnapshotSegment& segment : data.segments)
        if (segment.activeSize == 0)
            idleBytes += segment.totalSize;
    const auto share = [&](int64_t bytes) {
        return trMain("%1 of reserved").arg(shareText(bytes, t.reservedBytes));
    };
    content.figures = {
        {trMain("Segments"), countText(t.segmentCount),
         englishPlural(trMain("%1 block(s)").arg(countText(t.blockCount)), t.blockCount)},
        {trMain("Reserved"), bytesText(t.reservedBytes),
         idleBytes > 0 ? trMain("%1 in segments with no live block").arg(bytesText(idleBytes))
                       : trMain("cudaMalloc'd by the caching allocator")},
        {trMain("Allocated"), bytesText(t.allocatedBytes), share(t.allocatedBytes)},
        {trMain("Active"), bytesText(t.activeBytes), trMain("allocated + pending free")},
        {trMain("Requested"), bytesText(t.requestedBytes),
         trMain("%1 lost to rounding").arg(bytesText(t.allocatedBytes - t.requestedBytes))},
        {trMain("Inactive split"), bytesText(t.inactiveSplitBytes),
         trMain("free inside segments in use · %1").arg(share(t.inactiveSplitBytes))},
        {trMain("Largest free block"), bytesText(t.largestFreeBlockBytes),
         trMain("%1 free in all").arg(bytesText(t.inactiveBytes))},
        {trMain("Trace entries"), countText(summary.traceEntryCount),
         summary.traceEntryCount == 0 ? trMain("no allocator history recorded") : QString()},
    };

    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        SummaryFinding item;
        item.index = int(i);
        item.severity = f.severity;
        item.title = classificationTitle(f.classification);
        item.detail = FindingsModel::severityText(f.severity);
        item.description = qs(f.description);
        content.findings.push_back(item);
    }
    content.findingCount = findings.size();
    content.noFindings = noFragmentationFindingText(t.inactiveSplitBytes, t.reservedBytes);

    SummaryTable actions;
    actions.title = trMain("Trace entries by action");
    actions.header = QStringList{trMain("Action"), trMain("Entries")};
    for (size_t a = 0; a < kTraceActionCount; ++a)
        if (summary.traceEntriesByAction[a] > 0)
            actions.rows.push_back(
                {QString::fromLatin1(toString(TraceAction(a))), countText(summary.traceEntriesByAction[a])});
    if (actions.rows.empty())
        actions.note =
            trMain("The snapshot holds no trace (torch.cuda.memory._record_memory_history was off).");
    content.tables.push_back(actions);

    SummaryTable pools;
    pools.title = trMain("Segments by stream and pool");
    pools.header = QStringList{trMain("Stream"),   trMain("Pool"),           trMain("Segments"),
                               trMain("Reserved"), trMain("Inactive split"), trMain("Largest free block")};
    for (const PoolFragmentation& pool : poolFragmentation(data))
        pools.rows.push_back({QString::number(pool.stream),
                              pool.pool == SegmentPoolId{}
                                  ? trMain("default")
                                  : QStringLiteral("(%1, %2)").arg(pool.pool.first).arg(pool.pool.second),
                              countText(std::count_if(data.segments.begin(), data.segments.end(),
                                                      [&](const SnapshotSegment& s) {
                                                          return s.device == pool.device &&
                                                                 s.stream == pool.stream &&
                                                                 s.pool == pool.pool;
                                                      })),
                              bytesText(pool.reservedBytes), bytesText(pool.inactiveSplitBytes),
                              bytesText(pool.largestFreeBlockBytes)});
    content.tables.push_back(pools);

    SummaryTable settings;
    settings.title = trMain("Allocator settings in force");
    settings.header = QStringList{trMain("Setting"), trMain("Value")};
    for (const SnapshotSetting& setting : data.allocatorSettings)
        settings.rows.push_back({shownText(setting.name),
                                 setting.value.isEmpty() ? trMain("(empty)") : shownText(setting.value)});
    if (settings.rows.empty())
        settings.note = trMain("The snapshot records no allocator_settings (PyTorch before 2.5).");
    content.tables.push_back(settings);
    return content;
}

QString findingHtml(const Finding& f)
{
    QString html =
        QStringLiteral("<h3>%1 · %2</h3><p>%3</p>")
            .arg(htmlEscape(classificationTitle(f.classification)),
                 htmlEscape(FindingsModel::severityText(f.severity)), htmlEscape(qs(f.description)));
    if (!f.remediation.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(htmlEscape(trMain("What to try")));
        for (const std::string& step : f.remediation)
            html += QStringLiteral("<li>%1</li>").arg(htmlEscape(qs(step)));
        html += QStringLiteral("</ul>");
    }
    return html;
}

} // namespace

SnapshotPage::SnapshotPage(QAction* resetZoomAction, QWidget* parent) : DocumentPage(resetZoomAction, parent)
{
    m_infoLabel = new QLabel(toolBar());
    m_infoLabel->setObjectName(QStringLiteral("snapshotInfo"));
    m_infoLabel->setContentsMargins(6, 0, 12, 0);
    toolBar()->addWidget(m_infoLabel);
    toolBar()->addSeparator();
    auto* order = new QActionGroup(this);
    m_byAddress = toolBar()->addAction(trMain("By Address"));
    m_byAddress->setObjectName(QStringLiteral("segmentsByAddressAction"));
    m_byAddress->setToolTip(trMain("Segments in address order inside each stream and pool"));
    m_bySize = toolBar()->addAction(trMain("By Size"));
    m_bySize->setObjectName(QStringLiteral("segmentsBySizeAction"));
    m_bySize->setToolTip(trMain("The largest segments first inside each stream and pool"));
    for (QAction* action : {m_byAddress, m_bySize}) {
        action->setCheckable(true);
        order->addAction(action);
    }
    m_byAddress->setChecked(true);

    m_map = new SegmentMapView(this);
    m_map->setObjectName(QStringLiteral("segmentMap"));
    m_map->setMinimumHeight(200);
    connect(m_byAddress, &QAction::toggled, this, [this](bool on) {
        if (on)
            m_map->setOrder(SegmentOrder::Address);
    });
    connect(m_bySize, &QAction::toggled, this, [this](bool on) {
        if (on)
            m_map->setOrder(SegmentOrder::Size);
    });
    // the map above the allocation sites: a site selected outlines its blocks in the map
    m_mapSplitter = new QSplitter(Qt::Vertical, this);
    m_mapSplitter->setObjectName(QStringLiteral("snapshotMapSplitter"));
    m_mapSplitter->addWidget(m_map);
    m_mapSplitter->addWidget(createSitesPane());
    m_mapSplitter->setStretchFactor(0, 3);
    m_mapSplitter->setStretchFactor(1, 2);
    m_mapSplitter->setChildrenCollapsible(false);
    // the timeline above them: the trace's story over time, then the state it ends in
    m_timelineSplitter = new QSplitter(Qt::Vertical, this);
    m_timelineSplitter->setObjectName(QStringLiteral("timelineSplitter"));
    m_timelineSplitter->addWidget(makeTimelinePane());
    m_timelineSplitter->addWidget(m_mapSplitter);
    m_timelineSplitter->setStretchFactor(0, 3);
    m_timelineSplitter->setStretchFactor(1, 2);
    m_timelineSplitter->setChildrenCollapsible(false);
    setUpLayout(m_timelineSplitter);
    // a snapshot is one moment: its findings have no phase and no time to show
    findingsView()->setColumnHidden(FindingsModel::PhaseColumn, true);
    findingsView()->setColumnHidden(FindingsModel::TimeColumn, true);
    findingsView()->horizontalHeader()->setSectionResizeMode(FindingsModel::ClassificationColumn,
                                                             QHeaderView::Stretch);
    setChartStretch(4, 1); // the views are the page; a snapshot has a finding per pool at most

    // a finding of a snapshot has no time or chart to show: its text and remediation instead
    m_detail->hide();
    m_findingText = new QTextBrowser(this);
    m_findingText->setObjectName(QStringLiteral("snapshotFindingText"));
    m_findingText->setOpenLinks(false);
    addDetailPane(m_findingText);
}

SnapshotPage::~SnapshotPage() = default;

QWidget* SnapshotPage::makeTimelinePane()
{
    auto* pane = new QWidget(this);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 2, 6, 0);
    auto* title = new QLabel(trMain("<b>Active memory timeline</b>"), pane);
    header->addWidget(title);
    m_devices = new QComboBox(pane);
    m_devices->setObjectName(QStringLiteral("timelineDevices"));
    m_devices->setToolTip(trMain("The device whose trace the timeline shows"));
    m_devices->hide();
    header->addWidget(m_devices);
    m_byEntry = new QCheckBox(trMain("By entry"), pane);
    m_byEntry->setObjectName(QStringLiteral("timelineByEntry"));
    m_byEntry->setToolTip(trMain("The trace entry's index on the x axis instead of its time"));
    header->addWidget(m_byEntry);
    m_showReserved = new QCheckBox(trMain("Reserved"), pane);
    m_showReserved->setObjectName(QStringLiteral("timelineReserved"));
    m_showReserved->setToolTip(trMain("The allocator's reserved bytes as a line over the allocations"));
    m_showReserved->setChecked(true);
    header->addWidget(m_showReserved);
    header->addSpacing(12);
    m_stateLabel = new QLabel(pane);
    m_stateLabel->setObjectName(QStringLiteral("allocatorState"));
    m_stateLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stateLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    header->addWidget(m_stateLabel, 1);
    layout->addLayout(header);
    m_timeline = new ActiveMemoryView(pane);
    m_timeline->setObjectName(QStringLiteral("activeMemoryTimeline"));
    m_timeline->setMinimumHeight(180);
    layout->addWidget(m_timeline, 1);

    connect(m_devices, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            showTimeline(size_t(m_devices->itemData(index).toULongLong()));
    });
    connect(m_byEntry, &QCheckBox::toggled, this,
            [this](bool on) { m_timeline->setAxis(on ? TimelineAxis::Entries : TimelineAxis::Time); });
    connect(m_showReserved, &QCheckBox::toggled, m_timeline, &ActiveMemoryView::setShowReserved);
    connect(m_timeline, &ActiveMemoryView::entrySelected, this, &SnapshotPage::showAllocatorState);
    return pane;
}

void SnapshotPage::showTimelines()
{
    const QSignalBlocker block(m_devices);
    m_devices->clear();
    if (m_data) {
        for (size_t i = 0; i < m_data->traces.size(); ++i)
            if (m_data->traces[i].count() > 0)
                m_devices->addItem(trMain("device %1").arg(m_data->traces[i].device),
                                   QVariant::fromValue(quint64(i)));
    }
    m_devices->setVisible(m_devices->count() > 1);
    m_devices->setCurrentIndex(m_devices->count() > 0 ? 0 : -1);
    showTimeline(m_devices->count() > 0 ? size_t(m_devices->itemData(0).toULongLong()) : 0);
}

void SnapshotPage::showTimeline(size_t traceIndex)
{
    m_timeline->setSnapshot(m_data, traceIndex);
    const bool timed = m_timeline->timeline() && m_timeline->timeline()->hasTimes;
    m_byEntry->setEnabled(timed);
    m_timeline->setAxis(m_byEntry->isChecked() || !timed ? TimelineAxis::Entries : TimelineAxis::Time);
    m_timeline->setShowReserved(m_showReserved->isChecked());
    const SnapshotTimeline* timeline = m_timeline->timeline();
    m_stateLabel->setText(timeline && timeline->entryCount > 0
                              ? trMain("Click the timeline for the allocator's state at that moment")
                              : QString());
}

void SnapshotPage::showAllocatorState(quint32 entry)
{
    if (const SnapshotTimeline* timeline = m_timeline->timeline())
        m_stateLabel->setText(allocatorStateText(*m_data, *timeline, entry));
}

QWidget* SnapshotPage::createSitesPane()
{
    m_sitesModel = new SnapshotSitesModel(this);
    m_sitesProxy = new QSortFilterProxyModel(this);
    m_sitesProxy->setSourceModel(m_sitesModel);
    m_sitesProxy->setSortRole(SnapshotSitesModel::SortRole);
    m_sitesProxy->setFilterKeyColumn(SnapshotSitesModel::SiteColumn);
    m_sitesProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_sitesView = new QTableView(this);
    m_sitesView->setObjectName(QStringLiteral("snapshotSitesView"));
    m_sitesView->setModel(m_sitesProxy);
    m_sitesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_sitesView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_sitesView->setAlternatingRowColors(true);
    m_sitesView->setShowGrid(false);
    m_sitesView->setWordWrap(false);
    m_sitesView->setTextElideMode(Qt::ElideMiddle); // a frame's file and line are at its end
    m_sitesView->verticalHeader()->hide();
    m_sitesView->verticalHeader()->setDefaultSectionSize(m_sitesView->fontMetrics().height() + 8);
    QHeaderView* header = m_sitesView->horizontalHeader();
    header->setHighlightSections(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(SnapshotSitesModel::SiteColumn, QHeaderView::Stretch);
    header->setMinimumSectionSize(70);
    tabLeavesItemView(m_sitesView);
    showFocusFrame(m_sitesView);
    sortByHeaderClick(m_sitesView, header);
    connect(m_sitesView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndexList rows = m_sitesView->selectionModel()->selectedRows();
        onSiteCurrentChanged(rows.isEmpty() ? QModelIndex() : rows.front());
    });
    // Escape lets go of the site (a Ctrl+click on it does too)
    auto* deselect = new QAction(trMain("Clear Site Selection"), m_sitesView);
    deselect->setShortcut(Qt::Key_Escape);
    deselect->setShortcutContext(Qt::WidgetShortcut);
    connect(deselect, &QAction::triggered, this, [this] { selectSite(-1); });
    m_sitesView->addAction(deselect);

    auto* title = new QLabel(trMain("<b>Allocation sites</b>"), this);
    m_siteGrouping = new QComboBox(this);
    m_siteGrouping->setObjectName(QStringLiteral("siteGrouping"));
    m_siteGrouping->addItem(trMain("By stack"), int(SiteGrouping::Stack));
    m_siteGrouping->addItem(trMain("By function"), int(SiteGrouping::Function));
    m_siteGrouping->setToolTip(
        trMain("One site per stack of frames, or per function of the stack's top "
               "frame (its Python frame, else its first frame outside the allocator)"));
    connect(m_siteGrouping, &QComboBox::currentIndexChanged, this, [this] { rebuildSites(); });
    auto* filter = new QLineEdit(this);
    filter->setObjectName(QStringLiteral("sitesFilter"));
    filter->setPlaceholderText(trMain("Filter sites"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, m_sitesProxy, &QSortFilterProxyModel::setFilterFixedString);
    m_sitesNote = new QLabel(this);
    m_sitesNote->setObjectName(QStringLiteral("sitesNote"));
    m_sitesNote->setForegroundRole(QPalette::PlaceholderText);
    m_sitesNote->setContentsMargins(6, 0, 6, 2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 2);
    bar->addWidget(title);
    bar->addWidget(m_siteGrouping);
    bar->addWidget(filter, 1);
    auto* tablePane = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tablePane);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->setSpacing(2);
    tableLayout->addLayout(bar);
    tableLayout->addWidget(m_sitesNote);
    tableLayout->addWidget(m_sitesView, 1);

    m_siteStack = new QPlainTextEdit(this);
    m_siteStack->setObjectName(QStringLiteral("snapshotSiteStack"));
    m_siteStack->setReadOnly(true);
    m_siteStack->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_siteStack->setPlaceholderText(
        trMain("Select a site to see its stack and outline its blocks in the map."));

    auto* pane = new QSplitter(Qt::Horizontal, this);
    pane->setObjectName(QStringLiteral("snapshotSitesSplitter"));
    pane->addWidget(tablePane);
    pane->addWidget(m_siteStack);
    pane->setStretchFactor(0, 3);
    pane->setStretchFactor(1, 2);
    pane->setChildrenCollapsible(false);
    return pane;
}

void SnapshotPage::setSiteGrouping(SiteGrouping grouping)
{
    m_siteGrouping->setCurrentIndex(m_siteGrouping->findData(int(grouping)));
}

void SnapshotPage::rebuildSites()
{
    if (!m_data || !m_analysed) {
        m_sitesModel->setSites(nullptr, nullptr);
        m_sitesNote->clear();
        onSiteCurrentChanged({});
        return;
    }
    const auto grouping = SiteGrouping(m_siteGrouping->currentData().toInt());
    // linear in the timelines' allocations (a million entries: tens of milliseconds)
    auto sites = std::make_shared<const SnapshotSites>(buildSnapshotSites(*m_data, grouping));
    QString note = englishPlural(
        (grouping == SiteGrouping::Stack ? trMain("%1 site(s) by stack") : trMain("%1 function(s)"))
            .arg(countText(int64_t(sites->sites.size()))),
        int64_t(sites->sites.size()));
    if (m_data->timelines && m_data->timelines->size() == 1) {
        const SnapshotTimeline& timeline = m_data->timelines->front();
        note += timeline.peakEntry == SnapshotAllocation::kBeforeTrace
                    ? trMain(" · at the peak: %1 active before the trace's first entry")
                          .arg(bytesText(timeline.peakActiveBytes))
                    : trMain(" · at the peak: %1 active after entry %2 of %3")
                          .arg(bytesText(timeline.peakActiveBytes), countText(timeline.peakEntry),
                               countText(timeline.entryCount));
    } else {
        note +=
            trMain(" · at the peak: %1 active (each device's peak)").arg(bytesText(sites->peakActiveBytes));
    }
    m_sitesNote->setText(note);
    m_sitesModel->setSites(m_data, std::move(sites));
    // a reset selects nothing and says nothing: the highlight goes with it
    onSiteCurrentChanged({});
}

void SnapshotPage::selectSite(int row)
{
    QItemSelectionModel* selection = m_sitesView->selectionModel();
    const QModelIndex source = m_sitesModel->index(row, 0);
    const QModelIndex proxy = m_sitesProxy->mapFromSource(source);
    if (!proxy.isValid()) {
        selection->clear();
        return;
    }
    selection->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_sitesView->scrollTo(proxy);
}

QList<uint> SnapshotPage::selectedSiteStacks() const
{
    return m_selectedStacks;
}

void SnapshotPage::onSiteCurrentChanged(const QModelIndex& current)
{
    const QModelIndex source = m_sitesProxy->mapToSource(current);
    const SnapshotSite* site = source.isValid() ? m_sitesModel->siteAt(source.row()) : nullptr;
    QList<uint> stacks;
    if (site) {
        stacks = QList<uint>(site->stacks.begin(), site->stacks.end());
        m_map->setHighlightedFrames(site->stacks);
        m_timeline->setHighlightedFrames(std::vector<FrameStackId>(site->stacks.begin(), site->stacks.end()));
        m_siteStack->setPlainText(siteDescription(*m_data, *m_sitesModel->sites(), *site, 512));
    } else {
        m_map->clearHighlight();
        m_timeline->clearHighlight();
        m_siteStack->clear();
    }
    if (stacks == m_selectedStacks)
        return;
    m_selectedStacks = stacks;
    emit siteSelected(m_selectedStacks);
}

QWidget* SnapshotPage::chartWidget() const
{
    return m_map;
}

QString SnapshotPage::documentPath() const
{
    return m_data ? m_data->path : QString();
}

const ProblemLog* SnapshotPage::problems() const
{
    return m_data ? &m_data->problems : nullptr;
}

bool SnapshotPage::open(const LoadedDocument& document, QString* error)
{
    if (!document.snapshot)
        return false;
    if (document.snapshot->segments.empty() && document.snapshot->traceEntryCount() == 0) {
        if (error)
            *error =
                trMain("%1: the snapshot holds no segment and no trace entry").arg(document.snapshot->path);
        return false;
    }
    m_data = document.snapshot;
    m_analysed = false;
    m_summary = {};
    m_findings.reset();
    m_selectedFinding = -1;
    updateInfoLabel();
    emit stateChanged();
    return true;
}

PageExport SnapshotPage::pageExport() const
{
    PageExport shown;
    if (m_data && m_analysed)
        shown.snapshot =
            SnapshotExport{SnapshotReportInput{m_data, m_summary, m_findings}, m_selectedFinding};
    return shown;
}

bool SnapshotPage::analyseOpened(OpenMode mode, QString* /*error*/)
{
    if (!m_data)
        return false;
    // linear in the blocks (tens of thousands at most): on this thread in either mode
    m_summary = summarizeSnapshot(*m_data);
    m_findings = std::make_shared<const std::vector<Finding>>(snapshotFragmentationFindings(*m_data));
    m_selectedFinding = -1;
    m_analysed = true;
    m_map->setSnapshot(m_data);
    showTimelines();
    rebuildSites();
    m_findingsFilter->clear();
    m_findingsModel->setUntimedFindings(m_findings);
    m_findingText->setHtml(
        QStringLiteral("<p style='color:gray'>%1</p>")
            .arg(htmlEscape(hasFindings() ? trMain("Select a finding to see what it means.")
                                          : trMain("No fragmentation finding."))));
    setSummary(snapshotSummary(*m_data, m_summary, *m_findings), mode == OpenMode::Background);
    updateInfoLabel();
    emit resultShown();
    emit stateChanged();
    if (hasFindings())
        selectFinding(0);
    emit statusMessage(hasFindings()
                           ? englishPlural(trMain("%1 fragmentation finding(s)").arg(m_findings->size()),
                                           qint64(m_findings->size()))
                           : trMain("No fragmentation findings"),
                       4000);
    return true;
}

void SnapshotPage::updateInfoLabel()
{
    if (!m_data) {
        m_infoLabel->clear();
        return;
    }
    QStringList parts;
    parts << trMain("<b>Segment map</b>");
    parts << englishPlural(trMain("%1 segment(s)").arg(m_data->segments.size()),
                           qint64(m_data->segments.size()));
    parts << englishPlural(trMain("%1 block(s)").arg(m_data->blocks.size()), qint64(m_data->blocks.size()));
    if (m_analysed)
        parts << trMain("%1 reserved").arg(bytesText(m_summary.totals.reservedBytes));
    m_infoLabel->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
}

void SnapshotPage::resetZoom()
{
    m_timeline->resetZoom();
    m_map->verticalScrollBar()->setValue(0);
}

void SnapshotPage::updateNavigation(NavigationActions& actions) const
{
    DocumentPage::updateNavigation(actions);
    // one moment: no zoom history, no cursor to step
    for (Navigation none : {Navigation::ZoomBack, Navigation::ZoomForward, Navigation::StepForward,
                            Navigation::StepBack, Navigation::StepForwardFast, Navigation::StepBackFast})
        actions.setEnabled(none, false);
}

void SnapshotPage::clear()
{
    m_data.reset();
    m_summary = {};
    m_findings.reset();
    m_selectedFinding = -1;
    m_analysed = false;
    m_map->setSnapshot(nullptr);
    showTimelines();
    rebuildSites();
    if (m_findingsModel->untimedFindings())
        m_findingsModel->setUntimedFindings(nullptr);
    m_findingText->clear();
    clearSummary();
    m_viewState->reset();
    updateInfoLabel();
    emit stateChanged();
}

void SnapshotPage::onFindingCurrentChanged(const QModelIndex& current)
{
    const int index = current.isValid() ? current.data(FindingsModel::FindingIndexRole).toInt() : -1;
    const Finding* finding = m_findingsModel->finding(index);
    m_selectedFinding = finding ? index : -1;
    emit stateChanged(); // the export actions read the selection
    if (finding)
        m_findingText->setHtml(findingHtml(*finding));
}

void SnapshotPage::restorePageSettings(const QSettings& settings, bool choices)
{
    restoreSettings(settings, QStringLiteral("snapshotPage"));
    m_timelineSplitter->restoreState(
        settings.value(QStringLiteral("snapshotPage/timelineSplitter")).toByteArray());
    if (choices && settings.value(QStringLiteral("snapshotPage/order")).toString() == QLatin1String("size"))
        m_bySize->setChecked(true);
    if (choices &&
        settings.value(QStringLiteral("snapshotPage/siteGrouping")).toString() == QLatin1String("function"))
        setSiteGrouping(SiteGrouping::Function);
    m_mapSplitter->restoreState(settings.value(QStringLiteral("snapshotPage/mapSplitter")).toByteArray());
}

void SnapshotPage::savePageSettings(QSettings& settings) const
{
    saveSettings(settings, QStringLiteral("snapshotPage"));
    settings.setValue(QStringLiteral("snapshotPage/timelineSplitter"), m_timelineSplitter->saveState());
    settings.setValue(QStringLiteral("snapshotPage/order"),
                      m_bySize->isChecked() ? QStringLiteral("size") : QStringLiteral("address"));
    settings.setValue(QStringLiteral("snapshotPage/siteGrouping"),
                      SiteGrouping(m_siteGrouping->currentData().toInt()) == SiteGrouping::Function
                          ? QStringLiteral("function")
                          : QStringLiteral("stack"));
    settings.setValue(QStringLiteral("snapshotPage/mapSplitter"), m_mapSplitter->saveState());
}

} // namespace gapscope
