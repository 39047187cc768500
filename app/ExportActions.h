#pragma once
// The app's export actions: "Export Report..." (Ctrl+E; JSON, Markdown, HTML, PDF, CSV, PNG,
// SVG chosen by the file dialog's name filter), "Save Chart As..." (for the chart's context
// menu) and "Copy Finding as Markdown". The reports are the bytes `gapscope export` writes for
// the same analysis: of the trace, the memory-budget log, the distributed job or the PyTorch memory
// snapshot shown (a job's report is the one `gapscope export` writes for its inputs, ranks,
// heatmap and all; a snapshot's chart is its segment map). Existing
// files are replaced only after confirmation; errors are shown in a message box; writes are
// atomic.

#include "app/cli/ExportCommand.h"
#include "app/pages/PageExport.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/job/JobFindings.h"

#include <QObject>
#include <QSize>

#include <functional>
#include <memory>

class QAction;
class QWidget;

namespace gapscope {

class DocumentTabs;

class ExportActions : public QObject
{
    Q_OBJECT
public:
    using ResultProvider = std::function<std::shared_ptr<const AnalysisResult>()>;
    using ChartProvider = std::function<QWidget*()>; // the chart on screen; may return nullptr
    using FindingProvider = std::function<int()>;    // selected finding index, -1 for none
    // The memory-budget log shown; while it returns one, the actions export it instead.
    using BudgetProvider = std::function<std::shared_ptr<const BudgetAnalysisResult>()>;
    // The distributed job shown; while it returns one (job set), the actions export the job
    // (before a budget log or a trace) and Copy Finding copies the selected job finding
    // (FindingProvider: an index into findings->findings).
    using JobSource = JobExport;
    using JobProvider = std::function<JobSource()>;
    // The PyTorch memory snapshot shown; while it returns one (report.data set), the actions
    // export it and Copy Finding copies its selected finding (SnapshotExport::selectedFinding).
    using SnapshotProvider = std::function<SnapshotExport()>;

    // The actions are added to parent (so their shortcuts work in its window) and owned by
    // this object, a child of parent.
    ExportActions(QWidget* parent, ResultProvider result, ChartProvider chart = {},
                  FindingProvider finding = {});

    // The actions of a window: they export what the page in front of tabs says it shows
    // (DocumentPage::pageExport: a job, a budget log, or a trace with its bookmarks).
    static ExportActions* forDocumentTabs(QWidget* window, const DocumentTabs* tabs);

    void setBudgetProvider(BudgetProvider budget);
    // The bookmarks of the trace shown, listed by the Markdown and HTML reports.
    using BookmarkProvider = std::function<std::vector<ReportBookmark>()>;
    void setBookmarkProvider(BookmarkProvider bookmarks);
    void setJobProvider(JobProvider job);
    // The documents the page shown writes itself (PageExport::documents) and the path of what
    // it shows (never written over); Export Report... offers them when none of the above is shown.
    using DocumentsProvider = std::function<std::vector<PageDocumentExport>()>;
    void setDocumentsProvider(DocumentsProvider documents, std::function<QString()> shownPath);
    // The non-interactive part of exporting one of those documents (as writeReport).
    bool writePageDocument(const QString& file, const PageDocumentExport& document, bool replace,
                           QString* error) const;
    void setSnapshotProvider(SnapshotProvider snapshot);

    QAction* exportReportAction() const { return m_exportReport; }
    QAction* saveChartAction() const { return m_saveChart; }
    QAction* copyFindingAction() const { return m_copyFinding; }

    // Enables the actions for the current result and selection; call when either changes.
    void updateEnabled();

    // File dialog filters: "HTML report (*.html)" ...
    static QString nameFilter(ExportFormat format);
    static std::optional<ExportFormat> formatForFilter(const QString& filter);
    // The file name with the format's suffix appended when it has none.
    static QString withSuffix(const QString& file, ExportFormat format);
    // What a save dialog's answer means: the typed extension decides the format when it is
    // one of offered ("report.pdf" is a PDF whichever filter was chosen; ".csv" keeps the
    // filter's CSV kind); a name without an extension, or with one gapscope does not write,
    // gets the filter's (renamed: the user is shown the final name before it is written).
    struct Target
    {
        QString file;
        ExportFormat format;
        bool renamed = false; // an unknown typed extension was kept and the filter's appended
    };
    static Target targetFor(const QString& typed, ExportFormat filterFormat,
                            const std::vector<ExportFormat>& offered);

    // The non-interactive part of "Export Report...": renders and writes atomically. Refuses
    // a file that is the document shown (as `gapscope export` refuses its input), and to
    // replace an existing file unless replace is true. false with *error on failure.
    bool writeReport(const QString& file, ExportFormat format, QSize chartSize, bool replace,
                     QString* error) const;
    // The non-interactive part of "Save Chart As...": PNG/SVG of the chart on screen at its
    // current size (what the user sees, zoom included), CSV of its series. A snapshot's segment
    // map is drawn whole at that size (every segment, nothing scrolled out), as the report draws
    // it; its CSV is the segments'.
    bool writeChart(const QString& file, ExportFormat format, bool replace, QString* error) const;
    // The Markdown "Copy Finding as Markdown" puts on the clipboard (empty without one).
    QString selectedFindingMarkdown() const;

signals:
    void exported(const QString& file);

private:
    void exportReportInteractively();
    void saveChartInteractively();
    void copyFinding();
    // Asks before replacing; false when the user declines.
    bool confirmReplace(const QString& file) const;
    // Shows the final name of a renamed target; false when the user declines.
    bool confirmRename(const QString& title, const QString& typed, const Target& target) const;
    std::shared_ptr<const BudgetAnalysisResult> budget() const { return m_budget ? m_budget() : nullptr; }
    JobSource job() const { return m_job ? m_job() : JobSource{}; }
    SnapshotExport snapshot() const { return m_snapshot ? m_snapshot() : SnapshotExport{}; }
    bool hasAnalysis() const
    {
        return job().job || budget() || snapshot().report.data || (m_result && m_result());
    }
    std::vector<PageDocumentExport> pageDocuments() const
    {
        return m_documents ? m_documents() : std::vector<PageDocumentExport>{};
    }
    bool hasDocument() const { return hasAnalysis() || !pageDocuments().empty(); }
    void exportPageDocumentInteractively();
    QString documentPath() const;
    // The files the shown document was read from: what an export may never replace.
    QStringList inputPaths() const;
    // Why file may not be written: it is the document shown (or a link to it, or a file in its
    // folder); empty when it may (replacing another file is confirmed or refused elsewhere).
    QString inputConflict(const QString& file) const;
    BudgetExportInput budgetInput() const;

    QWidget* m_parent;
    ResultProvider m_result;
    ChartProvider m_chart;
    FindingProvider m_finding;
    BudgetProvider m_budget;
    BookmarkProvider m_bookmarks;
    JobProvider m_job;
    DocumentsProvider m_documents;
    std::function<QString()> m_shownPath;
    SnapshotProvider m_snapshot;
    QAction* m_exportReport;
    QAction* m_saveChart;
    QAction* m_copyFinding;
};

} // namespace gapscope
