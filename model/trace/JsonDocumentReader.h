#pragma once
// Internal to the loader: the readers of JSON text that end in the record parser: a range of
// JSON lines, a whole JSON document (an array of events, {"events": [...]} or one event) and a
// slice of a large top-level array.

#include "model/trace/EventRecordParser.h"

#include <simdjson.h>

#include <QString>

#include <optional>

namespace gapscope::detail {

// The longest JSON lines record that is read; a longer one is refused as a problem.
inline constexpr size_t kMaxRecordBytes = size_t(16) << 20;

// JSON lines in [begin, end) of data; the bytes up to data + capacity must be readable
// (simdjson padding). firstLine is the line number of begin. A UTF-8 byte order mark is one
// only at the start of a file, which the caller skips (the windowed reader does): here it is
// part of its line, wherever the range starts. When endsFile, a last line
// without a newline that does not parse is taken as a live writer's partial line: a
// Warning, not an Error. Returns false when cancelled. *linesRead (when given) gets the lines
// read, a last one without a newline included.
bool parseJsonLinesRange(const char* data, size_t begin, size_t end, size_t capacity, qint64 firstLine,
                         bool endsFile, EventRecordParser& parser, EventChunk& chunk,
                         const RangeControl& control, qint64* linesRead = nullptr);

// "line of N bytes is longer than the 16 MB a record may have".
QString tooLongRecordReason(qint64 bytes);
// A JSON lines record that was not loaded: an Error, or, for a last line without a newline (a
// live writer's partial line, `bytes` long), a Warning saying so.
void reportLineProblem(EventChunk& chunk, const QString& file, qint64 line, qint64 bytes,
                       bool partialLastLine, const QString& reason);

// A whole JSON document: an array of events, {"events": [...]} or a single event object.
// Returns false when cancelled. A broken document stops at the break (Error problem).
bool parseJsonDocument(const simdjson::padded_string& buffer, EventRecordParser& parser, EventChunk& chunk,
                       const RangeControl& control);

// One slice of a large top-level event array, copied into `slice` as an array text of its
// own ("[" + elements + "]"), parsed as parseJsonDocument parses the elements of the whole
// array: element lines count on from firstLine at the start of slice, indexes from
// firstIndex. Unusable means the slice is not a clean array of elements (a syntax error, or
// the slice was cut inside a value): nothing is decided and the caller falls back to
// parseJsonDocument over the whole file, which reports the break as it always did.
enum class SliceOutcome
{
    Parsed,
    Cancelled,
    Unusable
};
// Elements in the slice (nullopt: Unusable).
std::optional<size_t> countArraySlice(const simdjson::padded_string& slice);
SliceOutcome parseArraySlice(const simdjson::padded_string& slice, qint64 firstLine, qint64 firstIndex,
                             EventRecordParser& parser, EventChunk& chunk, const RangeControl& control);

// Line number (1-based) of byte offset `to`, counting on from (`from`, `lineAtFrom`).
qint64 advanceLine(const char* data, size_t from, size_t to, qint64 lineAtFrom);

} // namespace gapscope::detail
