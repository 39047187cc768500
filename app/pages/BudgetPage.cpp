#include "app/pages/BudgetPage.h"

#include "app/pages/PageSummary.h"

#include "app/pages/ViewState.h"
#include "model/items/FindingsModel.h"
#include "model/report/ReportContent.h"
#include "model/text/Text.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/budget/BudgetTickDetailView.h"
#include "widgets/budget/VerdictLane.h"
#include "widgets/trace/FindingDetailView.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace gapscope {

namespace {

QString trMain(const char* text, int n = -1)
{
    return QCoreApplication::translate("MainWindow", text, nullptr, n);
}

} // namespace

BudgetPage::BudgetPage(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent)
    : DocumentPage(resetZoomAction, parent)
{
    m_thresholds.osGap = thresholds;

    m_infoLabel = new QLabel(toolBar());
    m_infoLabel->setObjectName(QStringLiteral("budgetInfo"));
    m_infoLabel->setContentsMargins(6, 0, 12, 0);
    toolBar()->addWidget(m_infoLabel);
    addZoomToToolBar();

    auto* chartArea = new QWidget(this);
    auto* chartLayout = new QVBoxLayout(chartArea);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->setSpacing(0);
    m_budgetChart = new BudgetBreakdownView(chartArea);
    m_budgetChart->setObjectName(QStringLiteral("budgetChart"));
    m_budgetChart->setMinimumHeight(200);
    chartLayout->addWidget(m_budgetChart, 1);
    m_verdictLane = new VerdictLane(chartArea);
    m_verdictLane->setObjectName(QStringLiteral("verdictLane"));
    chartLayout->addWidget(m_verdictLane);

    // The views follow the view state; what the user does in one of them goes to the state.
    connect(m_viewState, &ViewState::visibleRangeChanged, m_verdictLane, &VerdictLane::setVisibleRange);
    connect(m_viewState, &ViewState::visibleRangeChanged, m_budgetChart,
            &BudgetBreakdownView::setVisibleRange);
    connect(m_budgetChart, &BudgetBreakdownView::visibleRangeChanged, m_viewState,
            &ViewState::setVisibleRange);
    connect(m_viewState, &ViewState::cursorChanged, m_verdictLane, &VerdictLane::setCursorTime);
    connect(m_viewState, &ViewState::cursorChanged, m_budgetChart, &BudgetBreakdownView::setCursorTime);
    connect(m_viewState, &ViewState::cursorChanged, this, &BudgetPage::updateCursorValues);
    connect(m_verdictLane, &VerdictLane::cursorMoved, m_viewState, &ViewState::setCursor);
    connect(m_budgetChart, &BudgetBreakdownView::cursorRequested, this, &BudgetPage::setCursorTime);
    connect(m_budgetChart, &BudgetBreakdownView::rangeSelected, this, &BudgetPage::analyseWindow);
    connect(m_budgetChart, &BudgetBreakdownView::plotMarginsChanged, m_verdictLane,
            &VerdictLane::setPlotMargins);

    setUpLayout(chartArea);
    m_tickDetail = new BudgetTickDetailView(this);
    m_tickDetail->setObjectName(QStringLiteral("tickDetail"));
    addDetailPane(m_tickDetail);
    connect(m_viewState, &ViewState::cursorChanged, m_tickDetail, &BudgetTickDetailView::showTime);
}

BudgetPage::~BudgetPage() = default;

QWidget* BudgetPage::chartWidget() const
{
    return m_budgetChart;
}

bool BudgetPage::hasFindings() const
{
    return m_result && !m_result->findings.empty();
}

bool BudgetPage::isWindowAnalysis() const
{
    return m_result && m_result->window.has_value();
}

bool BudgetPage::open(const LoadedDocument& document, QString* error)
{
    return document.budget && setBudget(document.budget, error);
}

bool BudgetPage::analyseOpened(OpenMode mode, QString* /*error*/)
{
    analyseFresh(mode == OpenMode::Background); // screenshots show the chart
    return true;
}

QString BudgetPage::documentPath() const
{
    return m_budget ? m_budget->path : QString();
}

const ProblemLog* BudgetPage::problems() const
{
    return m_budget ? &m_budget->problems : nullptr;
}

bool BudgetPage::setBudget(std::shared_ptr<const BudgetData> data, QString* error)
{
    if (!data)
        return false;
    if (data->ticks.empty()) {
        if (error) {
            QString why = trMain("%1: no memory-budget ticks could be read").arg(data->path);
            if (!data->problems.kept().empty())
                why += trMain(" (first problem: %1)").arg(data->problems.kept().front().toString());
            *error = why;
        }
        return false;
    }
    m_budget = std::move(data);
    m_result.reset();
    m_fullResult.reset();
    updateInfoLabel();
    emit stateChanged();
    return true;
}

void BudgetPage::analyseFresh(bool summaryFirst)
{
    m_summaryFirst = summaryFirst;
    runAnalysis(std::nullopt, true);
}

PageExport BudgetPage::pageExport() const
{
    PageExport shown;
    shown.budget = m_result;
    return shown;
}

void BudgetPage::clear()
{
    m_budget.reset();
    m_result.reset();
    m_fullResult.reset();
    m_budgetChart->setAnalysis(nullptr);
    m_verdictLane->setAnalysis(nullptr);
    m_tickDetail->clear();
    if (m_findingsModel->budgetAnalysis())
        m_findingsModel->setBudgetAnalysis(nullptr);
    m_detail->clear();
    clearSummary();
    m_viewState->reset();
    updateWindowBanner();
    emit stateChanged();
}

void BudgetPage::runAnalysis(std::optional<TimeWindow> window, bool fresh)
{
    if (!m_budget)
        return;
    applyResult(runBudgetAnalysis(m_budget, m_thresholds, window), fresh);
}

void BudgetPage::applyResult(std::shared_ptr<const BudgetAnalysisResult> result, bool fresh)
{
    if (!result || result->data != m_budget)
        return;
    // another result of the log shown keeps the finding looked at and the cursor
    const std::optional<KeptSelection> kept =
        !fresh && m_result ? std::optional<KeptSelection>(keptSelection()) : std::nullopt;
    m_result = std::move(result);
    if (!m_result->window)
        m_fullResult = m_result;
    if (fresh) {
        m_viewState->reset();
        m_findingsFilter->clear(); // a new log is shown whole
    }
    m_budgetChart->setAnalysis(m_result);
    m_verdictLane->setAnalysis(m_result);
    // the chart keeps its range for another result of the same log, and then tells nobody
    m_viewState->setVisibleRange(m_budgetChart->visibleBeginNs(), m_budgetChart->visibleEndNs());
    const TimeRange visible = m_viewState->visibleRange();
    m_verdictLane->setVisibleRange(visible.beginNs, visible.endNs);
    m_tickDetail->setAnalysis(m_result);
    m_findingsModel->setBudgetAnalysis(m_result);
    m_detail->showBudgetFinding(m_result, -1);
    setSummary(budgetSummary(*m_result, QFileInfo(m_budget->path).fileName()), fresh && m_summaryFirst);
    emit resultShown();
    if (fresh && !m_budget->ticks.empty())
        setCursorTime(m_budget->ticks.timestampNs.front());
    else
        setCursorTime(m_verdictLane->cursorTime());
    updateWindowBanner();
    emit stateChanged();
    if (fresh && m_findingsModel->rowCount() > 0)
        selectFinding(0);
    else if (kept)
        restoreSelection(*kept);
    const qsizetype findings = qsizetype(m_result->findings.size());
    emit statusMessage(findings == 0 ? trMain("No memory-budget findings")
                                     : englishPlural(trMain("%n finding(s)", int(findings)), findings),
                       4000);
}

void BudgetPage::updateInfoLabel()
{
    int64_t missing = 0;
    for (const TickGap& gap : m_budget->gaps)
        missing += gap.missingTicks;
    QStringList parts;
    parts << trMain("<b>Memory breakdown</b>");
    parts << englishPlural(trMain("%n tick(s)", int(m_budget->ticks.size())), qint64(m_budget->ticks.size()));
    if (m_budget->tickPeriodNs > 0)
        parts << trMain("every %1").arg(formatReportDuration(m_budget->tickPeriodNs));
    if (missing > 0)
        parts << englishPlural(trMain("%n not logged", int(missing)), missing);
    parts << (m_budget->ticks.hasJemalloc(0) ? trMain("jemalloc") : trMain("system allocator"));
    m_infoLabel->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
}

void BudgetPage::analyseWindow(qint64 beginNs, qint64 endNs)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    runAnalysis(TimeWindow{beginNs, endNs}, false);
}

void BudgetPage::resetWindowAnalysis()
{
    if (!isWindowAnalysis())
        return;
    if (m_fullResult && m_fullResult->data == m_budget)
        applyResult(m_fullResult, false);
    else
        runAnalysis(std::nullopt, false);
}

void BudgetPage::setThresholds(const GapThresholds& thresholds)
{
    m_thresholds.osGap = thresholds;
    m_fullResult.reset();
    if (m_budget)
        runAnalysis(m_result ? m_result->window : std::nullopt, false);
}

void BudgetPage::onFindingCurrentChanged(const QModelIndex& current)
{
    emit stateChanged(); // Copy Finding follows the selection
    if (!m_result)
        return;
    const int findingIndex = current.isValid() ? current.data(FindingsModel::FindingIndexRole).toInt() : -1;
    m_detail->showBudgetFinding(m_result, findingIndex);
    if (const Finding* finding = m_findingsModel->finding(findingIndex); finding && !isRestoringSelection()) {
        // the evidence tick: the cursor and the tick detail go there
        setCursorTime(finding->evidenceTimestampNs);
        ensureTimeVisible(finding->evidenceTimestampNs);
    }
}

void BudgetPage::stepCursor(int ticks)
{
    m_verdictLane->stepCursor(ticks); // emits cursorMoved
}

void BudgetPage::setCursorTime(qint64 ns)
{
    if (!m_budget)
        return;
    // the cursor sits on logged ticks only
    if (const auto tick = nearestBudgetTick(m_budget->ticks, ns))
        ns = m_budget->ticks.timestampNs[*tick];
    m_viewState->setCursor(ns);
}

void BudgetPage::restorePageSettings(const QSettings& settings, bool /*choices*/)
{
    restoreSettings(settings, QStringLiteral("budgetPage"));
}

void BudgetPage::savePageSettings(QSettings& settings) const
{
    saveSettings(settings, QStringLiteral("budgetPage"));
}

void BudgetPage::resetZoom()
{
    if (m_budget && !m_budget->ticks.empty())
        m_viewState->zoomTo(m_budget->ticks.timestampNs.front(), m_budget->ticks.timestampNs.back());
}

QString BudgetPage::relativeTime(qint64 ns) const
{
    return formatRelativeTime(ns, m_result ? m_result->originNs() : 0);
}

void BudgetPage::updateWindowBanner()
{
    m_viewState->setAnalysisWindow(m_result ? m_result->window : std::nullopt);
    if (!m_result || !m_result->window) {
        hideWindowBanner();
        return;
    }
    const auto& times = m_budget->ticks.timestampNs;
    const BudgetAnalysisResult& r = *m_result;
    QString text = r.analysedTicks() == 0
                       ? trMain("Window analysis: %1 – %2  ·  no ticks in the window")
                             .arg(relativeTime(r.window->beginNs), relativeTime(r.window->endNs))
                       : trMain("Window analysis: %1 – %2")
                             .arg(relativeTime(times[r.firstTick]), relativeTime(times[r.lastTick - 1]));
    if (r.analysedTicks() > 0)
        text += englishPlural(trMain("  ·  %n finding(s) in %1 ticks", int(r.findings.size())),
                              qint64(r.findings.size()))
                    .arg(r.analysedTicks());
    showWindowBanner(text);
}

void BudgetPage::updateCursorValues()
{
    if (!m_result)
        return;
    const auto tick = nearestBudgetTick(m_budget->ticks, m_viewState->cursorNs());
    if (!tick) {
        emit cursorValuesChanged(QString());
        return;
    }
    const BudgetTicks& t = m_budget->ticks;
    QStringList parts;
    parts << trMain("t %1").arg(relativeTime(t.timestampNs[*tick]));
    parts << trMain("verdict %1").arg(shownText(qs(t.labelOf(*tick))));
    parts << trMain("rss %1").arg(bytesText(t.rssBytes[*tick]));
    parts << trMain("target %1").arg(bytesText(t.effectiveTargetBytes[*tick]));
    parts << trMain("cache %1").arg(bytesText(m_result->buckets.cache[*tick]));
    parts << trMain("non-cache %1").arg(bytesText(m_result->buckets.nonCache[*tick]));
    emit cursorValuesChanged(parts.join(QStringLiteral("   ·   ")));
}

} // namespace gapscope
