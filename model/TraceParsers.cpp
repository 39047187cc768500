#include "TraceParsers.h"

#include "PyLiteral.h"

#include <array>
#include <cmath>
#include <optional>

namespace gapscope::detail {

namespace od = simdjson::ondemand;

namespace {

constexpr size_t kProgressStepBytes = 1 << 20;
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

// RFC 4180 reader: one record per call, cells unquoted ("" -> "), CRLF or LF line ends,
// line breaks allowed inside quotes.
class CsvRecordReader
{
public:
    explicit CsvRecordReader(std::string_view text) : m_text(text) {}

    bool atEnd() const { return m_pos >= m_text.size(); }
    size_t position() const { return m_pos; }
    qint64 line() const { return m_line; }

    // false with *error when a quote is left open
    bool next(std::vector<std::string>& cells, std::vector<bool>& quoted, std::string* error)
    {
        cells.assign(1, std::string());
        quoted.assign(1, false);
        bool inQuotes = false;
        bool lastWasQuote = false; // closing quote of a quoted cell seen
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos++];
            if (inQuotes) {
                if (c == '"') {
                    if (m_pos < m_text.size() && m_text[m_pos] == '"') {
                        cells.back() += '"';
                        ++m_pos;
                    } else {
                        inQuotes = false;
                        lastWasQuote = true;
                    }
                } else {
                    if (c == '\n')
                        ++m_line;
                    cells.back() += c;
                }
                continue;
            }
            if (c == ',') {
                cells.emplace_back();
                quoted.push_back(false);
                lastWasQuote = false;
            } else if (c == '\n') {
                ++m_line;
                stripCarriageReturn(cells.back(), quoted.back());
                return true;
            } else if (c == '"' && cells.back().empty() && !lastWasQuote) {
                inQuotes = true;
                quoted.back() = true;
            } else {
                cells.back() += c;
            }
        }
        if (inQuotes) {
            if (error)
                *error = "unterminated quoted cell";
            return false;
        }
        stripCarriageReturn(cells.back(), quoted.back());
        return true;
    }

private:
    static void stripCarriageReturn(std::string& cell, bool)
    {
        if (!cell.empty() && cell.back() == '\r')
            cell.pop_back();
    }

    std::string_view m_text;
    size_t m_pos = 0;
    qint64 m_line = 1;
};

bool blank(const std::vector<std::string>& cells)
{
    return cells.size() == 1 && trimmedView(cells.front()).empty();
}

} // namespace

std::vector<std::string> csvHeader(std::string_view firstLine)
{
    CsvRecordReader reader(firstLine);
    std::vector<std::string> cells;
    std::vector<bool> quoted;
    if (!reader.next(cells, quoted, nullptr))
        return {};
    bool marked = false;
    for (std::string& cell : cells) {
        cell = std::string(trimmedView(cell));
        marked = marked || contains(kHeaderMarkers, cell);
    }
    return marked ? cells : std::vector<std::string>{};
}

bool parseCsv(std::string_view text, EventRecordParser& parser, EventChunk& chunk,
              const RangeControl& control)
{
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // UTF-8 byte order mark
    CsvRecordReader reader(text);
    std::vector<std::string> cells;
    std::vector<bool> quoted;
    std::string error;
    std::vector<std::string> header;
    while (!reader.atEnd() && header.empty()) {
        if (!reader.next(cells, quoted, &error))
            break;
        if (!blank(cells)) {
            header = cells;
            for (std::string& name : header)
                name = std::string(trimmedView(name));
        }
    }
    if (header.empty()) {
        chunk.problems.addError(parser.file(), 1, QStringLiteral("no CSV header row"));
        return true;
    }

    od::parser json;
    std::string object;
    qint64 records = 0;
    size_t nextProgress = kProgressStepBytes;
    while (!reader.atEnd()) {
        const qint64 line = reader.line();
        if (!reader.next(cells, quoted, &error)) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, QString::fromStdString(error));
            break;
        }
        if (blank(cells))
            continue;
        if (cells.size() != header.size()) {
            ++chunk.recordsRead;
            chunk.problems.addError(
                parser.file(), line,
                QStringLiteral("row has %1 cells, the header has %2").arg(cells.size()).arg(header.size()));
            continue;
        }
        // Rewrite the row as a JSON object; the record parser then judges the types.
        object.assign(1, '{');
        QString rowProblem;
        for (size_t i = 0; i < cells.size(); ++i) {
            const std::string_view key = header[i];
            const std::string_view cell = quoted[i] ? std::string_view(cells[i]) : trimmedView(cells[i]);
            if (i > 0)
                object += ',';
            appendJsonString(object, key);
            object += ':';
            if (cell.empty()) {
                object += "null"; // empty cell = null
            } else if (key == "metadata") {
                std::string why;
                if (auto converted = pythonLiteralToJson(cell, &why)) {
                    object += *converted;
                } else {
                    rowProblem = QStringLiteral("field 'metadata': neither JSON nor a Python literal (%1)")
                                     .arg(QString::fromStdString(why));
                    break;
                }
            } else if (contains(kStringKeys, key)) {
                appendJsonString(object, cell);
            } else if (isJsonNumber(cell)) {
                object += cell; // integer columns and unknown numeric columns
            } else if (contains(kIntegerKeys, key) &&
                       (cell == "True" || cell == "False" || cell == "true" || cell == "false")) {
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
        object.append(simdjson::SIMDJSON_PADDING, ' ');
        od::document doc;
        od::object record;
        if (json.iterate(object.data(), length, object.size()).get(doc) || doc.get_object().get(record)) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, QStringLiteral("row cannot be read as an event"));
            continue;
        }
        if (parser.parse(record, RecordLocation{line, -1}, chunk) == EventRecordParser::Outcome::SyntaxError)
            chunk.problems.addError(parser.file(), line,
                                    QStringLiteral("row cannot be read as an event: %1")
                                        .arg(QString::fromStdString(parser.syntaxError())));
        if (++records % kCancelPollRecords == 0 && control.cancelled())
            return false;
        if (reader.position() >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(reader.position()));
            nextProgress = reader.position() + kProgressStepBytes;
        }
    }
    if (control.progress)
        control.progress(static_cast<qint64>(text.size()));
    return !control.cancelled();
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
