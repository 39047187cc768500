#pragma once
// The page of a distributed training job: the rank x time heatmap on top, the small multiples
// beside the rank table under it (in splitters), the findings below as on every page; a
// toolbar switches between the gap and the gap ratio and between one y scale for all
// sparklines and one per row. The views follow the page's ViewState (aligned time: the
// visible range and the cursor are shared by heatmap and sparklines); the rank table's current
// row is outlined in both.
//
// The job comes from the job loader (setJob, or setJobView with series built off the GUI
// thread), the collective intervals and the cross-rank summary from the cross-rank analyses
// (setCollectiveIntervals, setCrossRankSummary), the findings per rank from whoever analyses
// the ranks (setFindingCounts). A rank is activated (rankActivated: the shell opens its
// trace) by a double click or Enter in the table, a double click on its sparkline or a click
// on its label in the heatmap.

#include "app/pages/DocumentPage.h"
#include "model/job/JobViewData.h"
#include "model/store/LoadProblem.h"

#include <memory>
#include <optional>
#include <vector>

class QActionGroup;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;

namespace gapscope {

class JobHeatmapView;
class RankSparklinesView;
class RankTableDecorationProxy;
class RankTableModel;

class JobPage : public DocumentPage
{
    Q_OBJECT
public:
    JobPage(QAction* resetZoomAction, QWidget* parent);
    ~JobPage() override;

    std::shared_ptr<const JobData> job() const { return m_job; }
    std::shared_ptr<const JobViewData> jobView() const { return m_view; }
    JobHeatmapView* heatmap() const { return m_heatmap; }
    RankSparklinesView* sparklines() const { return m_sparklines; }
    QTableView* rankTable() const { return m_rankTable; }
    RankTableModel* rankModel() const { return m_rankModel; }
    QAction* gapAction() const { return m_gapAction; }
    QAction* ratioAction() const { return m_ratioAction; }
    QAction* sharedScaleAction() const { return m_sharedScaleAction; }
    JobMeasure measure() const { return m_measure; }
    // The rank of the table's current row; nullopt without one.
    std::optional<int64_t> currentRank() const;

    QWidget* chartWidget() const override;
    bool hasDocument() const override { return m_view != nullptr; }
    bool hasResult() const override { return m_view != nullptr; }
    bool hasFindings() const override;
    bool isWindowAnalysis() const override { return false; }
    // The input of a one-input job, else the folder the inputs share.
    QString documentPath() const override;
    // The job's notes and every input's rejected records.
    const ProblemLog* problems() const override;
    // A job has no window analysis (yet): these do nothing.
    void analyseWindow(qint64 beginNs, qint64 endNs) override;
    void resetWindowAnalysis() override {}
    void setThresholds(const GapThresholds& thresholds) override { m_thresholds = thresholds; }
    GapThresholds thresholds() const { return m_thresholds; }
    void setCursorTime(qint64 ns) override;
    // Steps the cursor over the samples of the current rank (else the first with samples).
    void stepCursor(int samples) override;
    void resetZoom() override;
    void clear() override;

public slots:
    // Builds the views' series on the calling thread (64 ranks x 100 000 samples: ~0.3 s).
    void setJob(std::shared_ptr<const JobData> job);
    // Series built elsewhere (buildJobViewData off the GUI thread).
    void setJobView(std::shared_ptr<const JobViewData> view);
    void setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals);
    void setCrossRankSummary(std::optional<JobCrossRankSummary> summary);
    // Findings per rank in the order of JobViewData::ranks (RankTableModel::setFindingCounts).
    void setFindingCounts(std::vector<int64_t> countsByRankIndex);
    void setMeasure(JobMeasure measure);
    // Makes the rank the table's current row (outlined in the heatmap and the sparklines).
    void selectRank(qint64 rank);

signals:
    void rankActivated(qint64 rank);

protected:
    void onFindingCurrentChanged(const QModelIndex& current) override;

private:
    void onRankCurrentChanged(const QModelIndex& current);
    void updateInfoLabel();
    void updateCursorValues();
    std::optional<AlignedRange> alignedRange() const;
    const JobCrossRankSummary* summary() const { return m_summary ? &*m_summary : nullptr; }

    std::shared_ptr<const JobData> m_job;
    std::shared_ptr<const JobViewData> m_view;
    std::optional<JobCrossRankSummary> m_summary;
    ProblemLog m_problems;
    GapThresholds m_thresholds;
    JobMeasure m_measure = JobMeasure::Gap;

    QLabel* m_infoLabel = nullptr;
    QActionGroup* m_measureGroup = nullptr;
    QAction* m_gapAction = nullptr;
    QAction* m_ratioAction = nullptr;
    QAction* m_sharedScaleAction = nullptr;
    QSplitter* m_jobSplitter = nullptr;   // heatmap over the ranks
    QSplitter* m_ranksSplitter = nullptr; // sparklines beside the table
    JobHeatmapView* m_heatmap = nullptr;
    RankSparklinesView* m_sparklines = nullptr;
    QTableView* m_rankTable = nullptr;
    RankTableModel* m_rankModel = nullptr;
    RankTableDecorationProxy* m_rankDecorations = nullptr;
    QSortFilterProxyModel* m_rankSort = nullptr;
};

} // namespace gapscope
