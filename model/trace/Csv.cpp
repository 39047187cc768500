#include "model/trace/Csv.h"

#include "model/read/JsonParserPool.h"
#include "model/text/CharClass.h"
#include "model/text/Text.h"
#include "model/trace/PyLiteral.h"
#include "model/trace/WindowedRecords.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <optional>
#include <string.h> // memrchr
#include <vector>

namespace gapscope::detail {

namespace od = simdjson::ondemand;

namespace {

constexpr qint64 kCancelPollRecords = 1024;

std::string_view trimmedView(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// RFC 4180 reader over data[begin, end): one record per call, cells unquoted ("" -> "),
// CRLF or LF line ends, line breaks allowed inside quotes. A quote opens a quoted cell only
// at the start of a cell; anything after the closing quote up to the next comma or line end
// belongs to the cell, and a quote elsewhere is an ordinary character. Cells are views into
// data, or into a scratch buffer for the few that hold doubled quotes or text after the
// closing quote; they stay valid until the next call.
class CsvRecordReader
{
public:
    CsvRecordReader(const char* data, size_t begin, size_t end, qint64 line)
        : m_data(data), m_pos(begin), m_end(end), m_line(line)
    {
        m_cells.reserve(32); // a stormlog row has about 20 cells: no growing, record after record
    }

    bool atEnd() const { return m_pos >= m_end; }
    size_t position() const { return m_pos; }
    qint64 line() const { return m_line; }
    size_t size() const { return m_cells.size(); }
    bool quoted(size_t i) const { return m_cells[i].quoted; }
    std::string_view cell(size_t i) const
    {
        const Cell& c = m_cells[i];
        return {(c.scratch ? m_scratch.data() : m_data) + c.begin, c.length};
    }
    // A record that is one empty (or white) cell: a blank line.
    bool blank() const { return m_cells.size() == 1 && trimmedView(cell(0)).empty(); }

    // false when a quote is left open (the rest of the range is consumed)
    bool next()
    {
        m_cells.clear();
        m_scratch.clear();
        const char* d = m_data;
        for (;;) {
            Cell c;
            if (m_pos < m_end && d[m_pos] == '"') {
                c.quoted = true;
                const size_t open = ++m_pos;
                for (;;) {
                    const void* found = std::memchr(d + m_pos, '"', m_end - m_pos);
                    if (!found) {
                        m_line += countNewlines(d + open, d + m_end);
                        m_pos = m_end;
                        return false;
                    }
                    const auto at = static_cast<size_t>(static_cast<const char*>(found) - d);
                    if (at + 1 < m_end && d[at + 1] == '"') { // doubled quote: one quote of the cell
                        if (!c.scratch) {
                            c.scratch = true;
                            c.begin = m_scratch.size();
                        }
                        m_scratch.append(d + m_pos, at + 1 - m_pos);
                        m_pos = at + 2;
                        continue;
                    }
                    if (c.scratch) {
                        m_scratch.append(d + m_pos, at - m_pos);
                        c.length = m_scratch.size() - c.begin;
                    } else {
                        c.begin = open;
                        c.length = at - open;
                    }
                    m_line += countNewlines(d + open, d + at);
                    m_pos = at + 1;
                    break;
                }
                if (m_pos < m_end && d[m_pos] != ',' && d[m_pos] != '\n') { // text after the closing quote
                    if (!c.scratch) {
                        c.scratch = true;
                        const size_t from = c.begin;
                        c.begin = m_scratch.size();
                        m_scratch.append(d + from, c.length);
                    }
                    const size_t from = m_pos;
                    while (m_pos < m_end && d[m_pos] != ',' && d[m_pos] != '\n')
                        ++m_pos;
                    m_scratch.append(d + from, m_pos - from);
                    c.length = m_scratch.size() - c.begin;
                }
            } else {
                c.begin = m_pos;
                m_pos = separator(m_pos);
                c.length = m_pos - c.begin;
            }
            m_cells.push_back(c);
            if (m_pos >= m_end || d[m_pos] == '\n') {
                if (m_pos < m_end) {
                    ++m_pos;
                    ++m_line;
                }
                Cell& last = m_cells.back(); // CRLF: the carriage return is not part of the cell
                if (last.length > 0 &&
                    (last.scratch ? m_scratch.data() : d)[last.begin + last.length - 1] == '\r')
                    --last.length;
                return true;
            }
            ++m_pos; // the comma
        }
    }

private:
    // The first ',' or '\n' at or after pos, or m_end: 16 bytes at a time while they are in range.
    size_t separator(size_t pos) const
    {
#if defined(__SSE2__)
        const __m128i comma = _mm_set1_epi8(',');
        const __m128i newline = _mm_set1_epi8('\n');
        while (pos + 16 <= m_end) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m_data + pos));
            const int mask =
                _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(bytes, comma), _mm_cmpeq_epi8(bytes, newline)));
            if (mask != 0)
                return pos + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
            pos += 16;
        }
#endif
        while (pos < m_end && m_data[pos] != ',' && m_data[pos] != '\n')
            ++pos;
        return pos;
    }

    struct Cell
    {
        size_t begin = 0;
        size_t length = 0;
        bool scratch = false; // in m_scratch, else in m_data
        bool quoted = false;
    };

    const char* m_data;
    size_t m_pos;
    size_t m_end;
    qint64 m_line;
    std::vector<Cell> m_cells;
    std::string m_scratch;
};

bool isBlankByte(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

// trimmedView, without the call for the usual cell that has nothing to trim.
std::string_view trimmedCell(std::string_view cell)
{
    if (cell.empty() || (!isBlankByte(cell.front()) && !isBlankByte(cell.back())))
        return cell;
    return trimmedView(cell);
}

// The common JSON numbers: -?(0|[1-9][0-9]*). Others go to isJsonNumber. Most cells of a row
// are numbers, so the scan steps over pointers and a table (model/text/CharClass.h says why).
bool isPlainInteger(std::string_view cell)
{
    const char* p = cell.data();
    const char* const end = p + cell.size();
    if (p < end && *p == '-')
        ++p;
    if (p == end)
        return false;
    if (*p == '0')
        return p + 1 == end;
    while (p < end && kAsciiDigit(*p))
        ++p;
    return p == end;
}

bool isBooleanWord(std::string_view cell)
{
    return cell == "True" || cell == "False" || cell == "true" || cell == "false";
}

// How a column's cells are written: as the record schema says for the field it names, and
// numbers as they are, anything else a string, for a column no stormlog record has.
CsvColumns::Kind columnKind(std::string_view name)
{
    const std::optional<Field> field = findField(name);
    return field ? specOf(*field).cell : CsvColumns::Kind::Other;
}

// The columns' names as the start of a JSON member ("name":), one after the other in one
// string. A range makes them when it first rewrites a row: the header of a file whose rows all
// have another width (most fuzzed ones) never needs them.
class RowKeys
{
public:
    bool empty() const { return m_starts.empty(); }
    void build(const std::vector<std::string>& names)
    {
        m_starts.reserve(names.size() + 1);
        m_starts.push_back(0);
        for (const std::string& name : names) {
            appendJsonString(m_text, name);
            m_text += ':';
            m_starts.push_back(m_text.size());
        }
    }
    std::string_view key(size_t i) const
    {
        return std::string_view(m_text).substr(m_starts[i], m_starts[i + 1] - m_starts[i]);
    }

private:
    std::string m_text;
    std::vector<size_t> m_starts; // key i is [m_starts[i], m_starts[i + 1])
};

} // namespace

CsvColumns::CsvColumns(std::vector<std::string> headerNames) : names(std::move(headerNames))
{
    kinds.reserve(names.size());
    for (std::string& name : names) {
        if (const std::string_view trimmed = trimmedView(name); trimmed.size() != name.size())
            name = std::string(trimmed);
        kinds.push_back(columnKind(name));
    }
}

bool isCsvHeader(std::string_view firstLine)
{
    CsvRecordReader reader(firstLine.data(), 0, firstLine.size(), 1);
    if (!reader.next())
        return false;
    for (size_t i = 0; i < reader.size(); ++i) {
        const std::optional<Field> field = findField(trimmedView(reader.cell(i)));
        if (field && specOf(*field).marksCsvHeader)
            return true;
    }
    return false;
}

std::optional<size_t> findCsvHeader(const char* data, size_t begin, size_t end, qint64* line,
                                    CsvColumns* columns)
{
    CsvRecordReader reader(data, begin, end, *line);
    while (!reader.atEnd()) {
        if (!reader.next())
            break;
        if (!reader.blank()) {
            std::vector<std::string> names;
            names.reserve(reader.size());
            for (size_t i = 0; i < reader.size(); ++i)
                names.emplace_back(reader.cell(i));
            *columns = CsvColumns(std::move(names));
            *line = reader.line();
            return reader.position();
        }
    }
    *line = reader.line();
    return std::nullopt;
}

bool parseCsvRecords(const char* data, size_t begin, size_t end, qint64 firstLine, const CsvColumns& columns,
                     EventRecordParser& parser, EventChunk& chunk, const RangeControl& control,
                     qint64* linesRead)
{
    CsvRecordReader reader(data, begin, end, firstLine);
    PooledJsonParser json;
    std::string object;
    object.reserve(1024); // a stormlog row as JSON is 400-700 bytes: grown once, not 1, 2, 4... times
    // A tracker writes the same metadata on most rows: the last cell converted is kept (the
    // conversion depends on the cell's text alone).
    std::string lastMetadataCell;
    std::string lastMetadataJson;
    RowKeys keys;
    qint64 records = 0;
    size_t nextProgress = begin + control.progressStepBytes;
    const size_t columnCount = columns.names.size();
    while (!reader.atEnd()) {
        const qint64 line = reader.line();
        if (!reader.next()) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, QStringLiteral("unterminated quoted cell"));
            break;
        }
        if (reader.blank())
            continue;
        if (reader.size() != columnCount) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line,
                                    withNumbers("row has %1 cells, the header has %2",
                                                {qint64(reader.size()), qint64(columnCount)}));
            continue;
        }
        // Rewrite the row as a JSON object; the record parser then judges the types.
        if (keys.empty())
            keys.build(columns.names);
        object.assign(1, '{');
        QString rowProblem;
        for (size_t i = 0; i < columnCount; ++i) {
            const std::string_view cell = reader.quoted(i) ? reader.cell(i) : trimmedCell(reader.cell(i));
            // A raw NUL is binary data, not text: it would reach a string column as is.
            if (cell.find('\0') != std::string_view::npos) {
                rowProblem = QStringLiteral("column '%1' holds a NUL byte (binary data, not CSV text)")
                                 .arg(QString::fromStdString(columns.names[i]));
                break;
            }
            if (i > 0)
                object += ',';
            object += keys.key(i);
            const CsvColumns::Kind kind = columns.kinds[i];
            if (cell.empty()) {
                object += "null"; // empty cell = null
            } else if (kind == CsvColumns::Kind::Metadata) {
                std::string why;
                if (cell == "{}") {
                    object += cell;
                } else if (!lastMetadataCell.empty() && cell == lastMetadataCell) {
                    object += lastMetadataJson;
                } else if (auto converted = pythonLiteralToJson(cell, &why)) {
                    object += *converted;
                    lastMetadataCell.assign(cell);
                    lastMetadataJson = std::move(*converted);
                } else {
                    rowProblem = QStringLiteral("field 'metadata': neither JSON nor a Python literal (%1)")
                                     .arg(QString::fromStdString(why));
                    break;
                }
            } else if (kind == CsvColumns::Kind::String) {
                appendJsonString(object, cell);
            } else if (isPlainInteger(cell) || isJsonNumber(cell)) {
                object += cell; // integer columns and unknown numeric columns
            } else if (kind == CsvColumns::Kind::Integer && isBooleanWord(cell)) {
                object += (cell == "True" || cell == "true") ? "true" : "false";
            } else {
                appendJsonString(object, cell);
            }
        }
        if (!rowProblem.isEmpty()) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, rowProblem);
            continue;
        }
        object += '}';
        const size_t length = object.size();
        // Most rows make a flat record, read without simdjson like a JSON line (same outcome).
        std::optional<EventRecordParser::Outcome> outcome;
        if (control.flatFastPath)
            outcome = parser.parseFlatLine(object, RecordLocation{line, -1}, chunk);
        if (!outcome) {
            object.append(simdjson::SIMDJSON_PADDING, ' ');
            od::document doc;
            od::object record;
            if (json->iterate(object.data(), length, object.size()).get(doc) ||
                doc.get_object().get(record)) {
                ++chunk.recordsRead;
                chunk.problems.addError(parser.file(), line,
                                        QStringLiteral("row cannot be read as an event"));
                continue;
            }
            outcome = parser.parse(record, RecordLocation{line, -1}, chunk);
        }
        if (*outcome == EventRecordParser::Outcome::SyntaxError)
            chunk.problems.addError(
                parser.file(), line,
                QStringLiteral("row cannot be read as an event: %1")
                    .arg(QString::fromUtf8(simdjson::error_message(parser.syntaxError()))));
        if (++records % kCancelPollRecords == 0 && control.cancelled())
            return false;
        if (reader.position() >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(reader.position()));
            nextProgress = reader.position() + control.progressStepBytes;
        }
    }
    if (linesRead)
        *linesRead = reader.line() - firstLine;
    if (control.progress)
        control.progress(static_cast<qint64>(end));
    return !control.cancelled();
}

bool parseCsv(std::string_view text, EventRecordParser& parser, EventChunk& chunk,
              const RangeControl& control)
{
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // UTF-8 byte order mark
    qint64 line = 1;
    CsvColumns columns;
    const std::optional<size_t> body = findCsvHeader(text.data(), 0, text.size(), &line, &columns);
    if (!body) {
        chunk.problems.addError(parser.file(), 1, QStringLiteral("no CSV header row"));
        return true;
    }
    return parseCsvRecords(text.data(), *body, text.size(), line, columns, parser, chunk, control);
}

// ------------------------------------------------------------------ the windowed driver
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

WindowedReadResult parseCsvFile(const WindowedInput& input, EventChunk& chunk, WindowedForm form)
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
    const auto parse = [&columns](const WindowRange& range, EventRecordParser& parser, EventChunk& into,
                                  const RangeControl& rangeControl, qint64* lines) {
        return parseCsvRecords(range.data, range.begin, range.end, 1, *columns, parser, into, rangeControl,
                               lines);
    };
    const WindowedReadResult read = readRecordWindows({input}, chunk, std::move(form), parse);
    if (!columns && read.error.isEmpty())
        chunk.problems.addError(input.name, 1, QStringLiteral("no CSV header row"));
    return read;
}

} // namespace gapscope::detail
