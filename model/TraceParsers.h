#pragma once
// Internal to the loader: the forms that are not a stream of JSON event objects.
// CSV rows are rewritten as JSON objects and go through the same per-record parser as
// every JSON form, so a CSV and a JSON capture of one run load into identical columns.

#include "JsonEventReader.h"

#include <string_view>

namespace gapscope::detail {

// Keys of the CSV header (unquoted), or empty when the first line is not a header.
std::vector<std::string> csvHeader(std::string_view firstLine);

// Whole CSV text (header row first). data must be followed by readable padding. Returns
// false when cancelled.
bool parseCsv(std::string_view text, EventRecordParser& parser, EventChunk& chunk,
              const RangeControl& control);

// Diagnose bundle telemetry_timeline.json: {"timestamps": [s...], "allocated": [...],
// "reserved": [...]} -> sample events of collector "diagnose.timeline".
void parseDiagnoseTimeline(const simdjson::padded_string& buffer, const QString& file, EventChunk& chunk);

} // namespace gapscope::detail
