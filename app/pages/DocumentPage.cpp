#include "app/pages/DocumentPage.h"

#include "app/NavigationActions.h"
#include "app/pages/ViewState.h"
#include "model/document/OpenPlan.h"
#include "model/items/FindingsModel.h"
#include "model/text/Text.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/common/PaneKeys.h"
#include "widgets/common/SummaryView.h"
#include "widgets/trace/FindingDetailView.h"

#include <QAction>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace gapscope {

// The frame of a page's chart area: its size hints are the largest of the chart areas of all
// pages (what a stack of all of them would ask for).
class ChartRoom : public QWidget
{
public:
    explicit ChartRoom(QWidget* parent) : QWidget(parent) {}
    QList<QWidget*> m_areas; // the chart areas of all pages, this one's included

    QSize sizeHint() const override
    {
        QSize hint = QWidget::sizeHint();
        for (const QWidget* area : m_areas)
            hint = hint.expandedTo(area->sizeHint());
        return hint;
    }
    QSize minimumSizeHint() const override
    {
        QSize hint = QWidget::minimumSizeHint();
        for (const QWidget* area : m_areas)
            hint = hint.expandedTo(area->minimumSizeHint());
        return hint;
    }
};

DocumentPage::DocumentPage(QAction* resetZoomAction, QWidget* parent)
    : QWidget(parent), m_viewState(new ViewState(this)), m_resetZoomAction(resetZoomAction)
{
    m_toolBar = new QToolBar(tr("Chart"), this);
    m_toolBar->setObjectName(QStringLiteral("chartToolBar"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_toolBar->setIconSize(QSize(16, 16));
}

DocumentPage::~DocumentPage() = default;

void DocumentPage::openBeside(const LoadedDocument& /*document*/, OpenMode /*mode*/)
{
    clear();
}

QString DocumentPage::documentTitle(const QString& displayPath) const
{
    return documentName(displayPath);
}

QStringList DocumentPage::reloadPaths() const
{
    return hasDocument() ? QStringList{documentPath()} : QStringList{};
}

void DocumentPage::updateFindingsNotice()
{
    // the title in the notice's tint, the whole message in the tooltip: the pane stays short
    QStringList lines;
    QStringList tips;
    for (const Notice& notice : m_findingsModel->notices()) {
        // a warning sign for warnings and worse, an information sign for information
        const QLatin1String sign(notice.severity == NoticeSeverity::Info ? "&#8505;" : "&#9888;");
        lines << QStringLiteral("<span style=\"color:%1\">%2</span> <b>%3</b>")
                     .arg(noticeTint(notice.severity, palette()).name(), sign,
                          qs(notice.title).toHtmlEscaped());
        tips << qs(notice.message);
    }
    m_findingsNotice->setText(lines.join(QStringLiteral("<br/>")));
    m_findingsNotice->setToolTip(tips.join(QStringLiteral("\n\n")));
    m_findingsNotice->setVisible(!lines.isEmpty());
}

void DocumentPage::setUpLayout(QWidget* chartArea)
{
    // The findings table beside the detail of the selected one, created after the chart so
    // the chart comes first in the focus chain.
    m_findingsModel = new FindingsModel(this);
    m_findingsProxy = new FindingsDecorationProxy(this);
    m_findingsProxy->setSourceModel(m_findingsModel);
    m_findingsView = new QTableView(this);
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
    // Tab goes to the next pane; a header click sorts (the source order, most severe first,
    // until then); the line above filters.
    tabLeavesItemView(m_findingsView);
    showFocusFrame(m_findingsView);
    sortByHeaderClick(m_findingsView, header);
    m_findingsFilter = new QLineEdit(this);
    m_findingsFilter->setObjectName(QStringLiteral("findingsFilter"));
    m_findingsFilter->setPlaceholderText(tr("Filter findings"));
    m_findingsFilter->setToolTip(tr("Show the findings with this text in any column"));
    m_findingsFilter->setClearButtonEnabled(true);
    connect(m_findingsFilter, &QLineEdit::textChanged, m_findingsProxy,
            &QSortFilterProxyModel::setFilterFixedString);
    m_findingsNotice = new QLabel(this);
    m_findingsNotice->setObjectName(QStringLiteral("findingsNotice"));
    m_findingsNotice->setWordWrap(true);
    m_findingsNotice->setTextFormat(Qt::RichText);
    m_findingsNotice->setContentsMargins(6, 4, 6, 4);
    m_findingsNotice->hide();
    connect(m_findingsModel, &QAbstractItemModel::modelReset, this, [this] { updateFindingsNotice(); });
    auto* findingsPane = new QWidget(this);
    auto* findingsLayout = new QVBoxLayout(findingsPane);
    findingsLayout->setContentsMargins(0, 0, 0, 0);
    findingsLayout->setSpacing(2);
    findingsLayout->addWidget(m_findingsNotice);
    findingsLayout->addWidget(m_findingsFilter);
    findingsLayout->addWidget(m_findingsView, 1);

    m_detail = new FindingDetailView(this);
    m_detail->setObjectName(QStringLiteral("findingDetail"));

    m_pageLayout = new QVBoxLayout(this);
    m_pageLayout->setContentsMargins(0, 0, 0, 0);
    m_pageLayout->setSpacing(0);
    m_viewTabs = new QTabBar(this);
    m_viewTabs->setObjectName(QStringLiteral("viewTabs"));
    m_viewTabs->setDrawBase(false);
    m_viewTabs->setExpanding(false);
    m_viewTabs->setFocusPolicy(Qt::StrongFocus); // Tab reaches it, the arrows switch
    m_viewTabs->addTab(tr("Summary"));
    m_viewTabs->addTab(tr("Chart"));
    m_viewTabs->setTabToolTip(0, tr("Headline figures, top findings and phases (F9 switches)"));
    m_viewTabs->setTabToolTip(1, tr("The chart with the findings and their detail (F9 switches)"));
    m_viewTabs->setCurrentIndex(1);
    m_viewTabs->hide(); // until the page has a summary
    m_pageLayout->addWidget(m_viewTabs);
    m_pageLayout->addWidget(m_toolBar);

    m_findingsSplitter = new QSplitter(Qt::Horizontal, this);
    m_findingsSplitter->setObjectName(QStringLiteral("findingsSplitter"));
    m_findingsSplitter->addWidget(findingsPane);
    m_findingsSplitter->addWidget(m_detail);
    m_findingsSplitter->setStretchFactor(0, 3);
    m_findingsSplitter->setStretchFactor(1, 2);
    m_findingsSplitter->setChildrenCollapsible(false);

    m_mainSplitter = new QSplitter(Qt::Vertical, this);
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_chartArea = chartArea;
    m_chartRoom = new ChartRoom(this);
    auto* roomLayout = new QVBoxLayout(m_chartRoom);
    roomLayout->setContentsMargins(0, 0, 0, 0);
    roomLayout->addWidget(chartArea);
    m_mainSplitter->addWidget(m_chartRoom);
    m_mainSplitter->addWidget(m_findingsSplitter);
    m_mainSplitter->setStretchFactor(0, 3);
    m_mainSplitter->setStretchFactor(1, 2);
    m_mainSplitter->setChildrenCollapsible(false);

    m_summary = new SummaryView(this);
    m_summary->setObjectName(QStringLiteral("summaryView"));
    m_views = new QStackedWidget(this);
    m_views->addWidget(m_summary);
    m_views->addWidget(m_mainSplitter);
    m_views->setCurrentWidget(m_mainSplitter);
    m_pageLayout->addWidget(m_views, 1);
    connect(m_viewTabs, &QTabBar::currentChanged, this, [this](int index) {
        const bool summary = index == 0;
        m_views->setCurrentIndex(summary ? 0 : 1);
        m_toolBar->setVisible(!summary);
    });
    connect(m_summary, &SummaryView::chartRequested, this, &DocumentPage::showChart);
    connect(m_summary, &SummaryView::findingActivated, this, [this](int findingIndex) {
        showChart();
        selectFinding(findingIndex);
        m_findingsView->setFocus();
    });
}

bool DocumentPage::isSummaryShown() const
{
    return m_viewTabs && m_viewTabs->currentIndex() == 0;
}

void DocumentPage::showSummary()
{
    if (m_viewTabs && m_viewTabs->isVisibleTo(this))
        m_viewTabs->setCurrentIndex(0);
}

void DocumentPage::showChart()
{
    if (m_viewTabs)
        m_viewTabs->setCurrentIndex(1);
}

void DocumentPage::setSummary(const SummaryContent& content, bool showFirst)
{
    m_summary->setContent(content);
    m_viewTabs->show();
    if (showFirst)
        showSummary();
}

void DocumentPage::clearSummary()
{
    m_summary->clear();
    showChart();
    m_viewTabs->hide();
}

void DocumentPage::addDetailPane(QWidget* pane)
{
    m_findingsSplitter->addWidget(pane);
    m_findingsSplitter->setStretchFactor(m_findingsSplitter->count() - 1, 2);
}

void DocumentPage::setChartStretch(int chart, int findings)
{
    m_mainSplitter->setStretchFactor(0, chart);
    m_mainSplitter->setStretchFactor(1, findings);
}

void DocumentPage::addZoomToToolBar()
{
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_resetZoomAction);
    auto* spacer = new QWidget(m_toolBar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_toolBar->addWidget(spacer);
}

void DocumentPage::updateNavigation(NavigationActions& actions) const
{
    const bool result = hasResult();
    actions.setEnabled(Navigation::ResetZoom, result);
    actions.setEnabled(Navigation::ZoomBack, result && m_viewState->canZoomBack());
    actions.setEnabled(Navigation::ZoomForward, result && m_viewState->canZoomForward());
    for (Navigation finding : {Navigation::NextFinding, Navigation::PreviousFinding})
        actions.setEnabled(finding, hasFindings());
    for (Navigation phase : {Navigation::NextPhase, Navigation::PreviousPhase, Navigation::NextPhaseKind,
                             Navigation::PreviousPhaseKind})
        actions.setEnabled(phase, hasPhases());
    actions.setEnabled(Navigation::AddBookmark, result && bookmarksPane());
    for (Navigation bookmark : {Navigation::NextBookmark, Navigation::PreviousBookmark})
        actions.setEnabled(bookmark, result && hasBookmarks());
    for (Navigation step : {Navigation::StepForward, Navigation::StepBack, Navigation::StepForwardFast,
                            Navigation::StepBackFast})
        actions.setEnabled(step, result);
    actions.setEnabled(Navigation::ResetWindow, isWindowAnalysis());
}

void DocumentPage::shareChartRoomWith(const QList<DocumentPage*>& pages)
{
    m_chartRoom->m_areas.clear();
    for (const DocumentPage* page : pages)
        m_chartRoom->m_areas << page->m_chartArea;
    m_chartRoom->updateGeometry();
}

void DocumentPage::restoreSettings(const QSettings& settings, const QString& group)
{
    m_mainSplitter->restoreState(settings.value(group + QStringLiteral("/mainSplitter")).toByteArray());
    m_findingsSplitter->restoreState(
        settings.value(group + QStringLiteral("/findingsSplitter")).toByteArray());
}

void DocumentPage::saveSettings(QSettings& settings, const QString& group) const
{
    settings.setValue(group + QStringLiteral("/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(group + QStringLiteral("/findingsSplitter"), m_findingsSplitter->saveState());
}

void DocumentPage::placeWindowBanner(QWidget* banner)
{
    if (m_pageLayout->indexOf(banner) < 0)
        m_pageLayout->insertWidget(m_pageLayout->indexOf(m_toolBar) + 1, banner); // under the toolbar
}

void DocumentPage::showWindowBanner(const QString& text)
{
    if (text == m_windowBannerText)
        return;
    m_windowBannerText = text;
    emit windowBannerChanged(text);
}

void DocumentPage::hideWindowBanner()
{
    showWindowBanner(QString());
}

void DocumentPage::selectFinding(int findingIndex)
{
    if (findingIndex < 0 || findingIndex >= m_findingsModel->rowCount())
        return;
    QModelIndex index = m_findingsProxy->mapFromSource(m_findingsModel->index(findingIndex, 0));
    if (!index.isValid()) {
        // filtered out: what was asked for is shown
        m_findingsFilter->clear();
        index = m_findingsProxy->mapFromSource(m_findingsModel->index(findingIndex, 0));
    }
    m_findingsView->setCurrentIndex(index);
}

void DocumentPage::stepFinding(int delta)
{
    // in the order shown (sorted, filtered)
    const int rows = m_findingsProxy->rowCount();
    if (rows == 0)
        return;
    const QModelIndex current = m_findingsView->currentIndex();
    int row = current.isValid() ? current.row() + delta : (delta > 0 ? 0 : rows - 1);
    row = std::clamp(row, 0, rows - 1);
    m_findingsView->setCurrentIndex(m_findingsProxy->index(row, 0));
}

DocumentPage::KeptSelection DocumentPage::keptSelection() const
{
    KeptSelection kept;
    kept.cursorNs = m_viewState->cursorNs();
    const QModelIndex current = m_findingsView->currentIndex();
    if (current.isValid()) {
        kept.classKey = current.data(FindingsModel::ClassificationKeyRole).toString();
        kept.rank = current.data(FindingsModel::RankRole);
    }
    return kept;
}

void DocumentPage::restoreSelection(const KeptSelection& kept)
{
    m_restoringSelection = true;
    if (!kept.classKey.isEmpty()) {
        // the same class, on the same rank when there is one
        int match = -1;
        for (int row = 0; row < m_findingsModel->rowCount(); ++row) {
            const QModelIndex index = m_findingsModel->index(row, 0);
            if (index.data(FindingsModel::ClassificationKeyRole).toString() != kept.classKey)
                continue;
            if (match < 0)
                match = row;
            if (index.data(FindingsModel::RankRole) == kept.rank) {
                match = row;
                break;
            }
        }
        if (match >= 0)
            selectFinding(match);
    }
    setCursorTime(kept.cursorNs);
    m_restoringSelection = false;
}

void DocumentPage::ensureTimeVisible(qint64 ns)
{
    const TimeRange visible = m_viewState->visibleRange();
    if (ns >= visible.beginNs && ns <= visible.endNs)
        return;
    const qint64 width = visible.endNs - visible.beginNs;
    if (width <= 0) {
        resetZoom();
        return;
    }
    m_viewState->zoomTo(ns - width / 2, ns - width / 2 + width);
}

} // namespace gapscope
