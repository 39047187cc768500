#include "app/cli/ExportCommand.h"

#include "app/cli/Cli.h"
#include "app/cli/CliOptions.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/document/Document.h"
#include "model/report/ReportWriters.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/chart/ChartExport.h"
#include "widgets/common/PdfReport.h"
#include "widgets/trace/GapChartView.h"

#include <QApplication>

#include <functional>
#include <memory>

namespace gapscope {

namespace {

const char* const kGapChartTitle = "Gap over time";
const char* const kGapChartCaption = "Device used minus allocator reserved (the hidden memory) over the "
                                     "analysed samples, with the drift line, "
                                     "the spike band and the findings marked.";

const char* const kBudgetChartTitle = "Memory breakdown";
const char* const kBudgetChartCaption = "rss per tick split into caches, leases, reporters, unattributed "
                                        "non-cache memory and allocator retention, with the target, the "
                                        "effective target and the OS reading; ticks not logged are hatched.";

} // namespace

const std::vector<ExportFormat>& allExportFormats()
{
    static const std::vector<ExportFormat> formats{
        ExportFormat::Json, ExportFormat::Markdown,    ExportFormat::Html, ExportFormat::Pdf,
        ExportFormat::Csv,  ExportFormat::FindingsCsv, ExportFormat::Png,  ExportFormat::Svg};
    return formats;
}

QString exportFormatName(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Json:
        return QStringLiteral("json");
    case ExportFormat::Markdown:
        return QStringLiteral("markdown");
    case ExportFormat::Html:
        return QStringLiteral("html");
    case ExportFormat::Pdf:
        return QStringLiteral("pdf");
    case ExportFormat::Csv:
        return QStringLiteral("csv");
    case ExportFormat::FindingsCsv:
        return QStringLiteral("findings-csv");
    case ExportFormat::Png:
        return QStringLiteral("png");
    case ExportFormat::Svg:
        return QStringLiteral("svg");
    }
    return {};
}

QString exportFormatSuffix(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Markdown:
        return QStringLiteral("md");
    case ExportFormat::FindingsCsv:
        return QStringLiteral("csv");
    default:
        return exportFormatName(format);
    }
}

std::optional<ExportFormat> exportFormatFromString(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("md"))
        return ExportFormat::Markdown;
    if (n == QLatin1String("htm"))
        return ExportFormat::Html;
    for (ExportFormat format : allExportFormats())
        if (exportFormatName(format) == n)
            return format;
    return std::nullopt;
}

bool exportFormatNeedsWidgets(ExportFormat format)
{
    return format == ExportFormat::Html || format == ExportFormat::Pdf || format == ExportFormat::Png ||
           format == ExportFormat::Svg;
}

namespace {

// What an export of either kind is made of: the report, the plotted series and the chart.
struct ExportSource
{
    ReportContent content;
    std::function<QByteArray()> seriesCsv;
    std::function<std::unique_ptr<QWidget>(QSize)> makeChart;
    QString chartTitle;
    QString chartCaption;
};

ExportOutcome renderExportSource(const ExportSource& source, ExportFormat format, QSize chartSize)
{
    if (exportFormatNeedsWidgets(format) && !qobject_cast<QApplication*>(QCoreApplication::instance()))
        return {
            {},
            QStringLiteral("%1 export draws charts and needs a QApplication").arg(exportFormatName(format))};
    if (!chartSize.isValid() || chartSize.isEmpty())
        chartSize = kDefaultChartSize;
    switch (format) {
    case ExportFormat::Json:
        return {reportJson(source.content), {}};
    case ExportFormat::Markdown:
        return {reportMarkdown(source.content).toUtf8(), {}};
    case ExportFormat::FindingsCsv:
        return {reportFindingsCsv(source.content), {}};
    case ExportFormat::Csv:
        return {source.seriesCsv(), {}};
    case ExportFormat::Png:
    case ExportFormat::Svg:
    case ExportFormat::Html:
    case ExportFormat::Pdf:
        break;
    }

    // A page is about 7 inches wide: a chart laid out wider than 900 px would print its
    // labels too small to read, so the PDF lays it out at 900 px and draws it sharper.
    constexpr int kPdfChartWidth = 900;
    if (format == ExportFormat::Pdf && chartSize.width() > kPdfChartWidth)
        chartSize = QSize(kPdfChartWidth, chartSize.height() * kPdfChartWidth / chartSize.width());
    const auto chart = source.makeChart(chartSize);
    const QString& title = source.chartTitle;
    switch (format) {
    case ExportFormat::Png:
        return {chartPng(chart.get(), chartSize), {}};
    case ExportFormat::Svg:
        return {chartSvg(chart.get(), chartSize, title), {}};
    case ExportFormat::Html: {
        ReportImage image{title, source.chartCaption, QStringLiteral("image/svg+xml"),
                          chartSvg(chart.get(), chartSize, title), chartSize};
        return {reportHtml(source.content, {image}).toUtf8(), {}};
    }
    case ExportFormat::Pdf: {
        // 2250 px across about 7 inches: over 300 dpi
        PdfChart pdfChart{title, source.chartCaption, renderChartImage(chart.get(), chartSize, 2.5)};
        QString error;
        QByteArray pdf = reportPdf(source.content, {pdfChart}, &error);
        return {pdf, error};
    }
    default:
        break;
    }
    return {{}, QStringLiteral("unsupported format")};
}

// The export of a trace's analysis with the report content given (a job's has its ranks).
ExportOutcome renderTraceExport(const std::shared_ptr<const AnalysisResult>& result, ReportContent content,
                                ExportFormat format, QSize chartSize)
{
    ExportSource source;
    source.content = std::move(content);
    source.seriesCsv = [&] { return chartSeriesCsv(*result); };
    source.makeChart = [&](QSize size) -> std::unique_ptr<QWidget> {
        return createExportGapChart(result, size);
    };
    source.chartTitle = QString::fromLatin1(kGapChartTitle);
    source.chartCaption = QString::fromLatin1(kGapChartCaption);
    return renderExportSource(source, format, chartSize);
}

} // namespace

ExportOutcome renderExport(std::shared_ptr<const AnalysisResult> result, ExportFormat format, QSize chartSize,
                           std::vector<ReportBookmark> bookmarks)
{
    if (!result)
        return {{}, QStringLiteral("no analysis to export")};
    ReportContent content = buildReportContent(*result, format == ExportFormat::Json);
    content.bookmarks = std::move(bookmarks);
    return renderTraceExport(result, std::move(content), format, chartSize);
}

ExportOutcome renderExport(const DocumentAnalysis& analysis, ExportFormat format, QSize chartSize)
{
    if (!analysis.trace)
        return {{}, QStringLiteral("no analysis to export")};
    // JSON prints the cross-rank analyses; the rank table of a job's Markdown, HTML and PDF too
    const bool crossRank = format == ExportFormat::Json ||
                           (analysis.job && (format == ExportFormat::Markdown ||
                                             format == ExportFormat::Html || format == ExportFormat::Pdf));
    return renderTraceExport(analysis.trace, analysis.reportContent(crossRank), format, chartSize);
}

BudgetExportInput budgetExportInput(const BudgetAnalysisResult& result)
{
    return BudgetExportInput{result.data, result.findings, result.thresholds, result.window};
}

bool budgetExportSupports(ExportFormat format)
{
    return std::find(allExportFormats().begin(), allExportFormats().end(), format) !=
           allExportFormats().end();
}

ExportOutcome renderBudgetExport(const BudgetExportInput& input, ExportFormat format, QSize chartSize)
{
    if (!input.data)
        return {{}, QStringLiteral("no budget log to export")};
    // the chart draws the findings given, over the whole log
    auto analysis = std::make_shared<BudgetAnalysisResult>();
    analysis->data = input.data;
    analysis->thresholds = input.thresholds;
    analysis->findings = input.findings;
    analysis->buckets = computeBudgetBuckets(input.data->ticks);
    analysis->lastTick = input.data->ticks.size();
    ExportSource source;
    source.content = buildBudgetReportContent(*input.data, input.findings, input.thresholds);
    source.content.window = input.window;
    source.seriesCsv = [&] { return budgetSeriesCsv(*input.data); };
    source.makeChart = [&](QSize size) -> std::unique_ptr<QWidget> {
        return createExportBudgetChart(analysis, size);
    };
    source.chartTitle = QString::fromLatin1(kBudgetChartTitle);
    source.chartCaption = QString::fromLatin1(kBudgetChartCaption);
    return renderExportSource(source, format, chartSize);
}

int runExportCommand(const QStringList& args, FILE* out, FILE* err)
{
    const QString prefix = QStringLiteral("gapscope export: ");
    CommonOptions options;
    if (const QString why = parseOptions(QStringLiteral("export"), args, &options); !why.isEmpty()) {
        printLine(err, prefix + why);
        return kExitUsage;
    }
    QStringList names;
    for (ExportFormat f : allExportFormats())
        names << exportFormatName(f);
    const auto format = exportFormatFromString(options.format);
    if (!format) {
        printLine(err, prefix + (options.format.isEmpty()
                                     ? QStringLiteral("--format is required (%1)")
                                     : QStringLiteral("unknown format '%1' (%2)").arg(options.format))
                                    .arg(names.join(QStringLiteral(", "))));
        return kExitUsage;
    }
    if (options.output.isEmpty()) {
        printLine(err, prefix + QStringLiteral("--output FILE is required (- for standard output)"));
        return kExitUsage;
    }
    // Checked before the (possibly long) load; the write checks again and never replaces a
    // file without --force, even one created meanwhile.
    if (int exitCode = kExitOk; !outputPathUsable(options, options.force, err, prefix, &exitCode))
        return exitCode;
    int exitCode = kExitOk;
    const auto inputs = analyzeForReport(options, err, prefix, &exitCode);
    if (!inputs)
        return exitCode;
    const DocumentAnalysis& analysis = inputs->analysis;
    const QSize chartSize = options.size.value_or(kDefaultChartSize);
    const ExportOutcome exported =
        analysis.budget ? renderBudgetExport(budgetExportInput(*analysis.budget), *format, chartSize)
                        : renderExport(analysis, *format, chartSize);
    if (!exported.error.isEmpty()) {
        printLine(err, prefix + exported.error);
        return kExitFailure;
    }
    if (exitCode = emitReport(options.output, exported.data, options.force, out, err, prefix);
        exitCode != kExitOk)
        return exitCode;
    reportInputProblems(*inputs, err, prefix);
    return kExitOk;
}

} // namespace gapscope
