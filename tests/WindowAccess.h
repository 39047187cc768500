#pragma once
// What a test reaches in a main window through the tab in front (MainWindow names no page):
// front(window).chart() is the gap chart of the trace page of the tab in front, as
// window.chart() was before the shell stopped naming pages. The findings, their detail and
// the generic requests go to the page of the document open (the job page while shown, else
// the budget page while a budget log is open, else the trace page), as the shell's did.

#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"

#include <QAction>

namespace gapscope {

class FrontTab
{
public:
    explicit FrontTab(const MainWindow& window) : m_window(window) {}

    DocumentTab* tab() const { return m_window.currentTab(); }
    TracePage* tracePage() const { return tab()->tracePage(); }
    BudgetPage* budgetPage() const { return tab()->budgetPage(); }
    JobPage* jobPage() const { return tab()->jobPage(); }
    DocumentPage* documentPage() const { return tab()->documentPage(); }

    // the trace page's
    std::shared_ptr<const TraceData> trace() const { return tracePage()->trace(); }
    std::shared_ptr<const AnalysisResult> analysis() const { return tracePage()->analysis(); }
    GapChartView* chart() const { return tracePage()->chart(); }
    TimelineScrubber* scrubber() const { return tracePage()->scrubber(); }
    QTreeView* phasesView() const { return tracePage()->phasesView(); }
    PhasesModel* phasesModel() const { return tracePage()->phasesModel(); }
    SessionPicker* sessionPicker() const { return tracePage()->sessionPicker(); }
    void selectPhase(int spanIndex) const { tracePage()->selectPhase(spanIndex); }

    // the budget page's
    bool isBudgetShown() const { return budgetPage()->hasDocument(); }
    std::shared_ptr<const BudgetData> budgetData() const { return budgetPage()->budgetData(); }
    std::shared_ptr<const BudgetAnalysisResult> budgetAnalysis() const { return budgetPage()->analysis(); }
    BudgetThresholds budgetThresholds() const { return budgetPage()->thresholds(); }
    BudgetBreakdownView* budgetChart() const { return budgetPage()->budgetChart(); }
    VerdictLane* verdictLane() const { return budgetPage()->verdictLane(); }
    BudgetTickDetailView* tickDetailView() const { return budgetPage()->tickDetailView(); }

    // the page of the document open
    QTableView* findingsView() const { return documentPage()->findingsView(); }
    FindingsModel* findingsModel() const { return documentPage()->findingsModel(); }
    FindingDetailView* detailView() const { return documentPage()->detailView(); }
    void selectFinding(int findingIndex) const { documentPage()->selectFinding(findingIndex); }
    void setCursorTime(qint64 ns) const { documentPage()->setCursorTime(ns); }
    void analyseWindow(qint64 beginNs, qint64 endNs) const { documentPage()->analyseWindow(beginNs, endNs); }
    void resetWindowAnalysis() const { documentPage()->resetWindowAnalysis(); }

    // the window's actions the tests press
    QAction* jobOverviewAction() const { return action("jobOverviewAction"); }
    QAction* attachDeviceLogAction() const { return action("attachDeviceLogAction"); }
    QAction* attachSnapshotAction() const { return action("attachSnapshotAction"); }

private:
    QAction* action(const char* name) const
    {
        return m_window.findChild<QAction*>(QString::fromLatin1(name));
    }

    const MainWindow& m_window;
};

inline FrontTab front(const MainWindow& window)
{
    return FrontTab(window);
}

} // namespace gapscope
