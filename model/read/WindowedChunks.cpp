#include "model/read/WindowedChunks.h"

#include "model/trace/JsonEventReader.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <numeric>

namespace gapscope::detail {

namespace {

// The parsed ranges of one window, in file order, before the merge; reused window after window.
struct ParsedWindow
{
    std::vector<EventChunk> chunks; // problems numbered from line 1 of their range
    std::vector<char> completed;
    std::vector<qint64> firstLine; // number of each range's first line in the file
};

// A filled window: buffer[0, filled) holds the bytes carried from the last window, then what was read.
struct Window
{
    std::unique_ptr<char[]> buffer; // capacity + padding bytes
    size_t capacity = 0;
    size_t filled = 0;
    bool atEnd = false; // of its file
    bool cancelled = false;
    QString readError;
    size_t file = 0; // index of its file
};

// Reads of a window are split in pieces of this size, with a look at the cancel flag between
// them: a window of 64 MB from a slow disk takes long.
constexpr qint64 kReadPieceBytes = qint64(4) << 20;

// Fills w after the `carried` bytes already at its start, growing it when they fill it (a
// record longer than a window), until a line break was read or the file ends. Stops early,
// with w.cancelled set, when the load is cancelled.
void fill(QFile& file, Window& w, size_t carried, size_t padding, const std::atomic<bool>* cancel)
{
    for (;;) {
        if (carried == w.capacity) {
            const size_t larger = w.capacity * 2;
            std::unique_ptr<char[]> grown(new char[larger + padding]);
            std::memcpy(grown.get(), w.buffer.get(), carried);
            w.buffer = std::move(grown);
            w.capacity = larger;
        }
        qint64 got = 0;
        const auto wanted = static_cast<qint64>(w.capacity - carried);
        while (got < wanted) {
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                w.cancelled = true;
                w.filled = carried + static_cast<size_t>(got);
                return;
            }
            const qint64 piece =
                file.read(w.buffer.get() + carried + got, std::min(wanted - got, kReadPieceBytes));
            if (piece < 0) {
                w.readError = file.errorString();
                return;
            }
            if (piece == 0)
                break;
            got += piece;
        }
        w.filled = carried + static_cast<size_t>(got);
        w.atEnd = got < wanted || file.atEnd();
        if (w.atEnd || std::memchr(w.buffer.get() + carried, '\n', static_cast<size_t>(got)))
            break;
        carried = w.filled; // no complete line yet
    }
    std::memset(w.buffer.get() + w.filled, 0, padding);
}

// The records data[begin, end) of a window, split at record boundaries into ranges parsed on
// their own threads into parsed.
void parseWindow(const char* data, size_t begin, size_t end, size_t capacity, qint64 firstLineOfText,
                 bool endsFile, const QString& file, const WindowedForm& form, ParsedWindow& parsed,
                 qint64* lines)
{
    const size_t bytes = end - begin;
    const auto ranges = static_cast<size_t>(bytes > 0 && form.ranges ? std::max(1, form.ranges(bytes)) : 1);
    std::vector<size_t> bounds{begin}; // range i is [bounds[i], bounds[i + 1])
    for (size_t i = 1; i < ranges; ++i)
        bounds.push_back(form.nextBoundary(data, std::max(begin + bytes * i / ranges, bounds.back()), end));
    bounds.push_back(end);

    parsed.chunks.resize(ranges);
    parsed.completed.assign(ranges, 0);
    std::vector<qint64> linesRead(ranges, 0);
    forEachRange(ranges, [&](size_t i) {
        EventRecordParser parser(file);
        size_t reported = bounds[i];
        RangeControl control{form.cancel, [&](qint64 done) {
                                 if (form.advance)
                                     form.advance(done - static_cast<qint64>(reported));
                                 reported = static_cast<size_t>(done);
                             }};
        control.progressStepBytes = kWorkerStepBytes;
        EventChunk& chunk = parsed.chunks[i];
        chunk.store.keepRowsUnpacked(); // packed once, by the merge
        const RecordRange range{data, bounds[i], bounds[i + 1], capacity, endsFile && bounds[i + 1] == end};
        parsed.completed[i] = form.parse(range, parser, chunk, control, &linesRead[i]);
    });
    // Every range but the last ends at a record boundary, after a line break.
    parsed.firstLine.assign(ranges, firstLineOfText);
    for (size_t i = 1; i < ranges; ++i)
        parsed.firstLine[i] = parsed.firstLine[i - 1] + linesRead[i - 1];
    *lines = parsed.firstLine.back() + linesRead.back() - firstLineOfText;
}

// Appends the ranges of a window to chunk up to the first cancelled one (later ranges would
// leave a hole in the file order) and leaves the window's chunks empty for the next window.
// fileDone is the part of the file read up to the end of the window, (0, 1]. Returns whether
// every range was complete.
bool mergeWindow(EventChunk& chunk, ParsedWindow& window, double fileDone)
{
    const size_t rowsBefore = chunk.store.size();
    bool complete = true;
    for (size_t i = 0; i < window.chunks.size(); ++i) {
        if (complete) {
            window.chunks[i].problems.shiftLines(window.firstLine[i] - 1);
            chunk.append(std::move(window.chunks[i]));
        } else {
            window.chunks[i].clear();
        }
        complete = complete && window.completed[i];
    }
    if (complete)
        growToExpectedRows(chunk.store, chunk.store.size() - rowsBefore, fileDone);
    return complete;
}

} // namespace

void growToExpectedRows(EventStore& store, size_t appendedRows, double done)
{
    const size_t rows = store.size();
    if (done <= 0 || done >= 1 || rows + appendedRows <= store.timestampNs.capacity())
        return;
    const auto expected = static_cast<size_t>(static_cast<double>(rows) / done * 1.02);
    store.reserveRows(std::max({expected, rows + 2 * appendedRows, store.timestampNs.capacity() * 5 / 4}));
}

bool readWindowedFiles(const std::vector<QString>& paths, EventChunk& chunk, const WindowedForm& form,
                       const std::function<bool(size_t file, const QString& error)>& readError)
{
    if (paths.empty())
        return true;
    auto advance = [&](size_t bytes) {
        if (form.advance && bytes > 0)
            form.advance(static_cast<qint64>(bytes));
    };
    std::vector<size_t> sizes;
    for (const QString& path : paths)
        sizes.push_back(static_cast<size_t>(std::max<qint64>(QFileInfo(path).size(), 0)));
    const size_t totalBytes = std::accumulate(sizes.begin(), sizes.end(), size_t{0});
    const auto threads = static_cast<size_t>(form.ranges ? std::max(1, form.ranges(totalBytes)) : 1);
    const size_t window = std::max<size_t>(std::min(*std::max_element(sizes.begin(), sizes.end()) + 1,
                                                    std::max<size_t>(form.windowBytesPerThread, 1) * threads),
                                           4);
    const size_t padding = form.padding;

    // Files are read one after the other through `input`, by the reader thread or (for the
    // first window, and after a read error) the calling thread, never both at once.
    QFile input;
    // Opens file `index` and fills w from its start.
    auto startFile = [&](Window& w, size_t index) {
        w.file = index;
        w.filled = 0;
        w.atEnd = true;
        w.cancelled = false;
        w.readError.clear();
        input.close();
        input.setFileName(paths[index]);
        if (!input.open(QIODevice::ReadOnly)) {
            w.readError = input.errorString();
            return;
        }
        fill(input, w, 0, padding, form.cancel);
        if (w.filled >= 3 && std::memcmp(w.buffer.get(), "\xEF\xBB\xBF", 3) == 0) { // UTF-8 BOM
            std::memmove(w.buffer.get(), w.buffer.get() + 3, w.filled - 3);
            w.filled -= 3;
            std::memset(w.buffer.get() + w.filled, 0, padding);
            advance(3);
        }
    };

    // The second buffer is made when a second window is needed: a file that fits one window
    // (or one record longer than a window) never holds two.
    Window current, next;
    current.capacity = window;
    current.buffer.reset(new char[window + padding]);
    startFile(current, 0);
    std::thread merger;
    bool merged = true; // the merges so far took every range
    auto joinMerger = [&] {
        if (merger.joinable())
            merger.join();
    };
    // The ranges of window k are parsed into parsed[k % 2] while parsed[(k - 1) % 2] merges.
    std::array<ParsedWindow, 2> parsed;
    qint64 line = 1;      // of the start of the current window in its file
    size_t lineFile = 0;  // the file `line` counts in
    size_t bytesDone = 0; // of all files, up to the end of the current window
    for (size_t k = 0;; ++k) {
        if (current.cancelled) {
            joinMerger();
            return false;
        }
        if (current.file != lineFile) {
            lineFile = current.file;
            line = 1;
        }
        if (!current.readError.isEmpty()) {
            joinMerger();
            if (!merged)
                return false;
            if (!readError(current.file, current.readError) || current.file + 1 == paths.size())
                return true;
            bytesDone = std::accumulate(sizes.begin(), sizes.begin() + static_cast<long>(current.file) + 1,
                                        size_t{0});
            startFile(current, current.file + 1);
            continue;
        }
        const char* data = current.buffer.get();
        const QString& path = paths[current.file];
        const bool lastWindow = current.atEnd && current.file + 1 == paths.size();
        const size_t parseEnd = form.recordsEnd(data, current.filled, current.atEnd);
        if (parseEnd == 0 &&
            !current.atEnd) { // no complete record yet (a CSV quoted cell holds every line break)
            fill(input, current, current.filled, padding, form.cancel);
            continue;
        }
        size_t start = 0;
        if (form.recordsStart) {
            const std::optional<size_t> found = form.recordsStart(data, parseEnd, current.atEnd, &line);
            if (!found) {
                joinMerger();
                return merged;
            }
            start = *found;
            advance(start);
        }
        // The next window starts with the partial last record of this one, or the next file.
        std::thread reader;
        if (!lastWindow) {
            const size_t carried = current.atEnd ? 0 : current.filled - parseEnd;
            // A partial record of more than half a window is likely a long one: room for twice
            // it at once saves growing (copying) the buffer while it is filled.
            const size_t wanted = carried * 2 > window ? std::max(window, carried) * 2 : window;
            if (!next.buffer || wanted > next.capacity) {
                next.capacity = wanted;
                next.buffer.reset(new char[next.capacity + padding]);
            }
            if (current.atEnd) {
                reader = std::thread(startFile, std::ref(next), current.file + 1);
            } else {
                std::memcpy(next.buffer.get(), data + parseEnd, carried);
                next.file = current.file;
                reader = std::thread(fill, std::ref(input), std::ref(next), carried, padding, form.cancel);
            }
        }
        ParsedWindow& ranges = parsed[k % 2];
        if (start < parseEnd) {
            qint64 lines = 0;
            parseWindow(data, start, parseEnd, current.capacity + padding, line, current.atEnd, path, form,
                        ranges, &lines);
            line += lines;
        } else { // nothing to parse: the (empty) chunks of an earlier window merge as nothing
            ranges.completed.assign(ranges.chunks.size(), 1);
            ranges.firstLine.assign(ranges.chunks.size(), line);
        }
        bytesDone += parseEnd;
        const double fileDone = lastWindow ? 1.0
                                           : static_cast<double>(bytesDone) /
                                                 static_cast<double>(std::max(totalBytes, bytesDone));
        if (reader.joinable())
            reader.join();
        joinMerger();
        if (!merged)
            return false;
        const bool complete =
            std::all_of(ranges.completed.begin(), ranges.completed.end(), [](char c) { return c; });
        if (lastWindow || !complete) {
            merged = mergeWindow(chunk, ranges, fileDone);
            return merged && complete;
        }
        merger = std::thread(
            [&chunk, &merged, &ranges, fileDone] { merged = mergeWindow(chunk, ranges, fileDone); });
        std::swap(current, next);
    }
}

bool readWindowedChunks(const QString& path, EventChunk& chunk, const WindowedForm& form, QString* error)
{
    return readWindowedFiles({path}, chunk, form, [error](size_t, const QString& message) {
        *error = message;
        return false;
    });
}

} // namespace gapscope::detail
