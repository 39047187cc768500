#pragma once
// Internal to the loader: a stormlog sink directory (manifest.json and its segment-*.jsonl
// files) read as one trace. The segments the manifest names are read in its order, then the
// segments on disk it does not name yet; all of them are one stream of windows for the windowed
// reader, so the pipeline runs on across their ends.

#include "model/trace/SinkManifest.h"

#include <QString>

#include <string_view>
#include <vector>

namespace gapscope {
struct LoadControl;
struct SinkSegmentBytes;
} // namespace gapscope

namespace gapscope::detail {

struct EventChunk;

// Reads path/manifest.json into manifest and every segment into chunk (what cannot be used is a
// problem in chunk). Returns false when cancelled; *fatal is set when the manifest is unusable.
// bytesRead gets the size of the segments once they are read completely.
// A segment that resolves outside the directory (a symbolic link) is refused with a problem.
bool loadSink(const QString& path, EventChunk& chunk, SinkManifest& manifest, qint64& bytesRead,
              const LoadControl& control, QString* fatal);

// loadSink for a sink in memory (its manifest.json and segment files), read as the directory
// `path` holding them would be, in the calling thread.
bool loadSinkBytes(const QString& path, std::string_view manifestText,
                   const std::vector<SinkSegmentBytes>& segments, EventChunk& chunk, SinkManifest& manifest,
                   qint64& bytesRead, const LoadControl& control, QString* fatal);

} // namespace gapscope::detail
