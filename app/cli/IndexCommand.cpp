#include "app/cli/IndexCommand.h"

#include "app/cli/Cli.h"
#include "app/cli/CliOptions.h"
#include "model/fleet/FleetIndex.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>

namespace gapscope {

namespace {

void setUpParser(QCommandLineParser& parser)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addOption(
        QCommandLineOption({QStringLiteral("o"), QStringLiteral("output")},
                           QStringLiteral("Required: the SQLite database to write (created, or "
                                          "brought up to date: unchanged inputs are not read again)."),
                           QStringLiteral("FILE")));
    parser.addOption(QCommandLineOption(
        QStringLiteral("shard"),
        QStringLiteral("Index only shard I of N (0 <= I < N; the inputs whose path hashes to I), for a Slurm "
                       "array or Dask: merge the N outputs with --merge."),
        QStringLiteral("I/N")));
    parser.addOption(QCommandLineOption(QStringLiteral("threads"),
                                        QStringLiteral("Inputs read at once (default: one per core)."),
                                        QStringLiteral("N")));
    parser.addOption(QCommandLineOption(QStringLiteral("merge"),
                                        QStringLiteral("The PATHs are databases written by index (shards): "
                                                       "merge them into --output.")));
    parser.addOption(QCommandLineOption({QStringLiteral("h"), QStringLiteral("help")},
                                        QStringLiteral("Show this help and exit.")));
    parser.addPositionalArgument(
        QStringLiteral("ROOT..."),
        QStringLiteral("Artifact trees (folders) or inputs: sinks, job folders, trace "
                       "files, OOM bundles, PyTorch snapshots, memory-budget logs."),
        QStringLiteral("ROOT..."));
}

QString helpText(const QCommandLineParser& parser)
{
    const QString text = parser.helpText();
    const qsizetype at = text.indexOf(QLatin1String("Options:"));
    return QStringLiteral(
               "usage: gapscope index ROOT... --output FILE [--shard I/N] [--threads N]\n"
               "       gapscope index --merge PART... --output FILE\n"
               "Indexes every run under the ROOTs into an SQLite database: one row per run and rank\n"
               "(table runs) and the recurring issues by upstream stormlog's fingerprint (view\n"
               "recurring_issues); docs/fleet-schema.md describes it.\n\n") +
           (at < 0 ? text : text.mid(at));
}

} // namespace

int runIndexCommand(const QStringList& args, FILE* out, FILE* err)
{
    const QString prefix = QStringLiteral("gapscope index: ");
    QCommandLineParser parser;
    setUpParser(parser);
    if (!parser.parse(QStringList{QStringLiteral("gapscope")} + args.mid(1))) {
        if (!parser.unknownOptionNames().isEmpty()) {
            const QString name = parser.unknownOptionNames().front();
            printLine(
                err, prefix + QStringLiteral("unknown option %1%2 for index (gapscope index --help lists its "
                                             "options)")
                                  .arg(name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--"), name));
        } else {
            printLine(err, prefix + parser.errorText());
        }
        return kExitUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(helpText(parser).toUtf8().constData(), out);
        return kExitOk;
    }
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty() || output == QLatin1String(kStandardOutputName)) {
        printLine(err, prefix + QStringLiteral("--output needs a database file"));
        return kExitUsage;
    }
    if (QFileInfo(output).exists() && !QFileInfo(output).isFile()) {
        printLine(err, prefix + QStringLiteral("%1: not a regular file").arg(output));
        return kExitUsage;
    }
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) {
        printLine(err, prefix + (parser.isSet(QStringLiteral("merge"))
                                     ? QStringLiteral("--merge needs the databases")
                                     : QStringLiteral("index needs a ROOT")));
        return kExitUsage;
    }
    QString error;
    if (parser.isSet(QStringLiteral("merge"))) {
        if (parser.isSet(QStringLiteral("shard"))) {
            printLine(err, prefix + QStringLiteral("--shard does not apply to --merge"));
            return kExitUsage;
        }
        for (const QString& part : paths)
            if (!QFileInfo(part).isFile()) {
                printLine(err, prefix + QStringLiteral("%1: no such database").arg(part));
                return kExitUsage;
            }
        if (!mergeFleetIndexes(paths, output, &error)) {
            printLine(err, prefix + error);
            return kExitFailure;
        }
        printLine(err,
                  prefix + QStringLiteral("merged %1 database(s) into %2").arg(paths.size()).arg(output));
        return kExitOk;
    }
    FleetIndexRequest request;
    request.roots = paths;
    request.output = output;
    if (parser.isSet(QStringLiteral("shard"))) {
        const QStringList parts = parser.value(QStringLiteral("shard")).split(QLatin1Char('/'));
        bool okIndex = false;
        bool okCount = false;
        const int index = parts.size() == 2 ? parts[0].toInt(&okIndex) : 0;
        const int count = parts.size() == 2 ? parts[1].toInt(&okCount) : 0;
        if (!okIndex || !okCount || count < 1 || index < 0 || index >= count) {
            printLine(err, prefix + QStringLiteral("--shard needs I/N with 0 <= I < N, got '%1'")
                                        .arg(parser.value(QStringLiteral("shard"))));
            return kExitUsage;
        }
        request.shard = std::pair{index, count};
    }
    if (parser.isSet(QStringLiteral("threads"))) {
        bool ok = false;
        request.threads = parser.value(QStringLiteral("threads")).toInt(&ok);
        if (!ok || request.threads < 1) {
            printLine(err, prefix + QStringLiteral("--threads needs a number of threads, 1 or more"));
            return kExitUsage;
        }
    }
    QElapsedTimer timer;
    timer.start();
    FleetIndexSummary summary;
    const bool ok = indexFleet(request, &summary, &error);
    for (const QString& problem : summary.problems)
        printLine(err, prefix + problem);
    if (!ok) {
        printLine(err, prefix + error);
        return kExitFailure;
    }
    printLine(err,
              prefix + QStringLiteral("%1 input(s): %2 read, %3 unchanged, %4 vanished, %5 failed; %6 run(s) "
                                      "written to %7 in %8 s")
                           .arg(summary.found)
                           .arg(summary.read)
                           .arg(summary.unchanged)
                           .arg(summary.vanished)
                           .arg(summary.failed)
                           .arg(summary.runs)
                           .arg(output)
                           .arg(double(timer.elapsed()) / 1000.0, 0, 'f', 2));
    if (summary.found == 0 && !summary.problems.isEmpty())
        return kExitUsage;
    return kExitOk;
}

} // namespace gapscope
