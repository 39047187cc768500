#include "model/document/LoadFailure.h"

#include "model/budget/BudgetLoader.h"
#include "model/text/Text.h"
#include "model/trace/Csv.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace gapscope {

namespace {

constexpr qint64 kHeadBytes = 64 * 1024; // what detection reads, and more
constexpr int kShownChars = 80;

// The first non-blank line of head, control characters shown as spaces, cut at kShownChars.
QString firstLine(const QByteArray& head)
{
    for (const QByteArray& raw : head.split('\n')) {
        QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty())
            continue;
        for (QChar& c : line)
            if (c.unicode() < 0x20)
                c = QLatin1Char(' ');
        if (line.size() > kShownChars)
            line = line.left(kShownChars) + QStringLiteral("…");
        return line;
    }
    return {};
}

bool looksBinary(const QByteArray& head)
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

QString describeFile(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return QStringLiteral("nothing: there is no such file or folder");
    if (info.isDir()) {
        const QStringList entries = QDir(path).entryList(QDir::AllEntries | QDir::NoDotAndDotDot, QDir::Name);
        if (entries.isEmpty())
            return QStringLiteral("an empty folder");
        QStringList shown = entries.mid(0, 5);
        QString text = QStringLiteral("a folder holding %1").arg(shown.join(QStringLiteral(", ")));
        if (entries.size() > shown.size())
            text += QStringLiteral(" and %1 more").arg(entries.size() - shown.size());
        return text;
    }
    if (!info.isFile())
        return QStringLiteral("not a regular file (a pipe, socket or device)");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("a file gapscope may not read (%1)").arg(file.errorString());
    const qint64 size = file.size();
    if (size == 0)
        return QStringLiteral("an empty file");
    const QByteArray head = file.read(kHeadBytes);
    const QString sizeText =
        size < 1024 ? englishPlural(QStringLiteral("%1 byte(s)"), size).arg(size) : bytesText(size);
    if (looksBinary(head))
        return QStringLiteral("%1 of binary data (not text)").arg(sizeText);
    const QString line = firstLine(head);
    if (line.isEmpty())
        return QStringLiteral("%1 of blank lines").arg(sizeText);
    return QStringLiteral("%1 of text; its first line is “%2”").arg(sizeText, line);
}

// The cells of a CSV header line, trimmed (nvidia-smi writes ", " between them).
QStringList headerCells(const QByteArray& head)
{
    const qsizetype end = head.indexOf('\n');
    QStringList cells = QString::fromUtf8(head.left(end < 0 ? head.size() : end)).split(QLatin1Char(','));
    for (QString& cell : cells)
        cell = cell.trimmed();
    return cells;
}

QString recognizeHead(const QByteArray& head)
{
    const auto byte = [&](qsizetype i) { return i < head.size() ? static_cast<unsigned char>(head[i]) : 0u; };
    // pickle protocols 2 to 5 start with PROTO (0x80) and the protocol number
    if (byte(0) == 0x80 && byte(1) >= 2 && byte(1) <= 5)
        return QStringLiteral("a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot, a Python "
                              "pickle): not read yet; open the stormlog trace recorded beside it");
    if (byte(0) == 0x1f && byte(1) == 0x8b)
        return QStringLiteral("a gzip-compressed file: not read; decompress it (gunzip) and open what it "
                              "holds");
    if (looksBinary(head))
        return {};
    const QStringList cells = headerCells(head);
    if (cells.size() < 2)
        return {};
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
        return QStringLiteral("an nvidia-smi device-usage log (%1), not a stormlog trace: attach it to a "
                              "trace with --device-log FILE / File > Attach Device Log…")
            .arg(cells.join(QStringLiteral(", ")));
    // any other CSV: its header names its columns; a stormlog CSV (event columns) is the trace
    // reader's to judge
    const qsizetype end = head.indexOf('\n');
    const QByteArray firstLine = head.left(end < 0 ? head.size() : end);
    static const QRegularExpression columnName(QStringLiteral("^[A-Za-z_][\\w.\\[\\] ()/-]*$"));
    if (detail::isCsvHeader(std::string_view(firstLine.constData(), size_t(firstLine.size()))) ||
        !std::all_of(cells.begin(), cells.end(),
                     [](const QString& c) { return columnName.match(c).hasMatch(); }))
        return {};
    return QStringLiteral("a CSV file of other columns (%1): not a stormlog trace (its CSV has event "
                          "columns: timestamp_ns, event_type, ...) nor a memory-budget log")
        .arg(cells.join(QStringLiteral(", ")));
}

} // namespace

QString recognizeForeignInput(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray head = file.read(kHeadBytes);
    if (looksLikeBudgetLog(head))
        return {};
    return recognizeHead(head);
}

QString acceptedInputsText()
{
    return QStringLiteral(
        "stormlog traces: JSON lines (.jsonl), a JSON document or array (.json), CSV with event "
        "columns (.csv), a telemetry_sink folder (manifest.json and its segments) and a diagnose "
        "timeline; memory-budget logs: text tick lines, JSON (tracing) and JSON lines (snapshots); "
        "several per-rank inputs, or a folder of them, open as one distributed job.");
}

LoadFailureExplanation explainLoadFailure(const QString& path, const QString& error)
{
    LoadFailureExplanation e;
    e.path = path;
    const QString name = QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName();
    e.title = QStringLiteral("%1 could not be opened").arg(name);
    e.reason = error;
    if (const QString prefix = path + QStringLiteral(": "); !path.isEmpty() && e.reason.startsWith(prefix))
        e.reason = e.reason.mid(prefix.size());

    const QFileInfo info(path);
    bool budget = false;
    if (info.isFile()) {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            budget = looksLikeBudgetLog(file.read(kHeadBytes));
    }
    if (!info.exists())
        e.tried = QStringLiteral("nothing could be read");
    else if (budget)
        e.tried = QStringLiteral("its lines look like a memory-budget log, so the budget log reader read "
                                 "it and gave up for the reason above");
    else if (info.isDir())
        e.tried = QStringLiteral("a folder is read as a stormlog telemetry_sink (it needs a "
                                 "manifest.json) or as a job of per-rank inputs; it is neither");
    else
        e.tried = QStringLiteral("no line is a memory-budget log tick, so it is not a budget log; the "
                                 "stormlog trace reader then gave up for the reason above");
    const QString recognized = recognizeForeignInput(path);
    if (!recognized.isEmpty())
        e.tried =
            QStringLiteral("gapscope recognised what it is (below), a form it does not read as a trace");
    e.looksLike = recognized.isEmpty() ? describeFile(path) : recognized;
    e.accepted = acceptedInputsText();
    return e;
}

} // namespace gapscope
