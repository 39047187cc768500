#include "model/document/OpenPlan.h"

#include "model/document/JobOpen.h"
#include "model/document/Recognition.h"
#include "model/read/JsonText.h"
#include "model/trace/SinkManifest.h"
#include "model/trace/TraceLoader.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace gapscope {

namespace {

const QString kManifest = QStringLiteral("manifest.json");

bool isSinkFolder(const QString& path)
{
    return QFileInfo(path).isDir() && QFileInfo(QDir(path).filePath(kManifest)).isFile();
}

// The sink a file belongs to: its manifest.json or one of its segment files. Empty otherwise.
QString sinkOfFile(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return {};
    const QString folder = info.absolutePath();
    if (!isSinkFolder(folder))
        return {};
    QString error;
    const auto manifest = readSinkManifest(folder, nullptr, &error);
    if (!manifest)
        return {}; // a manifest.json of something else (an OOM bundle, say)
    if (info.fileName() == kManifest)
        return info.path();
    for (const SinkManifestSegment& segment : manifest->segments)
        if (segment.filename == info.fileName())
            return info.path();
    return {};
}

// A sink by what holds it ("truth/telemetry_sink" is the truth run), a file by its name.
QString sinkOrFileName(const QString& path)
{
    const QFileInfo info(path);
    QString base = info.fileName();
    if (base == QStringLiteral("telemetry_sink") && info.isDir()) {
        const QString parent = QFileInfo(info.absolutePath()).fileName();
        if (!parent.isEmpty())
            base = parent;
    }
    return base.isEmpty() ? path : base;
}

// A sink with its rank, "truth — rank 0"; a folder named for its rank says the job instead:
// "gapscope-real-ddp rank 2". A file keeps its own name (it was named by whoever exported it).
QString nameWithRank(const QString& path, const QString& base, const QString& jobId,
                     std::optional<int64_t> rank)
{
    if (!rank || !QFileInfo(path).isDir())
        return base;
    static const QRegularExpression rankFolder(QStringLiteral("^rank[_-]?\\d+$"),
                                               QRegularExpression::CaseInsensitiveOption);
    if (rankFolder.match(base).hasMatch() && !jobId.isEmpty())
        return QStringLiteral("%1 rank %2").arg(jobId).arg(*rank);
    return QStringLiteral("%1 — rank %2").arg(base).arg(*rank);
}

// The first record of a trace file's head, in a form the trace loader reads alone; empty when
// the head holds none whole.
QByteArray firstRecord(const QByteArray& head, TraceForm form)
{
    const auto firstLines = [&](int count) {
        QByteArray lines;
        int taken = 0;
        for (const QByteArray& line : head.split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            lines += line + '\n';
            if (++taken == count)
                return lines;
        }
        return QByteArray();
    };
    switch (form) {
    case TraceForm::JsonLines:
        return firstLines(1);
    case TraceForm::Csv:
        return firstLines(2); // the header and the first row
    case TraceForm::JsonArray: {
        // the first object of the array, found by its brackets outside strings
        const qsizetype open = head.indexOf('{', head.indexOf('['));
        if (open < 0 || head.indexOf('[') < 0)
            return {};
        const size_t end =
            endOfJsonValue(std::string_view(head.constData(), size_t(head.size())), size_t(open));
        if (end == std::string_view::npos)
            return {};
        return '[' + head.mid(open, qsizetype(end) - open) + ']';
    }
    default:
        return {};
    }
}

// What run an input holds: a sink's first session from its manifest, a file's first record.
// Without either the run has no session id (nothing is said about it).
FoundRun identify(const QString& path)
{
    FoundRun run;
    run.paths << path;
    if (QFileInfo(path).isDir()) {
        QString error;
        const auto manifest = readSinkManifest(path, nullptr, &error);
        if (manifest && !manifest->sessions.empty()) {
            const SinkManifestSession& session = manifest->sessions.front();
            run.sessionId = session.id;
            run.jobId = session.jobId.value_or(QString());
            if (session.rank)
                run.rank = *session.rank;
            run.startedNs = session.startedNs;
            run.pid = session.pid;
        }
        return run;
    }
    QByteArray head;
    const InputRecognition input = recognizeInput(path, &head);
    const auto form = input.kind == InputKind::StormlogTrace ? input.traceForm : std::nullopt;
    if (!form || input.path != path)
        return run;
    const QByteArray record = firstRecord(head, *form);
    if (record.isEmpty())
        return run;
    const LoadOutcome loaded =
        loadTraceBytes(std::string_view(record.constData(), size_t(record.size())), *form, path);
    if (!loaded.data || loaded.data->sessions.empty())
        return run;
    const SessionInfo& session = loaded.data->sessions.front();
    run.sessionId = session.id;
    run.jobId = session.jobId;
    if (session.ranks.size() == 1)
        run.rank = session.ranks.front();
    run.startedNs = session.startedNs;
    run.pid = session.pid;
    return run;
}

// The inputs grouped into runs: inputs with the same session id and rank are copies of one
// run; the copy opened is a sink before a file, else the first found.
std::vector<FoundRun> runsOf(const QStringList& inputs)
{
    std::vector<FoundRun> runs;
    for (const QString& input : inputs) {
        FoundRun found = identify(input);
        const auto same = std::find_if(runs.begin(), runs.end(), [&](const FoundRun& run) {
            return !found.sessionId.isEmpty() && run.sessionId == found.sessionId && run.rank == found.rank;
        });
        if (same == runs.end()) {
            runs.push_back(std::move(found));
            continue;
        }
        if (isSinkFolder(input) && !isSinkFolder(same->paths.front()))
            same->paths.prepend(input);
        else
            same->paths << input;
    }
    for (FoundRun& run : runs)
        run.name = nameWithRank(run.paths.front(), sinkOrFileName(run.paths.front()), run.jobId, run.rank);
    return runs;
}

// Whether the runs cannot be ranks of one job: one rank recorded in two sessions (two trackers,
// two attempts). Distinct ranks stay one job even with several job ids: its notes say so.
bool notOneJob(const std::vector<FoundRun>& runs)
{
    for (size_t a = 0; a < runs.size(); ++a)
        for (size_t b = a + 1; b < runs.size(); ++b) {
            if (runs[a].sessionId.isEmpty() || runs[b].sessionId.isEmpty())
                continue; // unidentified: the job loader's notes say what it holds
            if (runs[a].rank == runs[b].rank)
                return true;
        }
    return false;
}

// Whether path is a file that the recognition takes for a PyTorch memory snapshot.
bool isSnapshotFile(const QString& path)
{
    return QFileInfo(path).isFile() && recognizeInput(path).kind == InputKind::PytorchSnapshot;
}

// The PyTorch snapshot recorded beside the run of a folder: `snapshot.pickle` (or `.gz`) first,
// else the first `*.pickle` or `*.pickle.gz` by name that is one; empty when none is.
QString snapshotInFolder(const QString& folder)
{
    const QDir dir(folder);
    QStringList names = dir.entryList({QStringLiteral("*.pickle"), QStringLiteral("*.pickle.gz")},
                                      QDir::Files | QDir::Readable, QDir::Name);
    std::stable_partition(names.begin(), names.end(), [](const QString& name) {
        return name.startsWith(QStringLiteral("snapshot.pickle"));
    });
    for (const QString& name : names)
        if (isSnapshotFile(dir.filePath(name)))
            return dir.filePath(name);
    return {};
}

QString copiesNote(const FoundRun& run)
{
    if (run.paths.size() < 2)
        return {};
    QStringList copies = run.paths.mid(1);
    return QStringLiteral("%1 holds the same run as %2 (session %3, rank %4); opened %2 (a sink "
                          "before a file exported from it, else the first found)")
        .arg(copies.join(QStringLiteral(", ")), run.paths.front(), run.sessionId)
        .arg(run.rank.value_or(0));
}

} // namespace

QString OpenPlan::severalRunsText(const QString& given) const
{
    QStringList lines;
    lines << QStringLiteral("%1: %2 runs that are not ranks of one job (the same rank recorded more "
                            "than once):")
                 .arg(given)
                 .arg(runs.size());
    for (const FoundRun& run : runs) {
        QString line = QStringLiteral("  %1: %2").arg(run.name, run.paths.front());
        if (!run.sessionId.isEmpty())
            line += QStringLiteral(" (session %1%2)")
                        .arg(run.sessionId, run.pid ? QStringLiteral(", pid %1").arg(*run.pid) : QString());
        if (run.paths.size() > 1)
            line += QStringLiteral("; also in %1").arg(run.paths.mid(1).join(QStringLiteral(", ")));
        lines << line;
    }
    lines << QStringLiteral("give one of them to read that run");
    return lines.join(QLatin1Char('\n'));
}

namespace {

OpenPlan planPaths(const QStringList& given)
{
    OpenPlan plan;
    // A sink's manifest or segment stands for its sink: one segment alone is part of a run.
    QStringList paths;
    for (const QString& path : given) {
        const QString sink = sinkOfFile(path);
        if (sink.isEmpty()) {
            paths << path;
            continue;
        }
        plan.notes << QStringLiteral("%1 is part of the sink %2; opened the sink (its manifest and "
                                     "every segment)")
                          .arg(path, sink);
        paths << sink;
    }
    paths.removeDuplicates();
    if (paths.isEmpty())
        return plan;

    if (paths.size() == 1 && !(QFileInfo(paths.front()).isDir() && !isSinkFolder(paths.front()))) {
        plan.paths = paths; // one file or one sink: its loader reads or refuses it
        return plan;
    }
    // Every input of the folders and files given, as the job loader would find them.
    QStringList inputs;
    for (const QString& path : paths) {
        if (QFileInfo(path).isDir() && !isSinkFolder(path))
            inputs << jobFolderInputs(path, nullptr);
        else
            inputs << path;
    }
    if (inputs.isEmpty()) {
        // a folder of nothing gapscope reads: its loader refuses it (the window explains what
        // it holds); several such paths are a job whose loader says why each is not an input
        plan.paths = paths;
        plan.kind = paths.size() > 1 ? OpenKind::Job : OpenKind::Document;
        return plan;
    }
    plan.runs = runsOf(inputs);
    if (plan.runs.size() == 1) {
        plan.paths << plan.runs.front().paths.front();
        if (const QString note = copiesNote(plan.runs.front()); !note.isEmpty())
            plan.notes << note;
        if (paths.size() == 1 && QFileInfo(paths.front()).isDir() && !isSinkFolder(paths.front())) {
            plan.notes.prepend(QStringLiteral("%1 holds one run; opened it: %2")
                                   .arg(paths.front(), plan.runs.front().paths.front()));
            plan.snapshot = snapshotInFolder(paths.front());
            if (!plan.snapshot.isEmpty())
                plan.notes
                    << QStringLiteral("with the PyTorch memory snapshot beside it: %1").arg(plan.snapshot);
        }
        return plan;
    }
    if (notOneJob(plan.runs)) {
        plan.kind = OpenKind::SeveralRuns;
        for (const FoundRun& run : plan.runs)
            plan.paths << run.paths.front();
        return plan;
    }
    plan.kind = OpenKind::Job;
    plan.paths = paths;
    return plan;
}

} // namespace

OpenPlan planOpen(const QStringList& given)
{
    // one PyTorch snapshot given with the inputs of one trace is that trace's snapshot
    if (given.size() > 1) {
        QStringList snapshots;
        for (const QString& path : given)
            if (isSnapshotFile(path))
                snapshots << path;
        if (snapshots.size() == 1) {
            QStringList rest = given;
            rest.removeAll(snapshots.front());
            OpenPlan plan = planPaths(rest);
            const InputKind kind = plan.kind == OpenKind::Document && !plan.paths.isEmpty()
                                       ? recognizeInput(plan.paths.front()).kind
                                       : InputKind::Unknown;
            if (kind == InputKind::StormlogTrace || kind == InputKind::OomBundle) {
                if (!plan.snapshot.isEmpty()) // the one given, not the folder's (its note is the last)
                    plan.notes.removeLast();
                plan.snapshot = snapshots.front();
                return plan;
            }
        }
    }
    return planPaths(given);
}

QString documentName(const QString& path, const TraceData* trace, std::optional<size_t> sessionIndex)
{
    const QString base = sinkOrFileName(path);
    if (!trace)
        return base;
    const auto index = sessionIndex ? sessionIndex : trace->defaultSessionIndex();
    if (!index || *index >= trace->sessions.size() || trace->sessions[*index].ranks.size() != 1)
        return base;
    const SessionInfo& session = trace->sessions[*index];
    return nameWithRank(path, base, session.jobId, session.ranks.front());
}

} // namespace gapscope
