#include "app/DocumentTab.h"

#include "app/pages/BudgetPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"
#include "model/job/JobAnalysis.h"

namespace gapscope {

DocumentTab::DocumentTab(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent)
    : QStackedWidget(parent)
{
    m_tracePage = new TracePage(resetZoomAction, thresholds, this);
    m_budgetPage = new BudgetPage(resetZoomAction, thresholds, this);
    m_jobPage = new JobPage(resetZoomAction, this);
    m_jobPage->setObjectName(QStringLiteral("jobPage"));
    m_jobPage->setThresholds(thresholds); // its export analyses every rank with them
    for (DocumentPage* page :
         {static_cast<DocumentPage*>(m_tracePage), static_cast<DocumentPage*>(m_budgetPage)}) {
        addWidget(page);
        page->shareChartRoomWith({m_tracePage, m_budgetPage});
    }
    addWidget(m_jobPage);
}

DocumentTab::~DocumentTab() = default;

DocumentPage* DocumentTab::documentPage() const
{
    if (currentWidget() == m_jobPage && m_jobPage->hasDocument())
        return m_jobPage;
    if (m_budgetPage->hasDocument())
        return m_budgetPage;
    return m_tracePage;
}

QList<DocumentPage*> DocumentTab::pages() const
{
    return {m_tracePage, m_budgetPage, m_jobPage};
}

bool DocumentTab::hasDocument() const
{
    return m_tracePage->hasDocument() || m_budgetPage->hasDocument() || m_jobPage->hasDocument();
}

} // namespace gapscope
