#pragma once
// The page of a memory-budget log (budget-snapshots.md): the breakdown chart over the verdict
// lane, the findings with their detail, the tick at the cursor and the banner of a window
// analysis; it owns the log, the analysis shown and the analysis of the whole log (for Reset
// Window Analysis). The rules are linear in the ticks, so analyses run on the calling thread.

#include "app/pages/DocumentPage.h"
#include "model/budget/BudgetAnalysisRunner.h"

#include <memory>
#include <optional>

class QLabel;

namespace gapscope {

class BudgetBreakdownView;
class BudgetTickDetailView;
class VerdictLane;

class BudgetPage : public DocumentPage
{
    Q_OBJECT
public:
    BudgetPage(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent);
    ~BudgetPage() override;

    std::shared_ptr<const BudgetData> budgetData() const { return m_budget; }
    std::shared_ptr<const BudgetAnalysisResult> analysis() const { return m_result; }
    BudgetThresholds thresholds() const { return m_thresholds; }
    BudgetBreakdownView* budgetChart() const { return m_budgetChart; }
    VerdictLane* verdictLane() const { return m_verdictLane; }
    BudgetTickDetailView* tickDetailView() const { return m_tickDetail; }

    // Takes a loaded log in place of the one shown; false with *error when it holds no tick.
    bool setBudget(std::shared_ptr<const BudgetData> data, QString* error);
    // Analyses the whole log and shows it as newly opened.
    // summaryFirst: show the summary page first (not for screenshots)
    void analyseFresh(bool summaryFirst = true);

    QWidget* chartWidget() const override;
    bool hasDocument() const override { return m_budget != nullptr; }
    bool hasResult() const override { return m_result != nullptr; }
    bool hasFindings() const override;
    bool isWindowAnalysis() const override;
    QString documentPath() const override;
    const ProblemLog* problems() const override;
    void analyseWindow(qint64 beginNs, qint64 endNs) override;
    void resetWindowAnalysis() override;
    void setThresholds(const GapThresholds& thresholds) override;
    // the splitters under budgetPage/
    void restorePageSettings(const QSettings& settings, bool choices) override;
    void savePageSettings(QSettings& settings) const override;
    void setCursorTime(qint64 ns) override;
    void stepCursor(int ticks) override;
    void resetZoom() override;
    void clear() override;
    PageExport pageExport() const override;
    // a loaded budget log (setBudget), analysed by analyseFresh (Now: the chart first)
    bool open(const LoadedDocument& document, QString* error) override;
    bool analyseOpened(OpenMode mode, QString* error) override;

protected:
    void onFindingCurrentChanged(const QModelIndex& current) override;

private:
    void runAnalysis(std::optional<TimeWindow> window, bool fresh);
    void applyResult(std::shared_ptr<const BudgetAnalysisResult> result, bool fresh);
    void updateInfoLabel();
    void updateWindowBanner();
    void updateCursorValues();
    QString relativeTime(qint64 ns) const;

    std::shared_ptr<const BudgetData> m_budget;
    std::shared_ptr<const BudgetAnalysisResult> m_result;     // shown
    std::shared_ptr<const BudgetAnalysisResult> m_fullResult; // without a window, for Reset
    bool m_summaryFirst = true; // a new log opens on its summary (not for screenshots)
    BudgetThresholds m_thresholds;

    QLabel* m_infoLabel = nullptr; // what the breakdown shows
    BudgetBreakdownView* m_budgetChart = nullptr;
    VerdictLane* m_verdictLane = nullptr;
    BudgetTickDetailView* m_tickDetail = nullptr;
};

} // namespace gapscope
