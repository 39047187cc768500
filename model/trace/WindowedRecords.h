#pragma once
// Internal to the loader: the event records of line-oriented files (JSON lines, CSV, the
// segments of a sink) read through the one windowed reader (model/read/WindowedReader.h) into
// one EventChunk.
//
// Every range parses into a chunk of its own, reused window after window, whose rows stay
// unpacked until the merge; the merged columns grow once to the rows the input is expected to
// give. Ranges count their own lines from 1 and their problems are renumbered at the merge, so
// no pass over the text counts lines first. The result (rows, strings, sources, problems and
// their lines) is that of one sequential pass, for any number of threads and window size.

#include "model/read/WindowedReader.h"

#include <QString>

#include <functional>
#include <vector>

namespace gapscope {
class EventStore;
struct LoadControl;
} // namespace gapscope

namespace gapscope::detail {

struct EventChunk;
struct RangeControl;
class EventRecordParser;

// Parses the records of one range into chunk, its lines numbered from 1; *lines gets the lines
// read (a last one without a line break included). Returns false when cancelled.
using RecordRangeParse = std::function<bool(const WindowRange& range, EventRecordParser& parser,
                                            EventChunk& chunk, const RangeControl& control, qint64* lines)>;

// After appendedRows rows were appended to store, when as many again would not fit: grows the
// columns to the rows the whole input is expected to give (the rows per byte so far, 2 % more)
// rather than doubling them, which copies every column at each step and leaves up to half of
// it unused. done is the part of the input read so far, in (0, 1).
void growToExpectedRows(EventStore& store, size_t appendedRows, double done);

// Reads the inputs (files or bytes, see readWindowed) into chunk. form says how they are read and cut
// (threads, window, progress, cancel, record boundaries, read errors); its prepare, parse and merge are set
// here, and a UTF-8 byte order mark is skipped. When cancelled, chunk holds the rows of a contiguous prefix
// of the input.
WindowedReadResult readRecordWindows(const std::vector<WindowedInput>& inputs, EventChunk& chunk,
                                     WindowedForm form, const RecordRangeParse& parse);

// How the loader reads a line-oriented file under control (threads, window, progress,
// cancel), before a form's own cutting is set.
WindowedForm windowedForm(const LoadControl& control);

// JSON lines files (a trace, the segments of a sink): records end at line breaks.
WindowedReadResult readJsonLines(const std::vector<WindowedInput>& inputs, EventChunk& chunk,
                                 WindowedForm form);

} // namespace gapscope::detail
