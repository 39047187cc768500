#pragma once
// The selected finding in full: description, every evidence value with its unit, the phase it
// is attributed to and the remediation steps. Without a selection: a summary of the analysis.

#include "model/budget/BudgetAnalysisRunner.h"
#include "model/job/JobFindings.h"
#include "model/trace/AnalysisRunner.h"

#include <QWidget>

#include <memory>

class QTextBrowser;

namespace gapscope {

class FindingDetailView : public QWidget
{
    Q_OBJECT
public:
    explicit FindingDetailView(QWidget* parent = nullptr);

    // findingIndex into result->findings; -1 shows the analysis summary
    void showFinding(std::shared_ptr<const AnalysisResult> result, int findingIndex);
    // The same for the findings of a memory-budget log; -1 shows the log's summary.
    void showBudgetFinding(std::shared_ptr<const BudgetAnalysisResult> result, int findingIndex);
    // A finding of a distributed job: its rank, its time aligned and relative to alignedOriginNs
    // (the job page's aligned range start); -1 shows the job's summary.
    void showJobFinding(std::shared_ptr<const JobFindings> findings, int findingIndex,
                        int64_t alignedOriginNs);
    void clear();
    // A note in place of a finding (a page whose findings are not known yet, say).
    void showMessage(const QString& text);
    int findingIndex() const { return m_findingIndex; }
    // the text as shown (tests, copy)
    QString plainText() const;

private:
    QString findingHtml(const AnalysisResult& result, const Finding& finding) const;
    // timeNs: the finding's time as the page's cursor counts it (raw, or aligned for a job)
    QString findingHtml(const Finding& finding, int64_t timeNs, int64_t originNs, bool showPhase) const;
    QString jobSummaryHtml(const JobFindings& findings) const;
    QString summaryHtml(const AnalysisResult& result) const;
    QString budgetSummaryHtml(const BudgetAnalysisResult& result) const;

    QTextBrowser* m_browser = nullptr;
    std::shared_ptr<const AnalysisResult> m_result;
    std::shared_ptr<const BudgetAnalysisResult> m_budget;
    std::shared_ptr<const JobFindings> m_job;
    int m_findingIndex = -1;
};

} // namespace gapscope
