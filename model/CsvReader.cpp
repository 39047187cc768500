#include "CsvReader.h"

#include "JsonEventReader.h"
#include "TraceParsers.h"

#include <QFile>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string.h> // memrchr
#include <thread>
#include <vector>

namespace gapscope::detail {

namespace {

constexpr size_t kWindowBytesPerThread = 32 << 20;
constexpr size_t kWorkerStepBytes = 64 * 1024; // progress of one range at least this often
std::atomic<size_t> g_windowBytesPerThread{0};

qint64 countNewlines(const char* begin, const char* end)
{
    qint64 count = 0;
    while (begin < end) {
        const void* found = std::memchr(begin, '\n', static_cast<size_t>(end - begin));
        if (!found)
            break;
        ++count;
        begin = static_cast<const char*>(found) + 1;
    }
    return count;
}

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

// The records of data[begin, end) split at record boundaries into ranges, parsed on their
// own threads and merged in file order. *lines gets the line breaks in the text.
bool parseRanges(const char* data, size_t begin, size_t end, qint64 firstLineOfText, const QuotedSpans& spans,
                 const CsvColumns& columns, const QString& file, EventChunk& chunk,
                 const CsvFileControl& control, qint64* lines)
{
    const size_t bytes = end - begin;
    const int ranges = bytes > 0 && control.ranges ? std::max(1, control.ranges(bytes)) : 1;
    std::vector<size_t> bounds{begin}; // range i is [bounds[i], bounds[i + 1])
    for (int i = 1; i < ranges; ++i) {
        const size_t wanted = begin + bytes * static_cast<size_t>(i) / static_cast<size_t>(ranges);
        bounds.push_back(nextBoundary(data, std::max(wanted, bounds.back()), end, spans));
    }
    bounds.push_back(end);

    const auto count = static_cast<size_t>(ranges);
    std::vector<qint64> firstLine(count + 1, 0);
    std::vector<EventChunk> chunks(count);
    std::vector<char> completed(count, 0);
    auto forEachRange = [&](auto&& work) {
        std::vector<std::thread> threads;
        for (size_t i = 1; i < count; ++i)
            threads.emplace_back(work, i);
        work(size_t{0});
        for (std::thread& thread : threads)
            thread.join();
    };
    forEachRange([&](size_t i) { firstLine[i + 1] = countNewlines(data + bounds[i], data + bounds[i + 1]); });
    firstLine[0] = firstLineOfText;
    for (size_t i = 1; i < firstLine.size(); ++i)
        firstLine[i] += firstLine[i - 1];
    *lines = firstLine.back() - firstLineOfText;

    forEachRange([&](size_t i) {
        EventRecordParser parser(file);
        size_t reported = bounds[i];
        RangeControl range{control.cancel, [&](qint64 done) {
                               if (control.advance)
                                   control.advance(done - static_cast<qint64>(reported));
                               reported = static_cast<size_t>(done);
                           }};
        range.progressStepBytes = kWorkerStepBytes;
        completed[i] =
            parseCsvRecords(data, bounds[i], bounds[i + 1], firstLine[i], columns, parser, chunks[i], range);
    });
    for (size_t i = 0; i < count; ++i) {
        chunk.append(std::move(chunks[i]));
        if (!completed[i])
            return false; // later ranges would leave a hole in the file order
    }
    return true;
}

} // namespace

void setCsvWindowBytesForTesting(size_t bytesPerThread)
{
    g_windowBytesPerThread = bytesPerThread;
}

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
    const size_t perThread = g_windowBytesPerThread ? g_windowBytesPerThread.load() : kWindowBytesPerThread;
    const auto threads = static_cast<size_t>(control.ranges ? std::max(1, control.ranges(fileSize)) : 1);
    size_t window = std::max<size_t>(std::min(fileSize + 1, perThread * threads), 4);
    std::unique_ptr<char[]> buffer(new char[window]);
    size_t carried = 0; // bytes of a partial record at the start of buffer
    qint64 line = 1;    // of the start of buffer
    bool firstRead = true;
    std::optional<CsvColumns> columns;
    QuotedSpans spans;
    for (;;) {
        if (carried == window) { // one record fills the window: make room for more of it
            const size_t larger = window * 2;
            std::unique_ptr<char[]> grown(new char[larger]);
            std::memcpy(grown.get(), buffer.get(), carried);
            buffer = std::move(grown);
            window = larger;
        }
        const qint64 got = file.read(buffer.get() + carried, static_cast<qint64>(window - carried));
        if (got < 0) {
            *error = file.errorString();
            return true;
        }
        size_t filled = carried + static_cast<size_t>(got);
        const bool atEnd = got == 0 || file.atEnd();
        char* data = buffer.get();
        if (firstRead) {
            firstRead = false;
            if (filled >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) { // UTF-8 byte order mark
                std::memmove(data, data + 3, filled - 3);
                filled -= 3;
                advance(3);
            }
        }
        spans.scan(data, filled, atEnd);
        const size_t parseEnd = atEnd ? filled : lastBoundary(data, filled, spans);
        if (parseEnd == 0 && !atEnd) {
            carried = filled; // no complete record yet
            continue;
        }
        size_t start = 0;
        if (!columns) {
            CsvColumns found;
            const std::optional<size_t> body = findCsvHeader(data, 0, parseEnd, &line, &found);
            if (body) {
                columns = std::move(found);
                start = *body;
                advance(start);
            } else if (atEnd) {
                chunk.problems.addError(path, 1, QStringLiteral("no CSV header row"));
                return true;
            } else {
                start = parseEnd; // blank lines only so far
                advance(start);
            }
        }
        if (columns && start < parseEnd) {
            qint64 lines = 0;
            if (!parseRanges(data, start, parseEnd, line, spans, *columns, path, chunk, control, &lines))
                return false;
            line += lines;
        }
        if (atEnd)
            return !(control.cancel && control.cancel->load());
        carried = filled - parseEnd;
        std::memmove(data, data + parseEnd, carried);
    }
}

} // namespace gapscope::detail
