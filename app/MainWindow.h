#pragma once
// The gapscope main window, the shell around the document pages (app/pages/): menus, docks,
// status bar, opening files (dialogs, recent files, drag and drop, the sample, reload, close),
// the thresholds dialog, the background load with progress and Cancel, and the welcome page.

#include "analysis/Thresholds.h"
#include "app/pages/LoadedDocument.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/trace/AnalysisRunner.h"

#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTemporaryDir;
class QToolButton;
class QTreeView;

namespace gapscope {

class BudgetBreakdownView;
class BudgetPage;
class BudgetTickDetailView;
class DocumentPage;
class DocumentTab;
class ExportActions;
class VerdictLane;
class FindingDetailView;
class FindingsModel;
class GapChartView;
class JobPage;
class LoadFailureBanner;
struct JobData;
struct JobAnalysisResult;
class LoadJob;
class TraceCache;
class LiveFollow;
class CompareWith;
class PhasesModel;
class ProblemLog;
class ProblemsPanel;
class SessionPicker;
class ThresholdsDialog;
class TimelineScrubber;
class TracePage;
class WelcomePage;
class WindowBanner;

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

    // Starts loading in the background; a load still running is superseded. The document
    // opens in the tab in front when that one is empty or shows the same file (Reload), else
    // in a new tab once it has loaded.
    void openPath(const QString& path);
    // What the paths are is model/document/OpenPlan's call: the ranks of one job open as one
    // distributed job (the job page), one run as one document, and several runs that are not
    // one job (two runs of one rank in a folder) as several documents, one tab each, loaded one
    // after another.
    void openPaths(const QStringList& paths);
    // The job page of the job shown (one with several ranks), and a rank opened on the trace
    // page: the tab in front does both (DocumentTab::showJobOverview, openRank).
    void showJobOverview();
    // Loads and shows a job on the calling thread, the job page's own analyses waited for
    // (screenshots); false with the reason when none of its inputs loads.
    bool showJobNow(const QStringList& paths, QString* error);
    void openRank(qint64 rank);
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
    std::shared_ptr<const TraceData> trace() const;
    std::shared_ptr<const AnalysisResult> analysis() const;
    bool isLoading() const;
    bool isAnalysing() const;
    bool isBusy() const { return isLoading() || isAnalysing() || !m_pendingOpens.isEmpty(); }
    bool isWindowAnalysis() const;
    bool isWelcomeShown() const;
    QString windowBannerText() const;
    QString cursorValuesText() const;
    QString problemsButtonText() const;
    // The explanation a failed open leaves above the page (plain text), empty once dismissed.
    QString loadFailureText() const;
    LoadFailureBanner* loadFailureBanner() const { return m_loadFailureBanner; }
    // Help > About: the version (project() in CMakeLists.txt) and what gapscope reads.
    static QString aboutText();
    // The reopen cache the loads use (model/cache/TraceCache): a large trace opened from its
    // input is kept there, and read from there while the input is unchanged. nullptr (the
    // default, tests, --no-cache): none.
    void setTraceCache(std::shared_ptr<const TraceCache> cache);
    std::shared_ptr<const TraceCache> traceCache() const;
    // Help > About's line on the cache: its folder, size and cap, or that it is off.
    QString cacheText() const;
    QStringList recentFiles() const;
    GapThresholds thresholds() const { return m_thresholds; }
    // memory-budget logs (budget-snapshots.md): shown instead of a trace
    bool isBudgetShown() const;
    std::shared_ptr<const BudgetData> budgetData() const;
    std::shared_ptr<const BudgetAnalysisResult> budgetAnalysis() const;
    BudgetThresholds budgetThresholds() const;
    BudgetBreakdownView* budgetChart() const;
    VerdictLane* verdictLane() const;
    BudgetTickDetailView* tickDetailView() const;
    ExportActions* exportActions() const { return m_exportActions; }

    // The open documents, one tab each (DocumentTab: its pages and state); the tab bar shows
    // from two on. The accessors below are of the tab in front.
    QTabWidget* tabs() const { return m_tabs; }
    DocumentTab* currentTab() const { return m_tab; }

    // the pages of the kinds of document (of the tab in front)
    TracePage* tracePage() const { return m_tracePage; }
    BudgetPage* budgetPage() const { return m_budgetPage; }
    JobPage* jobPage() const { return m_jobPage; }
    QAction* jobOverviewAction() const { return m_jobOverviewAction; }
    QAction* attachDeviceLogAction() const { return m_attachDeviceLogAction; }

    GapChartView* chart() const;
    TimelineScrubber* scrubber() const;
    // the findings of the document open (a budget log's while one is shown)
    QTableView* findingsView() const;
    QTreeView* phasesView() const;
    FindingsModel* findingsModel() const;
    PhasesModel* phasesModel() const;
    FindingDetailView* detailView() const;
    ProblemsPanel* problemsPanel() const { return m_problemsPanel; }
    SessionPicker* sessionPicker() const;
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
    // File > Attach Device Log... without its dialogs: the trace shown takes nvidia-smi's log
    // at path (timestamps in timeZone; empty: the system's) and is analysed again. False (and
    // the reason in the status bar) when no trace is shown or the log cannot be used.
    bool attachDeviceLog(const QString& path, const QString& timeZone = {});

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
    void showAttachDeviceLogDialog();
    void showAbout();
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    void reload();

    void onLoadStarted(const QString& path);
    void onLoadProgress(qint64 bytesRead, qint64 totalBytes);
    // A load finished: its document goes to the tab (openLoaded), or its failure is shown.
    void onDocumentLoaded(const LoadedDocument& document);
    // The one path of a loaded document (the background load, showTraceNow, showJobNow): into
    // the load's tab, which hands it to the page that takes it; problems, title and recent
    // files; the page's analyses (mode Now: done before it returns). false with *error.
    bool openLoaded(const LoadedDocument& document, OpenMode mode, QString* error);
    void onLoadFailed(const QString& error);
    void onLoadCancelled();

    // tabs
    DocumentTab* addDocumentTab();
    // The shell's actions in the context menus of a tab's charts and findings tables.
    void decorateTab(DocumentTab* tab);
    // View > Chart Y Axis and Chart X Axis: the choices of the trace page in front.
    void fillAxisMenus();
    void onCurrentTabChanged(int index);
    // Removes a tab that is not the only one (with the views the docks held for it).
    void closeTab(DocumentTab* tab);
    // Starts loading one document (a path OpenPlan resolved) into the tab chooseLoadTab picks.
    void startDocument(const QString& path);
    // The next of several documents opened together, once the one before has loaded or failed.
    void openNextPending();
    // Where the document(s) at paths go when loaded (see openPath); the tab in front drops an
    // analysis still running when it is the one.
    void chooseLoadTab(const QStringList& paths);
    // A load finished: the tab chosen (made now when new) is brought to the front.
    DocumentTab* takeLoadTab();
    // A tab made for a document that could not be shown goes again.
    void dropTabIfEmpty(DocumentTab* tab);
    bool tabShows(const DocumentTab* tab, const QStringList& paths) const;

    // The page of the document open (the trace page when none is).
    DocumentPage* documentPage() const;
    void connectPage(DocumentPage* page, DocumentTab* tab);
    // What a tab asks of the shell: a page in front, its problems, a message.
    void connectTab(DocumentTab* tab);
    void showProblemsOf(const ProblemLog& problems);
    void showError(const QString& message);
    // The explanation above the page until dismissed, and the reason in the status bar.
    void showLoadFailure(const QString& path, const QString& error);
    void setLoadingUi(bool loading, const QString& path = {});
    void updateProblemsButton();
    void updateActions();
    void updateTitle();
    // The stack page, with the docks that belong to it (none on the welcome page).
    void showPage(QWidget* page);

    // jobs
    LoadJob* m_loadJob = nullptr;
    LiveFollow* m_liveFollow = nullptr;
    CompareWith* m_compareWith = nullptr;

    // state
    GapThresholds m_thresholds;
    QString m_samplePath;
    QStringList m_pendingOpens; // documents still to open, one tab each (openPaths)
    std::unique_ptr<QTemporaryDir> m_sampleDir;
    bool m_phasesDockWanted = true; // the user's choice; the welcome page hides it regardless

    // pages and docks
    QStackedWidget* m_central = nullptr; // the welcome page or the tabs
    WelcomePage* m_welcome = nullptr;
    QTabWidget* m_tabs = nullptr;
    DocumentTab* m_tab = nullptr;    // in front; the page pointers below are its pages
    QPointer<DocumentTab> m_loadTab; // where the load running goes; null: a new tab
    bool m_settingsRestored = false; // new tabs take the saved splitter positions too
    TracePage* m_tracePage = nullptr;
    BudgetPage* m_budgetPage = nullptr;
    JobPage* m_jobPage = nullptr;
    QAction* m_jobOverviewAction = nullptr;
    QMenu* m_overlaysMenu = nullptr;            // the overlay toggles of the trace page in front
    QMenu* m_yAxisMenu = nullptr;               // and its y axis choices
    QMenu* m_xAxisMenu = nullptr;               // and its x axis (time or steps)
    QStackedWidget* m_phasesStack = nullptr;    // each tab's phases tree, in the Phases dock
    QStackedWidget* m_bookmarksStack = nullptr; // each tab's bookmark list
    QDockWidget* m_phasesDock = nullptr;
    QDockWidget* m_bookmarksDock = nullptr; // the trace page's bookmark list
    ProblemsPanel* m_problemsPanel = nullptr;
    ThresholdsDialog* m_thresholdsDialog = nullptr;
    ExportActions* m_exportActions = nullptr;
    WindowBanner* m_windowBanner = nullptr; // placed in the page shown
    LoadFailureBanner* m_loadFailureBanner = nullptr;
    QString m_loadPath; // of the load running or last run

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
    QAction* m_attachDeviceLogAction = nullptr;
    QAction* m_closeAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_nextTabAction = nullptr;
    QAction* m_previousTabAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_resetZoomAction = nullptr;
    QAction* m_zoomBackAction = nullptr;
    QAction* m_zoomForwardAction = nullptr;
    QAction* m_nextFindingAction = nullptr;
    QAction* m_prevFindingAction = nullptr;
    QAction* m_nextPhaseAction = nullptr;
    QAction* m_prevPhaseAction = nullptr;
    QAction* m_nextPhaseKindAction = nullptr; // the next run of another phase name
    QAction* m_prevPhaseKindAction = nullptr;
    QAction* m_addBookmarkAction = nullptr;
    QAction* m_nextBookmarkAction = nullptr;
    QAction* m_prevBookmarkAction = nullptr;
    QAction* m_stepForwardAction = nullptr;
    QAction* m_stepBackAction = nullptr;
    QAction* m_stepForwardFastAction = nullptr;
    QAction* m_stepBackFastAction = nullptr;
    QAction* m_thresholdsAction = nullptr;
    QAction* m_resetWindowAction = nullptr;
};

} // namespace gapscope
