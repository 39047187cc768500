#include "Cli.h"

#include "model/AnalysisReport.h"
#include "model/TraceLoader.h"

#include <QFile>
#include <QSaveFile>

#include <map>

namespace gapscope {

namespace {

struct CommonOptions
{
    QString path;
    std::optional<QString> session;
    std::optional<int64_t> rank;
    QString format = QStringLiteral("text");
    QString output;
    GapThresholds thresholds;
    std::optional<int64_t> fromNs;
    std::optional<int64_t> toNs;
    bool force = false;
};

void printLine(FILE* stream, const QString& text)
{
    const QByteArray utf8 = text.toUtf8();
    std::fwrite(utf8.constData(), 1, size_t(utf8.size()), stream);
    std::fputc('\n', stream);
    std::fflush(stream);
}

bool parseInt64(const QString& text, int64_t* out)
{
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    if (ok)
        *out = v;
    return ok;
}

// Parses the options shared by the subcommands. Returns an error text, empty when fine.
QString parseOptions(const QString& command, const QStringList& args, CommonOptions* options)
{
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& arg = args[i];
        auto next = [&](QString* value) -> bool {
            if (i + 1 >= args.size())
                return false;
            *value = args[++i];
            return true;
        };
        QString value;
        if (arg == QLatin1String("--session")) {
            if (!next(&value))
                return QStringLiteral("--session needs an id");
            options->session = value;
        } else if (arg == QLatin1String("--rank")) {
            int64_t rank = 0;
            if (!next(&value) || !parseInt64(value, &rank))
                return QStringLiteral("--rank needs an integer");
            options->rank = rank;
        } else if (arg == QLatin1String("--format")) {
            if (!next(&value))
                return QStringLiteral("--format needs a value");
            options->format = value;
        } else if (arg == QLatin1String("--output") || arg == QLatin1String("-o")) {
            if (!next(&value))
                return QStringLiteral("--output needs a file name");
            options->output = value;
        } else if (arg == QLatin1String("--from") || arg == QLatin1String("--to")) {
            int64_t ns = 0;
            if (!next(&value) || !parseInt64(value, &ns))
                return QStringLiteral("%1 needs a timestamp in ns since the epoch").arg(arg);
            (arg == QLatin1String("--from") ? options->fromNs : options->toNs) = ns;
        } else if (arg == QLatin1String("--force")) {
            options->force = true;
        } else if (arg == QLatin1String("--set")) {
            if (!next(&value))
                return QStringLiteral("--set needs NAME=VALUE");
            const qsizetype eq = value.indexOf(QLatin1Char('='));
            bool ok = false;
            const double number = eq > 0 ? value.mid(eq + 1).toDouble(&ok) : 0.0;
            if (eq <= 0 || !ok)
                return QStringLiteral("--set needs NAME=VALUE with a number, got '%1'").arg(value);
            const std::string name = value.left(eq).toStdString();
            if (!options->thresholds.set(name, number)) {
                QStringList known;
                for (auto n : GapThresholds::names())
                    known << QString::fromUtf8(n.data(), qsizetype(n.size()));
                return QStringLiteral("unknown threshold '%1' (known: %2)")
                    .arg(value.left(eq), known.join(QStringLiteral(", ")));
            }
        } else if (arg.startsWith(QLatin1String("--"))) {
            return QStringLiteral("unknown option %1 for %2").arg(arg, command);
        } else if (options->path.isEmpty()) {
            options->path = arg;
        } else {
            return QStringLiteral("unexpected argument '%1'").arg(arg);
        }
    }
    if (options->path.isEmpty())
        return QStringLiteral("%1 needs a PATH").arg(command);
    return {};
}

// Writes atomically (temporary file, then rename); refuses to replace a file without force.
QString writeOutput(const QString& file, const QByteArray& data, bool force)
{
    if (!force && QFile::exists(file))
        return QStringLiteral("%1: exists (use --force to replace it)").arg(file);
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: %2").arg(file, out.errorString());
    out.write(data);
    if (!out.commit())
        return QStringLiteral("%1: %2").arg(file, out.errorString());
    return {};
}

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
    AnalysisRequest request;
    request.thresholds = options.thresholds;
    request.rank = options.rank;
    if (options.session) {
        request.sessionIndex = loaded.data->findSession(*options.session);
        if (!request.sessionIndex) {
            QStringList ids;
            for (const auto& s : loaded.data->sessions)
                ids << s.id;
            printLine(err, QStringLiteral("gapscope analyze: %1: no session '%2' (sessions: %3)")
                               .arg(options.path, *options.session, ids.join(QStringLiteral(", "))));
            return kExitUsage;
        }
    }
    if (options.fromNs || options.toNs)
        request.window = TimeWindow{options.fromNs.value_or(std::numeric_limits<int64_t>::min()),
                                    options.toNs.value_or(std::numeric_limits<int64_t>::max())};
    QString error;
    const auto result = runAnalysis(loaded.data, request, &error);
    if (!result) {
        printLine(err, QStringLiteral("gapscope analyze: %1: %2").arg(options.path, error));
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
        "thresholds for --set: gap_ratio_threshold, gap_spike_zscore, gap_drift_r_squared,\n"
        "                      gap_fragmentation_ratio\n");
}

bool isCliCommand(const QString& firstArgument)
{
    return firstArgument == QLatin1String("analyze");
}

int runCli(const QStringList& args, FILE* out, FILE* err)
{
    if (args.isEmpty())
        return kExitUsage;
    if (args.front() == QLatin1String("analyze"))
        return runAnalyze(args, out, err);
    printLine(err, QStringLiteral("gapscope: unknown command '%1'\n").arg(args.front()) + cliUsage());
    return kExitUsage;
}

} // namespace gapscope
