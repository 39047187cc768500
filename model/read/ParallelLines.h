#pragma once
// Reads a line-based file in windows and parses each window on several threads: the complete
// lines of a window are cut at line boundaries into one range per thread, every range is
// parsed on its own thread (by a callback with its own parser and result slot), and the
// ranges are handed back in file order on the calling thread to be merged. Only the window
// is in memory; a partial last line moves to the start of the next window. Progress is in
// bytes of the file, cancel is polled by the range callbacks at every line.
//
// The parse of a range may not depend on another range: any state one line carries to the
// next must be fixed up by the merge, which sees the ranges in file order.

#include <QString>
#include <QtGlobal>

#include <atomic>
#include <cstddef>
#include <functional>

namespace gapscope {

// Newlines in [begin, end): the line count every windowed reader needs at its cuts.
qint64 countNewlines(const char* begin, const char* end);

struct ParallelLinesOptions
{
    // 0 = one range per core, fewer for small files (see minBytesPerThread); n > 0 = exactly
    // n ranges per window.
    int threads = 0;
    // Bytes read per window and range; a window holds threads x this (tests use a few bytes
    // to force many windows and ranges).
    size_t windowBytesPerThread = size_t(32) << 20;
    // With threads = 0, a file smaller than this per thread uses fewer threads.
    size_t minBytesPerThread = 512 * 1024;
    // A line longer than this (without its '\n') is not held: it is skipped and reported to
    // longLine. 0 = no limit (a window grows to hold the longest line).
    size_t maxLineBytes = 0;
    // Zero bytes kept after the data of a window (readable, e.g. simdjson::SIMDJSON_PADDING).
    size_t padding = 0;
    // (bytes of the file done, file size); called on the calling thread or a worker, in
    // increasing order, and once with (size, size) at the end of a complete read.
    std::function<void(qint64, qint64)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// One range of whole lines of a window, handed to the parse callback.
class LineRange
{
public:
    const char* data = nullptr; // the window: lines are data[begin, end)
    size_t begin = 0;
    size_t end = 0;
    size_t capacity = 0;        // data is readable up to data + capacity (padding included)
    qint64 firstLineNumber = 1; // 1-based number of the line starting at data + begin
    bool endsFile = false;      // the range ends the file: its last line may have no '\n'
    size_t slot = 0;            // index of the range within its window: 0 .. ranges - 1

    // Call at each line with the offset in data it has reached: reports progress now and
    // then and returns false when the load is cancelled (stop and return false).
    bool proceed(size_t position) const;

private:
    friend class ParallelLinesReader;
    std::function<bool(size_t)> m_proceed;
};

struct ParallelLinesCallbacks
{
    // Once, before any other call: the number of ranges (result slots) each window has.
    std::function<void(size_t ranges)> prepare;
    // On a worker thread (slot 0 on the calling thread): parse the range into the result of
    // its slot. Return false when cancelled.
    std::function<bool(const LineRange& range)> parse;
    // On the calling thread after each window, for slots 0, 1, ... in order, each completely
    // parsed: take the slot's result (and leave the slot empty for the next window).
    std::function<void(size_t slot)> merge;
    // On the calling thread, in file order: a line longer than maxLineBytes; bytes without
    // the '\n'; endsFile when the file ends inside it (no '\n').
    std::function<void(qint64 lineNumber, qint64 bytes, bool endsFile)> longLine;
};

struct ParallelLinesResult
{
    bool cancelled = false;
    QString error;       // not empty when the file could not be opened or read
    qint64 lines = 0;    // lines seen (a last line without a newline included)
    qint64 fileSize = 0; // at opening
};

// Reads and parses `path` as above. On cancel, the ranges merged are a contiguous prefix of
// the file.
ParallelLinesResult readLinesParallel(const QString& path, const ParallelLinesOptions& options,
                                      const ParallelLinesCallbacks& callbacks);

// The number of ranges a window of a file of `bytes` is cut into.
size_t parallelLinesRanges(qint64 bytes, const ParallelLinesOptions& options);

} // namespace gapscope
