#include "model/trace/TraceParsers.h"
#include "model/read/ParallelLines.h"

#include "model/trace/PyLiteral.h"

#include <array>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <optional>

namespace gapscope::detail {

namespace od = simdjson::ondemand;

namespace {

constexpr qint64 kCancelPollRecords = 1024;

constexpr std::array<std::string_view, 17> kIntegerKeys{
    "schema_version",
    "timestamp_ns",
    "sampling_interval_ms",
    "pid",
    "rank",
    "local_rank",
    "world_size",
    "device_id",
    "allocator_allocated_bytes",
    "allocator_reserved_bytes",
    "allocator_active_bytes",
    "allocator_inactive_bytes",
    "allocator_change_bytes",
    "device_used_bytes",
    "device_free_bytes",
    "device_total_bytes",
    "memory_allocated",
};
constexpr std::array<std::string_view, 8> kStringKeys{"session_id", "event_type", "collector", "host",
                                                      "job_id",     "context",    "type",      "device"};
// Header names that make a first line a stormlog CSV header.
constexpr std::array<std::string_view, 5> kHeaderMarkers{"schema_version", "timestamp_ns", "event_type",
                                                         "timestamp", "memory_allocated"};

template <size_t N> bool contains(const std::array<std::string_view, N>& keys, std::string_view key)
{
    for (std::string_view k : keys) {
        if (k == key)
            return true;
    }
    return false;
}

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

// appendJsonString with a fast path for the usual text that needs no escape.
void appendJsonText(std::string& out, std::string_view text)
{
    for (const char c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') {
            appendJsonString(out, text);
            return;
        }
    }
    out += '"';
    out.append(text);
    out += '"';
}

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

// The common JSON numbers: -?(0|[1-9][0-9]*). Others go to isJsonNumber.
bool isPlainInteger(std::string_view cell)
{
    size_t i = !cell.empty() && cell.front() == '-' ? 1 : 0;
    if (i >= cell.size() || (cell[i] == '0' && cell.size() > i + 1))
        return false;
    for (; i < cell.size(); ++i) {
        if (cell[i] < '0' || cell[i] > '9')
            return false;
    }
    return true;
}

bool isBooleanWord(std::string_view cell)
{
    return cell == "True" || cell == "False" || cell == "true" || cell == "false";
}

} // namespace

CsvColumns::CsvColumns(std::vector<std::string> headerNames) : names(std::move(headerNames))
{
    for (std::string& name : names) {
        name = std::string(trimmedView(name));
        kinds.push_back(name == "metadata"             ? Kind::Metadata
                        : contains(kStringKeys, name)  ? Kind::String
                        : contains(kIntegerKeys, name) ? Kind::Integer
                                                       : Kind::Other);
        std::string key;
        appendJsonString(key, name);
        key += ':';
        keys.push_back(std::move(key));
    }
}

std::vector<std::string> csvHeader(std::string_view firstLine)
{
    CsvRecordReader reader(firstLine.data(), 0, firstLine.size(), 1);
    if (!reader.next())
        return {};
    std::vector<std::string> cells;
    bool marked = false;
    for (size_t i = 0; i < reader.size(); ++i) {
        cells.emplace_back(trimmedView(reader.cell(i)));
        marked = marked || contains(kHeaderMarkers, cells.back());
    }
    return marked ? cells : std::vector<std::string>{};
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
    od::parser json;
    std::string object;
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
            chunk.problems.addError(
                parser.file(), line,
                QStringLiteral("row has %1 cells, the header has %2").arg(reader.size()).arg(columnCount));
            continue;
        }
        // Rewrite the row as a JSON object; the record parser then judges the types.
        object.assign(1, '{');
        QString rowProblem;
        for (size_t i = 0; i < columnCount; ++i) {
            const std::string_view cell = reader.quoted(i) ? reader.cell(i) : trimmedCell(reader.cell(i));
            if (i > 0)
                object += ',';
            object += columns.keys[i];
            const CsvColumns::Kind kind = columns.kinds[i];
            if (cell.empty()) {
                object += "null"; // empty cell = null
            } else if (kind == CsvColumns::Kind::Metadata) {
                std::string why;
                if (cell == "{}") {
                    object += cell;
                } else if (auto converted = pythonLiteralToJson(cell, &why)) {
                    object += *converted;
                } else {
                    rowProblem = QStringLiteral("field 'metadata': neither JSON nor a Python literal (%1)")
                                     .arg(QString::fromStdString(why));
                    break;
                }
            } else if (kind == CsvColumns::Kind::String) {
                appendJsonText(object, cell);
            } else if (isPlainInteger(cell) || isJsonNumber(cell)) {
                object += cell; // integer columns and unknown numeric columns
            } else if (kind == CsvColumns::Kind::Integer && isBooleanWord(cell)) {
                object += (cell == "True" || cell == "true") ? "true" : "false";
            } else {
                appendJsonText(object, cell);
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
            if (json.iterate(object.data(), length, object.size()).get(doc) || doc.get_object().get(record)) {
                ++chunk.recordsRead;
                chunk.problems.addError(parser.file(), line, QStringLiteral("row cannot be read as an event"));
                continue;
            }
            outcome = parser.parse(record, RecordLocation{line, -1}, chunk);
        }
        if (*outcome == EventRecordParser::Outcome::SyntaxError)
            chunk.problems.addError(parser.file(), line,
                                    QStringLiteral("row cannot be read as an event: %1")
                                        .arg(QString::fromStdString(parser.syntaxError())));
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

void parseDiagnoseTimeline(const simdjson::padded_string& buffer, const QString& file, EventChunk& chunk)
{
    // One value of a series: integers as they are, floats (seconds, or bytes written as
    // floats by Python) rounded; anything else is reported.
    struct Series
    {
        std::vector<std::optional<double>> values;
        bool present = false;
    };
    Series timestamps, allocated, reserved;
    od::parser json;
    od::document doc;
    od::object root;
    simdjson::error_code error = json.iterate(buffer).get(doc);
    if (!error)
        error = doc.get_object().get(root);
    if (error) {
        chunk.problems.addError(file, 1,
                                QStringLiteral("invalid JSON: %1").arg(simdjson::error_message(error)));
        return;
    }
    for (auto fieldResult : root) {
        od::field field;
        std::string_view key;
        if (std::move(fieldResult).get(field) || field.unescaped_key().get(key)) {
            chunk.problems.addError(file, 1, QStringLiteral("invalid JSON in the timeline object"));
            return;
        }
        Series* series = key == "timestamps"  ? &timestamps
                         : key == "allocated" ? &allocated
                         : key == "reserved"  ? &reserved
                                              : nullptr;
        if (!series) {
            chunk.problems.addWarning(
                file, 1,
                QStringLiteral("unknown key '%1' ignored")
                    .arg(QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()))));
            continue;
        }
        od::array array;
        if (field.value().get_array().get(array)) {
            chunk.problems.addError(
                file, 1,
                QStringLiteral("'%1' is not an array")
                    .arg(QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()))));
            return;
        }
        series->present = true;
        for (auto elementResult : array) {
            od::value element;
            double number = 0;
            if (std::move(elementResult).get(element)) {
                chunk.problems.addError(file, 1, QStringLiteral("invalid JSON in the timeline arrays"));
                return;
            }
            od::number_type type;
            int64_t integer = 0;
            if (element.get_number_type().get(type) == simdjson::SUCCESS &&
                type != od::number_type::floating_point_number &&
                element.get_int64().get(integer) == simdjson::SUCCESS)
                series->values.emplace_back(static_cast<double>(integer));
            else if (element.get_double().get(number) == simdjson::SUCCESS && std::isfinite(number))
                series->values.emplace_back(number);
            else
                series->values.emplace_back(std::nullopt);
        }
    }
    if (!timestamps.present || !allocated.present) {
        chunk.problems.addError(file, 1,
                                QStringLiteral("a timeline needs 'timestamps' and 'allocated' arrays"));
        return;
    }
    size_t count = std::min(timestamps.values.size(), allocated.values.size());
    if (reserved.present)
        count = std::min(count, reserved.values.size());
    if (timestamps.values.size() != allocated.values.size() ||
        (reserved.present && reserved.values.size() != timestamps.values.size()))
        chunk.problems.addWarning(
            file, 1,
            QStringLiteral("timeline arrays differ in length; the first %1 entries are used").arg(count));

    EventSource source;
    source.collector = chunk.store.strings.intern("diagnose.timeline");
    const uint32_t sourceIndex = chunk.addSource(source);
    const uint32_t sampleName = chunk.store.strings.intern("sample");
    EventStore& store = chunk.store;
    for (size_t i = 0; i < count; ++i) {
        ++chunk.recordsRead;
        const auto index = static_cast<qint64>(i);
        const std::optional<double> seconds = timestamps.values[i];
        const std::optional<double> alloc = allocated.values[i];
        const std::optional<double> reserve = reserved.present ? reserved.values[i] : alloc;
        if (!seconds || !alloc || !reserve) {
            chunk.problems.addError(file, 1, QStringLiteral("timeline entry is not a number"), index);
            continue;
        }
        if (*seconds < 0 || *seconds > 9.2e9 || *alloc < 0 || *reserve < 0 || *alloc > 9.2e18 ||
            *reserve > 9.2e18) {
            chunk.problems.addError(file, 1, QStringLiteral("timeline entry out of range"), index);
            continue;
        }
        const int64_t allocatedBytes = std::llround(*alloc);
        store.timestampNs.push_back(std::llround(*seconds * 1e9));
        store.allocated.push_back(allocatedBytes);
        store.reserved.push_back(std::llround(*reserve));
        store.active.push_back(kNullInt);
        store.inactive.push_back(kNullInt);
        store.change.push_back(0);
        store.used.push_back(allocatedBytes); // as for legacy records: no device counter
        store.free.push_back(kNullInt);
        store.total.push_back(kNullInt);
        store.type.push_back(EventType::Sample);
        store.typeName.push_back(sampleName);
        store.source.push_back(sourceIndex);
        store.context.push_back(0);
        store.metadata.push_back(0);
    }
}

} // namespace gapscope::detail
