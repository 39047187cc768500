#pragma once
// What File > Export Report..., Save Chart As... and Copy Finding as Markdown export while a
// page is in front (app/ExportActions asks the page, DocumentPage::pageExport): the page says
// what it shows, the actions know how to write it. One of job, budget, snapshot or trace is set.

#include "analysis/Thresholds.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/job/JobFindings.h"
#include "model/report/ReportContent.h"
#include "model/report/SnapshotReport.h"
#include "model/trace/AnalysisRunner.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace gapscope {

// A distributed job: the actions export the job (its report is the one `gapscope export`
// writes for its inputs) and Copy Finding copies the selected job finding.
struct JobExport
{
    std::shared_ptr<const JobData> job;
    std::shared_ptr<const JobFindings> findings; // the cross-rank analyses' findings, when known
    GapThresholds thresholds;                    // each rank's gap analysis
    QString path;                                // the job as the page names it
};

// A document a page writes itself (a fleet: its runs as CSV, its recurring issues as Markdown and
// HTML): Export Report... offers each by its name filter when no job, budget log or trace is set.
struct PageDocumentExport
{
    QString nameFilter; // "CSV of the runs shown (*.csv)"
    QString suffix;     // without the dot
    std::function<QByteArray()> bytes;
};

// A PyTorch memory snapshot: the actions export its report (`gapscope export`'s for the file) and
// its segment map, and Copy Finding copies the selected fragmentation finding.
struct SnapshotExport
{
    SnapshotReportInput report; // data, totals and findings as the page shows them; data null: none
    int selectedFinding = -1;   // into report.findings; -1 for none
};

struct PageExport
{
    JobExport job;
    std::shared_ptr<const BudgetAnalysisResult> budget;
    SnapshotExport snapshot;
    std::shared_ptr<const AnalysisResult> trace;
    std::vector<ReportBookmark> bookmarks;     // the trace's, listed by the Markdown and HTML reports
    std::vector<PageDocumentExport> documents; // what the page writes itself (PageDocumentExport)
};

} // namespace gapscope
