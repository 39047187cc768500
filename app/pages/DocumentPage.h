#pragma once
// The part every document page shares (KDAB Hotspot's ResultsPage split): the chart toolbar,
// the text of the window-analysis banner, the findings table beside the detail of the selected
// finding, the splitters, and the view state the page's views subscribe to. A page owns its
// results, views and background work (model/work/BackgroundWork); its tab (app/DocumentTab)
// hands it the documents it takes (app/pages/PageRegistry), and the main window (the shell)
// asks it what to enable, title and export.

#include "analysis/Thresholds.h"
#include "app/pages/LoadedDocument.h"
#include "app/pages/PageExport.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QModelIndex;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTabBar;
class QTableView;
class QToolBar;
class QVBoxLayout;

namespace gapscope {

class ChartRoom;
class FindingDetailView;
class FindingsDecorationProxy;
class FindingsModel;
class NavigationActions;
class ProblemLog;
class SummaryView;
struct DeviceLogRequest;
struct SummaryContent;
class ViewState;
struct DeviceLogRequest;

class DocumentPage : public QWidget
{
    Q_OBJECT
public:
    // resetZoomAction is the shell's (one shortcut per window): it joins the page's toolbar.
    DocumentPage(QAction* resetZoomAction, QWidget* parent);
    ~DocumentPage() override;

    ViewState* viewState() const { return m_viewState; }
    QTableView* findingsView() const { return m_findingsView; }
    // The text the findings table is filtered by (any column, case-insensitive).
    QLineEdit* findingsFilter() const { return m_findingsFilter; }
    FindingsModel* findingsModel() const { return m_findingsModel; }
    // Above the findings table: the notices of the analysis shown (FindingsModel::notices),
    // hidden when there are none.
    QLabel* findingsNotice() const { return m_findingsNotice; }
    FindingDetailView* detailView() const { return m_detail; }
    // "Summary | Chart": the summary a document opens on (app/pages/PageSummary), the chart
    // with the findings one click or F9 away. A page without a summary shows only the chart.
    SummaryView* summaryView() const { return m_summary; }
    QTabBar* viewTabs() const { return m_viewTabs; }
    bool isSummaryShown() const;
    void showSummary();
    void showChart();
    // The chart that "Save Chart As..." saves and whose context menu holds the chart actions.
    virtual QWidget* chartWidget() const = 0;

    // what the shell enables and shows
    virtual bool hasDocument() const = 0;
    virtual bool hasResult() const = 0;
    virtual bool hasFindings() const = 0;
    virtual bool hasPhases() const { return false; }
    virtual bool isWindowAnalysis() const = 0;
    virtual QString documentPath() const = 0;
    virtual const ProblemLog* problems() const = 0;
    // The text of the window-analysis banner, empty when there is none.
    QString windowBannerText() const { return m_windowBannerText; }
    // Puts the shell's banner (app/pages/WindowBanner.h) under this page's toolbar.
    void placeWindowBanner(QWidget* banner);

    // requests from the shell's actions
    virtual void analyseWindow(qint64 beginNs, qint64 endNs) = 0;
    virtual void resetWindowAnalysis() = 0;
    virtual void setThresholds(const GapThresholds& thresholds) = 0;
    virtual void setCursorTime(qint64 ns) = 0;
    virtual void stepCursor(int steps) = 0;
    virtual void stepPhase(int /*delta*/) {}
    // To the first phase of the next (delta > 0) or previous run of another name (warm-up, train,
    // eval), where stepPhase walks every occurrence.
    virtual void stepPhaseKind(int /*delta*/) {}
    virtual void resetZoom() = 0;
    void selectFinding(int findingIndex);
    void stepFinding(int delta);
    // Which of the window's navigation actions (app/NavigationActions) this page can do now,
    // while it is in front: zoom, findings, phases, cursor steps and the window analysis from
    // the virtuals above; bookmarks from those below.
    virtual void updateNavigation(NavigationActions& actions) const;
    // Bookmarks at a time (none unless a page keeps them): a bookmark at the cursor, its
    // index or -1; the cursor to the next (delta > 0) or previous one.
    virtual bool hasBookmarks() const { return false; }
    virtual int addBookmarkAtCursor() { return -1; }
    virtual void stepBookmark(int /*delta*/) {}
    // Drops the result of an analysis still running (another document opens in its tab).
    virtual void discardAnalysis() {}
    virtual bool isAnalysing() const { return false; }
    // The status-bar message that stays while the page is in front (a measured span): shown
    // again when its tab comes back to the front.
    virtual QString keptStatusMessage() const { return {}; }
    // File > Attach Device Log...: whether this page takes nvidia-smi's log now, and taking it
    // (false with *error when the log or its zone cannot be used).
    virtual bool takesDeviceLog() const { return false; }
    virtual bool attachDeviceLog(const DeviceLogRequest& /*request*/, QString* /*error*/) { return false; }
    // File > Attach Snapshot...: whether this page takes a PyTorch memory snapshot now, and
    // taking it: read in the background (mode Now: before it returns), then drawn on the time
    // axis; false with *error when path is no snapshot (or, Now, cannot be read). A read that
    // fails later says why through errorOccurred.
    virtual bool takesSnapshot() const { return false; }
    virtual bool attachSnapshot(const QString& /*path*/, OpenMode /*mode*/, QString* /*error*/)
    {
        return false;
    }
    // Forgets the document and its results: the views show nothing.
    virtual void clear() = 0;
    // What the export actions export while this page is in front (nothing by default).
    virtual PageExport pageExport() const { return {}; }
    // The tab's name for the document at displayPath while this page is in front (the
    // default: documentName, a sink by its run).
    virtual QString documentTitle(const QString& displayPath) const;

    // opening a document: the tab hands a loaded document to the page registered for it
    // (app/pages/PageRegistry), which opens it, then tells its other pages (openBeside).
    // Takes document in place of the one shown, not analysed yet; false with *error when it
    // cannot be shown (a trace without events): the page keeps what it had.
    virtual bool open(const LoadedDocument& document, QString* error) = 0;
    // Analyses the document opened and starts the page's own background work: mode Now does
    // it on the calling thread, or waits for it, before it returns (screenshots); false with
    // *error when that analysis fails.
    virtual bool analyseOpened(OpenMode mode, QString* error) = 0;
    // Another page of the tab opened document: this one forgets its own (the default), or shows
    // what the document holds for it (the job page: the ranks of a trace that has several).
    virtual void openBeside(const LoadedDocument& document, OpenMode mode);
    // Drops the results of work still running (another document is loading into the tab).
    virtual void discardWork() {}
    // What Reload loads again: the document's path (a job: its inputs).
    virtual QStringList reloadPaths() const;

    // The chart areas of the pages ask for the room of the largest of them, so the splitter
    // between chart and findings sits where it sat for a document of another kind.
    void shareChartRoomWith(const QList<DocumentPage*>& pages);

    // Splitter positions under group/ (the page's own keys).
    void restoreSettings(const QSettings& settings, const QString& group);
    void saveSettings(QSettings& settings, const QString& group) const;

    // What the shell hosts for a page beside the page itself (none unless a page has them):
    // the panes it docks (Phases, Bookmarks), the chart's choices in View (overlays, y and x
    // axis), and the page's settings (choices: the chart's toggles too, else only the layout
    // a new tab takes); a new tab's page starts with the choices of the page in front.
    virtual QWidget* phasesPane() const { return nullptr; }
    virtual QWidget* bookmarksPane() const { return nullptr; }
    virtual QList<QAction*> overlayMenuActions() const { return {}; }
    virtual QList<QAction*> yAxisMenuActions() const { return {}; }
    virtual QList<QAction*> xAxisMenuActions() const { return {}; }
    virtual void restorePageSettings(const QSettings& /*settings*/, bool /*choices*/) {}
    virtual void savePageSettings(QSettings& /*settings*/) const {}
    virtual void adoptChoicesOf(const DocumentPage& /*other*/) {}

signals:
    // What the shell derives from the page changed: actions, title, export.
    void stateChanged();
    void statusMessage(const QString& text, int timeoutMs);
    void errorOccurred(const QString& message);
    // The values at the cursor, for the status bar.
    void cursorValuesChanged(const QString& text);
    // A result is ready: the shell brings the page to the front.
    void resultShown();
    void windowBannerChanged(const QString& text);

protected:
    QToolBar* toolBar() const { return m_toolBar; }
    // Lays the page out: toolbar, chart area over the findings table beside the detail.
    void setUpLayout(QWidget* chartArea);
    // Another pane beside the finding's detail.
    void addDetailPane(QWidget* pane);
    // How the height is shared between the chart area and the findings (3 : 2 unless told).
    void setChartStretch(int chart, int findings);
    // Adds the separator, Reset Zoom and the spacer that pushes later widgets to the right.
    void addZoomToToolBar();
    void showWindowBanner(const QString& text);
    void hideWindowBanner();
    // The summary of the result shown (shown first when showFirst), or none (the tabs hide).
    void setSummary(const SummaryContent& content, bool showFirst);
    void clearSummary();
    // Scrolls the visible range so ns is inside it (a new zoom step).
    void ensureTimeVisible(qint64 ns);
    // The findings table's current row changed.
    virtual void onFindingCurrentChanged(const QModelIndex& current) = 0;

    // What the user looks at, kept across another result of the document shown (Reset
    // Window Analysis, new thresholds): the selected finding's class (and rank) and the cursor.
    struct KeptSelection
    {
        QString classKey; // empty: none selected
        QVariant rank;
        qint64 cursorNs = 0;
    };
    KeptSelection keptSelection() const;
    // Selects the finding of the kept class, if the new result has one, without moving the
    // cursor or the view to it (onFindingCurrentChanged sees isRestoringSelection()), then
    // puts the cursor back.
    void restoreSelection(const KeptSelection& kept);
    bool isRestoringSelection() const { return m_restoringSelection; }

    ViewState* m_viewState = nullptr;
    QAction* m_resetZoomAction = nullptr;
    FindingsModel* m_findingsModel = nullptr;
    FindingsDecorationProxy* m_findingsProxy = nullptr;
    QTableView* m_findingsView = nullptr;
    FindingDetailView* m_detail = nullptr;
    QLineEdit* m_findingsFilter = nullptr;
    QLabel* m_findingsNotice = nullptr;

private:
    void updateFindingsNotice();
    bool m_restoringSelection = false;
    QToolBar* m_toolBar = nullptr;
    QVBoxLayout* m_pageLayout = nullptr;
    QString m_windowBannerText;
    QWidget* m_chartArea = nullptr;
    ChartRoom* m_chartRoom = nullptr; // holds m_chartArea
    QSplitter* m_mainSplitter = nullptr;
    QSplitter* m_findingsSplitter = nullptr;
    QTabBar* m_viewTabs = nullptr;
    QStackedWidget* m_views = nullptr; // the summary, the chart and findings
    SummaryView* m_summary = nullptr;
};

} // namespace gapscope
