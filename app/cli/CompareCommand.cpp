#include "app/cli/CompareCommand.h"

#include "app/cli/Cli.h"
#include "app/cli/CliOptions.h"
#include "model/trace/TraceComparison.h"
#include "model/trace/TraceLoader.h"

namespace gapscope {

namespace {

struct CompareOptions
{
    QString pathA;
    QString pathB;
    std::optional<QString> sessionA, sessionB;
    std::optional<int64_t> rankA, rankB;
    CompareAlignment alignment;
    QString format = QStringLiteral("markdown");
    QString output;
    GapThresholds thresholds;
};

QString parseCompareOptions(const QStringList& args, CompareOptions* options)
{
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& arg = args[i];
        QString value;
        auto next = [&]() -> bool {
            if (i + 1 >= args.size())
                return false;
            value = args[++i];
            return true;
        };
        if (arg == QLatin1String("--session-a") || arg == QLatin1String("--session-b")) {
            if (!next())
                return QStringLiteral("%1 needs an id").arg(arg);
            (arg.endsWith(QLatin1Char('a')) ? options->sessionA : options->sessionB) = value;
        } else if (arg == QLatin1String("--rank-a") || arg == QLatin1String("--rank-b")) {
            int64_t rank = 0;
            if (!next() || !parseInt64(value, &rank))
                return QStringLiteral("%1 needs an integer").arg(arg);
            (arg.endsWith(QLatin1Char('a')) ? options->rankA : options->rankB) = rank;
        } else if (arg == QLatin1String("--align")) {
            if (!next())
                return QStringLiteral("--align needs start or phase:LABEL");
            const auto alignment = CompareAlignment::fromString(value);
            if (!alignment)
                return QStringLiteral("--align needs start or phase:LABEL, got '%1'").arg(value);
            options->alignment = *alignment;
        } else if (arg == QLatin1String("--format")) {
            if (!next())
                return QStringLiteral("--format needs a value");
            options->format = value;
        } else if (arg == QLatin1String("--output") || arg == QLatin1String("-o")) {
            if (!next())
                return QStringLiteral("--output needs a file name");
            options->output = value;
        } else if (arg == QLatin1String("--set")) {
            if (!next())
                return QStringLiteral("--set needs NAME=VALUE");
            QString name;
            double number = 0;
            if (!parseAssignment(value, &name, &number))
                return QStringLiteral("--set needs NAME=VALUE with a number, got '%1'").arg(value);
            if (!options->thresholds.set(name.toStdString(), number)) {
                QStringList known;
                for (auto n : GapThresholds::names())
                    known << QString::fromUtf8(n.data(), qsizetype(n.size()));
                return QStringLiteral("unknown threshold '%1' (known: %2)")
                    .arg(name, known.join(QStringLiteral(", ")));
            }
        } else if (arg.startsWith(QLatin1String("--"))) {
            return QStringLiteral("unknown option %1 for compare").arg(arg);
        } else if (options->pathA.isEmpty()) {
            options->pathA = arg;
        } else if (options->pathB.isEmpty()) {
            options->pathB = arg;
        } else {
            return QStringLiteral("unexpected argument '%1'").arg(arg);
        }
    }
    if (options->pathA.isEmpty() || options->pathB.isEmpty())
        return QStringLiteral(
            "compare needs two paths A and B (the same path twice compares sessions or ranks)");
    if (options->format != QLatin1String("json") && options->format != QLatin1String("markdown") &&
        options->format != QLatin1String("md"))
        return QStringLiteral("unknown format '%1' (json, markdown)").arg(options->format);
    return {};
}

} // namespace

int runCompareCommand(const QStringList& args, FILE* out, FILE* err)
{
    const QString prefix = QStringLiteral("gapscope compare: ");
    CompareOptions options;
    if (const QString why = parseCompareOptions(args, &options); !why.isEmpty()) {
        printLine(err, prefix + why);
        return kExitUsage;
    }
    // One load when both sides are the same trace (two sessions or ranks of one run).
    const LoadOutcome loadedA = loadTrace(options.pathA);
    if (!loadedA.data) {
        printLine(err, prefix + loadedA.fatalError);
        return kExitUsage;
    }
    const LoadOutcome loadedB = options.pathB == options.pathA ? loadedA : loadTrace(options.pathB);
    if (!loadedB.data) {
        printLine(err, prefix + loadedB.fatalError);
        return kExitUsage;
    }
    auto analyze = [&](const LoadOutcome& loaded, const QString& path, const std::optional<QString>& session,
                       const std::optional<int64_t>& rank, QString* error) {
        CommonOptions common;
        common.path = path;
        common.session = session;
        common.rank = rank;
        common.thresholds = options.thresholds;
        return analyzeWithOptions(loaded.data, common, error);
    };
    QString error;
    const auto resultA = analyze(loadedA, options.pathA, options.sessionA, options.rankA, &error);
    if (!resultA) {
        printLine(err, prefix + QStringLiteral("A: ") + error);
        return kExitUsage;
    }
    const auto resultB = analyze(loadedB, options.pathB, options.sessionB, options.rankB, &error);
    if (!resultB) {
        printLine(err, prefix + QStringLiteral("B: ") + error);
        return kExitUsage;
    }
    const auto comparison = compareAnalyses(resultA, resultB, options.alignment, &error);
    if (!comparison) {
        printLine(err, prefix + error);
        return kExitUsage;
    }
    const QByteArray report = options.format == QLatin1String("json") ? renderComparisonJson(*comparison)
                                                                      : renderComparisonMarkdown(*comparison);
    if (!emitReport(options.output, report, out, err, prefix))
        return kExitFailure;
    return kExitOk;
}

} // namespace gapscope
