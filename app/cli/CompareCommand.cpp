#include "app/cli/CompareCommand.h"

#include "app/cli/Cli.h"
#include "app/cli/CliOptions.h"
#include "model/document/Document.h"
#include "model/report/AnalysisReport.h"
#include "model/report/ComparisonReport.h"
#include "model/trace/TraceComparison.h"

namespace gapscope {

namespace {

// The analysis of one side; a memory-budget log has no gap series to compare.
DocumentAnalysis analyzeSide(const DocumentOutcome& document, const DocumentRequest& request)
{
    if (document.budget) {
        DocumentAnalysis refused;
        refused.error =
            QStringLiteral("%1: a memory-budget log; compare takes stormlog traces").arg(document.path);
        return refused;
    }
    return analyzeDocument(document, request);
}

} // namespace

int runCompareCommand(const QStringList& args, FILE* out, FILE* err)
{
    const QString prefix = QStringLiteral("gapscope compare: ");
    CommonOptions options;
    if (const QString why = parseOptions(QStringLiteral("compare"), args, &options); !why.isEmpty()) {
        printLine(err, prefix + why);
        return kExitUsage;
    }
    if (options.help) {
        std::fputs(options.helpText.toUtf8().constData(), out);
        return kExitOk;
    }
    // a comparison is written as JSON or Markdown
    const auto format = reportFormatFromString(options.format);
    if (!format || *format == ReportFormat::Text) {
        printLine(err, prefix + QStringLiteral("unknown format '%1' (json, markdown)").arg(options.format));
        return kExitUsage;
    }
    // --output always replaces a regular file (as a shell's redirect would)
    if (int exitCode = kExitOk; !outputPathUsable(options, true, err, prefix, &exitCode))
        return exitCode;
    // One load when both sides are the same trace (two sessions or ranks of one run).
    const DocumentOutcome loadedA = loadDocument(options.path);
    if (!loadedA.ok()) {
        printLine(err, prefix + loadedA.failure());
        return kExitUsage;
    }
    const DocumentOutcome loadedB = options.pathB == options.path ? loadedA : loadDocument(options.pathB);
    if (!loadedB.ok()) {
        printLine(err, prefix + loadedB.failure());
        return kExitUsage;
    }
    QStringList notes = loadedA.notes; // a run folder read as its sink, say
    if (options.pathB != options.path)
        notes << loadedB.notes;
    for (const QString& note : notes)
        printLine(err, prefix + note);
    const DocumentAnalysis resultA = analyzeSide(loadedA, options.request);
    if (!resultA.trace) {
        printLine(err, prefix + QStringLiteral("A: ") + resultA.error);
        return kExitUsage;
    }
    const DocumentAnalysis resultB = analyzeSide(loadedB, options.requestB);
    if (!resultB.trace) {
        printLine(err, prefix + QStringLiteral("B: ") + resultB.error);
        return kExitUsage;
    }
    QString error;
    const auto comparison = compareAnalyses(resultA.trace, resultB.trace, options.alignment, &error);
    if (!comparison) {
        printLine(err, prefix + error);
        return kExitUsage;
    }
    const QByteArray report = *format == ReportFormat::Json ? renderComparisonJson(*comparison)
                                                            : renderComparisonMarkdown(*comparison);
    return emitReport(options.output, report, true, out, err, prefix);
}

} // namespace gapscope
