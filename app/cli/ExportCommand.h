#pragma once
// `gapscope export` and the one export pipeline the app's "Export Report..." shares with it,
// so both write the same bytes for the same inputs.

#include "analysis/BudgetAnalysis.h"
#include "app/cli/OutputFile.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/document/Document.h"
#include "model/report/ReportContent.h"
#include "model/report/SnapshotReport.h"
#include "model/store/BudgetData.h"
#include "model/trace/AnalysisRunner.h"

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

enum class ExportFormat
{
    Json, // the `gapscope analyze` object
    Markdown,
    Html, // self-contained, chart inlined
    Pdf,
    Csv,         // the plotted series
    FindingsCsv, // one row per finding
    Png,         // the gap chart
    Svg,
};

std::optional<ExportFormat> exportFormatFromString(const QString& name); // also "md", "htm"
QString exportFormatName(ExportFormat format);                           // "json", "findings-csv"
QString exportFormatSuffix(ExportFormat format);                         // "json", "md", "csv"
const std::vector<ExportFormat>& allExportFormats();
// Draws a chart: needs a QApplication (the CLI runs one on the offscreen platform).
bool exportFormatNeedsWidgets(ExportFormat format);

// A file an export writes beside its report: the pictures a Markdown report links to.
struct ExportAttachment
{
    QString path; // beside the report
    QByteArray data;
};

struct ExportOutcome
{
    QByteArray data;
    QString error; // non-empty: data is unusable
    std::vector<ExportAttachment> attachments = {};
};

// Where a Markdown report's picture is written: beside reportFile, named after it
// ("run7.md" -> "run7-heatmap.png" for "heatmap.png"); empty for standard output or no file.
QString markdownPicturePath(const QString& reportFile, const QString& picture);

// Writes an export to file: its attachments first (so the report never links to a file that is
// not there), each checked as --output is (not an input, a regular file, replaced only with
// force), then the report. A picture written for a report that then fails is removed again.
OutputStatus writeExport(const QString& file, const ExportOutcome& outcome, const QStringList& inputs,
                         bool force);

// The bytes of one export. chartSize is the chart image size (PNG, SVG and the images inside
// HTML and PDF).
// bookmarks (the app's) are listed by the Markdown and HTML reports.
ExportOutcome renderExport(std::shared_ptr<const AnalysisResult> result, ExportFormat format, QSize chartSize,
                           std::vector<ReportBookmark> bookmarks = {});
// The export of a trace's analysis (analyzeDocument) or a job's (analyzeJobDocument: the chart
// and the series CSV are of its rank shown, the reports add the ranks and the cross-rank
// analyses, the findings CSV lists every rank's findings). Not for a budget log. A job's
// Markdown, HTML and PDF also carry the job heatmap (createExportJobHeatmap) as wide as the chart
// and at most as high (a few ranks take less):
// inline in HTML and PDF, and for Markdown as a PNG attachment beside outputFile (the file the
// report will be written to; empty or "-": no attachment, the report says where it would be).
ExportOutcome renderExport(const DocumentAnalysis& analysis, ExportFormat format, QSize chartSize,
                           const QString& outputFile = {});

// A memory-budget log with the findings of analyzeBudget.
struct BudgetExportInput
{
    std::shared_ptr<const BudgetData> data;
    std::vector<Finding> findings;
    BudgetThresholds thresholds;
    std::optional<TimeWindow> window =
        std::nullopt; // the window the findings were analysed in; the report says it
};
// The input of a budget analysis (its findings, thresholds and window).
BudgetExportInput budgetExportInput(const BudgetAnalysisResult& result);

// Every format: PNG and SVG draw the breakdown chart, HTML and PDF carry it.
bool budgetExportSupports(ExportFormat format);
ExportOutcome renderBudgetExport(const BudgetExportInput& input, ExportFormat format,
                                 QSize chartSize = QSize(1200, 600));

// A PyTorch memory snapshot (model/report/SnapshotReport): JSON is analyze's `snapshot` object,
// Markdown, HTML and PDF its report (HTML and PDF with the segment map drawn at chartSize), CSV
// one row per segment (snapshotSegmentsCsv), findings-csv the fragmentation findings, PNG and SVG
// the segment map (widgets/snapshot/SegmentMapExport: every segment inside chartSize).
ExportOutcome renderSnapshotExport(const SnapshotReportInput& input, ExportFormat format,
                                   QSize chartSize = QSize(1200, 600));

// args: {"export", PATH..., options...}. Exit codes as Cli.h. PATH may be a stormlog trace or
// a memory-budget log (detected from content) or a PyTorch memory snapshot; several PATHs or a
// job folder are a job.
int runExportCommand(const QStringList& args, FILE* out, FILE* err);

} // namespace gapscope
