#include "app/cli/Cli.h"

#include "app/cli/CliOptions.h"
#include "app/cli/CompareCommand.h"
#include "app/cli/ExportCommand.h"
#include "app/cli/IndexCommand.h"
#include "model/document/Document.h"
#include "model/document/Recognition.h"
#include "model/report/AnalysisReport.h"
#include "model/report/ReportWriters.h"
#include "model/report/SnapshotReport.h"

namespace gapscope {

namespace {

// `analyze` of a PyTorch memory snapshot: its totals and findings (model/snapshot), in the format
// asked for. The options of a trace's analysis (a session, a rank, a window, a device log) do not apply.
int analyzeSnapshot(const CommonOptions& options, const QString& path, ReportFormat format, FILE* out,
                    FILE* err, const QString& prefix)
{
    int exitCode = kExitOk;
    const std::optional<SnapshotReportInput> input =
        loadSnapshotForReport(options, path, err, prefix, &exitCode);
    if (!input)
        return exitCode;
    QByteArray report;
    switch (format) {
    case ReportFormat::Json:
        report = snapshotReportJson(*input);
        break;
    case ReportFormat::Markdown:
        report = snapshotReportMarkdown(buildSnapshotReportContent(*input)).toUtf8();
        break;
    case ReportFormat::Text:
        report = snapshotReportText(*input).toUtf8();
        break;
    }
    if (exitCode = emitReport(options.output, report, true, out, err, prefix); exitCode != kExitOk)
        return exitCode;
    reportSnapshotProblems(*input->data, err, prefix);
    return kExitOk;
}

int runAnalyze(const QStringList& args, FILE* out, FILE* err)
{
    const QString prefix = QStringLiteral("gapscope analyze: ");
    CommonOptions options;
    if (const QString why = parseOptions(QStringLiteral("analyze"), args, &options); !why.isEmpty()) {
        printLine(err, prefix + why);
        return kExitUsage;
    }
    if (options.help) {
        std::fputs(options.helpText.toUtf8().constData(), out);
        return kExitOk;
    }
    const auto format = reportFormatFromString(options.format);
    if (!format) {
        printLine(err,
                  prefix + QStringLiteral("unknown format '%1' (json, markdown, text)").arg(options.format));
        return kExitUsage;
    }
    // --output always replaces a regular file (as a shell's redirect would)
    if (int exitCode = kExitOk; !outputPathUsable(options, true, err, prefix, &exitCode))
        return exitCode;
    // a PyTorch memory snapshot has totals of its own, not a trace's analysis
    if (const QString snapshot = snapshotPathOf(options); !snapshot.isEmpty())
        return analyzeSnapshot(options, snapshot, *format, out, err, prefix);
    int exitCode = kExitOk;
    const auto inputs = analyzeForReport(options, err, prefix, &exitCode);
    if (!inputs)
        return exitCode;
    // the cross-rank analyses: JSON prints them, and every format's rank table of a job
    const DocumentAnalysis& analysis = inputs->analysis;
    const ReportContent content = analysis.reportContent(*format == ReportFormat::Json || analysis.job);
    QByteArray report;
    switch (*format) {
    case ReportFormat::Json:
        report = reportJson(content);
        break;
    case ReportFormat::Markdown:
        report = reportMarkdown(content).toUtf8();
        break;
    case ReportFormat::Text:
        report = reportText(content).toUtf8();
        break;
    }
    if (exitCode = emitReport(options.output, report, true, out, err, prefix); exitCode != kExitOk)
        return exitCode;
    reportInputProblems(*inputs, err, prefix);
    return kExitOk;
}

} // namespace

QString cliUsage()
{
    return QStringLiteral(
        "usage:\n"
        "  gapscope [--no-cache] [--cache-max-mb N] [--snapshot PICKLE] [FILE...]\n"
        "                                            open the desktop app (PICKLE: a PyTorch memory\n"
        "                                            snapshot drawn on the trace's time axis)\n"
        "  gapscope --version                        print the version\n"
        "  gapscope --help, -h                       print this text\n"
        "  gapscope COMMAND --help                   the options of analyze, export, compare or index\n"
        "  gapscope --screenshot OUT.png [--size WxH] FILE\n"
        "  gapscope analyze PATH... [--session ID] [--rank N] [--format json|markdown|text]\n"
        "                        [--output FILE|-] [--from NS] [--to NS] [--set NAME=VALUE ...]\n"
        "                        [--no-cache] [--device-log FILE [--device-log-tz ZONE]]\n"
        "  gapscope export PATH... --format json|markdown|html|pdf|csv|findings-csv|png|svg\n"
        "                       --output FILE|- [--session ID] [--rank N] [--from NS] [--to NS]\n"
        "                       [--set NAME=VALUE ...] [--size WxH] [--force] [--no-cache]\n"
        "                       [--device-log FILE [--device-log-tz ZONE]]\n"
        "  gapscope compare A B [--session-a ID] [--rank-a N] [--session-b ID] [--rank-b N]\n"
        "                       [--align start|phase:LABEL] [--format json|markdown] [--output FILE|-]\n"
        "                       [--set NAME=VALUE ...] [--device-log[-a|-b] FILE [--device-log-tz ZONE]]\n"
        "  gapscope index ROOT... --output DB [--shard I/N] [--threads N]\n"
        "                       index every run under the ROOTs into an SQLite database\n"
        "                       (docs/fleet-schema.md); unchanged inputs are not read again\n"
        "  gapscope index --merge PART... --output DB   merge shards' databases\n"
        "--device-log FILE: device used from nvidia-smi's CSV log (--query-gpu=timestamp,memory.used,\n"
        "  memory.total: the whole GPU; --query-compute-apps=timestamp,pid,used_memory: the trace's pid),\n"
        "  each sample taking the log row nearest in time; its local times are read in --device-log-tz\n"
        "  (IANA name, UTC or +02:00; default this system's zone)\n"
        "the app keeps a large trace (64 MiB or more) in the reopen cache (the user's cache folder,\n"
        "  at most --cache-max-mb or the setting cache/maxMegabytes, default 4096) and reads it from\n"
        "  there while the input is unchanged; analyze and export read it too, never write it;\n"
        "  --no-cache reads the input\n"
        "thresholds for --set: gap_ratio_threshold, gap_spike_zscore, gap_drift_r_squared,\n"
        "                      gap_fragmentation_ratio\n"
        "Several PATHs, or a folder of per-rank inputs (rank*/telemetry_sink/ sinks or trace files),\n"
        "  are one distributed job: every rank is analysed and listed (--rank picks the one shown\n"
        "  in full, else the lowest); so is one trace whose session holds several ranks.\n"
        "analyze of a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot's .pickle or .pickle.gz)\n"
        "  prints its totals and findings (--format json: an object \"snapshot\"); export writes its\n"
        "  reports (csv: one row per segment; png, svg: the segment map)\n"
        "PATH may also be a memory-budget log (detected from its content); for those --set also\n"
        "takes min_trend_ticks, growth_r_squared, growth_p_value, min_growth_bytes,\n"
        "  flat_tolerance_bytes, flat_tolerance_share, retention_share_of_growth,\n"
        "  critical_r_squared, critical_growth_share_of_target, wedge_skip_ticks,\n"
        "  over_target_share, hard_ceiling_bytes, hard_ceiling_approach_share,\n"
        "  thrash_alternations, thrash_window_ticks, low_hit_rate, low_hit_rate_budget_share,\n"
        "  min_hit_rate_ticks, and the gap names above (also as os_gap.NAME) for the\n"
        "  OS-vs-allocator gap rule\n"
        "a trace's JSON report (analyze, export) also holds upstream's collective attribution and,\n"
        "for several ranks, its cross-rank analysis; their settings: --set "
        "collective.preset=low|medium|high,\n"
        "  collective.NAME=VALUE for min_samples_per_rank, min_gap_bytes, min_gap_ratio,\n"
        "  robust_zscore_threshold, marker_window_ns, interval_padding_ns, synchrony_window_ns,\n"
        "  min_synchrony_ratio, min_confidence\n");
}

bool isCliCommand(const QString& firstArgument)
{
    return firstArgument == QLatin1String("analyze") || firstArgument == QLatin1String("export") ||
           firstArgument == QLatin1String("compare") || firstArgument == QLatin1String("index");
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
    if (args.front() == QLatin1String("index"))
        return runIndexCommand(args, out, err);
    printLine(err, QStringLiteral("gapscope: unknown command '%1'\n").arg(args.front()) + cliUsage());
    return kExitUsage;
}

} // namespace gapscope
