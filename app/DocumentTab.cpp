#include "app/DocumentTab.h"

#include "app/pages/BudgetPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/PageRegistry.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"

#include <algorithm>

namespace gapscope {

DocumentTab::DocumentTab(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent)
    : QStackedWidget(parent)
{
    const PageContext context{resetZoomAction, thresholds};
    QList<DocumentPage*> sharingRoom;
    for (const PageRegistration& registration : pageRegistry()) {
        DocumentPage* page = registration.create(context, this);
        page->setObjectName(QLatin1String(registration.objectName));
        addWidget(page);
        m_pages << page;
        if (registration.sharesChartRoom)
            sharingRoom << page;
        connect(page, &DocumentPage::resultShown, this, [this, page] { onResultShown(page); });
    }
    for (DocumentPage* page : sharingRoom)
        page->shareChartRoomWith(sharingRoom);
    // the job page opens its ranks on the trace page, and hands it the collective intervals
    connect(jobPage(), &JobPage::rankActivated, this, &DocumentTab::openRank);
    connect(jobPage(), &JobPage::jobAnalysisChanged, this, &DocumentTab::updateTraceIntervals);
}

DocumentTab::~DocumentTab() = default;

TracePage* DocumentTab::tracePage() const
{
    return page<TracePage>();
}

BudgetPage* DocumentTab::budgetPage() const
{
    return page<BudgetPage>();
}

JobPage* DocumentTab::jobPage() const
{
    return page<JobPage>();
}

DocumentPage* DocumentTab::documentPage() const
{
    if (auto* shown = qobject_cast<DocumentPage*>(currentWidget()); shown && shown->hasDocument())
        return shown;
    for (DocumentPage* page : m_pages)
        if (page->hasDocument())
            return page;
    return m_pages.front();
}

bool DocumentTab::hasDocument() const
{
    return std::any_of(m_pages.begin(), m_pages.end(),
                       [](const DocumentPage* page) { return page->hasDocument(); });
}

DocumentPage* DocumentTab::openDocument(const LoadedDocument& document, OpenMode mode, QString* error)
{
    const std::vector<PageRegistration>& registry = pageRegistry();
    DocumentPage* taker = nullptr;
    for (qsizetype i = 0; i < m_pages.size() && !taker; ++i)
        if (registry[size_t(i)].takes(document))
            taker = m_pages[i];
    if (!taker || !taker->open(document, error))
        return nullptr;
    auto* front = qobject_cast<DocumentPage*>(currentWidget());
    const bool frontHadDocument = front && front != taker && front->hasDocument();
    for (DocumentPage* page : m_pages)
        if (page != taker)
            page->openBeside(document, mode);
    m_state.displayPath = taker->documentPath();
    // the page in front gave up its document: the new one goes in front
    if (frontHadDocument && !front->hasDocument())
        emit pageShown(taker);
    return taker;
}

void DocumentTab::onResultShown(DocumentPage* page)
{
    TracePage* trace = tracePage();
    JobPage* job = jobPage();
    // a session of several ranks opens on its job page; its lowest rank is one click away
    emit pageShown(page == trace && job->takeShowFirst() ? job : page);
    if (page != trace)
        return;
    // a rank opened from the job page: where the job page had its cursor and range
    if (const std::optional<JobPage::RankView> view = job->takeRankView()) {
        if (view->endNs > view->beginNs)
            trace->viewState()->zoomTo(view->beginNs, view->endNs);
        trace->setCursorTime(view->cursorNs);
    }
}

void DocumentTab::openRank(qint64 rank)
{
    TracePage* trace = tracePage();
    JobPage* job = jobPage();
    const std::optional<JobPage::RankInput> input = job->rankInput(rank);
    if (!input) {
        emit statusMessage(tr("Rank %1 has no events in this job").arg(rank), 5000);
        return;
    }
    if (trace->trace() != input->trace) {
        // the job's page stays: the trace page takes the rank's input beside it
        QString error;
        if (!trace->setTrace(input->trace, &error)) {
            emit errorOccurred(error);
            return;
        }
        m_state.displayPath = input->trace->path;
        emit problemsChanged(input->trace->problems);
    }
    job->keepRankView(rank);
    // the collective intervals are on each rank's own clock already (upstream reports raw
    // times; the heatmap is what subtracts the offset): shaded as they are
    updateTraceIntervals();
    trace->selectSession(int(input->sessionIndex), rank);
    m_state.displayPath = input->path;
    emit pageShown(trace);
}

bool DocumentTab::canShowJobOverview() const
{
    const JobPage* job = jobPage();
    return job && job->hasDocument() && currentWidget() != job;
}

bool DocumentTab::showJobOverview()
{
    JobPage* job = jobPage();
    if (!job->hasDocument())
        return false;
    emit pageShown(job);
    return true;
}

bool DocumentTab::showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest)
{
    return tracePage()->showLiveSnapshot(std::move(result), pinToLatest);
}

void DocumentTab::updateTraceIntervals()
{
    TracePage* trace = tracePage();
    trace->setCollectiveIntervals(trace->trace(), jobPage()->collectiveIntervalsOf(trace->trace()));
}

void DocumentTab::setThresholds(const GapThresholds& thresholds)
{
    // each page re-analyses only the document it holds
    for (DocumentPage* page : m_pages)
        page->setThresholds(thresholds);
}

void DocumentTab::clear()
{
    for (DocumentPage* page : m_pages)
        page->clear();
}

void DocumentTab::discardWork()
{
    for (DocumentPage* page : m_pages)
        page->discardWork();
}

} // namespace gapscope
