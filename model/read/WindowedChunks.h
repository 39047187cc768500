#pragma once
// Internal to the loader: a file of records (JSON lines, CSV) read in windows and parsed on
// all cores into one EventChunk.
//
// A pipeline: while the ranges of window k are parsed (one thread per range, each with its
// own parser and chunk), one thread reads window k + 1 into the other buffer and another
// merges the ranges of window k - 1. Reading (a copy out of the page cache) and merging are
// serial work; overlapped with the parse they leave no core idle. Only two windows are in
// memory; the partial last record of a window starts the next one, and a record longer than a
// window grows it. The chunks of the ranges are reused window after window and keep their rows
// unpacked until the merge; the merged columns grow once to the rows the file is expected to
// give. Ranges count their own lines from 1 and their problems are renumbered at the merge, so
// no pass over the text counts lines first. The result (rows, strings, sources, problems and
// their lines) is that of one sequential pass, for any number of threads and window size.

#include <QString>

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

namespace gapscope {
class EventStore;
}

namespace gapscope::detail {

struct EventChunk;
struct RangeControl;
class EventRecordParser;

// A parse thread reports its progress at least every this many bytes (the loader's reports
// to the user are spaced to match).
constexpr size_t kWorkerStepBytes = 64 * 1024;

// Runs work(i) for i in [0, count): i = 0 on the calling thread, the others on threads of their own.
template <typename Work> void forEachRange(size_t count, Work&& work)
{
    std::vector<std::thread> threads;
    for (size_t i = 1; i < count; ++i)
        threads.emplace_back(work, i);
    work(size_t{0});
    for (std::thread& thread : threads)
        thread.join();
}

// Whole records data[begin, end), readable up to data + capacity.
struct RecordRange
{
    const char* data = nullptr;
    size_t begin = 0;
    size_t end = 0;
    size_t capacity = 0;
    bool endsFile = false; // the range ends the file: its last record may have no line break
};

// How one form is cut and parsed. Every function but recordsStart is required.
struct WindowedForm
{
    // Bytes read per thread at a time; tests set a few to cross many window boundaries.
    size_t windowBytesPerThread = size_t(32) << 20;
    // Zero bytes readable after the data of a window (simdjson's padding for JSON).
    size_t padding = 0;
    const std::atomic<bool>* cancel = nullptr;
    // How many ranges (threads) for a window of this many bytes.
    std::function<int(size_t bytes)> ranges;
    // Bytes done since the last call; called from several threads at once.
    std::function<void(qint64 bytes)> advance;
    // Where the complete records of data[0, filled) end (the whole of it when atEnd); 0 when
    // there is none yet, and the window is read further.
    std::function<size_t(const char* data, size_t filled, bool atEnd)> recordsEnd;
    // The first record boundary in [from, limit], or limit: where a range may start.
    std::function<size_t(const char* data, size_t from, size_t limit)> nextBoundary;
    // Optional (a CSV header row), called for each window with its complete records
    // data[0, end): where the records start in it, *line moved over the lines before them; 0
    // once they have started, end while they have not; nullopt when they never will (the
    // read stops there, complete).
    std::function<std::optional<size_t>(const char* data, size_t end, bool atEnd, qint64* line)> recordsStart;
    // Parses one range into chunk, its lines numbered from 1; *lines gets the lines read (a
    // last one without a line break included). Returns false when cancelled.
    std::function<bool(const RecordRange& range, EventRecordParser& parser, EventChunk& chunk,
                       const RangeControl& control, qint64* lines)>
        parse;
};

// After appendedRows rows were appended to store, when as many again would not fit: grows the
// columns to the rows the whole input is expected to give (the rows per byte so far, 2 % more)
// rather than doubling them, which copies every column at each step and leaves up to half of
// it unused. done is the part of the input read so far, in (0, 1).
void growToExpectedRows(EventStore& store, size_t appendedRows, double done);

// Files read one after the other as one stream of windows (the segments of a sink): a record
// never spans two files, lines are numbered in each file, and each file's end is an end of
// file for its last record. When a file cannot be read, readError(index, message) says
// whether to go on with the next one (rows read from it before the error are kept). Returns
// false when cancelled.
bool readWindowedFiles(const std::vector<QString>& paths, EventChunk& chunk, const WindowedForm& form,
                       const std::function<bool(size_t file, const QString& error)>& readError);

// One file. Returns false when cancelled (chunk then holds the rows of a contiguous prefix of the
// file); *error is set when the file cannot be read. A UTF-8 byte order mark is skipped.
bool readWindowedChunks(const QString& path, EventChunk& chunk, const WindowedForm& form, QString* error);

} // namespace gapscope::detail
