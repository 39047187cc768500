#pragma once
// The findings of one analysis as a table. Qt Core only: severity colours and icons are
// added on the widgets side from SeverityRole.

#include "model/budget/BudgetAnalysisRunner.h"
#include "model/job/JobFindings.h"
#include "model/trace/AnalysisRunner.h"

#include <QAbstractTableModel>

#include <memory>

namespace gapscope {

class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        SeverityColumn,
        ClassificationColumn,
        ConfidenceColumn,
        PhaseColumn,
        TimeColumn,
        ColumnCount
    };
    enum Role
    {
        SeverityRole = Qt::UserRole + 1, // int(Severity)
        ClassificationKeyRole,           // upstream name, e.g. "transient_spike"
        EvidenceTimeRole,                // qint64 absolute ns
        FindingIndexRole,                // int index into AnalysisResult::findings
        SortRole,                        // raw value of the column for sorting
        RankRole,                        // qint64 rank of a job finding; invalid otherwise
        AlignedTimeRole,                 // qint64 aligned ns of a job finding; invalid otherwise
    };

    explicit FindingsModel(QObject* parent = nullptr);

    // Times in the GUI are shown relative to the first event of the analysed (session, rank),
    // like the reports do.
    static int64_t originNs(const AnalysisResult& result);
    // From the first to the last event of the analysed (session, rank): the time column is
    // read at timeResolutionNs of it (an 8-hour run in hours, minutes and seconds).
    static int64_t spanNs(const AnalysisResult& result);
    // "train / step", "ambiguous: a, b (most recent a)", or empty without attribution.
    static QString phaseText(const std::optional<PhaseAttribution>& attribution);
    // The classification column shows classificationTitle (model/report/ReportContent.h), the
    // name every report uses.
    static QString severityText(Severity severity);

    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    std::shared_ptr<const AnalysisResult> analysis() const { return m_result; }
    // The findings of a memory-budget log (replaces any trace analysis; the phase column
    // stays empty: budget logs have no phases).
    void setBudgetAnalysis(std::shared_ptr<const BudgetAnalysisResult> result);
    std::shared_ptr<const BudgetAnalysisResult> budgetAnalysis() const { return m_budget; }
    // The findings of a distributed job (replaces any other analysis). Their time column is
    // aligned time (JobFindings::alignedTimeNs) relative to alignedOriginNs, the start of the
    // job page's aligned range, as its status bar counts.
    void setJobFindings(std::shared_ptr<const JobFindings> findings, int64_t alignedOriginNs);
    std::shared_ptr<const JobFindings> jobFindings() const { return m_job; }
    // Findings without a time (a PyTorch memory snapshot's, model/snapshot/SnapshotFragmentation):
    // the phase and time columns say "—". Replaces any other analysis.
    void setUntimedFindings(std::shared_ptr<const std::vector<Finding>> findings);
    std::shared_ptr<const std::vector<Finding>> untimedFindings() const { return m_untimed; }
    const Finding* finding(int row) const;
    // What the trace analysis shown cannot show (analysis/Notice.h); of a job, its own notices
    // (JobFindings::notices: first_cause_at_startup); none for budget logs.
    // The findings pane says them above the table: no rows must not read as "nothing there".
    const std::vector<Notice>& notices() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const std::vector<Finding>* findings() const;

    std::shared_ptr<const AnalysisResult> m_result;
    std::shared_ptr<const BudgetAnalysisResult> m_budget;
    std::shared_ptr<const JobFindings> m_job;
    std::shared_ptr<const std::vector<Finding>> m_untimed;
    int64_t m_originNs = 0;
    int64_t m_timeResolutionNs = 1'000'000;
};

} // namespace gapscope
