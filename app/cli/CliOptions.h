#pragma once
// Option parsing, output and messages shared by the headless subcommands (`analyze`,
// `export`, `compare`), so they accept the same options the same way.

#include "analysis/Thresholds.h"
#include "app/cli/Cli.h"
#include "app/cli/OutputFile.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/document/Document.h"
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

// Parses the options of `command` (analyze, export or compare). Returns an error text, empty
// when fine.
inline QString parseOptions(const QString& command, const QStringList& args, CommonOptions* options)
{
    const bool compare = command == QLatin1String("compare");
    const bool exporting = command == QLatin1String("export");
    if (command == QLatin1String("analyze"))
        options->format = QStringLiteral("text");
    else if (compare)
        options->format = QStringLiteral("markdown");
    DocumentRequest& request = options->request;
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& arg = args[i];
        auto next = [&](QString* value) -> bool {
            if (i + 1 >= args.size())
                return false;
            *value = args[++i];
            return true;
        };
        // --session / --rank, and for compare --session-a/-b, --rank-a/-b
        const auto sideOf = [&](const QString& name) -> DocumentRequest* {
            if (!compare)
                return arg == name ? &request : nullptr;
            if (arg == name + QStringLiteral("-a"))
                return &request;
            return arg == name + QStringLiteral("-b") ? &options->requestB : nullptr;
        };
        QString value;
        if (DocumentRequest* side = sideOf(QStringLiteral("--session"))) {
            if (!next(&value))
                return QStringLiteral("%1 needs an id").arg(arg);
            side->session = value;
        } else if (DocumentRequest* side = sideOf(QStringLiteral("--rank"))) {
            int64_t rank = 0;
            if (!next(&value) || !parseInt64(value, &rank))
                return QStringLiteral("%1 needs an integer").arg(arg);
            side->rank = rank;
        } else if (arg == QLatin1String("--align") && compare) {
            const auto alignment = next(&value) ? CompareAlignment::fromString(value) : std::nullopt;
            if (!alignment)
                return QStringLiteral("--align needs start or phase:LABEL, got '%1'").arg(value);
            options->alignment = *alignment;
        } else if (arg == QLatin1String("--format")) {
            if (!next(&value))
                return QStringLiteral("--format needs a value");
            options->format = value;
        } else if (arg == QLatin1String("--output") || arg == QLatin1String("-o")) {
            if (!next(&value))
                return QStringLiteral("--output needs a file name");
            options->output = value;
        } else if ((arg == QLatin1String("--from") || arg == QLatin1String("--to")) && !compare) {
            int64_t ns = 0;
            if (!next(&value) || !parseInt64(value, &ns))
                return QStringLiteral("%1 needs a timestamp in ns since the epoch").arg(arg);
            TimeWindow window = request.window.value_or(
                TimeWindow{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
            (arg == QLatin1String("--from") ? window.beginNs : window.endNs) = ns;
            request.window = window;
        } else if (arg == QLatin1String("--size") && exporting) {
            const QStringList parts = next(&value) ? value.toLower().split(QLatin1Char('x')) : QStringList();
            bool okWidth = false;
            bool okHeight = false;
            const int width = parts.size() == 2 ? parts[0].toInt(&okWidth) : 0;
            const int height = parts.size() == 2 ? parts[1].toInt(&okHeight) : 0;
            // 16k pixels a side keeps an image below 1 GiB of memory
            if (!okWidth || !okHeight || width < 16 || height < 16 || width > 16384 || height > 16384)
                return QStringLiteral("--size needs WxH in pixels, 16 to 16384 each, got '%1'").arg(value);
            options->size = QSize(width, height);
        } else if (arg == QLatin1String("--no-cache") && !compare) {
            options->noCache = true;
        } else if (arg == QLatin1String("--force") && !compare) {
            options->force = true;
        } else if (arg == QLatin1String("--set")) {
            if (!next(&value))
                return QStringLiteral("--set needs NAME=VALUE");
            // collective.preset=low|medium|high and collective.KNOB=VALUE: the cross-rank
            // analyses of a trace's report (a preset is a word, not a number); compare's report
            // has none
            if (value.startsWith(QLatin1String(CollectiveSettings::kPrefix.data()))) {
                const qsizetype eq = value.indexOf(QLatin1Char('='));
                const QString setName = value.left(eq);
                if (compare)
                    return QStringLiteral("--set %1 applies to analyze and export only").arg(setName);
                if (eq < 0)
                    return QStringLiteral("--set needs NAME=VALUE, got '%1'").arg(value);
                const std::string why = request.collective.set(
                    setName.mid(qsizetype(CollectiveSettings::kPrefix.size())).toStdString(),
                    value.mid(eq + 1).toStdString());
                if (!why.empty())
                    return QStringLiteral("--set %1: %2").arg(setName, QString::fromStdString(why));
                continue;
            }
            QString setName;
            double number = 0;
            if (!parseAssignment(value, &setName, &number))
                return QStringLiteral("--set needs NAME=VALUE with a number, got '%1'").arg(value);
            const std::string name = setName.toStdString();
            const bool gapName = GapThresholds::range(name).has_value();
            const auto& budgetNames = budgetThresholdNames();
            const bool budgetName =
                std::find(budgetNames.begin(), budgetNames.end(), name) != budgetNames.end();
            if (!gapName && !budgetName) {
                QStringList known;
                for (auto n : GapThresholds::names())
                    known << QString::fromUtf8(n.data(), qsizetype(n.size()));
                QStringList knownBudget;
                for (auto n : budgetNames)
                    knownBudget << QString::fromUtf8(n.data(), qsizetype(n.size()));
                return QStringLiteral("unknown threshold '%1' (known: %2; for budget logs also: %3)")
                    .arg(setName, known.join(QStringLiteral(", ")), knownBudget.join(QStringLiteral(", ")));
            }
            const QString given = value.mid(setName.size() + 1);
            // the gap thresholds (also as os_gap.NAME) have a range; the budget ones are
            // counts, byte sizes and shares: finite and not negative
            constexpr std::string_view osGapPrefix = "os_gap.";
            const std::string gapPart =
                name.rfind(osGapPrefix, 0) == 0 ? name.substr(osGapPrefix.size()) : name;
            if (const auto range = GapThresholds::range(gapPart);
                range && !(number >= range->minimum && number <= range->maximum))
                return QStringLiteral("--set %1: %2 is outside %3 to %4")
                    .arg(setName, given)
                    .arg(range->minimum)
                    .arg(range->maximum);
            if (gapName && !request.thresholds.set(name, number))
                return QStringLiteral("--set %1: %2 is not a valid value").arg(setName, given);
            if (!setBudgetThreshold(request.budgetThresholds, name, number))
                return QStringLiteral(
                           "--set %1: %2 is not a valid value (a finite number, not negative; counts whole)")
                    .arg(setName, given);
            if (!gapName)
                request.budgetOnlySettings << setName;
        } else if (arg.startsWith(QLatin1String("--"))) {
            return QStringLiteral("unknown option %1 for %2").arg(arg, command);
        } else if (options->path.isEmpty()) {
            options->path = arg;
            options->paths << arg;
        } else if (compare && options->pathB.isEmpty()) {
            options->pathB = arg;
        } else if (!compare) {
            options->paths << arg; // the inputs of a job
        } else {
            return QStringLiteral("unexpected argument '%1'").arg(arg);
        }
    }
    if (compare) {
        if (options->pathB.isEmpty())
            return QStringLiteral(
                "compare needs two paths A and B (the same path twice compares sessions or ranks)");
        // the thresholds apply to both sides
        options->requestB.thresholds = request.thresholds;
        options->requestB.budgetThresholds = request.budgetThresholds;
        options->requestB.budgetOnlySettings = request.budgetOnlySettings;
    }
    if (options->path.isEmpty())
        return QStringLiteral("%1 needs a PATH").arg(command);
    if (request.window && request.window->beginNs > request.window->endNs)
        return QStringLiteral("--from %1 is after --to %2")
            .arg(request.window->beginNs)
            .arg(request.window->endNs);
    return {};
}

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
    const JobData* job = inputs.job.job.get();
    if (!job || job->mode == JobMode::Session) {
        reportRejected(inputs.document.problems(), bool(inputs.document.budget), err, prefix);
        if (!job)
            return;
    } else {
        for (const JobInput& input : job->inputs)
            reportRejected(&input.trace->problems, false, err, prefix);
    }
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

} // namespace gapscope
