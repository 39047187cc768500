#pragma once
// The page of a stormlog trace: the gap chart over the timeline scrubber, the findings with
// their detail, the phases tree (the shell docks it), the session picker and the banner of a
// window analysis; it owns the trace, the analysis shown, the analysis of the whole run (for
// Reset Window Analysis), the session and rank, and the background analysis job.

#include "app/pages/DocumentPage.h"
#include "model/job/JobViewData.h"
#include "model/trace/AnalysisRunner.h"

#include <QPointer>
#include <QTableView>

#include <memory>
#include <optional>
#include <vector>

class QModelIndex;
class QLineEdit;
class QTableView;
class QTreeView;

namespace gapscope {

class AnalysisJob;
class BackgroundWork;
struct SnapshotData;
struct SnapshotLoadOutcome;
class BookmarksModel;
class GapChartView;
class OverlayToggles;
class PhasesDecorationProxy;
class PhasesModel;
class SessionPicker;
class StepIndex;
class TimelineScrubber;
enum class ChartOverlay;

class TracePage : public DocumentPage
{
    Q_OBJECT
public:
    TracePage(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent);
    ~TracePage() override;

    std::shared_ptr<const TraceData> trace() const { return m_trace; }
    std::shared_ptr<const AnalysisResult> analysis() const { return m_result; }
    bool isAnalysing() const override;
    GapChartView* chart() const { return m_chart; }
    TimelineScrubber* scrubber() const { return m_scrubber; }
    SessionPicker* sessionPicker() const { return m_sessionPicker; }
    QTreeView* phasesView() const { return m_phasesView; }
    // The tree under its filter line: what the shell docks.
    QWidget* phasesPane() const override { return m_phasesPane; }
    QLineEdit* phasesFilter() const { return m_phasesFilter; }
    PhasesModel* phasesModel() const { return m_phasesModel; }
    // The chart's overlay toggles (View > Chart Overlays and the toolbar), with their keys.
    const std::vector<std::pair<ChartOverlay, QAction*>>& overlayActions() const { return m_overlayActions; }
    // View > Chart Y Axis: "Fit Data" and "From Zero" (exclusive), with their setting keys as
    // data ("fit", "zero"); the chart's context menu checks them too.
    const std::vector<QAction*>& yAxisActions() const { return m_yAxisActions; }
    // View > Chart Y Axis > Logarithmic (checkable).
    QAction* yLogAction() const { return m_yLogAction; }
    // View > Chart X Axis > Training Steps (checkable): the time axis labelled with step numbers
    // at step boundaries; enabled where the phases carry steps. Kept with the overlay toggles
    // (chart/stepAxis).
    QAction* stepAxisAction() const { return m_stepAxisAction; }
    // The training steps of the (session, rank) shown, built once per loaded session and rank
    // (not per result or paint); null without a result.
    std::shared_ptr<const StepIndex> steps() const { return m_result ? m_result->steps : nullptr; }

    // The bookmarks of the trace shown, restored from and saved to the settings under its
    // canonical path (BookmarksModel); the shell docks their list.
    BookmarksModel* bookmarksModel() const { return m_bookmarks; }
    QTableView* bookmarksView() const { return m_bookmarksView; }
    // A bookmark at the cursor, its name open for editing in the list; -1 without a result.
    int addBookmarkAtCursor() override;
    // The cursor to the next (delta > 0) or previous bookmark, scrolled into view.
    void stepBookmark(int delta) override;
    bool hasBookmarks() const override;

    // Takes a loaded trace in place of the one shown; false with *error when it holds no
    // events. The analysis is started by analyseFresh() or analyseNow().
    bool setTrace(std::shared_ptr<const TraceData> data, QString* error);
    // Analyses the trace in the background; the result is shown as a newly opened trace's.
    void analyseFresh();
    // Analyses on the calling thread (screenshots); false with *error.
    bool analyseNow(QString* error);
    // Drops the result of an analysis still running (another document is being opened).
    void discardAnalysis() override;
    // File > Attach Device Log...: nvidia-smi's log gives device used from now on (this
    // trace's analyses until another trace is shown) and the analysis runs again; false with
    // *error when the log or its zone cannot be used (the analysis shown stays).
    bool attachDeviceLog(const DeviceLogRequest& request, QString* error) override;
    bool takesDeviceLog() const override { return hasDocument(); }
    std::optional<DeviceLogRequest> attachedDeviceLog() const { return m_deviceLogRequest; }
    // File > Attach Snapshot..., --snapshot, a snapshot beside the run opened (LoadedDocument::
    // snapshotBeside): read on the page's own background work (model/work/BackgroundWork), then
    // drawn on the gap chart (GapChartView::setSnapshot) and read out at the cursor, until
    // another trace is shown (a reload keeps it). The chart's note, and the status bar, say when
    // it does not overlap the trace.
    bool attachSnapshot(const QString& path, OpenMode mode, QString* error) override;
    bool takesSnapshot() const override { return hasDocument(); }
    // The snapshot attached (null while it is read or without one) and its path.
    std::shared_ptr<const SnapshotData> attachedSnapshot() const { return m_snapshot; }
    QString attachedSnapshotPath() const { return m_snapshotPath; }
    bool isReadingSnapshot() const;
    // A newer snapshot of the trace (File > Follow); false when it is not of this trace.
    bool showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest);
    void selectSession(int sessionIndex, qint64 rank);
    void selectPhase(int spanIndex);
    // The collective-attribution intervals of a job's ranks read from trace (each on its rank's
    // own clock): the gap chart shades those of the rank shown while it shows trace; another
    // trace shows none. An empty list forgets them.
    void setCollectiveIntervals(std::shared_ptr<const TraceData> trace,
                                std::vector<JobCollectiveInterval> intervals);

    QWidget* chartWidget() const override;
    bool hasDocument() const override { return m_trace != nullptr; }
    bool hasResult() const override { return m_result != nullptr; }
    bool hasFindings() const override;
    bool hasPhases() const override;
    bool isWindowAnalysis() const override;
    QString documentPath() const override;
    const ProblemLog* problems() const override;
    void analyseWindow(qint64 beginNs, qint64 endNs) override;
    void resetWindowAnalysis() override;
    void setThresholds(const GapThresholds& thresholds) override;
    void setCursorTime(qint64 ns) override;
    void stepCursor(int samples) override;
    void stepPhase(int delta) override;
    void stepPhaseKind(int delta) override;
    void resetZoom() override;
    void clear() override;
    PageExport pageExport() const override;
    QString documentTitle(const QString& displayPath) const override;
    // a loaded trace (setTrace), analysed by analyseFresh (Background) or analyseNow (Now)
    bool open(const LoadedDocument& document, QString* error) override;
    bool analyseOpened(OpenMode mode, QString* error) override;
    void discardWork() override { discardAnalysis(); }
    QWidget* bookmarksPane() const override;
    QString keptStatusMessage() const override;
    // View > Chart Overlays, Chart Y Axis and Chart X Axis; the toggles remembered per kind of
    // trace (GPU, CPU) under chart/overlays/, the axes under chart/.
    QList<QAction*> overlayMenuActions() const override;
    QList<QAction*> yAxisMenuActions() const override;
    QList<QAction*> xAxisMenuActions() const override;
    void restorePageSettings(const QSettings& settings, bool choices) override;
    void savePageSettings(QSettings& settings) const override;
    // The series toggles chosen per kind of trace and the axes of another trace page.
    void adoptChoicesOf(const DocumentPage& other) override;

protected:
    void onFindingCurrentChanged(const QModelIndex& current) override;

private:
    void createPhasesView();
    void collapseGroups(const QModelIndex& sourceIndex); // of the phases model, recursively
    void createBookmarksView();
    void restoreBookmarks();
    void jumpToBookmark(qint64 ns);
    void hideEmptyPhaseColumns();
    AnalysisRequest baseRequest() const;
    void startAnalysis(const AnalysisRequest& request);
    void onAnalysisFinished(std::shared_ptr<const AnalysisResult> result);
    void onAnalysisFailed(const QString& error);
    void applyResult(std::shared_ptr<const AnalysisResult> result, bool freshTrace);
    void onPhaseCurrentChanged(const QModelIndex& current);
    void updateWindowBanner();
    void updateCursorValues();
    QString counterValuesText(qint64 cursorNs) const;
    // The attached snapshot's allocator at the cursor, empty outside its entries.
    QString snapshotValuesText(qint64 cursorNs) const;
    void onSnapshotRead(const QString& path, const SnapshotLoadOutcome& outcome);
    // The snapshot read to the chart and the status bar, once the trace's own result is shown
    // (its note depends on the trace's time).
    void showSnapshot();
    void dropSnapshot();
    void showSnapshotToggles();
    QString relativeTime(qint64 ns) const;
    // The span the phase navigation starts from: the phases view's current row, else none.
    std::optional<size_t> currentPhaseSpan() const;
    // The chart's intervals for the result shown (those of its rank, else none).
    void showCollectiveIntervals();

    AnalysisJob* m_analysisJob = nullptr;
    std::shared_ptr<const TraceData> m_trace;
    std::shared_ptr<const AnalysisResult> m_result;     // shown
    std::shared_ptr<const AnalysisResult> m_fullResult; // without a window, for Reset
    std::optional<TimeWindow> m_pendingWindow;          // window being analysed
    size_t m_sessionIndex = 0;
    std::optional<int64_t> m_rank;
    GapThresholds m_thresholds;
    std::shared_ptr<const DeviceLog> m_deviceLog; // attached: every analysis of m_trace takes it
    std::optional<DeviceLogRequest> m_deviceLogRequest;
    BackgroundWork* m_snapshotWork = nullptr;       // reads the snapshot attached
    std::shared_ptr<const SnapshotData> m_snapshot; // attached, read
    QString m_snapshotPath;                         // attached (being read, or read)
    QString m_snapshotError;                        // why the last read failed
    QString m_snapshotBeside;                       // of the document opened, attached once analysed
    bool m_snapshotToShow = false;                  // read before the trace's result was shown
    bool m_freshTrace = false;                      // the next analysis result is the first of a new trace
    bool m_summaryFirst = true;                     // a new trace opens on its summary (not for screenshots)
    // setCollectiveIntervals: whose they are, and the intervals
    std::shared_ptr<const TraceData> m_collectiveTrace;
    std::vector<JobCollectiveInterval> m_collective;

    std::vector<std::pair<ChartOverlay, QAction*>> m_overlayActions;
    std::unique_ptr<OverlayToggles> m_overlayToggles;
    std::vector<QAction*> m_yAxisActions;
    QAction* m_yLogAction = nullptr;
    QAction* m_stepAxisAction = nullptr;
    SessionPicker* m_sessionPicker = nullptr;
    QAction* m_sessionPickerAction = nullptr;
    GapChartView* m_chart = nullptr;
    TimelineScrubber* m_scrubber = nullptr;
    QTreeView* m_phasesView = nullptr;
    // The panes the window docks (WindowDocks reparents them); the page deletes one that was
    // never docked (a tab on its own, in tests).
    QPointer<QWidget> m_phasesPane;
    QLineEdit* m_phasesFilter = nullptr;
    PhasesModel* m_phasesModel = nullptr;
    PhasesDecorationProxy* m_phasesProxy = nullptr;
    BookmarksModel* m_bookmarks = nullptr;
    QPointer<QTableView> m_bookmarksView;
    bool m_restoringBookmarks = false; // a document's bookmarks shown, not changed by the user
};

} // namespace gapscope
