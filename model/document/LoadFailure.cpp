#include "model/document/LoadFailure.h"

#include "model/document/Recognition.h"
#include "model/text/Text.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace gapscope {

namespace {

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

// head: what recognizeInput read of path (a regular file).
QString describeFile(const QString& path, const QByteArray& head)
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
    const QString sizeText =
        size < 1024 ? englishPlural(QStringLiteral("%1 byte(s)"), size).arg(size) : bytesText(size);
    if (headLooksBinary(head))
        return QStringLiteral("%1 of binary data (not text)").arg(sizeText);
    const QString line = firstLine(head);
    if (line.isEmpty())
        return QStringLiteral("%1 of blank lines").arg(sizeText);
    return QStringLiteral("%1 of text; its first line is “%2”").arg(sizeText, line);
}

} // namespace

QString recognizeForeignInput(const QString& path)
{
    if (!QFileInfo(path).isFile())
        return {};
    const InputRecognition input = recognizeInput(path);
    return input.namedForeign() ? input.reason : QString();
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
    QByteArray head;
    const InputRecognition input = recognizeInput(path, &head);
    const bool budget = info.isFile() && input.kind == InputKind::BudgetLog;
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
    const QString recognized = info.isFile() && input.namedForeign() ? input.reason : QString();
    if (!recognized.isEmpty())
        e.tried =
            QStringLiteral("gapscope recognised what it is (below), a form it does not read as a trace");
    e.looksLike = recognized.isEmpty() ? describeFile(path, head) : recognized;
    e.accepted = acceptedInputsText();
    return e;
}

} // namespace gapscope
