#pragma once
// Internal to the loader: the diagnose bundle's telemetry_timeline.json, {"timestamps": [s...],
// "allocated": [...], "reserved": [...]}, read as the sample events of collector
// "diagnose.timeline".

#include "model/trace/JsonDocumentReader.h"

namespace gapscope::detail {

// The whole timeline document into chunk; what cannot be used is a problem in chunk.
void parseDiagnoseTimeline(const simdjson::padded_string& buffer, const QString& file, EventChunk& chunk);

} // namespace gapscope::detail
