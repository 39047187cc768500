#pragma once
// The page of a distributed training job: the rank x time heatmap on top, the small multiples
// beside the rank table under it (in splitters), the findings below as on every page; a
// toolbar switches between the gap and the gap ratio and between one y scale for all
// sparklines and one per row. The views follow the page's ViewState (aligned time: the
// visible range and the cursor are shared by heatmap and sparklines); the rank table's current
// row is outlined in both.
//
// The page owns its work: a loaded job (open) is shown at once, and its cross-rank analyses
// (analyzeJob: the collective intervals, the cross-rank summary and the job's findings,
// model/job/JobFindings.h) and each rank's own gap findings (with the page's thresholds, counted
// again when they change) run on the page's background work (model/work/BackgroundWork); the
// rank table counts both. A newer job, or clear(), drops the results of an older one. The
// setters below show results given from outside (tests feed upstream's expected results).
// Selecting a finding makes its rank the current row and moves the cursor to its evidence
// time in aligned time. A rank is activated (rankActivated: the tab opens its trace on its
// trace page, openRank) by a double click or Enter in the table, a double click on its
// sparkline or a click on its label in the heatmap.

#include "app/pages/DocumentPage.h"
#include "model/job/JobFindings.h"
#include "model/job/JobViewData.h"
#include "model/store/LoadProblem.h"
#include "model/work/BackgroundWork.h"

#include <memory>
#include <optional>
#include <utility>
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
    std::shared_ptr<const JobFindings> jobFindings() const { return m_findings; }
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
    // The thresholds each rank is analysed with (rank table, export); new ones count the rank
    // findings of the job shown again.
    void setThresholds(const GapThresholds& thresholds) override;
    GapThresholds thresholds() const { return m_thresholds; }
    void setCursorTime(qint64 ns) override;
    // Steps the cursor over the samples of the current rank (else the first with samples).
    void stepCursor(int samples) override;
    void resetZoom() override;
    void clear() override;
    PageExport pageExport() const override;
    QString documentTitle(const QString& displayPath) const override;

    // A loaded job: shown at once (setJob); analyseOpened starts the page's work on it (Now:
    // waits for it).
    bool open(const LoadedDocument& document, QString* error) override;
    bool analyseOpened(OpenMode mode, QString* error) override;
    // A trace loaded beside: one whose default session holds several ranks shows its job here,
    // analysed in the background, and this page goes in front of the trace page's first result
    // (takeShowFirst); any other document clears the page. Screenshots (Now) show the trace.
    void openBeside(const LoadedDocument& document, OpenMode mode) override;
    void discardWork() override;
    // The job's inputs.
    QStringList reloadPaths() const override;
    // Blocks until the page's background work is done and its results are shown (tests).
    void waitForWork();
    bool isWorking() const { return m_analysisWork.isRunning() || m_countWork.isRunning(); }
    // The cross-rank analyses of the job shown; nullptr until they are done.
    std::shared_ptr<const JobAnalysisResult> jobAnalysis() const
    {
        return m_findings ? m_findings->analysis : nullptr;
    }
    // Whether this page goes in front of the trace page's next result (a trace of several ranks
    // opens on its job page); true once.
    bool takeShowFirst() { return std::exchange(m_showFirst, false); }

    // The collective intervals of the ranks that trace holds as an input of the job shown,
    // each on its rank's own clock (what the tab's trace page shades); none for another trace.
    std::vector<JobCollectiveInterval>
    collectiveIntervalsOf(const std::shared_ptr<const TraceData>& trace) const;
    // Where a rank of the job shown is read from; nullopt when it has no events.
    struct RankInput
    {
        std::shared_ptr<const TraceData> trace;
        size_t sessionIndex = 0;
        QString path;
    };
    std::optional<RankInput> rankInput(qint64 rank) const;
    // Where the trace page goes once the rank's result is shown: this page's cursor and visible
    // range moved from the aligned clock to the rank's own. Kept until takeRankView().
    struct RankView
    {
        qint64 cursorNs = 0;
        qint64 beginNs = 0;
        qint64 endNs = 0;
    };
    void keepRankView(qint64 rank);
    std::optional<RankView> takeRankView() { return std::exchange(m_rankView, std::nullopt); }

public slots:
    // Builds the views' series on the calling thread (64 ranks x 100 000 samples: ~0.3 s).
    void setJob(std::shared_ptr<const JobData> job);
    // Series built elsewhere (buildJobViewData off the GUI thread).
    void setJobView(std::shared_ptr<const JobViewData> view);
    // The cross-rank analyses of the job shown (analyzeJob over job()): intervals, summary and
    // findings; nullptr forgets them. Builds the findings on the calling thread (O(findings)).
    void setJobAnalysis(std::shared_ptr<const JobAnalysisResult> analysis);
    void setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals);
    void setCrossRankSummary(std::optional<JobCrossRankSummary> summary);
    // Each rank's own gap findings, in the order of JobViewData::ranks; the rank table shows
    // them plus the rank's job findings. A new job forgets them.
    void setGapFindingCounts(std::vector<int64_t> countsByRankIndex);
    void setMeasure(JobMeasure measure);
    // Makes the rank the table's current row (outlined in the heatmap and the sparklines).
    void selectRank(qint64 rank);

signals:
    void rankActivated(qint64 rank);
    // setJobAnalysis: the collective intervals the tab's trace page shades changed.
    void jobAnalysisChanged();

protected:
    void onFindingCurrentChanged(const QModelIndex& current) override;

private:
    void setJobFindings(std::shared_ptr<const JobFindings> findings);
    // The cross-rank analyses and the rank findings counts of the job shown, in the background.
    void startAnalyses();
    void countRankFindings();
    void onRankCurrentChanged(const QModelIndex& current);
    void updateInfoLabel();
    void updateCursorValues();
    void updateFindingCounts();
    // The findings table and the detail for m_findings, origin the aligned range's start.
    void showFindings();
    std::optional<AlignedRange> alignedRange() const;
    const JobCrossRankSummary* summary() const { return m_summary ? &*m_summary : nullptr; }

    std::shared_ptr<const JobData> m_job;
    std::shared_ptr<const JobViewData> m_view;
    std::optional<JobCrossRankSummary> m_summary;
    std::shared_ptr<const JobFindings> m_findings;
    std::vector<int64_t> m_gapFindingCounts;
    std::optional<RankView> m_rankView;
    bool m_showFirst = false;
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

    // last: destroyed first, so their workers are waited for before anything they deliver to
    BackgroundWork m_analysisWork; // analyzeJob
    BackgroundWork m_countWork;    // each rank's gap findings
};

} // namespace gapscope
