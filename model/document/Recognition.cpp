#include "model/document/Recognition.h"

#include "model/budget/BudgetLoader.h"
#include "model/fleetdata/FleetQuery.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/trace/Csv.h"
#include "model/trace/TraceLoader.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace gapscope {

namespace {

// The cells of a CSV header line, trimmed (nvidia-smi writes ", " between them).
QStringList headerCells(const QByteArray& head)
{
    const qsizetype end = head.indexOf('\n');
    QStringList cells = QString::fromUtf8(head.left(end < 0 ? head.size() : end)).split(QLatin1Char(','));
    for (QString& cell : cells)
        cell = cell.trimmed();
    return cells;
}

// A form gapscope names and does not read, from the head of a file that is not a budget log:
// the kind and what to say; nullopt for anything the trace reader is to judge.
std::optional<std::pair<InputKind, QString>> foreignHead(const QByteArray& head)
{
    const auto byte = [&](qsizetype i) { return i < head.size() ? static_cast<unsigned char>(head[i]) : 0u; };
    // pickle protocols 2 to 5 start with PROTO (0x80) and the protocol number; a .pickle.gz
    // inflates to that (model/snapshot reads both)
    const std::string_view bytes(head.constData(), size_t(head.size()));
    if (headIsPickle(bytes) || gzipHeadIsPickle(bytes))
        return std::pair{
            InputKind::PytorchSnapshot,
            QStringLiteral("a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot, a Python "
                           "pickle%1): it opens on its own snapshot page, `gapscope analyze` and "
                           "`export` report it, and File > Attach Snapshot puts it on a trace")
                .arg(headIsGzip(bytes) ? QStringLiteral(", gzip-compressed") : QString())};
    // an SQLite database: a fleet index by its schema (model/fleet/FleetSchema.h), any other
    // named for what it is
    if (headIsFleetDatabase(bytes))
        return std::pair{InputKind::FleetDatabase,
                         QStringLiteral("a gapscope fleet index (an SQLite database written by `gapscope "
                                        "index`): the window shows it on the fleet page (File > Open "
                                        "Fleet...); sqlite3 or DuckDB query it")};
    if (headIsSqlite(bytes))
        return std::pair{InputKind::Foreign,
                         QStringLiteral("an SQLite database that is not a gapscope fleet index (no meta, "
                                        "runs and issue_runs tables): not read")};
    if (byte(0) == 0x1f && byte(1) == 0x8b)
        return std::pair{InputKind::Foreign,
                         QStringLiteral("a gzip-compressed file: not read; decompress it (gunzip) and open "
                                        "what it holds")};
    if (headLooksBinary(head))
        return std::nullopt;
    const QStringList cells = headerCells(head);
    if (cells.size() < 2)
        return std::nullopt;
    // nvidia-smi --query-gpu=timestamp,memory.used,... / --query-compute-apps=timestamp,pid,used_memory
    // --format=csv: "timestamp, memory.used [MiB], memory.total [MiB]"
    static const QRegularExpression smiColumn(
        QStringLiteral("^(memory\\.(used|total|free|reserved)|used_memory|used_gpu_memory|pid|index|name|"
                       "utilization\\.\\w+)( \\[\\w+\\])?$"));
    if (cells.front() == QStringLiteral("timestamp") &&
        std::all_of(cells.begin() + 1, cells.end(),
                    [](const QString& c) { return smiColumn.match(c).hasMatch(); }) &&
        std::any_of(cells.begin() + 1, cells.end(),
                    [](const QString& c) { return c.contains(QStringLiteral("memory")); }))
        return std::pair{
            InputKind::NvidiaSmiLog,
            QStringLiteral("an nvidia-smi device-usage log (%1), not a stormlog trace: attach it "
                           "to a trace with --device-log FILE / File > Attach Device Log…")
                .arg(cells.join(QStringLiteral(", ")))};
    // any other CSV: its header names its columns; a stormlog CSV (event columns) is the trace
    // reader's to judge
    const qsizetype end = head.indexOf('\n');
    const QByteArray firstLine = head.left(end < 0 ? head.size() : end);
    static const QRegularExpression columnName(QStringLiteral("^[A-Za-z_][\\w.\\[\\] ()/-]*$"));
    if (detail::isCsvHeader(std::string_view(firstLine.constData(), size_t(firstLine.size()))) ||
        !std::all_of(cells.begin(), cells.end(),
                     [](const QString& c) { return columnName.match(c).hasMatch(); }))
        return std::nullopt;
    return std::pair{
        InputKind::Foreign,
        QStringLiteral("a CSV file of other columns (%1): not a stormlog trace (its CSV has event "
                       "columns: timestamp_ns, event_type, ...) nor a memory-budget log")
            .arg(cells.join(QStringLiteral(", ")))};
}

// What the one path to read is: a folder (a sink, or nothing gapscope reads), something that is
// not a regular file, or a file by its head (read into *head).
void recognizeTarget(const QString& path, InputRecognition& r, QByteArray* head)
{
    r.path = path;
    const QFileInfo info(path);
    if (!info.isFile()) {
        // a sink folder, or the trace loader's reason for what is not one (nothing is opened:
        // a folder is judged by its manifest.json, a FIFO or device is refused unopened)
        QString why;
        r.traceForm = detectTraceForm(path, &why);
        r.kind = r.traceForm ? InputKind::StormlogTrace : InputKind::Unknown;
        r.growsByLines = r.traceForm.has_value();
        r.reason = why;
        return;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        r.kind = InputKind::Unknown;
        r.reason = QStringLiteral("cannot open for reading: %1").arg(file.errorString());
        return;
    }
    *head = readInputHead(file);
    InputRecognition byContent = recognizeHead(*head);
    byContent.path = r.path;
    byContent.plan = std::move(r.plan);
    r = std::move(byContent);
}

} // namespace

QString toString(InputKind kind)
{
    switch (kind) {
    case InputKind::StormlogTrace:
        return QStringLiteral("stormlog trace");
    case InputKind::BudgetLog:
        return QStringLiteral("memory-budget log");
    case InputKind::Job:
        return QStringLiteral("distributed job");
    case InputKind::SeveralRuns:
        return QStringLiteral("several runs");
    case InputKind::OomBundle:
        return QStringLiteral("OOM bundle");
    case InputKind::PytorchSnapshot:
        return QStringLiteral("PyTorch snapshot");
    case InputKind::FleetDatabase:
        return QStringLiteral("fleet database");
    case InputKind::NvidiaSmiLog:
        return QStringLiteral("nvidia-smi log");
    case InputKind::Foreign:
        return QStringLiteral("foreign");
    case InputKind::Unknown:
        return QStringLiteral("unknown");
    }
    return QStringLiteral("unknown");
}

bool headLooksBinary(const QByteArray& head)
{
    qsizetype control = 0;
    for (const char c : head) {
        const auto u = static_cast<unsigned char>(c);
        if (u == 0)
            return true;
        if (u < 0x20 && u != '\n' && u != '\r' && u != '\t')
            ++control;
    }
    return control > head.size() / 10;
}

InputRecognition recognizeHead(const QByteArray& head)
{
    InputRecognition r;
    const std::string_view bytes(head.constData(), size_t(head.size()));
    // a budget log first: its lines may follow other crates' log lines that no other reader takes
    if ((r.budgetForm = detectBudgetLogForm(bytes))) {
        r.kind = InputKind::BudgetLog;
        return r;
    }
    if (auto foreign = foreignHead(head)) {
        r.kind = foreign->first;
        r.reason = std::move(foreign->second);
        return r;
    }
    QString why;
    r.traceForm = detectTraceBytesForm(bytes, &why);
    if (!r.traceForm) {
        r.reason = why;
        return r;
    }
    r.kind = InputKind::StormlogTrace;
    // legacy records come as lines or as one JSON array; only lines can grow
    r.growsByLines = *r.traceForm == TraceForm::JsonLines ||
                     (*r.traceForm == TraceForm::Legacy && head.trimmed().startsWith('{'));
    return r;
}

namespace {

// recognizeInputs, with the head of a file given alone put in *givenHead.
InputRecognition recognize(const QStringList& paths, QByteArray* givenHead)
{
    InputRecognition r;
    // the head of a file given alone, read before planOpen: it is what the file holds whatever
    // planOpen opens instead (a sink's segment stands for its sink)
    bool headRead = false;
    if (paths.size() == 1 && QFileInfo(paths.front()).isFile()) {
        QFile file(paths.front());
        if (file.open(QIODevice::ReadOnly)) {
            *givenHead = readInputHead(file);
            headRead = true;
        }
    }
    r.plan = planOpen(paths);
    if (r.plan.kind == OpenKind::SeveralRuns) {
        r.kind = InputKind::SeveralRuns;
        r.reason = r.plan.severalRunsText(paths.join(QStringLiteral(", ")));
        return r;
    }
    if (paths.isEmpty()) {
        r.reason = QStringLiteral("no input given");
        return r;
    }
    const QString path =
        r.plan.kind == OpenKind::Document && !r.plan.paths.isEmpty() ? r.plan.paths.front() : paths.front();
    // an OOM flight-recorder bundle (or the folder holding one), found from any path into it
    if (paths.size() == 1 || r.plan.kind == OpenKind::Document)
        r.bundle = locateOomBundle(path);
    // A folder that is both (ranks beside an oom_dumps folder, an oom_dumps folder of several
    // bundles) opens as a job; a document load of it reads the bundle (bundle is set for it).
    if (r.plan.kind == OpenKind::Job) {
        r.kind = InputKind::Job;
        return r;
    }
    if (r.bundle) {
        r.kind = InputKind::OomBundle;
        r.path = path;
        r.traceForm = TraceForm::Legacy; // its events.json: MemoryEvent.to_dict records
        return r;
    }
    if (headRead && path == paths.front()) {
        InputRecognition byContent = recognizeHead(*givenHead);
        byContent.path = path;
        byContent.plan = std::move(r.plan);
        return byContent;
    }
    QByteArray targetHead;
    recognizeTarget(path, r, &targetHead);
    return r;
}

} // namespace

InputRecognition recognizeInputs(const QStringList& paths)
{
    QByteArray head;
    return recognize(paths, &head);
}

InputRecognition recognizeInput(const QString& path, QByteArray* head)
{
    QByteArray own;
    return recognize({path}, head ? head : &own);
}

std::optional<size_t> jobSessionOf(const TraceData& trace, std::optional<size_t> session)
{
    const auto index = session ? session : trace.defaultSessionIndex();
    if (!index || *index >= trace.sessions.size() || trace.sessions[*index].ranks.size() < 2)
        return std::nullopt;
    return index;
}

} // namespace gapscope
