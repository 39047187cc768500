#include "app/cli/ExportCommand.h"

#include "app/cli/Cli.h"
#include "app/cli/CliOptions.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/document/Document.h"
#include "model/report/ReportWriters.h"
#include "model/report/SeriesCsv.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/common/PdfReport.h"
#include "widgets/export/ChartExport.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/snapshot/SegmentMapExport.h"
#include "widgets/trace/GapChartView.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <functional>
#include <memory>

namespace gapscope {

namespace {

const char* const kGapChartTitle = "Gap over time";
const char* const kGapChartCaption = "Device used minus allocator reserved (the hidden memory) over the "
                                     "analysed samples, with the drift line, "
                                     "the spike band and the findings marked.";

const char* const kHeatmapTitle = "Job heatmap";
const char* const kHeatmapCaption =
    "Every rank's gap (device used minus allocator reserved) on the ranks' aligned "
    "clocks, one row per rank: each pixel column shows its sample of largest "
    "|gap|; missing ranks hatched, the first-cause suspect marked, the cluster "
    "onset dashed, collective intervals outlined by class.";
const char* const kHeatmapPicture = "heatmap.png";

const char* const kSegmentMapTitle = "Segment map";
const char* const kSegmentMapCaption =
    "Every segment the caching allocator reserved, as a bar of its blocks to one scale (the largest "
    "segment fills a column), grouped by device, stream and pool in address order: active allocated, "
    "active pending free and inactive blocks.";

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
    // a job's heatmap (Markdown, HTML and PDF carry it); null for anything else
    std::function<std::unique_ptr<QWidget>(QSize)> makeHeatmap = {};
    QString heatmapPicturePath = {}; // Markdown: where its picture is written (empty: not written)
};

bool hasWidgets()
{
    return qobject_cast<QApplication*>(QCoreApplication::instance()) != nullptr;
}

QByteArray pngOf(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.convertToFormat(QImage::Format_RGB32).save(&buffer, "PNG");
    return bytes;
}

// A page is about 7 inches wide: a chart laid out wider than 900 px would print its labels too
// small to read, so the PDF lays it out at 900 px (drawn sharper: kPdfChartScale).
QSize pdfChartSize(QSize chartSize)
{
    constexpr int kPdfChartWidth = 900;
    return chartSize.width() > kPdfChartWidth
               ? QSize(kPdfChartWidth, chartSize.height() * kPdfChartWidth / chartSize.width())
               : chartSize;
}
// 2250 px across about 7 inches: over 300 dpi
constexpr qreal kPdfChartScale = 2.5;

ExportOutcome renderExportSource(const ExportSource& source, ExportFormat format, QSize chartSize)
{
    const bool markdownPicture =
        format == ExportFormat::Markdown && source.makeHeatmap && !source.heatmapPicturePath.isEmpty();
    if ((exportFormatNeedsWidgets(format) || markdownPicture) && !hasWidgets())
        return {
            {},
            QStringLiteral("%1 export draws charts and needs a QApplication").arg(exportFormatName(format))};
    if (!chartSize.isValid() || chartSize.isEmpty())
        chartSize = kDefaultChartSize;
    switch (format) {
    case ExportFormat::Json:
        return {reportJson(source.content), {}};
    case ExportFormat::Markdown: {
        if (!source.makeHeatmap)
            return {reportMarkdown(source.content).toUtf8(), {}};
        ReportImage image{QString::fromLatin1(kHeatmapTitle),
                          QString::fromLatin1(kHeatmapCaption),
                          QStringLiteral("image/png"),
                          {},
                          chartSize};
        ExportOutcome outcome;
        if (markdownPicture) {
            const auto heatmap = source.makeHeatmap(chartSize);
            image.size = heatmap->size();
            outcome.attachments.push_back(
                {source.heatmapPicturePath, pngOf(renderChartImage(heatmap.get(), image.size))});
            image.fileName = QFileInfo(source.heatmapPicturePath).fileName();
        }
        outcome.data = reportMarkdown(source.content, {image}).toUtf8();
        return outcome;
    }
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

    if (format == ExportFormat::Pdf)
        chartSize = pdfChartSize(chartSize);
    const auto chart = source.makeChart(chartSize);
    const QString& title = source.chartTitle;
    switch (format) {
    case ExportFormat::Png:
        return {chartPng(chart.get(), chartSize), {}};
    case ExportFormat::Svg:
        return {chartSvg(chart.get(), chartSize, title), {}};
    case ExportFormat::Html: {
        std::vector<ReportImage> images{{title, source.chartCaption, QStringLiteral("image/svg+xml"),
                                         chartSvg(chart.get(), chartSize, title), chartSize}};
        // the heatmap's cells are an image already: PNG, not SVG around a bitmap
        if (source.makeHeatmap) {
            const auto heatmap = source.makeHeatmap(chartSize);
            images.push_back({QString::fromLatin1(kHeatmapTitle), QString::fromLatin1(kHeatmapCaption),
                              QStringLiteral("image/png"),
                              pngOf(renderChartImage(heatmap.get(), heatmap->size())), heatmap->size()});
        }
        return {reportHtml(source.content, images).toUtf8(), {}};
    }
    case ExportFormat::Pdf: {
        std::vector<PdfChart> charts{
            {title, source.chartCaption, renderChartImage(chart.get(), chartSize, kPdfChartScale)}};
        if (source.makeHeatmap)
            charts.push_back({QString::fromLatin1(kHeatmapTitle), QString::fromLatin1(kHeatmapCaption), [&] {
                                  const auto heatmap = source.makeHeatmap(chartSize);
                                  return renderChartImage(heatmap.get(), heatmap->size(), kPdfChartScale);
                              }()});
        QString error;
        QByteArray pdf = reportPdf(source.content, charts, &error);
        return {pdf, error};
    }
    default:
        break;
    }
    return {{}, QStringLiteral("unsupported format")};
}

// The export of a trace's analysis with the report content given (a job's has its ranks and
// its heatmap).
ExportOutcome renderTraceExport(const std::shared_ptr<const AnalysisResult>& result, ReportContent content,
                                ExportFormat format, QSize chartSize,
                                std::function<std::unique_ptr<QWidget>(QSize)> makeHeatmap = {},
                                const QString& heatmapPicturePath = {})
{
    ExportSource source;
    source.makeHeatmap = std::move(makeHeatmap);
    source.heatmapPicturePath = heatmapPicturePath;
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

ExportOutcome renderExport(const DocumentAnalysis& analysis, ExportFormat format, QSize chartSize,
                           const QString& outputFile)
{
    if (!analysis.trace)
        return {{}, QStringLiteral("no analysis to export")};
    // JSON prints the cross-rank analyses; the rank table and the heatmap of a job's Markdown,
    // HTML and PDF too
    const bool jobReport = analysis.job && (format == ExportFormat::Markdown ||
                                            format == ExportFormat::Html || format == ExportFormat::Pdf);
    const bool crossRank = format == ExportFormat::Json || jobReport;
    std::function<std::unique_ptr<QWidget>(QSize)> makeHeatmap;
    if (jobReport)
        makeHeatmap = [&analysis](QSize size) -> std::unique_ptr<QWidget> {
            return createExportJobHeatmap(analysis.job, analysis.jobAnalysis(), size);
        };
    return renderTraceExport(analysis.trace, analysis.reportContent(crossRank), format, chartSize,
                             std::move(makeHeatmap),
                             markdownPicturePath(outputFile, QString::fromLatin1(kHeatmapPicture)));
}

QString markdownPicturePath(const QString& reportFile, const QString& picture)
{
    if (reportFile.isEmpty() || reportFile == QLatin1String(kStandardOutputName))
        return {};
    const QFileInfo report(reportFile);
    return report.dir().filePath(report.completeBaseName() + QLatin1Char('-') + picture);
}

OutputStatus writeExport(const QString& file, const ExportOutcome& outcome, const QStringList& inputs,
                         bool force)
{
    std::vector<QString> created;
    const auto removeCreated = [&created] {
        for (const QString& path : created)
            QFile::remove(path);
    };
    for (const ExportAttachment& attachment : outcome.attachments) {
        if (QFileInfo(attachment.path).absoluteFilePath() == QFileInfo(file).absoluteFilePath()) {
            removeCreated();
            return {OutputStatus::Kind::Refused,
                    QStringLiteral("%1: the report's picture would replace the report").arg(file)};
        }
        const bool existed = QFileInfo::exists(attachment.path);
        OutputStatus status = checkOutputPath(attachment.path, inputs, force);
        if (status.ok())
            status = writeOutputFile(attachment.path, attachment.data, force);
        if (!status.ok()) {
            removeCreated();
            return status;
        }
        if (!existed)
            created.push_back(attachment.path);
    }
    const OutputStatus status = writeOutputFile(file, outcome.data, force);
    if (!status.ok())
        removeCreated();
    return status;
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

ExportOutcome renderSnapshotExport(const SnapshotReportInput& input, ExportFormat format, QSize chartSize)
{
    if (!input.data)
        return {{}, QStringLiteral("no snapshot to export")};
    if (exportFormatNeedsWidgets(format) && !hasWidgets())
        return {
            {},
            QStringLiteral("%1 export draws charts and needs a QApplication").arg(exportFormatName(format))};
    if (!chartSize.isValid() || chartSize.isEmpty())
        chartSize = kDefaultChartSize;
    switch (format) {
    case ExportFormat::Json:
        return {snapshotReportJson(input), {}};
    case ExportFormat::Markdown:
        return {snapshotReportMarkdown(buildSnapshotReportContent(input)).toUtf8(), {}};
    case ExportFormat::Csv:
        return {snapshotSegmentsCsv(*input.data), {}};
    case ExportFormat::FindingsCsv:
        return {snapshotFindingsCsv(buildSnapshotReportContent(input)), {}};
    case ExportFormat::Png:
    case ExportFormat::Svg:
    case ExportFormat::Html:
    case ExportFormat::Pdf:
        break;
    }
    if (format == ExportFormat::Pdf)
        chartSize = pdfChartSize(chartSize);
    // PNG and SVG are the size asked; a report's picture no higher than its segments need
    const auto map = createExportSegmentMap(input.data, chartSize,
                                            format == ExportFormat::Html || format == ExportFormat::Pdf);
    const QSize pictureSize = map->size();
    const QString title = QString::fromLatin1(kSegmentMapTitle);
    const QString caption = QString::fromLatin1(kSegmentMapCaption);
    switch (format) {
    case ExportFormat::Png:
        return {chartPng(map.get(), chartSize), {}};
    case ExportFormat::Svg:
        return {chartSvg(map.get(), chartSize, title), {}};
    case ExportFormat::Html:
        return {snapshotReportHtml(buildSnapshotReportContent(input),
                                   {{title, caption, QStringLiteral("image/svg+xml"),
                                     chartSvg(map.get(), pictureSize, title), pictureSize}})
                    .toUtf8(),
                {}};
    case ExportFormat::Pdf: {
        QString error;
        QByteArray pdf = snapshotReportPdf(
            buildSnapshotReportContent(input),
            {{title, caption, renderChartImage(map.get(), pictureSize, kPdfChartScale)}}, &error);
        return {pdf, error};
    }
    default:
        break;
    }
    return {{}, QStringLiteral("unsupported format")};
}

int runExportCommand(const QStringList& args, FILE* out, FILE* err)
{
    const QString prefix = QStringLiteral("gapscope export: ");
    CommonOptions options;
    if (const QString why = parseOptions(QStringLiteral("export"), args, &options); !why.isEmpty()) {
        printLine(err, prefix + why);
        return kExitUsage;
    }
    if (options.help) {
        std::fputs(options.helpText.toUtf8().constData(), out);
        return kExitOk;
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
    const QSize chartSize = options.size.value_or(kDefaultChartSize);
    int exitCode = kExitOk;
    // a PyTorch memory snapshot has totals and findings of its own, not a trace's analysis
    if (const QString path = snapshotPathOf(options); !path.isEmpty()) {
        const std::optional<SnapshotReportInput> snapshot =
            loadSnapshotForReport(options, path, err, prefix, &exitCode);
        if (!snapshot)
            return exitCode;
        const ExportOutcome exported = renderSnapshotExport(*snapshot, *format, chartSize);
        if (!exported.error.isEmpty()) {
            printLine(err, prefix + exported.error);
            return kExitFailure;
        }
        if (exitCode = emitReport(options.output, exported.data, options.force, out, err, prefix);
            exitCode != kExitOk)
            return exitCode;
        reportSnapshotProblems(*snapshot->data, err, prefix);
        return kExitOk;
    }
    const auto inputs = analyzeForReport(options, err, prefix, &exitCode);
    if (!inputs)
        return exitCode;
    const DocumentAnalysis& analysis = inputs->analysis;
    const ExportOutcome exported =
        analysis.budget ? renderBudgetExport(budgetExportInput(*analysis.budget), *format, chartSize)
                        : renderExport(analysis, *format, chartSize, options.output);
    if (!exported.error.isEmpty()) {
        printLine(err, prefix + exported.error);
        return kExitFailure;
    }
    if (exported.attachments.empty())
        exitCode = emitReport(options.output, exported.data, options.force, out, err, prefix);
    else if (const OutputStatus status = writeExport(options.output, exported, options.paths, options.force);
             !status.ok()) {
        printLine(err, prefix + status.error);
        exitCode = status.exitCode();
    }
    if (exitCode != kExitOk)
        return exitCode;
    reportInputProblems(*inputs, err, prefix);
    return kExitOk;
}

} // namespace gapscope
