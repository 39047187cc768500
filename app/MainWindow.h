#pragma once
// The gapscope main window, the shell around the document pages (app/pages/): it hosts the
// tabs (app/DocumentTabs), the menus (app/WindowMenus) with the navigation actions every page
// shares (app/NavigationActions), the docks (app/WindowDocks) and the status bar
// (app/WindowStatusBar), and opens files (dialogs, recent files, drag and drop, the sample,
// reload, close) with the background load, its progress and Cancel. What it shows of a page
// it asks through DocumentPage; tests reach the pages through currentTab().

#include "analysis/Thresholds.h"
#include "app/DocumentTabs.h"
#include "app/OpenDialogs.h"
#include "app/RecentFiles.h"
#include "app/WindowDocks.h"
#include "app/WindowStatusBar.h"
#include "app/pages/LoadedDocument.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/trace/AnalysisRunner.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>

class QProgressBar;
class QTabWidget;

namespace gapscope {

class CompareWith;
class DocumentPage;
class DocumentTab;
class ExportActions;
class LiveFollow;
class LoadFailureBanner;
class LoadJob;
class NavigationActions;
class ProblemLog;
class ThresholdsDialog;
class TraceCache;
class WindowBanner;
class WindowMenus;
struct JobData;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
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
    // The problems of the document in front changed (File > Follow's newer snapshot): the
    // panel lists them, the status bar counts them.
    void listProblems(const ProblemLog& problems);
    LiveFollow* liveFollow() const { return m_liveFollow; }
    CompareWith* compareWith() const { return m_compareWith; }
    ExportActions* exportActions() const { return m_exportActions; }
    NavigationActions* navigation() const { return m_navigation; }

    // state, for the status bar and tests
    bool isLoading() const;
    // A page of the tab in front is analysing in the background.
    bool isAnalysing() const;
    bool isBusy() const { return isLoading() || isAnalysing() || !m_pendingOpens.isEmpty(); }
    bool isWindowAnalysis() const;
    bool isWelcomeShown() const { return m_tabs->isWelcomeShown(); }
    QString windowBannerText() const;
    QString cursorValuesText() const { return m_statusBar->cursorValues(); }
    QString problemsButtonText() const { return m_statusBar->problemsButtonText(); }
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
    QStringList recentFiles() const { return m_recentFiles->files(); }
    GapThresholds thresholds() const { return m_thresholds; }

    // The open documents, one tab each (DocumentTab: its pages and state); the tab bar shows
    // from two on. The pages and their views are reached through the tab in front.
    QTabWidget* tabs() const { return m_tabs->tabWidget(); }
    DocumentTab* currentTab() const { return m_tabs->current(); }
    ProblemsPanel* problemsPanel() const { return m_docks->problemsPanel(); }
    WelcomePage* welcomePage() const { return m_tabs->welcome(); }
    QProgressBar* progressBar() const { return m_statusBar->progressBar(); }

public slots:
    void setThresholds(const gapscope::GapThresholds& thresholds);
    void cancelLoad();
    // File > Attach Device Log... without its dialogs: the trace shown takes nvidia-smi's log
    // at path (timestamps in timeZone; empty: the system's) and is analysed again. False (and
    // the reason in the status bar) when no trace is shown or the log cannot be used.
    bool attachDeviceLog(const QString& path, const QString& timeZone = {});
    // File > Attach Snapshot... without its dialog: the trace shown reads the PyTorch memory
    // snapshot at path in the background and draws it on its time axis. False (and the reason in
    // the status bar) when no trace is shown or path is no snapshot.
    bool attachSnapshot(const QString& path);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void showOpenFileDialog();
    void showOpenDirectoryDialog();
    void showThresholdsDialog();
    void showAttachDeviceLogDialog();
    void showAttachSnapshotDialog();
    void showAbout();
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

    // tabs: a new tab with its pages wired (DocumentTabs' factory)
    DocumentTab* makeTab(QWidget* parent);
    // The shell's actions in the context menus of a tab's charts and findings tables.
    void decorateTab(DocumentTab* tab);
    void onCurrentTabChanged(DocumentTab* tab);
    // Removes a tab that is not the only one (with the views the docks held for it).
    void closeTab(DocumentTab* tab);
    // A tab made for a document that could not be shown goes again.
    void dropTabIfEmpty(DocumentTab* tab);
    // Starts loading one document (a path OpenPlan resolved) into the tab chooseLoadTab picks.
    void startDocument(const QString& path, const QString& snapshotBeside = {});
    // The next of several documents opened together, once the one before has loaded or failed.
    void openNextPending();

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
    // The page shown in the tab in front (or the welcome page), with its docks and banner.
    void showPage(QWidget* page);

    // the parts of the window
    LoadJob* m_loadJob = nullptr;
    WindowMenus* m_menus = nullptr;
    NavigationActions* m_navigation = nullptr;
    DocumentTabs* m_tabs = nullptr; // the welcome page or the tabs
    WindowDocks* m_docks = nullptr;
    WindowStatusBar* m_statusBar = nullptr;
    RecentFiles* m_recentFiles = nullptr;
    WindowBanner* m_windowBanner = nullptr; // placed in the page shown
    LoadFailureBanner* m_loadFailureBanner = nullptr;
    ThresholdsDialog* m_thresholdsDialog = nullptr;
    ExportActions* m_exportActions = nullptr;
    LiveFollow* m_liveFollow = nullptr;
    CompareWith* m_compareWith = nullptr;

    // state
    GapThresholds m_thresholds;
    BundledSample m_sample;
    QStringList m_pendingOpens;      // documents still to open, one tab each (openPaths)
    QString m_loadPath;              // of the load running or last run
    bool m_settingsRestored = false; // new tabs take the saved splitter positions too
};

} // namespace gapscope
