#include "model/trace/Sink.h"

#include "model/trace/JsonEventReader.h"
#include "model/trace/TraceLoader.h"
#include "model/trace/WindowedRecords.h"

#include <QDir>
#include <QFileInfo>

#include <set>

namespace gapscope::detail {

bool loadSink(const QString& path, EventChunk& chunk, SinkManifest& manifest, qint64& bytesRead,
              const LoadControl& control, QString* fatal)
{
    const QDir dir(path);
    const QString manifestPath = dir.filePath(QStringLiteral("manifest.json"));
    QString error;
    std::optional<SinkManifest> parsed = readSinkManifest(path, &chunk.problems, &error);
    if (!parsed) {
        *fatal = QStringLiteral("%1: %2").arg(path, error);
        return true;
    }
    manifest = std::move(*parsed);

    std::vector<QString> files;
    std::set<QString> named;
    for (const SinkManifestSegment& segment : manifest.segments) {
        named.insert(segment.filename);
        const QString file = dir.filePath(segment.filename);
        if (!QFileInfo(file).isFile()) {
            chunk.problems.addWarning(
                manifestPath, 0,
                QStringLiteral("segment '%1' named by the manifest is missing (pruned by retention?); its %2 "
                               "events are not loaded")
                    .arg(segment.filename, segment.eventCount ? QString::number(*segment.eventCount)
                                                              : QStringLiteral("unknown")));
            continue;
        }
        files.push_back(file);
    }
    // Segments on disk the manifest does not name (e.g. written after its last update).
    const QStringList onDisk = dir.entryList({QStringLiteral("segment-*.jsonl")}, QDir::Files, QDir::Name);
    for (const QString& name : onDisk) {
        if (named.count(name))
            continue;
        chunk.problems.addWarning(dir.filePath(name), 0,
                                  QStringLiteral("segment not named by manifest.json; loaded"));
        files.push_back(dir.filePath(name));
    }

    WindowedForm form = windowedForm(control);
    form.readError = [&](size_t index, const QString& message) {
        chunk.problems.addError(files[index], 0, QStringLiteral("cannot read segment: %1").arg(message));
        return true;
    };
    const WindowedReadResult read = readJsonLines(files, chunk, form);
    if (read.cancelled)
        return false;
    bytesRead = read.bytes;
    return true;
}

} // namespace gapscope::detail
