#pragma once
// The gapscope main window: welcome page, background loading with progress and Cancel, the
// gap chart with its timeline, findings with their detail, phases, sessions and problems.

#include "analysis/Thresholds.h"
#include "model/trace/AnalysisRunner.h"
#include "model/budget/BudgetAnalysisRunner.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <optional>

class QAction;
class QActionGroup;
class QDockWidget;
class QFrame;
class QLabel;
class QMenu;
class QModelIndex;
class QProgressBar;
class QSplitter;
class QStackedWidget;
class QTableView;
class QTemporaryDir;
class QToolBar;
class QToolButton;
class QTreeView;

namespace gapscope {

class AnalysisJob;
class BudgetBreakdownView;
class BudgetTickDetailView;
class ExportActions;
class VerdictLane;
class FindingDetailView;
class FindingsDecorationProxy;
class FindingsModel;
class GapChartView;
class LoadJob;
class LiveFollow;
class CompareWith;
class PhasesDecorationProxy;
class PhasesModel;
class ProblemsPanel;
class SessionPicker;
class ThresholdsDialog;
class TimelineScrubber;
class WelcomePage;
enum class ChartOverlay;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    static constexpr int kMaxRecentFiles = 10;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Geometry, dock layout and chart overlays of the last session (not for screenshots).
    void restoreSettings();
    void saveSettings() const;

    // Starts loading in the background; a load still running is superseded.
    void openPath(const QString& path);
    void openSample();
    // Loads and analyses on the calling thread (screenshots). false with *error on bad input.
    bool showTraceNow(const QString& path, QString* error);
    void closeTrace();
    // A newer snapshot of the open trace from File > Follow, with its analysis: session, zoom and
    // cursor stay, unless pinToLatest moves them to the newest samples.
    void showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest);
    LiveFollow* liveFollow() const { return m_liveFollow; }
    CompareWith* compareWith() const { return m_compareWith; }

    // state, for the status bar and tests
    std::shared_ptr<const TraceData> trace() const { return m_trace; }
    std::shared_ptr<const AnalysisResult> analysis() const { return m_result; }
    bool isLoading() const;
    bool isAnalysing() const;
    bool isBusy() const { return isLoading() || isAnalysing(); }
    bool isWindowAnalysis() const;
    bool isWelcomeShown() const;
    QString windowBannerText() const;
    QString cursorValuesText() const;
    QString problemsButtonText() const;
    QStringList recentFiles() const;
    GapThresholds thresholds() const { return m_thresholds; }
    // memory-budget logs (budget-snapshots.md): shown instead of a trace
    bool isBudgetShown() const { return m_budget != nullptr; }
    std::shared_ptr<const BudgetData> budgetData() const { return m_budget; }
    std::shared_ptr<const BudgetAnalysisResult> budgetAnalysis() const { return m_budgetResult; }
    BudgetThresholds budgetThresholds() const { return m_budgetThresholds; }
    BudgetBreakdownView* budgetChart() const { return m_budgetChart; }
    VerdictLane* verdictLane() const { return m_verdictLane; }
    BudgetTickDetailView* tickDetailView() const { return m_tickDetail; }
    ExportActions* exportActions() const { return m_exportActions; }

    GapChartView* chart() const { return m_chart; }
    TimelineScrubber* scrubber() const { return m_scrubber; }
    QTableView* findingsView() const { return m_findingsView; }
    QTreeView* phasesView() const { return m_phasesView; }
    FindingsModel* findingsModel() const { return m_findingsModel; }
    PhasesModel* phasesModel() const { return m_phasesModel; }
    FindingDetailView* detailView() const { return m_detail; }
    ProblemsPanel* problemsPanel() const { return m_problemsPanel; }
    SessionPicker* sessionPicker() const { return m_sessionPicker; }
    WelcomePage* welcomePage() const { return m_welcome; }
    QProgressBar* progressBar() const { return m_progress; }

public slots:
    void selectFinding(int findingIndex);
    void selectPhase(int spanIndex);
    void analyseWindow(qint64 beginNs, qint64 endNs);
    void resetWindowAnalysis();
    void setThresholds(const gapscope::GapThresholds& thresholds);
    void selectSession(int sessionIndex, qint64 rank);
    void setCursorTime(qint64 ns);
    void cancelLoad();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createMenus();
    void createCentralArea();
    void createDocks();
    void createStatusBar();

    void showOpenFileDialog();
    void showOpenDirectoryDialog();
    void showThresholdsDialog();
    void showAbout();
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    void reload();

    void onLoadStarted(quint64 generation, const QString& path);
    void onLoadProgress(quint64 generation, qint64 bytesRead, qint64 totalBytes);
    void onLoaded(quint64 generation, std::shared_ptr<const TraceData> data);
    void onBudgetLoaded(quint64 generation, std::shared_ptr<const BudgetData> data);
    void onLoadFailed(quint64 generation, const QString& error);
    void onLoadCancelled(quint64 generation);
    void onAnalysisFinished(quint64 generation, std::shared_ptr<const AnalysisResult> result);
    void onAnalysisFailed(quint64 generation, const QString& error);

    // Takes a loaded trace: problems, sessions, title; the analysis is started by the caller.
    bool acceptTrace(std::shared_ptr<const TraceData> data, QString* error);
    // Takes a loaded budget log in place of any trace; analysed by the caller.
    bool acceptBudget(std::shared_ptr<const BudgetData> data, QString* error);
    void runBudget(std::optional<TimeWindow> window, bool fresh);
    void applyBudgetResult(std::shared_ptr<const BudgetAnalysisResult> result, bool fresh);
    void forgetTrace();  // the trace state and its views
    void forgetBudget(); // the budget state and its views
    // The chart area of the kind of document shown.
    void showBudgetViews(bool budget);
    AnalysisRequest baseRequest() const;
    void startAnalysis(const AnalysisRequest& request);
    void applyResult(std::shared_ptr<const AnalysisResult> result, bool freshTrace);
    void showError(const QString& message);
    void setLoadingUi(bool loading, const QString& path = {});
    void updateWindowBanner();
    void updateProblemsButton();
    void updateActions();
    void updateTitle();
    // The stack page, with the docks that belong to it (none on the welcome page).
    void showPage(QWidget* page);

    void onFindingCurrentChanged(const QModelIndex& current);
    void onPhaseCurrentChanged(const QModelIndex& current);
    void onCursorMoved(qint64 ns);
    void ensureTimeVisible(qint64 ns);
    void stepFinding(int delta);
    void stepPhase(int delta);
    void stepCursor(int samples);
    void updateCursorValues();
    QString relativeTime(qint64 ns) const;

    // jobs
    LoadJob* m_loadJob = nullptr;
    AnalysisJob* m_analysisJob = nullptr;
    LiveFollow* m_liveFollow = nullptr;
    CompareWith* m_compareWith = nullptr;

    // state
    std::shared_ptr<const TraceData> m_trace;
    std::shared_ptr<const BudgetData> m_budget;
    std::shared_ptr<const BudgetAnalysisResult> m_budgetResult;     // shown
    std::shared_ptr<const BudgetAnalysisResult> m_budgetFullResult; // without a window, for Reset
    BudgetThresholds m_budgetThresholds;
    std::shared_ptr<const AnalysisResult> m_result;     // shown
    std::shared_ptr<const AnalysisResult> m_fullResult; // without a window, for Reset
    std::optional<TimeWindow> m_pendingWindow;          // window being analysed
    size_t m_sessionIndex = 0;
    std::optional<int64_t> m_rank;
    GapThresholds m_thresholds;
    bool m_freshTrace = false; // the next analysis result is the first of a new trace
    QString m_displayPath;     // what the title shows (the sample is named, not its temp copy)
    QString m_samplePath;
    std::unique_ptr<QTemporaryDir> m_sampleDir;
    qint64 m_cursorNs = 0;
    bool m_phasesDockWanted = true; // the user's choice; the welcome page hides it regardless

    // widgets
    QStackedWidget* m_stack = nullptr;
    WelcomePage* m_welcome = nullptr;
    QWidget* m_analysisPage = nullptr;
    QToolBar* m_chartToolBar = nullptr;
    SessionPicker* m_sessionPicker = nullptr;
    QAction* m_sessionPickerAction = nullptr;
    QAction* m_overlaysLabelAction = nullptr;
    QLabel* m_budgetInfoLabel = nullptr; // budget logs: what the breakdown shows
    QAction* m_budgetInfoAction = nullptr;
    QFrame* m_windowBanner = nullptr;
    QLabel* m_windowBannerLabel = nullptr;
    QStackedWidget* m_chartStack = nullptr;
    QWidget* m_traceChartArea = nullptr;
    QWidget* m_budgetChartArea = nullptr;
    GapChartView* m_chart = nullptr;
    TimelineScrubber* m_scrubber = nullptr;
    BudgetBreakdownView* m_budgetChart = nullptr;
    VerdictLane* m_verdictLane = nullptr;
    BudgetTickDetailView* m_tickDetail = nullptr;
    ExportActions* m_exportActions = nullptr;
    QSplitter* m_mainSplitter = nullptr;
    QSplitter* m_findingsSplitter = nullptr;
    QTableView* m_findingsView = nullptr;
    FindingsModel* m_findingsModel = nullptr;
    FindingsDecorationProxy* m_findingsProxy = nullptr;
    FindingDetailView* m_detail = nullptr;
    QDockWidget* m_phasesDock = nullptr;
    QTreeView* m_phasesView = nullptr;
    PhasesModel* m_phasesModel = nullptr;
    PhasesDecorationProxy* m_phasesProxy = nullptr;
    ProblemsPanel* m_problemsPanel = nullptr;
    ThresholdsDialog* m_thresholdsDialog = nullptr;

    // status bar
    QLabel* m_cursorLabel = nullptr;
    QToolButton* m_problemsButton = nullptr;
    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_cancelButton = nullptr;

    // actions
    QAction* m_openAction = nullptr;
    QAction* m_openDirAction = nullptr;
    QAction* m_openSampleAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QAction* m_closeAction = nullptr;
    QAction* m_quitAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_resetZoomAction = nullptr;
    std::vector<std::pair<ChartOverlay, QAction*>> m_overlayActions;
    QAction* m_nextFindingAction = nullptr;
    QAction* m_prevFindingAction = nullptr;
    QAction* m_nextPhaseAction = nullptr;
    QAction* m_prevPhaseAction = nullptr;
    QAction* m_stepForwardAction = nullptr;
    QAction* m_stepBackAction = nullptr;
    QAction* m_stepForwardFastAction = nullptr;
    QAction* m_stepBackFastAction = nullptr;
    QAction* m_thresholdsAction = nullptr;
    QAction* m_resetWindowAction = nullptr;
};

} // namespace gapscope
