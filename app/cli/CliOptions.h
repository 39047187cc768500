#pragma once
// Option parsing, output and messages shared by the headless subcommands (`analyze`,
// `export`, `compare`), so they accept the same options the same way.

#include "analysis/Thresholds.h"
#include "app/cli/Cli.h"
#include "app/cli/OutputFile.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/document/Document.h"
#include "model/report/SnapshotReport.h"
#include "model/trace/TraceComparison.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

namespace gapscope {

// The options of every subcommand: analyze and export read one PATH or the PATHs of a job,
// compare two (A and B, with --session-a/-b and --rank-a/-b for each side and --align); what to
// analyse is a DocumentRequest, so a trace and a memory-budget log take the options the same way.
struct CommonOptions
{
    QString path;               // the first PATH; compare: A
    QStringList paths;          // analyze and export: every PATH (several: a job)
    QString pathB;              // compare only
    DocumentRequest request;    // compare: side A
    DocumentRequest requestB;   // compare only: side B (the thresholds are A's)
    CompareAlignment alignment; // compare only
    QString format;             // the command's default until --format
    QString output;             // empty or "-": standard output (export: required)
    bool force = false;         // export (analyze accepts it: --output always replaces)
    std::optional<QSize> size;  // --size WxH (export only)
    bool noCache = false;       // --no-cache (analyze, export): the input is read, not the reopen cache
    bool help = false;          // --help / -h: print helpText to standard output, exit 0
    QString helpText;
};

inline void printLine(FILE* stream, const QString& text)
{
    const QByteArray utf8 = text.toUtf8();
    std::fwrite(utf8.constData(), 1, size_t(utf8.size()), stream);
    std::fputc('\n', stream);
    std::fflush(stream);
}

inline bool parseInt64(const QString& text, int64_t* out)
{
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    if (ok)
        *out = v;
    return ok;
}

// `--set NAME=VALUE`: false unless VALUE is a number and NAME is not empty.
inline bool parseAssignment(const QString& text, QString* name, double* number)
{
    const qsizetype eq = text.indexOf(QLatin1Char('='));
    bool ok = false;
    *number = eq > 0 ? text.mid(eq + 1).toDouble(&ok) : 0.0;
    *name = text.left(eq);
    return eq > 0 && ok;
}

// Parses the options of `command` (analyze, export or compare) with QCommandLineParser.
// Returns an error text, empty when fine; options->help set: --help or -h was given, and
// options->helpText is what to print.
QString parseOptions(const QString& command, const QStringList& args, CommonOptions* options);

// The help of `command` (analyze, export, compare): its usage, options and notes.
QString commandHelp(const QString& command);

// Refuses an --output that is an input, not a regular file, or exists without force, before
// the (possibly long) load: false and a line on `err`, *exitCode set. Standard output passes.
inline bool outputPathUsable(const CommonOptions& options, bool force, FILE* err, const QString& prefix,
                             int* exitCode)
{
    if (options.output.isEmpty() || options.output == QLatin1String(kStandardOutputName))
        return true;
    const OutputStatus status =
        checkOutputPath(options.output, options.paths + QStringList{options.pathB}, force);
    if (status.ok())
        return true;
    printLine(err, prefix + status.error);
    *exitCode = status.exitCode();
    return false;
}

// Writes a report to --output (atomically; replacing a regular file only with force) or, for
// no --output or "-", to `out`. Returns the exit code; a line on `err` unless kExitOk.
inline int emitReport(const QString& output, const QByteArray& report, bool force, FILE* out, FILE* err,
                      const QString& prefix)
{
    const OutputStatus status = output.isEmpty() || output == QLatin1String(kStandardOutputName)
                                    ? writeOutputStream(out, report)
                                    : writeOutputFile(output, report, force);
    if (!status.ok())
        printLine(err, prefix + status.error);
    return status.exitCode();
}

// The line analyze and export print when the loader rejected records (or budget lines).
inline void reportRejected(const ProblemLog* problems, bool budget, FILE* err, const QString& prefix)
{
    if (!problems || problems->errorCount() == 0)
        return;
    printLine(err,
              prefix + QStringLiteral("%1 %2 rejected; first: %3")
                           .arg(problems->errorCount())
                           .arg(budget ? QStringLiteral("line(s)") : QStringLiteral("record(s)"))
                           .arg(problems->kept().empty() ? QString() : problems->kept().front().toString()));
}

// What analyze and export print after a report of PATHs: the records the loader rejected (of
// each input of a job) and the notes on a job (an input that failed, a rank twice, ...).
inline void reportInputProblems(const InputsAnalysis& inputs, FILE* err, const QString& prefix)
{
    for (const QString& note : inputs.document.notes) // what was read instead of the path given
        printLine(err, prefix + note);
    const JobData* job = inputs.job.job.get();
    if (!job || job->mode == JobMode::Session) {
        reportRejected(inputs.document.problems(), bool(inputs.document.budget), err, prefix);
    } else {
        for (const JobInput& input : job->inputs)
            reportRejected(&input.trace->problems, false, err, prefix);
    }
    // the rows of an attached device log that could not be read (the report lists them)
    if (const auto& shown = inputs.analysis.trace;
        shown && shown->deviceUsedSource && shown->deviceUsedSource->logRowsRejected > 0) {
        const DeviceUsedSource& source = *shown->deviceUsedSource;
        const auto& kept = shown->trace->problems.kept();
        const auto first = std::find_if(kept.begin(), kept.end(),
                                        [&](const LoadProblem& p) { return p.file == source.path; });
        printLine(err, prefix + QStringLiteral("device log: %1 of %2 row(s) rejected; first: %3")
                                    .arg(source.logRowsRejected)
                                    .arg(source.logRows)
                                    .arg(first == kept.end() ? QString() : first->toString()));
    }
    if (!job)
        return;
    constexpr size_t kNotesPrinted = 20; // the report lists them all
    const std::vector<LoadProblem>& notes = job->problems.kept();
    for (size_t i = 0; i < std::min(notes.size(), kNotesPrinted); ++i)
        printLine(err, prefix + notes[i].toString());
    const qint64 all = job->problems.errorCount() + job->problems.warningCount();
    if (all > qint64(kNotesPrinted))
        printLine(
            err,
            prefix +
                QStringLiteral("%1 more notes on the job in the report").arg(all - qint64(kNotesPrinted)));
}

// The analysis of PATHs for analyze and export, or the exit code and its lines on `err`:
// input that cannot be used exits 2 (kExitUsage), one path or several alike; a job none of
// whose inputs loads prints every reason, one line each. (1 is kept for an output that could
// not be written.)
inline std::optional<InputsAnalysis> analyzeForReport(const CommonOptions& options, FILE* err,
                                                      const QString& prefix, int* exitCode)
{
    // The reopen cache the app wrote is read (a valid entry is the trace its input would give,
    // in a fraction of the time) but never written: a script's one-off inputs would fill it.
    // Read-only: an entry it cannot use (another path's, a stale one) is the app's to replace.
    std::optional<TraceCache> cache;
    if (!options.noCache) {
        TraceCacheSettings settings;
        settings.readOnly = true;
        cache.emplace(settings);
    }
    InputsAnalysis inputs = analyzeInputs(options.paths, options.request, {}, cache ? &*cache : nullptr);
    if (inputs.analysis.ok())
        return inputs;
    for (const QString& line : inputs.analysis.error.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        printLine(err, prefix + line);
    *exitCode = kExitUsage;
    return std::nullopt;
}

// analyze and export of a PyTorch memory snapshot (its totals and findings, not a trace's analysis):
// the path of the one PATH given when it is a snapshot, else empty.
QString snapshotPathOf(const CommonOptions& options);
// The snapshot's report input, or nullopt with the exit code and its line on err: an option of a
// trace's analysis (a session, a rank, a window, a device log) or a file that cannot be read is 2.
std::optional<SnapshotReportInput> loadSnapshotForReport(const CommonOptions& options, const QString& path,
                                                         FILE* err, const QString& prefix, int* exitCode);
// The records the snapshot's loader left out: one line on err, none when there are none.
void reportSnapshotProblems(const SnapshotData& data, FILE* err, const QString& prefix);

} // namespace gapscope
