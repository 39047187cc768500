#pragma once
// The one reader of line-oriented files (JSON lines, CSV, the segments of a sink, memory-budget
// logs): files read one after the other in windows, each window parsed on several threads.
//
// A pipeline: while the ranges of window k are parsed (one thread per range, each into a result
// slot of its own), a read-ahead thread reads window k + 1 into the other buffer and a merge
// thread hands the slots of window k - 1 to the form in file order. The threads are started
// once per read. Only two windows are in memory; the partial last record of a window starts the
// next one, and a record longer than a window grows it (up to maxLineBytes, beyond which the
// line is skipped and reported). A form says where its records end (after a line break, or
// after one outside CSV quotes) and how a range is parsed. The result is that of one sequential
// pass for any number of threads and any window size, so the parse of a range may not depend on
// another range: what one line carries to the next is fixed up by the merge, which sees the
// ranges in file order. Progress is in bytes of all the files; cancel is polled between the
// pieces a window is read in and by the parse at every record.

#include <QString>
#include <QtGlobal>

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace gapscope {

// Newlines in [begin, end): the line count every windowed reader needs at its cuts.
qint64 countNewlines(const char* begin, const char* end);

// A parse thread reports its progress at least every this many bytes (the reports to the user
// are spaced to match).
constexpr size_t kWorkerStepBytes = 64 * 1024;

// Inputs smaller than this per thread are parsed on fewer threads (thread start-up and the
// merge would cost more than they save).
constexpr size_t kMinBytesPerThread = 512 * 1024;

// The ranges (threads) for an input of `bytes`: `threads` when > 0, else one per core, fewer
// for small inputs.
size_t rangesFor(size_t bytes, int threads);

// The window read per thread at a time for inputs of `bytes` in all, parsed on `threads`: two
// windows are held at once (one parsed, the next read), so this is most of the memory a read
// needs beyond its result. A few dozen windows per input, between 1 and 4 MB a thread: the
// threads meet once per window (the merge, the read ahead), which costs about 0.1 ms, and a
// window of 1 MB takes ~1 ms to parse.
size_t windowBytesPerThreadFor(size_t bytes, size_t threads);

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

// Byte progress of several threads as one increasing sequence of reports (done, total), at
// least one every kReportStepBytes, so that consecutive reports stay within 1 MB plus a line.
class ByteProgress
{
public:
    static constexpr qint64 kReportStepBytes = (1 << 20) - static_cast<qint64>(kWorkerStepBytes);

    ByteProgress(std::function<void(qint64, qint64)> report, qint64 total);
    // Thread-safe.
    void advance(qint64 delta);
    // Reports (total, total): the input was read completely.
    void finish();

private:
    const std::function<void(qint64, qint64)> m_report;
    const qint64 m_total;
    std::mutex m_mutex;
    qint64 m_done = 0;
    qint64 m_next = kReportStepBytes;
};

// Whole records data[begin, end) of a window, handed to the parse callback.
class WindowRange
{
public:
    const char* data = nullptr;
    size_t begin = 0;
    size_t end = 0;
    size_t capacity = 0; // data is readable up to data + capacity (padding included)
    // Line of data + begin in its file when the form numbers lines first; 1 otherwise (the
    // merge gets the real one).
    qint64 firstLine = 1;
    bool endsFile = false; // the range ends its file: its last record may have no line break
    size_t slot = 0;       // the result slot to parse into: 0 .. slotCount - 1
    size_t file = 0;       // index of its file in the paths read

    // Call at each record with the offset in data it has reached: reports progress now and
    // then, and returns false when the read is cancelled (stop and return false).
    bool proceed(size_t position) const;

private:
    friend class WindowedReader;
    std::function<bool(size_t)> m_proceed;
};

// A parsed range handed to the merge, in file order.
struct WindowMerge
{
    size_t slot = 0;
    size_t file = 0;
    qint64 firstLine = 1; // line of the range's first record in its file
    size_t index = 0;     // of the range in its window: 0 .. ranges - 1
    size_t ranges = 0;    // ranges of the window
    bool complete = true; // false: the parse was cancelled within the range (the last merge)
    double done = 0;      // part of all the input read up to the end of the window, (0, 1]
};

// How one form is cut and parsed. Only parse is required.
struct WindowedForm
{
    // 0 = one thread per core, fewer for small inputs; n > 0 = exactly n threads. A window is
    // cut into a few ranges per thread, which the threads take in turn.
    int threads = 0;
    // Bytes read per thread at a time; 0 = windowBytesPerThreadFor the input. Tests set a few
    // to cross many window boundaries.
    size_t windowBytesPerThread = 0;
    // Zero bytes readable after the data of a window (simdjson's padding for JSON).
    size_t padding = 0;
    // A line longer than this that does not fit a window is not held: it is skipped and
    // reported to longLine. 0 = no limit (a window grows to hold the longest record).
    size_t maxLineBytes = 0;
    // Count the lines of every range before it is parsed, so that the parse knows the line
    // numbers (firstLine) instead of the merge renumbering what the range found.
    bool numberLinesFirst = false;
    // A UTF-8 byte order mark at the start of a file is not handed to the parse.
    bool skipByteOrderMark = false;
    const std::atomic<bool>* cancel = nullptr;
    // (bytes of all the files done, their size); called from several threads, in increasing
    // order, and once with (size, size) at the end of a complete read.
    std::function<void(qint64, qint64)> progress;

    // Where the complete records of data[0, filled) end (the whole of it when atEnd); 0 when
    // there is none yet and the window is read further. Default: after the last '\n'.
    std::function<size_t(const char* data, size_t filled, bool atEnd)> recordsEnd;
    // The first record boundary in [from, limit], or limit: where a range may start. Default:
    // after the next '\n'.
    std::function<size_t(const char* data, size_t from, size_t limit)> nextBoundary;
    // Optional (a CSV header row), called for each window with its complete records
    // data[0, end): where the records start in it, *line moved over the lines before them; 0
    // once they have started, end while they have not; nullopt when they never will (the read
    // stops there, complete).
    std::function<std::optional<size_t>(const char* data, size_t end, bool atEnd, qint64* line)> recordsStart;

    // Once, before any other call: the number of result slots.
    std::function<void(size_t slotCount)> prepare;
    // On a worker thread: parses the range into the result of its slot; *lines gets the lines
    // read (a last one without a line break included; not needed when numberLinesFirst).
    // Returns false when cancelled.
    std::function<bool(const WindowRange& range, qint64* lines)> parse;
    // On the merge thread, one range at a time in file order: take the slot's result (and
    // leave the slot empty for a later window). After an incomplete range nothing is merged.
    std::function<void(const WindowMerge& merge)> merge;
    // In file order: a line longer than maxLineBytes; bytes without the '\n'; endsFile when its
    // file ends inside it.
    std::function<void(size_t file, qint64 line, qint64 bytes, bool endsFile)> longLine;
    // A file could not be opened or read: whether to go on with the next one (the records read
    // from it before the error are kept). Default: stop, with the error in the result.
    std::function<bool(size_t file, const QString& error)> readError;
};

struct WindowedReadResult
{
    bool cancelled = false; // the records merged are those of a contiguous prefix of the input
    QString error;          // set when a file could not be read and readError did not go on
    qint64 lines = 0;       // lines seen in all the files (a last one without a newline included)
    qint64 bytes = 0;       // size of all the files at opening
};

// One input of a read: the file at `name`, or, when bytes is set, those bytes read as the file
// `name` would be (name is then only what problems and errors call it).
struct WindowedInput
{
    QString name;
    std::optional<std::string_view> bytes;
};

// Reads the inputs one after the other as readWindowed(paths) does. When every input is bytes,
// the read is one window per input and one range, parsed and merged in the calling thread
// (threads and windowBytesPerThread are not used); the result is the same as for files.
WindowedReadResult readWindowed(const std::vector<WindowedInput>& inputs, const WindowedForm& form);

// Reads `paths` one after the other as one stream of windows: a record never spans two files,
// lines are numbered in each file, and each file's end is an end of file for its last record.
WindowedReadResult readWindowed(const std::vector<QString>& paths, const WindowedForm& form);
WindowedReadResult readWindowed(const QString& path, const WindowedForm& form);

} // namespace gapscope
