#include "Cli.h"

#include "CliOptions.h"
#include "CompareCommand.h"
#include "ExportCommand.h"
#include "model/AnalysisReport.h"
#include "model/TraceLoader.h"

namespace gapscope {

namespace {

int runAnalyze(const QStringList& args, FILE* out, FILE* err)
{
    CommonOptions options;
    if (const QString why = parseOptions(QStringLiteral("analyze"), args, &options); !why.isEmpty()) {
        printLine(err, QStringLiteral("gapscope analyze: ") + why);
        return kExitUsage;
    }
    const auto format = reportFormatFromString(options.format);
    if (!format) {
        printLine(err, QStringLiteral("gapscope analyze: unknown format '%1' (json, markdown, text)").arg(options.format));
        return kExitUsage;
    }
    const LoadOutcome loaded = loadTrace(options.path);
    if (!loaded.data) {
        printLine(err, QStringLiteral("gapscope analyze: ") + loaded.fatalError);
        return kExitUsage;
    }
    QString error;
    const auto result = analyzeWithOptions(loaded.data, options, &error);
    if (!result) {
        printLine(err, QStringLiteral("gapscope analyze: ") + error);
        return kExitUsage;
    }
    const QByteArray report = renderAnalysisReport(*result, *format);
    if (!options.output.isEmpty()) {
        if (const QString why = writeOutput(options.output, report, true); !why.isEmpty()) {
            printLine(err, QStringLiteral("gapscope analyze: ") + why);
            return kExitFailure;
        }
    } else {
        std::fwrite(report.constData(), 1, size_t(report.size()), out);
        std::fflush(out);
    }
    if (loaded.data->problems.errorCount() > 0) {
        printLine(err, QStringLiteral("gapscope analyze: %1 record(s) rejected; first: %2")
                           .arg(loaded.data->problems.errorCount())
                           .arg(loaded.data->problems.kept().empty() ? QString()
                                                                     : loaded.data->problems.kept().front().toString()));
    }
    return kExitOk;
}

} // namespace

QString cliUsage()
{
    return QStringLiteral(
        "usage:\n"
        "  gapscope [FILE...]                        open the desktop app\n"
        "  gapscope --screenshot OUT.png [--size WxH] FILE\n"
        "  gapscope analyze PATH [--session ID] [--rank N] [--format json|markdown|text]\n"
        "                        [--output FILE] [--from NS] [--to NS] [--set NAME=VALUE ...]\n"
        "  gapscope export PATH --format json|markdown|html|pdf|csv|findings-csv|png|svg\n"
        "                       --output FILE [--session ID] [--rank N] [--from NS] [--to NS]\n"
        "                       [--set NAME=VALUE ...] [--size WxH] [--force]\n"
        "  gapscope compare A B [--session-a ID] [--rank-a N] [--session-b ID] [--rank-b N]\n"
        "                       [--align start|phase:LABEL] [--format json|markdown] [--output FILE]\n"
        "                       [--set NAME=VALUE ...]\n"
        "thresholds for --set: gap_ratio_threshold, gap_spike_zscore, gap_drift_r_squared,\n"
        "                      gap_fragmentation_ratio\n");
}

bool isCliCommand(const QString& firstArgument)
{
    return firstArgument == QLatin1String("analyze") || firstArgument == QLatin1String("export") ||
           firstArgument == QLatin1String("compare");
}

int runCli(const QStringList& args, FILE* out, FILE* err)
{
    if (args.isEmpty())
        return kExitUsage;
    if (args.front() == QLatin1String("analyze"))
        return runAnalyze(args, out, err);
    if (args.front() == QLatin1String("export"))
        return runExportCommand(args, out, err);
    if (args.front() == QLatin1String("compare"))
        return runCompareCommand(args, out, err);
    printLine(err, QStringLiteral("gapscope: unknown command '%1'\n").arg(args.front()) + cliUsage());
    return kExitUsage;
}

} // namespace gapscope
