#include "app/pages/SnapshotPage.h"

#include "app/NavigationActions.h"
#include "app/pages/ViewState.h"
#include "model/items/FindingsModel.h"
#include "model/report/ReportContent.h"
#include "model/snapshot/SnapshotData.h"
#include "model/snapshot/SnapshotFragmentation.h"
#include "model/text/Text.h"
#include "widgets/common/SummaryView.h"
#include "widgets/snapshot/SegmentMapView.h"
#include "widgets/trace/FindingDetailView.h"

#include <QActionGroup>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSettings>
#include <QTableView>
#include <QTextBrowser>
#include <QToolBar>

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
    setUpLayout(m_map);
    setChartStretch(4, 1); // the map is the page; a snapshot has a finding per pool at most

    // a finding of a snapshot has no time or chart to show: its text and remediation instead
    m_detail->hide();
    m_findingText = new QTextBrowser(this);
    m_findingText->setObjectName(QStringLiteral("snapshotFindingText"));
    m_findingText->setOpenLinks(false);
    addDetailPane(m_findingText);
}

SnapshotPage::~SnapshotPage() = default;

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
    if (choices && settings.value(QStringLiteral("snapshotPage/order")).toString() == QLatin1String("size"))
        m_bySize->setChecked(true);
}

void SnapshotPage::savePageSettings(QSettings& settings) const
{
    saveSettings(settings, QStringLiteral("snapshotPage"));
    settings.setValue(QStringLiteral("snapshotPage/order"),
                      m_bySize->isChecked() ? QStringLiteral("size") : QStringLiteral("address"));
}

} // namespace gapscope
