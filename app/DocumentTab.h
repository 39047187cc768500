#pragma once
// One open document in the main window's tabs: its own trace, budget-log and job pages
// (stacked, one shown), so each tab keeps its views, zoom history, cursor, bookmarks and
// analyses while another is in front, and the state of the document the shell keeps beside
// the pages (title, the job's cross-rank analyses, where a rank opened from the job page goes).
// The shell (MainWindow) works on the tab in front; it makes, switches and closes tabs.

#include "analysis/Thresholds.h"

#include <QStackedWidget>
#include <QString>

#include <memory>
#include <optional>

class QAction;

namespace gapscope {

class BudgetPage;
class DocumentPage;
class JobPage;
class TracePage;
struct JobAnalysisResult;

class DocumentTab : public QStackedWidget
{
    Q_OBJECT
public:
    // resetZoomAction is the shell's (one shortcut per window), shared by every page.
    DocumentTab(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent);
    ~DocumentTab() override;

    TracePage* tracePage() const { return m_tracePage; }
    BudgetPage* budgetPage() const { return m_budgetPage; }
    JobPage* jobPage() const { return m_jobPage; }
    // Every page of the tab, for what the shell asks of each (docked panes, settings, menus).
    QList<DocumentPage*> pages() const;
    // The page of the document open: the job page while it is shown, else the budget page
    // while a budget log is open, else the trace page.
    DocumentPage* documentPage() const;
    bool hasDocument() const;

    // Where the trace page goes once a rank opened from the job page is shown (its own clock).
    struct PendingRankView
    {
        qint64 cursorNs = 0;
        qint64 beginNs = 0;
        qint64 endNs = 0;
    };
    // What the shell keeps of this tab's document beside its pages.
    struct State
    {
        QString displayPath;                // what the title shows (the sample is named, not its temp copy)
        quint64 jobAnalysisGeneration = 0;  // drops the analyses of a job no longer shown
        quint64 rankFindingsGeneration = 0; // drops rank gap findings of another job or thresholds
        std::shared_ptr<const JobAnalysisResult> jobAnalysis;
        std::optional<PendingRankView> pendingRankView;
        bool jobPageFirst = false; // the trace's first result shows the job page (several ranks)
        QString cursorValues;      // the status bar's values at the cursor of the page shown
    };
    State& state() { return m_state; }
    const State& state() const { return m_state; }

private:
    TracePage* m_tracePage = nullptr;
    BudgetPage* m_budgetPage = nullptr;
    JobPage* m_jobPage = nullptr;
    State m_state;
};

} // namespace gapscope
