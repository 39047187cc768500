#include "CsvReader.h"
#include "ParallelLines.h"

#include "JsonEventReader.h"
#include "TraceParsers.h"

#include <QFile>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string.h> // memrchr
#include <thread>
#include <vector>

namespace gapscope::detail {

namespace {

constexpr size_t kWindowBytesPerThread = 32 << 20;
constexpr size_t kWorkerStepBytes = 64 * 1024; // progress of one range at least this often

size_t offsetOf(const void* found, const char* data)
{
    return static_cast<size_t>(static_cast<const char*>(found) - data);
}

// The quoted cells of a text that starts at a record boundary, found as the record reader
// finds them (a quote opens a cell only right after a comma, a line break or the start; a
// doubled quote inside is part of the cell), so that a line break is a record boundary
// exactly when it is outside every span.
class QuotedSpans
{
public:
    // endsFile: the text ends the file, so a quote as its last byte closes its cell (otherwise
    // the next byte, not read yet, could double it).
    void scan(const char* data, size_t size, bool endsFile)
    {
        m_open.clear();
        m_close.clear();
        m_unclosed = kNone;
        size_t pos = 0;
        while (pos < size) {
            const void* found = std::memchr(data + pos, '"', size - pos);
            if (!found)
                return;
            const size_t open = offsetOf(found, data);
            pos = open + 1;
            if (open > 0 && data[open - 1] != ',' && data[open - 1] != '\n')
                continue; // a quote inside an unquoted cell, or after a closing quote
            for (;;) {
                found = pos < size ? std::memchr(data + pos, '"', size - pos) : nullptr;
                const size_t close = found ? offsetOf(found, data) : size;
                if (!found || (!endsFile && close + 1 == size)) {
                    m_unclosed = open;
                    return;
                }
                if (close + 1 < size && data[close + 1] == '"') {
                    pos = close + 2;
                    continue;
                }
                m_open.push_back(open);
                m_close.push_back(close);
                pos = close + 1;
                break;
            }
        }
    }

    // Whether the byte at `at` lies inside a quoted cell.
    bool inside(size_t at) const
    {
        if (m_unclosed != kNone && at > m_unclosed)
            return true;
        const auto after = std::upper_bound(m_open.begin(), m_open.end(), at);
        if (after == m_open.begin())
            return false;
        return at < m_close[static_cast<size_t>(after - m_open.begin()) - 1];
    }

private:
    static constexpr size_t kNone = ~size_t(0);
    std::vector<size_t> m_open, m_close; // offsets of the opening and closing quotes
    size_t m_unclosed = kNone;           // a quote still open at the end of the text
};

// The first record boundary (offset after a line break outside quotes) in [from, limit], or limit.
size_t nextBoundary(const char* data, size_t from, size_t limit, const QuotedSpans& spans)
{
    while (from < limit) {
        const void* found = std::memchr(data + from, '\n', limit - from);
        if (!found)
            break;
        const size_t at = offsetOf(found, data);
        if (!spans.inside(at))
            return at + 1;
        from = at + 1;
    }
    return limit;
}

// The last record boundary in (0, limit], or 0.
size_t lastBoundary(const char* data, size_t limit, const QuotedSpans& spans)
{
    while (limit > 0) {
        const void* found = memrchr(data, '\n', limit);
        if (!found)
            break;
        const size_t at = offsetOf(found, data);
        if (!spans.inside(at))
            return at + 1;
        limit = at;
    }
    return 0;
}

// The parsed ranges of one window, in file order, before the merge.
struct ParsedWindow
{
    std::vector<EventChunk> chunks;
    std::vector<char> completed;
};

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

// The records of data[begin, end) split at record boundaries into ranges parsed on their own
// threads (own parser, own chunk); merged in file order by mergeWindow they give what one
// sequential pass gives. *lines gets the line breaks in the text.
ParsedWindow parseWindow(const char* data, size_t begin, size_t end, qint64 firstLineOfText,
                         const QuotedSpans& spans, const CsvColumns& columns, const QString& file,
                         const CsvFileControl& control, qint64* lines)
{
    const size_t bytes = end - begin;
    const auto ranges =
        static_cast<size_t>(bytes > 0 && control.ranges ? std::max(1, control.ranges(bytes)) : 1);
    std::vector<size_t> bounds{begin}; // range i is [bounds[i], bounds[i + 1])
    for (size_t i = 1; i < ranges; ++i)
        bounds.push_back(nextBoundary(data, std::max(begin + bytes * i / ranges, bounds.back()), end, spans));
    bounds.push_back(end);

    std::vector<qint64> firstLine(ranges + 1, 0);
    ParsedWindow parsed{std::vector<EventChunk>(ranges), std::vector<char>(ranges, 0)};
    forEachRange(ranges,
                 [&](size_t i) { firstLine[i + 1] = countNewlines(data + bounds[i], data + bounds[i + 1]); });
    firstLine[0] = firstLineOfText;
    for (size_t i = 1; i < firstLine.size(); ++i)
        firstLine[i] += firstLine[i - 1];
    *lines = firstLine.back() - firstLineOfText;

    forEachRange(ranges, [&](size_t i) {
        EventRecordParser parser(file);
        size_t reported = bounds[i];
        RangeControl range{control.cancel, [&](qint64 done) {
                               if (control.advance)
                                   control.advance(done - static_cast<qint64>(reported));
                               reported = static_cast<size_t>(done);
                           }};
        range.progressStepBytes = kWorkerStepBytes;
        parsed.completed[i] = parseCsvRecords(data, bounds[i], bounds[i + 1], firstLine[i], columns, parser,
                                              parsed.chunks[i], range);
    });
    return parsed;
}

// Appends the ranges of a window to chunk up to the first cancelled one (later ranges would
// leave a hole in the file order). Returns whether every range was complete.
bool mergeWindow(EventChunk& chunk, ParsedWindow&& window)
{
    for (size_t i = 0; i < window.chunks.size(); ++i) {
        chunk.append(std::move(window.chunks[i]));
        if (!window.completed[i])
            return false;
    }
    return true;
}

// A filled window: buffer[0, filled) holds the bytes carried from the last window, then what was read.
struct Window
{
    std::unique_ptr<char[]> buffer;
    size_t capacity = 0;
    size_t filled = 0;
    bool atEnd = false;
    QString readError;
};

// Fills w after the `carried` bytes already at its start, growing it when they fill it (a
// record longer than a window), until a line break was read or the file ends.
void fill(QFile& file, Window& w, size_t carried)
{
    for (;;) {
        if (carried == w.capacity) {
            const size_t larger = w.capacity * 2;
            std::unique_ptr<char[]> grown(new char[larger]);
            std::memcpy(grown.get(), w.buffer.get(), carried);
            w.buffer = std::move(grown);
            w.capacity = larger;
        }
        const qint64 got = file.read(w.buffer.get() + carried, static_cast<qint64>(w.capacity - carried));
        if (got < 0) {
            w.readError = file.errorString();
            return;
        }
        w.filled = carried + static_cast<size_t>(got);
        w.atEnd = got == 0 || file.atEnd();
        if (w.atEnd || std::memchr(w.buffer.get() + carried, '\n', static_cast<size_t>(got)))
            return;
        carried = w.filled;
    }
}

} // namespace

bool parseCsvFile(const QString& path, EventChunk& chunk, const CsvFileControl& control, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return true;
    }
    auto advance = [&](size_t bytes) {
        if (control.advance && bytes > 0)
            control.advance(static_cast<qint64>(bytes));
    };
    const auto fileSize = static_cast<size_t>(std::max<qint64>(file.size(), 0));
    const size_t perThread =
        control.windowBytesPerThread > 0 ? control.windowBytesPerThread : kWindowBytesPerThread;
    const auto threads = static_cast<size_t>(control.ranges ? std::max(1, control.ranges(fileSize)) : 1);
    const size_t window = std::max<size_t>(std::min(fileSize + 1, perThread * threads), 4);

    // A pipeline: while the ranges of window k are parsed, one thread reads window k + 1 into
    // the other buffer and another merges the ranges of window k - 1 into chunk. Only two
    // windows are in memory.
    Window current, next;
    for (Window* w : {&current, &next}) {
        w->capacity = window;
        w->buffer.reset(new char[window]);
    }
    fill(file, current, 0);
    if (current.filled >= 3 && std::memcmp(current.buffer.get(), "\xEF\xBB\xBF", 3) == 0) { // UTF-8 BOM
        std::memmove(current.buffer.get(), current.buffer.get() + 3, current.filled - 3);
        current.filled -= 3;
        advance(3);
    }
    std::thread merger;
    bool merged = true; // the merges so far took every range
    auto joinMerger = [&] {
        if (merger.joinable())
            merger.join();
    };
    qint64 line = 1; // of the start of the current window
    std::optional<CsvColumns> columns;
    QuotedSpans spans;
    for (;;) {
        if (!current.readError.isEmpty()) {
            joinMerger();
            *error = current.readError;
            return true;
        }
        const char* data = current.buffer.get();
        spans.scan(data, current.filled, current.atEnd);
        const size_t parseEnd = current.atEnd ? current.filled : lastBoundary(data, current.filled, spans);
        if (parseEnd == 0 && !current.atEnd) { // no complete record yet: a quoted cell holds every line break
            fill(file, current, current.filled);
            continue;
        }
        size_t start = 0;
        if (!columns) {
            CsvColumns found;
            const std::optional<size_t> body = findCsvHeader(data, 0, parseEnd, &line, &found);
            if (body) {
                columns = std::move(found);
                start = *body;
            } else if (current.atEnd) {
                chunk.problems.addError(path, 1, QStringLiteral("no CSV header row"));
                return true;
            } else {
                start = parseEnd; // blank lines only so far
            }
            advance(start);
        }
        // The next window starts with the partial last record of this one.
        std::thread reader;
        if (!current.atEnd) {
            const size_t carried = current.filled - parseEnd;
            if (carried > next.capacity) {
                next.capacity = current.capacity;
                next.buffer.reset(new char[next.capacity]);
            }
            std::memcpy(next.buffer.get(), data + parseEnd, carried);
            reader = std::thread(fill, std::ref(file), std::ref(next), carried);
        }
        ParsedWindow parsed;
        if (columns && start < parseEnd) {
            qint64 lines = 0;
            parsed = parseWindow(data, start, parseEnd, line, spans, *columns, path, control, &lines);
            line += lines;
        }
        if (reader.joinable())
            reader.join();
        joinMerger();
        if (!merged)
            return false;
        const bool complete =
            std::all_of(parsed.completed.begin(), parsed.completed.end(), [](char c) { return c; });
        if (current.atEnd || !complete) {
            merged = mergeWindow(chunk, std::move(parsed));
            return merged && complete;
        }
        merger = std::thread([&chunk, &merged, parsedWindow = std::move(parsed)]() mutable {
            merged = mergeWindow(chunk, std::move(parsedWindow));
        });
        std::swap(current, next);
    }
}

} // namespace gapscope::detail
