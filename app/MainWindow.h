#pragma once
// The gapscope main window: welcome page, background loading with progress and Cancel, the
// gap chart with its timeline, findings with their detail, phases, sessions and problems.

#include "analysis/Thresholds.h"
#include "model/AnalysisRunner.h"

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
class FindingDetailView;
class FindingsDecorationProxy;
class FindingsModel;
class GapChartView;
class LoadJob;
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
    void onLoadFailed(quint64 generation, const QString& error);
    void onLoadCancelled(quint64 generation);
    void onAnalysisFinished(quint64 generation, std::shared_ptr<const AnalysisResult> result);
    void onAnalysisFailed(quint64 generation, const QString& error);

    // Takes a loaded trace: problems, sessions, title; the analysis is started by the caller.
    bool acceptTrace(std::shared_ptr<const TraceData> data, QString* error);
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

    // state
    std::shared_ptr<const TraceData> m_trace;
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
    QFrame* m_windowBanner = nullptr;
    QLabel* m_windowBannerLabel = nullptr;
    GapChartView* m_chart = nullptr;
    TimelineScrubber* m_scrubber = nullptr;
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
