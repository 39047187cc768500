#include "model/trace/CsvReader.h"

#include "model/trace/JsonEventReader.h"
#include "model/trace/TraceParsers.h"
#include "model/read/WindowedChunks.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string.h> // memrchr
#include <vector>

namespace gapscope::detail {

namespace {

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

} // namespace

bool parseCsvFile(const QString& path, EventChunk& chunk, WindowedForm form, QString* error)
{
    std::optional<CsvColumns> columns;
    QuotedSpans spans; // of the window being cut
    form.recordsEnd = [&spans](const char* data, size_t filled, bool atEnd) {
        spans.scan(data, filled, atEnd);
        return atEnd ? filled : lastBoundary(data, filled, spans);
    };
    form.nextBoundary = [&spans](const char* data, size_t from, size_t limit) {
        return nextBoundary(data, from, limit, spans);
    };
    form.recordsStart = [&](const char* data, size_t end, bool atEnd, qint64* line) -> std::optional<size_t> {
        if (columns)
            return 0;
        CsvColumns found;
        if (const std::optional<size_t> body = findCsvHeader(data, 0, end, line, &found)) {
            columns = std::move(found);
            return *body;
        }
        if (atEnd)
            return std::nullopt;
        return end; // blank lines only so far
    };
    form.parse = [&columns](const RecordRange& range, EventRecordParser& parser, EventChunk& into,
                            const RangeControl& rangeControl, qint64* lines) {
        return parseCsvRecords(range.data, range.begin, range.end, 1, *columns, parser, into, rangeControl,
                               lines);
    };
    const bool complete = readWindowedChunks(path, chunk, form, error);
    if (!columns && error->isEmpty())
        chunk.problems.addError(path, 1, QStringLiteral("no CSV header row"));
    return complete;
}

} // namespace gapscope::detail
