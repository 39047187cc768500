#pragma once
// One open document in the main window's tabs: one page of every entry of the page registry
// (app/pages/PageRegistry: trace, budget log, job), stacked, one shown, so each tab keeps its
// views, zoom history, cursor, bookmarks and analyses while another is in front. The shell
// (MainWindow) hands the tab a loaded document (openDocument) and the tab hands it to the page
// that takes it; the pages own their work and state, and talk to each other through the tab
// (a rank opened from the job page is shown on the trace page, with the job's collective
// intervals). The shell works on the tab in front; it makes, switches and closes tabs.

#include "analysis/Thresholds.h"
#include "app/pages/LoadedDocument.h"

#include <QList>
#include <QStackedWidget>
#include <QString>

#include <memory>

class QAction;

namespace gapscope {

struct AnalysisResult;
class BudgetPage;
class DocumentPage;
class JobPage;
class ProblemLog;
class TracePage;

class DocumentTab : public QStackedWidget
{
    Q_OBJECT
public:
    // resetZoomAction is the shell's (one shortcut per window), shared by every page.
    DocumentTab(QAction* resetZoomAction, const GapThresholds& thresholds, QWidget* parent);
    ~DocumentTab() override;

    // Every page, in the registry's order.
    const QList<DocumentPage*>& pages() const { return m_pages; }
    // The page of the type given (tests, and the tab's own rank opening).
    template <typename Page> Page* page() const
    {
        for (DocumentPage* page : m_pages)
            if (auto* typed = qobject_cast<Page*>(page))
                return typed;
        return nullptr;
    }
    TracePage* tracePage() const;
    BudgetPage* budgetPage() const;
    JobPage* jobPage() const;
    // The page of the document open: the page shown while it holds a document, else the first
    // page that holds one, else the first page.
    DocumentPage* documentPage() const;
    bool hasDocument() const;

    // A loaded document, given to the page registered for it, which takes it in place of the
    // one shown (not analysed yet: DocumentPage::analyseOpened); the tab's other pages forget
    // theirs or show it beside (DocumentPage::openBeside). Returns the page that took it, or
    // nullptr with *error: the pages keep what they had.
    DocumentPage* openDocument(const LoadedDocument& document, OpenMode mode, QString* error);
    // Shows the rank of the job page's job on the trace page: its trace, session and rank, the
    // job page's cursor and range on the rank's own clock once its result is shown, the
    // collective intervals of the ranks its trace holds.
    void openRank(qint64 rank);
    // The job page in front, when it holds a job (View > Job Overview); false when none.
    bool showJobOverview();
    // Whether showJobOverview would bring the job page to the front: it holds a job and another
    // page is in front.
    bool canShowJobOverview() const;
    // A newer snapshot of the trace page's trace (File > Follow): TracePage::showLiveSnapshot.
    bool showLiveSnapshot(std::shared_ptr<const AnalysisResult> result, bool pinToLatest);
    void setThresholds(const GapThresholds& thresholds);
    // Every page forgets its document.
    void clear();
    // Drops the results of work still running in every page (another document is loading).
    void discardWork();

    // What the shell keeps of this tab's document beside its pages.
    struct State
    {
        QString displayPath;  // what the title shows (the sample is named, not its temp copy)
        QString cursorValues; // the status bar's values at the cursor of the page shown
    };
    State& state() { return m_state; }
    const State& state() const { return m_state; }

signals:
    // The page to bring to the front (a result shown, a rank opened, the job overview).
    void pageShown(QWidget* page);
    // A page of the tab took another document by itself (a rank's trace): its problems.
    void problemsChanged(const gapscope::ProblemLog& problems);
    void statusMessage(const QString& text, int timeoutMs);
    void errorOccurred(const QString& message);

private:
    void onResultShown(DocumentPage* page);
    // Hands the trace page the job page's collective intervals of the ranks its trace holds.
    void updateTraceIntervals();

    QList<DocumentPage*> m_pages;
    State m_state;
};

} // namespace gapscope
