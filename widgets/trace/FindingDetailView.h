#pragma once
// The selected finding in full: description, every evidence value with its unit, the phase it
// is attributed to and the remediation steps. Without a selection: a summary of the analysis.

#include "model/budget/BudgetAnalysisRunner.h"
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
    void clear();
    // A note in place of a finding (a page whose findings are not known yet, say).
    void showMessage(const QString& text);
    int findingIndex() const { return m_findingIndex; }
    // the text as shown (tests, copy)
    QString plainText() const;

private:
    QString findingHtml(const AnalysisResult& result, const Finding& finding) const;
    QString findingHtml(const Finding& finding, int64_t originNs, bool showPhase) const;
    QString summaryHtml(const AnalysisResult& result) const;
    QString budgetSummaryHtml(const BudgetAnalysisResult& result) const;

    QTextBrowser* m_browser = nullptr;
    std::shared_ptr<const AnalysisResult> m_result;
    std::shared_ptr<const BudgetAnalysisResult> m_budget;
    int m_findingIndex = -1;
};

} // namespace gapscope
