#include "model/trace/Sink.h"

#include "model/trace/JsonDocumentReader.h"
#include "model/trace/TraceLoader.h"
#include "model/trace/WindowedRecords.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <set>

namespace gapscope::detail {

namespace {

// The segments of a sink as inputs of the windowed reader: those the manifest names in its
// order, then those present it does not name. present: the segment files there are, sorted by
// name; input(name): how one is read, or nullopt when it is refused (with a problem of its own).
template <typename Input>
std::vector<WindowedInput> sinkInputs(const SinkManifest& manifest, const QString& manifestPath,
                                      const QStringList& present, const Input& input, EventChunk& chunk)
{
    std::vector<WindowedInput> inputs;
    std::set<QString> named;
    for (const SinkManifestSegment& segment : manifest.segments) {
        named.insert(segment.filename);
        if (!present.contains(segment.filename)) {
            chunk.problems.addWarning(
                manifestPath, 0,
                QStringLiteral("segment '%1' named by the manifest is missing (pruned by retention?); its %2 "
                               "events are not loaded")
                    .arg(segment.filename, segment.eventCount ? QString::number(*segment.eventCount)
                                                              : QStringLiteral("unknown")));
            continue;
        }
        if (std::optional<WindowedInput> one = input(segment.filename))
            inputs.push_back(std::move(*one));
    }
    // Segments present that the manifest does not name (e.g. written after its last update).
    for (const QString& name : present) {
        if (named.count(name) || !name.startsWith(QStringLiteral("segment-")) ||
            !name.endsWith(QStringLiteral(".jsonl")))
            continue;
        if (std::optional<WindowedInput> one = input(name)) {
            chunk.problems.addWarning(one->name, 0,
                                      QStringLiteral("segment not named by manifest.json; loaded"));
            inputs.push_back(std::move(*one));
        }
    }
    return inputs;
}

// The segments into chunk; false when cancelled.
bool readSegments(const std::vector<WindowedInput>& inputs, EventChunk& chunk, qint64& bytesRead,
                  const LoadControl& control)
{
    WindowedForm form = windowedForm(control);
    form.readError = [&](size_t index, const QString& message) {
        chunk.problems.addError(inputs[index].name, 0,
                                QStringLiteral("cannot read segment: %1").arg(message));
        return true;
    };
    const WindowedReadResult read = readJsonLines(inputs, chunk, form);
    if (read.cancelled)
        return false;
    bytesRead = read.bytes;
    return true;
}

} // namespace

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

    QStringList present = dir.entryList(QDir::Files, QDir::Name);
    // A segment is read only when it resolves inside the sink: a symbolic link to a file
    // elsewhere (a private file) is refused, not followed.
    const QString root = QFileInfo(path).canonicalFilePath() + QLatin1Char('/');
    const auto input = [&](const QString& name) -> std::optional<WindowedInput> {
        const QString file = dir.filePath(name);
        const QString resolved = QFileInfo(file).canonicalFilePath();
        if (resolved.isEmpty() || !resolved.startsWith(root)) {
            chunk.problems.addError(
                file, 0, QStringLiteral("segment '%1' resolves outside the sink folder; refused").arg(name));
            return std::nullopt;
        }
        return WindowedInput{file, std::nullopt};
    };
    return readSegments(sinkInputs(manifest, manifestPath, present, input, chunk), chunk, bytesRead, control);
}

bool loadSinkBytes(const QString& path, std::string_view manifestText,
                   const std::vector<SinkSegmentBytes>& segments, EventChunk& chunk, SinkManifest& manifest,
                   qint64& bytesRead, const LoadControl& control, QString* fatal)
{
    const QDir dir(path);
    const QString manifestPath = dir.filePath(QStringLiteral("manifest.json"));
    QString error;
    std::optional<SinkManifest> parsed =
        parseSinkManifest(manifestText, manifestPath, &chunk.problems, &error);
    if (!parsed) {
        *fatal = QStringLiteral("%1: %2").arg(path, error);
        return true;
    }
    manifest = std::move(*parsed);
    QStringList present;
    for (const SinkSegmentBytes& segment : segments)
        present.push_back(segment.name);
    std::sort(present.begin(), present.end());
    const auto input = [&](const QString& name) -> std::optional<WindowedInput> {
        for (const SinkSegmentBytes& segment : segments) {
            if (segment.name == name)
                return WindowedInput{dir.filePath(name), segment.bytes};
        }
        return std::nullopt;
    };
    return readSegments(sinkInputs(manifest, manifestPath, present, input, chunk), chunk, bytesRead, control);
}

} // namespace gapscope::detail
