// The options of analyze, export and compare, read with Qt's QCommandLineParser: it gives
// --help and -h, `--name=value` as well as `--name value`, `--` before a PATH that starts with
// a dash, and the help text from the same table the options are read by. What it leaves to
// the caller is what only gapscope knows: which values are valid (--set NAME=VALUE with its
// ranges, --size WxH, --align), and messages that name the command.

#include "app/cli/CliOptions.h"

#include "model/document/Recognition.h"
#include "model/snapshot/SnapshotLoader.h"

#include <QCommandLineParser>

namespace gapscope {

namespace {

enum Command : unsigned
{
    kAnalyze = 1,
    kExport = 2,
    kCompare = 4,
    kAll = kAnalyze | kExport | kCompare
};

struct OptionSpec
{
    QStringList names;
    QString valueName; // empty: a flag
    QString description;
    unsigned commands;
    QString missing; // what a value-taking option given last without its value says
};

const std::vector<OptionSpec>& optionSpecs()
{
    static const std::vector<OptionSpec> specs = {
        {{QStringLiteral("format")},
         QStringLiteral("FORMAT"),
         QStringLiteral(
             "Report format. analyze: text (default), json, markdown. export: json, markdown, html, "
             "pdf, csv, findings-csv, png, svg (required). compare: markdown (default), json."),
         kAll,
         QStringLiteral("--format needs a value")},
        {{QStringLiteral("o"), QStringLiteral("output")},
         QStringLiteral("FILE"),
         QStringLiteral("Write the report to FILE (written whole, then moved in place); - or none: standard "
                        "output. export requires it."),
         kAll,
         QStringLiteral("--output needs a file name")},
        {{QStringLiteral("session")},
         QStringLiteral("ID"),
         QStringLiteral("Analyse this session of a trace (default: newest completed)."),
         kAnalyze | kExport,
         QStringLiteral("--session needs an id")},
        {{QStringLiteral("rank")},
         QStringLiteral("N"),
         QStringLiteral("Analyse this rank (default: the lowest); of a job, the rank shown in full."),
         kAnalyze | kExport,
         QStringLiteral("--rank needs an integer")},
        {{QStringLiteral("session-a")},
         QStringLiteral("ID"),
         QStringLiteral("The session of A."),
         kCompare,
         QStringLiteral("--session-a needs an id")},
        {{QStringLiteral("rank-a")},
         QStringLiteral("N"),
         QStringLiteral("The rank of A."),
         kCompare,
         QStringLiteral("--rank-a needs an integer")},
        {{QStringLiteral("session-b")},
         QStringLiteral("ID"),
         QStringLiteral("The session of B."),
         kCompare,
         QStringLiteral("--session-b needs an id")},
        {{QStringLiteral("rank-b")},
         QStringLiteral("N"),
         QStringLiteral("The rank of B."),
         kCompare,
         QStringLiteral("--rank-b needs an integer")},
        {{QStringLiteral("align")},
         QStringLiteral("start|phase:LABEL"),
         QStringLiteral("Align B to A at their starts (default) or at the first entry of a phase."),
         kCompare,
         QStringLiteral("--align needs start or phase:LABEL, got ''")},
        {{QStringLiteral("from")},
         QStringLiteral("NS"),
         QStringLiteral("Analyse from this timestamp on (ns since the epoch, inclusive)."),
         kAnalyze | kExport,
         QStringLiteral("--from needs a timestamp in ns since the epoch")},
        {{QStringLiteral("to")},
         QStringLiteral("NS"),
         QStringLiteral("Analyse up to this timestamp (ns since the epoch, inclusive)."),
         kAnalyze | kExport,
         QStringLiteral("--to needs a timestamp in ns since the epoch")},
        {{QStringLiteral("set")},
         QStringLiteral("NAME=VALUE"),
         QStringLiteral("Set a threshold (repeatable); the names are listed below."),
         kAll,
         QStringLiteral("--set needs NAME=VALUE")},
        {{QStringLiteral("device-log")},
         QStringLiteral("FILE"),
         QStringLiteral("Take device used from nvidia-smi's CSV log (--query-gpu=timestamp,memory.used,"
                        "memory.total, device-wide; or --query-compute-apps=timestamp,pid,used_memory, the "
                        "trace's pid) instead of the trace's device_used_bytes: each sample takes the log "
                        "row nearest in time. compare: for A and B both."),
         kAll,
         QStringLiteral("--device-log needs a file name")},
        {{QStringLiteral("device-log-a")},
         QStringLiteral("FILE"),
         QStringLiteral("The device log of A only."),
         kCompare,
         QStringLiteral("--device-log-a needs a file name")},
        {{QStringLiteral("device-log-b")},
         QStringLiteral("FILE"),
         QStringLiteral("The device log of B only."),
         kCompare,
         QStringLiteral("--device-log-b needs a file name")},
        {{QStringLiteral("device-log-tz")},
         QStringLiteral("ZONE"),
         QStringLiteral(
             "The time zone of the device log's timestamps (nvidia-smi writes local time without an "
             "offset): an IANA name (Europe/Berlin), UTC, or an offset (+02:00). Default: this "
             "system's zone."),
         kAll,
         QStringLiteral("--device-log-tz needs a zone")},
        {{QStringLiteral("size")},
         QStringLiteral("WxH"),
         QStringLiteral("Image size in pixels for png, svg and the charts of html and pdf."),
         kExport,
         QStringLiteral("--size needs WxH in pixels, 16 to 16384 each, got ''")},
        {{QStringLiteral("force")},
         QString(),
         QStringLiteral("Replace an existing --output file."),
         kAnalyze | kExport,
         QString()},
        {{QStringLiteral("no-cache")},
         QString(),
         QStringLiteral("Read the input, not the app's reopen cache."),
         kAnalyze | kExport,
         QString()},
        {{QStringLiteral("h"), QStringLiteral("help")},
         QString(),
         QStringLiteral("Show this help and exit."),
         kAll,
         QString()},
    };
    return specs;
}

unsigned commandBit(const QString& command)
{
    if (command == QLatin1String("export"))
        return kExport;
    return command == QLatin1String("compare") ? kCompare : kAnalyze;
}

// What an option does for one command, where that differs between them.
QString describedFor(const OptionSpec& spec, unsigned command)
{
    const QString& name = spec.names.back();
    if (name == QLatin1String("format")) {
        if (command == kExport)
            return QStringLiteral(
                "Required: json, markdown, html, pdf, csv (the samples), findings-csv, png or "
                "svg (the gap chart).");
        if (command == kCompare)
            return QStringLiteral("Report format: markdown (default) or json.");
        return QStringLiteral("Report format: text (default), json or markdown.");
    }
    if (name == QLatin1String("output") && command == kExport)
        return QStringLiteral("Required: where to write (written whole, then moved in place); - is standard "
                              "output.");
    if (name == QLatin1String("force") && command == kAnalyze)
        return QStringLiteral("Accepted for export's sake: analyze always replaces --output.");
    if (name == QLatin1String("device-log") && command != kCompare)
        return QString(spec.description).remove(QStringLiteral(" compare: for A and B both."));
    return spec.description;
}

void setUpParser(QCommandLineParser& parser, const QString& command)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const unsigned bit = commandBit(command);
    for (const OptionSpec& spec : optionSpecs()) {
        if (spec.commands & bit)
            parser.addOption(QCommandLineOption(spec.names, describedFor(spec, bit), spec.valueName));
    }
    if (bit == kCompare) {
        parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("The trace to compare from."));
        parser.addPositionalArgument(
            QStringLiteral("B"), QStringLiteral("The trace to compare to (A again: two of its sessions or "
                                                "ranks)."));
    } else {
        parser.addPositionalArgument(
            QStringLiteral("PATH..."),
            QStringLiteral(
                "A stormlog trace (JSON lines, JSON, CSV, a telemetry_sink folder) or a memory-budget "
                "log; several, or a folder of per-rank inputs: one distributed job."),
            QStringLiteral("PATH..."));
    }
}

QString usageLine(const QString& command)
{
    if (command == QLatin1String("compare"))
        return QStringLiteral("usage: gapscope compare A B [options]\n"
                              "Compares the gap analyses of two traces (or two sessions or ranks of one).\n");
    if (command == QLatin1String("export"))
        return QStringLiteral(
            "usage: gapscope export PATH... --format FORMAT --output FILE|- [options]\n"
            "Writes the analysis of a trace, job or memory-budget log as a report or chart; of a\n"
            "PyTorch memory snapshot (.pickle, .pickle.gz) its report, segments CSV or segment map.\n");
    return QStringLiteral("usage: gapscope analyze PATH... [options]\n"
                          "Analyses a trace, job or memory-budget log and prints the report; of a PyTorch\n"
                          "memory snapshot (.pickle, .pickle.gz) it prints the totals.\n");
}

// words joined by spaces into lines of at most 79 characters, the later ones indented
QString wrapped(const QString& text)
{
    QString out;
    qsizetype lineLength = 0;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (lineLength > 0 && lineLength + 1 + word.size() > 79) {
            out += QStringLiteral("\n  ");
            lineLength = 2;
        } else if (lineLength > 0) {
            out += QLatin1Char(' ');
            ++lineLength;
        }
        out += word;
        lineLength += word.size();
    }
    return out + QLatin1Char('\n');
}

QString thresholdNotes(const QString& command)
{
    QStringList gap;
    for (auto n : GapThresholds::names())
        gap << QString::fromUtf8(n.data(), qsizetype(n.size()));
    QString text = QLatin1Char('\n') +
                   wrapped(QStringLiteral("Thresholds for --set: %1.").arg(gap.join(QStringLiteral(", "))));
    if (command == QLatin1String("compare"))
        return text;
    QStringList budget;
    for (auto n : budgetThresholdNames())
        budget << QString::fromUtf8(n.data(), qsizetype(n.size()));
    text +=
        wrapped(QStringLiteral("For memory-budget logs also: %1.").arg(budget.join(QStringLiteral(", "))));
    text +=
        wrapped(QStringLiteral("For the cross-rank analyses of a trace: collective.preset=low|medium|high, "
                               "collective.NAME=VALUE (gapscope --help names them)."));
    return text;
}

// QCommandLineParser's own help, from its "Options:" line on (its usage line names the binary
// alone, not the command).
QString optionsHelp(const QCommandLineParser& parser)
{
    const QString text = parser.helpText();
    const qsizetype at = text.indexOf(QLatin1String("Options:"));
    return at < 0 ? text : text.mid(at);
}

} // namespace

QString commandHelp(const QString& command)
{
    QCommandLineParser parser;
    setUpParser(parser, command);
    return usageLine(command) + QLatin1Char('\n') + optionsHelp(parser) + thresholdNotes(command);
}

QString parseOptions(const QString& command, const QStringList& args, CommonOptions* options)
{
    const bool compare = command == QLatin1String("compare");
    const bool exporting = command == QLatin1String("export");
    if (command == QLatin1String("analyze"))
        options->format = QStringLiteral("text");
    else if (compare)
        options->format = QStringLiteral("markdown");
    QCommandLineParser parser;
    setUpParser(parser, command);
    // QCommandLineParser reads argument 0 as the program: the command stands there
    if (!parser.parse(QStringList{QStringLiteral("gapscope")} + args.mid(1))) {
        if (!parser.unknownOptionNames().isEmpty()) {
            const QString name = parser.unknownOptionNames().front();
            return QStringLiteral("unknown option %1%2 for %3 (gapscope %3 --help lists its options)")
                .arg(name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--"), name, command);
        }
        // a value-taking option given last without its value
        const QString last = args.value(args.size() - 1);
        for (const OptionSpec& spec : optionSpecs()) {
            for (const QString& name : spec.names) {
                if (!spec.missing.isEmpty() &&
                    (last == QLatin1String("--") + name || last == QLatin1String("-") + name))
                    return spec.missing;
            }
        }
        return QStringLiteral("%1: %2").arg(command, parser.errorText());
    }
    if (parser.isSet(QStringLiteral("help"))) {
        options->help = true;
        options->helpText = commandHelp(command);
        return {};
    }
    DocumentRequest& request = options->request;
    const auto value = [&](const char* name) { return parser.value(QLatin1String(name)); };
    const auto isSet = [&](const char* name) { return parser.isSet(QLatin1String(name)); };
    // --session / --rank, and for compare --session-a/-b, --rank-a/-b
    const std::vector<std::pair<QString, DocumentRequest*>> sides =
        compare
            ? std::vector<std::pair<QString, DocumentRequest*>>{{QStringLiteral("-a"), &request},
                                                                {QStringLiteral("-b"), &options->requestB}}
            : std::vector<std::pair<QString, DocumentRequest*>>{{QString(), &request}};
    for (const auto& [suffix, side] : sides) {
        if (const QString name = QStringLiteral("session") + suffix; parser.isSet(name))
            side->session = parser.value(name);
        if (const QString name = QStringLiteral("rank") + suffix; parser.isSet(name)) {
            int64_t rank = 0;
            if (!parseInt64(parser.value(name), &rank))
                return QStringLiteral("--%1 needs an integer").arg(name);
            side->rank = rank;
        }
    }
    if (compare && isSet("align")) {
        const QString given = value("align");
        const auto alignment = CompareAlignment::fromString(given);
        if (!alignment)
            return QStringLiteral("--align needs start or phase:LABEL, got '%1'").arg(given);
        options->alignment = *alignment;
    }
    if (isSet("format"))
        options->format = value("format");
    if (isSet("output"))
        options->output = value("output");
    for (const char* name : {"from", "to"}) {
        if (compare || !isSet(name))
            continue;
        int64_t ns = 0;
        if (!parseInt64(value(name), &ns))
            return QStringLiteral("--%1 needs a timestamp in ns since the epoch").arg(QLatin1String(name));
        TimeWindow window = request.window.value_or(
            TimeWindow{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
        (qstrcmp(name, "from") == 0 ? window.beginNs : window.endNs) = ns;
        request.window = window;
    }
    if (exporting && isSet("size")) {
        const QString given = value("size");
        const QStringList parts = given.toLower().split(QLatin1Char('x'));
        bool okWidth = false;
        bool okHeight = false;
        const int width = parts.size() == 2 ? parts[0].toInt(&okWidth) : 0;
        const int height = parts.size() == 2 ? parts[1].toInt(&okHeight) : 0;
        // 16k pixels a side keeps an image below 1 GiB of memory
        if (!okWidth || !okHeight || width < 16 || height < 16 || width > 16384 || height > 16384)
            return QStringLiteral("--size needs WxH in pixels, 16 to 16384 each, got '%1'").arg(given);
        options->size = QSize(width, height);
    }
    options->noCache = !compare && isSet("no-cache");
    options->force = !compare && isSet("force");
    // the device log: --device-log for the one input (compare: both sides), -a / -b for one side
    const QString zone = value("device-log-tz");
    const auto attach = [&](DocumentRequest* side, const char* name) {
        if (isSet(name))
            side->deviceLog = DeviceLogRequest{value(name), zone};
    };
    attach(&request, "device-log");
    if (compare) {
        attach(&options->requestB, "device-log");
        attach(&request, "device-log-a");
        attach(&options->requestB, "device-log-b");
    }
    if (isSet("device-log-tz") && !request.deviceLog && !options->requestB.deviceLog)
        return QStringLiteral("--device-log-tz applies with --device-log");
    for (const QString& assignment : parser.values(QStringLiteral("set"))) {
        // collective.preset=low|medium|high and collective.KNOB=VALUE: the cross-rank
        // analyses of a trace's report (a preset is a word, not a number); compare's report
        // has none
        if (assignment.startsWith(QLatin1String(CollectiveSettings::kPrefix.data()))) {
            const qsizetype eq = assignment.indexOf(QLatin1Char('='));
            const QString setName = assignment.left(eq);
            if (compare)
                return QStringLiteral("--set %1 applies to analyze and export only").arg(setName);
            if (eq < 0)
                return QStringLiteral("--set needs NAME=VALUE, got '%1'").arg(assignment);
            const std::string why = request.collective.set(
                setName.mid(qsizetype(CollectiveSettings::kPrefix.size())).toStdString(),
                assignment.mid(eq + 1).toStdString());
            if (!why.empty())
                return QStringLiteral("--set %1: %2").arg(setName, QString::fromStdString(why));
            continue;
        }
        QString setName;
        double number = 0;
        if (!parseAssignment(assignment, &setName, &number))
            return QStringLiteral("--set needs NAME=VALUE with a number, got '%1'").arg(assignment);
        const std::string name = setName.toStdString();
        const bool gapName = GapThresholds::range(name).has_value();
        const auto& budgetNames = budgetThresholdNames();
        const bool budgetName = std::find(budgetNames.begin(), budgetNames.end(), name) != budgetNames.end();
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
        const QString given = assignment.mid(setName.size() + 1);
        // the gap thresholds (also as os_gap.NAME) have a range; the budget ones are
        // counts, byte sizes and shares: finite and not negative
        constexpr std::string_view osGapPrefix = "os_gap.";
        const std::string gapPart = name.rfind(osGapPrefix, 0) == 0 ? name.substr(osGapPrefix.size()) : name;
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
    }
    const QStringList positional = parser.positionalArguments();
    if (compare && positional.size() > 2)
        return QStringLiteral("unexpected argument '%1'").arg(positional[2]);
    if (!positional.isEmpty()) {
        options->path = positional.front();
        // compare: paths holds A (an --output must be neither A nor B), analyze and export:
        // every PATH (several: the inputs of a job)
        options->paths = compare ? positional.mid(0, 1) : positional;
        if (compare)
            options->pathB = positional.value(1);
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

QString snapshotPathOf(const CommonOptions& options)
{
    if (options.paths.size() != 1)
        return {};
    const InputRecognition input = recognizeInput(options.paths.front());
    return input.kind == InputKind::PytorchSnapshot ? input.path : QString();
}

std::optional<SnapshotReportInput> loadSnapshotForReport(const CommonOptions& options, const QString& path,
                                                         FILE* err, const QString& prefix, int* exitCode)
{
    const DocumentRequest& request = options.request;
    QStringList unusable;
    if (request.session)
        unusable << QStringLiteral("--session");
    if (request.rank)
        unusable << QStringLiteral("--rank");
    if (request.window)
        unusable << QStringLiteral("--from/--to");
    if (request.deviceLog)
        unusable << QStringLiteral("--device-log");
    if (!unusable.isEmpty()) {
        printLine(err, prefix + QStringLiteral("%1: %2 does not apply to a PyTorch memory snapshot")
                                    .arg(path, unusable.join(QStringLiteral(", "))));
        *exitCode = kExitUsage;
        return std::nullopt;
    }
    const SnapshotLoadOutcome loaded = loadSnapshotFile(path);
    if (!loaded.data) {
        printLine(err, prefix + loaded.fatalError);
        *exitCode = kExitUsage;
        return std::nullopt;
    }
    return snapshotReportInput(loaded.data);
}

void reportSnapshotProblems(const SnapshotData& data, FILE* err, const QString& prefix)
{
    const ProblemLog& problems = data.problems;
    if (problems.errorCount() > 0)
        printLine(
            err, prefix + QStringLiteral("%1 record(s) left out; first: %2")
                              .arg(problems.errorCount())
                              .arg(problems.kept().empty() ? QString() : problems.kept().front().toString()));
}

} // namespace gapscope
