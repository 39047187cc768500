#include "model/trace/JsonEventReader.h"
#include "model/text/Text.h"

#include "analysis/Int64Math.h"

#include "model/read/JsonParserPool.h"
#include "model/read/WindowedReader.h"
#include "model/trace/PyLiteral.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

namespace gapscope::detail {

using simdjson::error_code;
namespace od = simdjson::ondemand;

namespace {

constexpr size_t kProgressStepBytes = 1 << 20; // report progress at least every ~1 MB
constexpr qint64 kCancelPollRecords = 64;      // ~20 us of parsing: Cancel answers at once
constexpr int kMaxJsonDepth = 512;

enum class Field : uint8_t
{
    // schema 2/3/4
    SchemaVersion,
    SessionId,
    TimestampNs,
    EventTypeName,
    Collector,
    SamplingIntervalMs,
    Pid,
    Host,
    JobId,
    Rank,
    LocalRank,
    WorldSize,
    DeviceId,
    Allocated,
    Reserved,
    Active,
    Inactive,
    Change,
    Used,
    Free,
    Total,
    Context,
    Metadata,
    // legacy records (no schema_version)
    LegacyTimestamp,
    LegacyAllocated,
    LegacyReserved,
    LegacyChange,
    LegacyType,
    LegacyDevice,
    LegacyTotalMemory,
    LegacyDeviceTotal,
    LegacyTotalBytes,
    // the names of stormlog's MemoryEvent.to_dict (OOM dump events.json, older exports)
    LegacyUsed,
    LegacyFree,
    LegacyActive,
    LegacyInactive,
    LegacyBackend,
    Count,
};
constexpr size_t kFieldCount = static_cast<size_t>(Field::Count);

constexpr std::array<std::string_view, kFieldCount> kFieldNames{
    "schema_version",
    "session_id",
    "timestamp_ns",
    "event_type",
    "collector",
    "sampling_interval_ms",
    "pid",
    "host",
    "job_id",
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
    "context",
    "metadata",
    "timestamp",
    "memory_allocated",
    "memory_reserved",
    "memory_change",
    "type",
    "device",
    "total_memory",
    "device_total",
    "total_bytes",
    "device_used",
    "device_free",
    "active_memory",
    "inactive_memory",
    "backend",
};

std::string_view nameOf(Field f)
{
    return kFieldNames[static_cast<size_t>(f)];
}

// The field of a key without hashing it: keys are bucketed by length (at most a few share
// one) and compared directly. nullopt for a key the loader does not know.
std::optional<Field> findField(std::string_view key)
{
    constexpr size_t kMaxLength = 32;
    struct Table
    {
        std::array<std::vector<Field>, kMaxLength + 1> byLength;
        Table()
        {
            for (size_t i = 0; i < kFieldCount; ++i)
                byLength[kFieldNames[i].size()].push_back(static_cast<Field>(i));
        }
    };
    static const Table table;
    if (key.size() > kMaxLength)
        return std::nullopt;
    for (Field f : table.byLength[key.size()]) {
        const std::string_view name = kFieldNames[static_cast<size_t>(f)];
        // the last byte tells most same-length names apart without a memcmp call
        if (!key.empty() && name.back() == key.back() &&
            std::memcmp(name.data(), key.data(), key.size()) == 0)
            return f;
    }
    return std::nullopt;
}

bool isLegacyField(Field f)
{
    return f >= Field::LegacyTimestamp;
}

// Fields a legacy record may carry besides its own: upstream's legacy conversion
// (telemetry_event_from_record) reads these canonical names too, before their legacy twins.
bool legacyAccepts(Field f)
{
    switch (f) {
    case Field::EventTypeName:
    case Field::Collector:
    case Field::SamplingIntervalMs:
    case Field::Allocated:
    case Field::Reserved:
    case Field::Change:
    case Field::Active:
    case Field::Inactive:
    case Field::Used:
    case Field::Free:
    case Field::Total:
    case Field::SessionId:
    case Field::Host:
    case Field::Pid:
    case Field::JobId:
    case Field::Rank:
    case Field::LocalRank:
    case Field::WorldSize:
    case Field::DeviceId:
    case Field::Context:
    case Field::Metadata:
        return true;
    default:
        return isLegacyField(f);
    }
}

struct Scalar
{
    enum class Kind : uint8_t
    {
        Absent,
        Null,
        Bool,
        Int,
        Float,
        String,
        Object,
        Array,
        Invalid
    };
    Kind kind = Kind::Absent;
    int64_t i = 0;
    double d = 0;
    std::string_view s; // valid while the document is; for Float the number as written
};

const char* kindName(Scalar::Kind kind)
{
    switch (kind) {
    case Scalar::Kind::Absent:
        return "nothing";
    case Scalar::Kind::Null:
        return "null";
    case Scalar::Kind::Bool:
        return "a boolean";
    case Scalar::Kind::Int:
        return "an integer";
    case Scalar::Kind::Float:
        return "a floating-point number";
    case Scalar::Kind::String:
        return "a string";
    case Scalar::Kind::Object:
        return "an object";
    case Scalar::Kind::Array:
        return "an array";
    case Scalar::Kind::Invalid:
        return "an invalid or out-of-range value";
    }
    return "?";
}

// The collector upstream names for a legacy record of a backend (stormlog/telemetry.py
// _legacy_collector); "legacy.unknown" (a degraded collector) when the record names none.
std::string_view legacyCollectorOf(std::string_view backend)
{
    if (backend == "cuda")
        return "stormlog.cuda_tracker";
    if (backend == "rocm")
        return "stormlog.rocm_tracker";
    if (backend == "mps")
        return "stormlog.mps_tracker";
    if (backend == "cpu")
        return "stormlog.cpu_tracker";
    return "legacy.unknown";
}

// A raw token without the blanks simdjson counts into it up to the next token.
std::string_view trimmedToken(std::string_view token)
{
    while (!token.empty() &&
           (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' || token.back() == '\r'))
        token.remove_suffix(1);
    return token;
}

// The value of an integer field: an integer, or a number written as a float that is one
// exactly (integralNumber: the one rule of every form, JSON, CSV and legacy records alike).
// nullopt when it is neither; describeNonInteger then says what it is.
std::optional<int64_t> integerValue(const Scalar& s)
{
    if (s.kind == Scalar::Kind::Int)
        return s.i;
    int64_t value = 0;
    if (s.kind == Scalar::Kind::Float && integralNumber(s.s, &value) == IntegralNumber::Exact)
        return value;
    return std::nullopt;
}

// What a value that integerValue refused is, for "expected an integer, got ...".
std::string describeNonInteger(const Scalar& s)
{
    if (s.kind != Scalar::Kind::Float || s.s.empty())
        return kindName(s.kind);
    int64_t value = 0;
    if (integralNumber(s.s, &value) == IntegralNumber::TooLarge)
        return std::string(s.s) + ", beyond 2^53 where a floating-point number no longer holds every integer";
    return std::string(s.s);
}

// Reads one value without judging its type. Value-level problems (a malformed or
// out-of-range number, a bad escape) make it Invalid; only a broken document is an error.
error_code readScalar(od::value& value, Scalar& out)
{
    od::json_type type;
    if (auto error = value.type().get(type))
        return error;
    out = Scalar{};
    switch (type) {
    case od::json_type::null: {
        bool isNull = false;
        out.kind = (value.is_null().get(isNull) == simdjson::SUCCESS && isNull) ? Scalar::Kind::Null
                                                                                : Scalar::Kind::Invalid;
        break;
    }
    case od::json_type::boolean: {
        bool b = false;
        out.kind = value.get_bool().get(b) == simdjson::SUCCESS ? Scalar::Kind::Bool : Scalar::Kind::Invalid;
        out.i = b ? 1 : 0;
        break;
    }
    case od::json_type::number: {
        // Nearly every number is an int64: try that first (one scan of the digits); get_int64
        // leaves the value unread when it fails, so the general path below still sees it.
        if (value.get_int64().get(out.i) == simdjson::SUCCESS) {
            out.kind = Scalar::Kind::Int;
            break;
        }
        od::number_type numberType;
        if (value.get_number_type().get(numberType) != simdjson::SUCCESS) {
            out.kind = Scalar::Kind::Invalid;
        } else if (numberType == od::number_type::floating_point_number) {
            // the token as written: an integer field reads an integral one (integralNumber)
            out.s = trimmedToken(value.raw_json_token());
            out.kind = value.get_double().get(out.d) == simdjson::SUCCESS ? Scalar::Kind::Float
                                                                          : Scalar::Kind::Invalid;
        } else {
            out.kind =
                value.get_int64().get(out.i) == simdjson::SUCCESS ? Scalar::Kind::Int : Scalar::Kind::Invalid;
        }
        break;
    }
    case od::json_type::string:
        out.kind =
            value.get_string().get(out.s) == simdjson::SUCCESS ? Scalar::Kind::String : Scalar::Kind::Invalid;
        break;
    case od::json_type::object:
        out.kind = Scalar::Kind::Object; // left unconsumed: the iteration skips it
        break;
    case od::json_type::array:
        out.kind = Scalar::Kind::Array;
        break;
    }
    return simdjson::SUCCESS;
}

std::string_view trimmed(std::string_view s)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
    return out;
}

// Writes object as compact canonical JSON, each field's value by writeValue(key, value, out).
template <typename WriteValue>
error_code writeObject(od::object& object, std::string& out, WriteValue&& writeValue)
{
    out += '{';
    bool first = true;
    for (auto fieldResult : object) {
        od::field field;
        if (auto error = std::move(fieldResult).get(field))
            return error;
        std::string_view key;
        if (auto error = field.unescaped_key().get(key))
            return error;
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, key);
        out += ':';
        if (auto error = writeValue(key, field.value(), out))
            return error;
    }
    out += '}';
    return simdjson::SUCCESS;
}

// Writes the metadata object canonically while picking out the keys the loader needs.
error_code writeMetadata(od::value& value, std::string& out, std::string& backend, EventOrigin& origin)
{
    od::object object;
    if (auto error = value.get_object().get(object))
        return error;
    return writeObject(
        object, out, [&](std::string_view key, od::value& child, std::string& text) -> error_code {
            od::json_type type;
            if (auto error = child.type().get(type))
                return error;
            if ((key == "backend" || key == "origin_phase_scope_id") && type == od::json_type::string) {
                std::string_view string;
                if (auto error = child.get_string().get(string))
                    return error;
                appendJsonString(text, string);
                if (key == "backend")
                    backend.assign(string);
                else
                    origin.phaseScopeId = std::string(string);
                return simdjson::SUCCESS;
            }
            if (key == "origin_thread_id" && type == od::json_type::number) {
                int64_t thread = 0;
                if (child.get_int64().get(thread) == simdjson::SUCCESS) {
                    text += std::to_string(thread);
                    origin.threadId = thread;
                    return simdjson::SUCCESS;
                }
            }
            return writeCanonicalJson(child, text, 1);
        });
}

enum class IntRule
{
    Required,         // present, not null
    RequiredNullable, // present; null allowed (stored as kNullInt)
    Optional,         // absent or null -> the fallback
    Nullable,         // absent or null -> kNullInt
};

} // namespace

// The fields of one record as read, before they are judged (EventRecordParser::finish).
// Reused from record to record so that its vectors and strings keep their capacity.
struct RecordFields
{
    std::array<Scalar, kFieldCount> fields{};
    std::vector<std::string> unknownKeys;
    std::vector<std::string> duplicateKeys; // the last value is used, as in a JSON object
    std::string reject;                     // first reason to reject; the object is still read to its end
    std::string backend;
    EventOrigin origin;
    bool metadataSeen = false;
    uint64_t present = 0; // bit f: fields[f] was written

    Scalar& slot(Field f)
    {
        present |= uint64_t(1) << static_cast<unsigned>(f);
        return fields[static_cast<size_t>(f)];
    }
    void clear()
    {
        for (uint64_t bits = present; bits != 0; bits &= bits - 1)
            fields[static_cast<size_t>(std::countr_zero(bits))] = Scalar{};
        present = 0;
        unknownKeys.clear();
        duplicateKeys.clear();
        reject.clear();
        backend.clear();
        origin = EventOrigin{};
        metadataSeen = false;
    }
};

size_t EventSourceHash::operator()(const EventSource& s) const noexcept
{
    size_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(s.sessionId);
    mix(s.collector);
    mix(s.host);
    mix(s.jobId);
    mix(static_cast<uint64_t>(s.pid));
    mix(static_cast<uint64_t>(s.rank));
    mix(static_cast<uint64_t>(s.localRank));
    mix(static_cast<uint64_t>(s.worldSize));
    mix(static_cast<uint64_t>(s.deviceId));
    mix(static_cast<uint64_t>(s.samplingIntervalMs));
    mix(static_cast<uint64_t>(s.schemaVersion));
    return h;
}

uint32_t EventChunk::addSource(const EventSource& source)
{
    // consecutive records nearly always come from the same source
    if (m_lastSource < store.sources.size() && store.sources[m_lastSource] == source)
        return m_lastSource;
    auto [it, inserted] = m_sourceIndex.try_emplace(source, static_cast<uint32_t>(store.sources.size()));
    if (inserted)
        store.sources.push_back(source);
    m_lastSource = it->second;
    return it->second;
}

void EventChunk::append(EventChunk&& other)
{
    if (other.store.size() == 0 && other.store.sources.empty() && other.store.strings.size() == 1 &&
        other.boundaries.empty() && other.backendBySession.empty() && other.problems.empty() &&
        other.recordsRead == 0 && other.legacyRecords == 0)
        return; // nothing to take (a follower's look that found no new line), other is empty already
    if (store.size() == 0 && store.sources.empty() && store.strings.size() == 1 && boundaries.empty() &&
        backendBySession.empty() && problems.empty() && recordsRead == 0) {
        *this = std::move(other); // nothing to remap: take the rows as they are
        store.packRows();
        other = EventChunk{};
        return;
    }
    const auto rowOffset = static_cast<uint32_t>(store.size());
    std::vector<uint32_t> stringMap(other.store.strings.size());
    for (size_t id = 0; id < stringMap.size(); ++id)
        stringMap[id] = store.strings.intern(other.store.strings.at(static_cast<uint32_t>(id)));
    std::vector<uint32_t> sourceMap(other.store.sources.size());
    for (size_t i = 0; i < sourceMap.size(); ++i) {
        EventSource source = other.store.sources[i];
        source.sessionId = stringMap[source.sessionId];
        source.collector = stringMap[source.collector];
        source.host = stringMap[source.host];
        source.jobId = stringMap[source.jobId];
        sourceMap[i] = addSource(source);
    }
    EventStore& to = store;
    const EventStore& from = other.store;
    auto appendColumn = [](auto& dst, const auto& src) {
        if constexpr (requires { dst.insert(dst.end(), src.begin(), src.end()); })
            dst.insert(dst.end(), src.begin(), src.end());
        else
            dst.append(src);
    };
    appendColumn(to.timestampNs, from.timestampNs);
    appendColumn(to.allocated, from.allocated);
    appendColumn(to.reserved, from.reserved);
    appendColumn(to.active, from.active);
    appendColumn(to.inactive, from.inactive);
    appendColumn(to.change, from.change);
    appendColumn(to.used, from.used);
    appendColumn(to.free, from.free);
    appendColumn(to.total, from.total);
    appendColumn(to.type, from.type);
    auto through = [](const std::vector<uint32_t>& map) { return [&map](uint32_t id) { return map[id]; }; };
    to.typeName.append(from.typeName, through(stringMap));
    to.source.append(from.source, through(sourceMap));
    to.context.append(from.context, through(stringMap));
    to.metadata.append(from.metadata, through(stringMap));
    for (auto& [row, origin] : other.store.origins)
        to.origins.emplace(row + rowOffset, std::move(origin));
    for (PhaseBoundary& boundary : other.boundaries) {
        boundary.eventRow += rowOffset;
        boundaries.push_back(std::move(boundary));
    }
    for (auto& [session, backend] : other.backendBySession)
        backendBySession.try_emplace(session, std::move(backend));
    problems.merge(other.problems);
    recordsRead += other.recordsRead;
    legacyRecords += other.legacyRecords;
    other.clear();
}

void EventChunk::clear()
{
    store.clearRows();
    boundaries.clear();
    backendBySession.clear();
    problems = ProblemLog();
    recordsRead = 0;
    legacyRecords = 0;
    m_sourceIndex.clear();
    m_lastSource = UINT32_MAX;
}

// The deepest nesting of arrays and objects in JSON text (brackets inside strings not counted).
int nestingDepth(std::string_view json)
{
    int depth = 0, deepest = 0;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '"') {
            for (++i; i < json.size() && json[i] != '"'; ++i)
                i += json[i] == '\\' ? 1 : 0;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

error_code writeCanonicalJson(od::value value, std::string& out, int depth)
{
    if (depth > kMaxJsonDepth)
        return simdjson::DEPTH_ERROR;
    od::json_type type;
    if (auto error = value.type().get(type))
        return error;
    switch (type) {
    case od::json_type::object: {
        od::object object;
        if (auto error = value.get_object().get(object))
            return error;
        return writeObject(object, out, [depth](std::string_view, od::value& child, std::string& text) {
            return writeCanonicalJson(child, text, depth + 1);
        });
    }
    case od::json_type::array: {
        od::array array;
        if (auto error = value.get_array().get(array))
            return error;
        out += '[';
        bool first = true;
        for (auto elementResult : array) {
            od::value element;
            if (auto error = std::move(elementResult).get(element))
                return error;
            if (!first)
                out += ',';
            first = false;
            if (auto error = writeCanonicalJson(element, out, depth + 1))
                return error;
        }
        out += ']';
        return simdjson::SUCCESS;
    }
    case od::json_type::string: {
        std::string_view text;
        if (auto error = value.get_string().get(text))
            return error;
        appendJsonString(out, text);
        return simdjson::SUCCESS;
    }
    case od::json_type::number: {
        const std::string_view token = trimmed(value.raw_json_token());
        if (!isJsonNumber(token))
            return simdjson::NUMBER_ERROR;
        out += token;
        return simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
        bool b = false;
        if (auto error = value.get_bool().get(b))
            return error;
        out += b ? "true" : "false";
        return simdjson::SUCCESS;
    }
    case od::json_type::null: {
        bool isNull = false;
        if (auto error = value.is_null().get(isNull))
            return error;
        if (!isNull)
            return simdjson::N_ATOM_ERROR;
        out += "null";
        return simdjson::SUCCESS;
    }
    }
    return simdjson::INCORRECT_TYPE;
}

namespace {

// Notes the field found at a key position of a record (kFieldCount: an unknown key), for the
// next record's in-place comparison. Room for a record's keys is made once: growing one position
// at a time cost a reallocation per key of the first record.
void rememberKeyAt(std::vector<uint8_t>& keyOrder, size_t position, std::optional<Field> known)
{
    if (position >= keyOrder.capacity())
        keyOrder.reserve(std::max(2 * (position + 1), 2 * kFieldCount));
    if (position >= keyOrder.size())
        keyOrder.resize(position + 1, static_cast<uint8_t>(kFieldCount));
    keyOrder[position] = static_cast<uint8_t>(known ? static_cast<size_t>(*known) : kFieldCount);
}

} // namespace

const QString& invalidJsonMessage(error_code error)
{
    // error_message() is defined for the codes below NUM_ERROR_CODES only.
    static const std::array<QString, simdjson::NUM_ERROR_CODES> messages = [] {
        std::array<QString, simdjson::NUM_ERROR_CODES> made;
        for (size_t code = 0; code < made.size(); ++code)
            made[code] = QStringLiteral("invalid JSON: %1")
                             .arg(QString::fromUtf8(simdjson::error_message(static_cast<error_code>(code))));
        return made;
    }();
    static const QString unknown = QStringLiteral("invalid JSON");
    const auto code = static_cast<size_t>(error);
    return code < messages.size() ? messages[code] : unknown;
}

EventRecordParser::EventRecordParser(QString file)
    : m_file(std::move(file)), m_record(std::make_unique<RecordFields>())
{
}

EventRecordParser::~EventRecordParser() = default;

EventRecordParser::Outcome EventRecordParser::parse(od::object object, const RecordLocation& where,
                                                    EventChunk& chunk)
{
    ++chunk.recordsRead;
    RecordFields& record = *m_record;
    record.clear();
    auto& unknownKeys = record.unknownKeys;
    auto& duplicateKeys = record.duplicateKeys;
    auto& reject = record.reject;
    auto& backend = record.backend;
    auto& origin = record.origin;
    bool& metadataSeen = record.metadataSeen;
    m_metadata.clear();

    auto syntax = [this](error_code error) {
        m_syntaxError = error;
        return Outcome::SyntaxError;
    };

    size_t position = 0;
    for (auto fieldResult : object) {
        od::field field;
        if (auto error = std::move(fieldResult).get(field))
            return syntax(error);
        // A writer puts the keys in the same order on every line: the key at this position
        // last time is compared in place first, without unescaping the key or looking it up.
        std::optional<Field> known;
        std::string_view key;
        if (position < m_keyOrder.size() && m_keyOrder[position] < kFieldCount &&
            field.key().unsafe_is_equal(kFieldNames[m_keyOrder[position]])) {
            known = static_cast<Field>(m_keyOrder[position]);
            key = nameOf(*known);
        } else {
            if (auto error = field.unescaped_key().get(key))
                return syntax(error);
            known = findField(key);
            rememberKeyAt(m_keyOrder, position, known);
        }
        ++position;
        if (!known) {
            unknownKeys.emplace_back(key);
            // The unread value is skipped by the iteration, but one nested deeper than metadata
            // may be is refused as metadata is: one depth rule for every field and form.
            od::json_type type;
            if (auto error = field.value().type().get(type))
                return syntax(error);
            if (type == od::json_type::object || type == od::json_type::array) {
                std::string_view raw;
                error_code error = simdjson::SUCCESS;
                if (type == od::json_type::object) {
                    od::object inner;
                    error = field.value().get_object().get(inner);
                    if (!error)
                        error = inner.raw_json().get(raw);
                } else {
                    od::array inner;
                    error = field.value().get_array().get(inner);
                    if (!error)
                        error = inner.raw_json().get(raw);
                }
                if (error)
                    return syntax(error);
                if (nestingDepth(raw) > kMaxJsonDepth && reject.empty())
                    reject = "field '" + unknownKeys.back() +
                             "': " + simdjson::error_message(simdjson::DEPTH_ERROR);
            }
            continue;
        }
        od::value& value = field.value();
        if (*known == Field::Metadata) {
            od::json_type type;
            if (auto error = value.type().get(type))
                return syntax(error);
            m_metadata.clear();
            backend.clear();
            origin = EventOrigin{};
            if (metadataSeen)
                duplicateKeys.emplace_back(key);
            metadataSeen = true;
            if (type == od::json_type::object) {
                if (auto error = writeMetadata(value, m_metadata, backend, origin)) {
                    if (error == simdjson::NUMBER_ERROR || error == simdjson::DEPTH_ERROR ||
                        error == simdjson::N_ATOM_ERROR) {
                        if (reject.empty())
                            reject = std::string("field 'metadata': ") + simdjson::error_message(error);
                        continue;
                    }
                    return syntax(error);
                }
            } else if (type != od::json_type::null && reject.empty()) {
                Scalar scalar;
                if (auto error = readScalar(value, scalar))
                    return syntax(error);
                reject = std::string("field 'metadata': expected an object, got ") + kindName(scalar.kind);
            }
            continue;
        }
        Scalar& slot = record.slot(*known);
        if (slot.kind != Scalar::Kind::Absent)
            duplicateKeys.emplace_back(key);
        if (auto error = readScalar(value, slot))
            return syntax(error);
    }

    return finish(record, where, chunk);
}

namespace {

// A reader of flat JSON records that gives up (returns false) on anything it does not
// handle exactly as simdjson would; see EventRecordParser::parseFlatLine.
class FlatScanner
{
public:
    explicit FlatScanner(std::string_view text) : m_p(text.data()), m_end(text.data() + text.size()) {}

    bool atEnd() const { return m_p == m_end; }
    bool peek(char c) const { return m_p < m_end && *m_p == c; }
    bool peekDigit() const { return m_p < m_end && *m_p >= '0' && *m_p <= '9'; }
    bool take(char c)
    {
        if (!peek(c))
            return false;
        ++m_p;
        return true;
    }
    [[gnu::always_inline]] void skipSpace()
    {
        if (m_p<m_end&& static_cast<unsigned char>(*m_p)> ' ')
            return; // the usual case: no space here
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }
    // The text of a string whose opening quote was taken: no escapes, no control characters,
    // UTF-8 checked where a byte is not ASCII.
    bool string(std::string_view& out)
    {
        const char* start = m_p;
        bool ascii = true;
        // Eight bytes at a time up to the first that needs a look: '"', '\\', a control
        // character or a byte of a multi-byte character.
        while (m_p + 8 <= m_end) {
            uint64_t word;
            std::memcpy(&word, m_p, 8);
            const uint64_t special = hasByte(word, '"') | hasByte(word, '\\') | hasByteBelow(word, 0x20) |
                                     (word & 0x8080808080808080ull);
            if (special == 0) {
                m_p += 8;
                continue;
            }
            // The lowest flagged byte (little-endian: the first in memory).
            m_p += static_cast<size_t>(std::countr_zero(special)) / 8;
            break;
        }
        for (;; ++m_p) {
            if (m_p == m_end)
                return false;
            const auto c = static_cast<unsigned char>(*m_p);
            if (c == '"')
                break;
            if (c == '\\' || c < 0x20)
                return false;
            ascii &= c < 0x80;
        }
        out = std::string_view(start, static_cast<size_t>(m_p - start));
        ++m_p;
        return ascii || simdjson::validate_utf8(out.data(), out.size());
    }
    // A key equal to `name` followed by its closing quote, taken when it matches.
    bool takeKey(std::string_view name)
    {
        if (static_cast<size_t>(m_end - m_p) <= name.size() || m_p[name.size()] != '"' ||
            !sameBytes(m_p, name.data(), name.size()))
            return false;
        m_p += name.size() + 1;
        return true;
    }
    // A scalar value: an integer that fits int64_t (JSON integer syntax: no leading zeros,
    // no fraction, no exponent), a string, null, true or false. Text is the value as written.
    bool scalar(Scalar& out, std::string_view& text)
    {
        const char* start = m_p;
        if (m_p == m_end)
            return false;
        switch (*m_p) {
        case '"':
            ++m_p;
            out.kind = Scalar::Kind::String;
            if (!string(out.s))
                return false;
            break;
        case 'n':
            out.kind = Scalar::Kind::Null;
            if (!word("null"))
                return false;
            break;
        case 't':
            out.kind = Scalar::Kind::Bool;
            out.i = 1;
            if (!word("true"))
                return false;
            break;
        case 'f':
            out.kind = Scalar::Kind::Bool;
            out.i = 0;
            if (!word("false"))
                return false;
            break;
        default:
            if (!integer(out.i))
                return false;
            out.kind = Scalar::Kind::Int;
            break;
        }
        text = std::string_view(start, static_cast<size_t>(m_p - start));
        return true;
    }

    // Any JSON value, appended to out as writeCanonicalJson writes it (compact, strings
    // re-escaped, numbers as written): objects and arrays to `depth` levels, strings without
    // escapes, numbers of JSON syntax. False for anything else (nothing is then decided).
    bool canonicalValue(std::string& out, int depth)
    {
        if (m_p == m_end || depth > kMaxFlatDepth)
            return false;
        const char open = *m_p;
        if (open == '{' || open == '[') {
            const char close = open == '{' ? '}' : ']';
            ++m_p;
            out += open;
            skipSpace();
            for (bool first = true; !take(close); first = false) {
                if (!first) {
                    if (!take(','))
                        return false;
                    skipSpace();
                    out += ',';
                }
                if (open == '{') {
                    std::string_view key;
                    if (!take('"') || !string(key))
                        return false;
                    appendPlainString(out, key);
                    out += ':';
                    skipSpace();
                    if (!take(':'))
                        return false;
                    skipSpace();
                }
                if (!canonicalValue(out, depth + 1))
                    return false;
                skipSpace();
            }
            out += close;
            return true;
        }
        if (open == '"') {
            ++m_p;
            std::string_view text;
            if (!string(text))
                return false;
            appendPlainString(out, text);
            return true;
        }
        const char* start = m_p;
        if (open == 't' || open == 'f' || open == 'n') {
            if (!word(open == 't' ? "true" : open == 'f' ? "false" : "null"))
                return false;
        } else {
            while (m_p < m_end && isNumberChar(*m_p))
                ++m_p;
            if (!isJsonNumber(std::string_view(start, static_cast<size_t>(m_p - start))))
                return false;
        }
        out.append(start, static_cast<size_t>(m_p - start));
        return true;
    }
    // An integer that fits int64_t (see scalar()).
    bool int64(int64_t& out) { return integer(out); }
    // A string that string() took: no escapes, no control characters, so appendJsonString
    // would write it as it is between quotes.
    static void appendPlainString(std::string& out, std::string_view text)
    {
        out += '"';
        out += text;
        out += '"';
    }
    // Whether the text at the cursor is `previous` followed by a delimiter of the value (',' or
    // '}' after optional spaces); taken when it is.
    bool takeRepeat(std::string_view previous)
    {
        if (previous.empty() || static_cast<size_t>(m_end - m_p) < previous.size() ||
            std::memcmp(m_p, previous.data(), previous.size()) != 0)
            return false;
        const char* after = m_p + previous.size();
        while (after < m_end && (*after == ' ' || *after == '\t' || *after == '\n' || *after == '\r'))
            ++after;
        if (after == m_end || (*after != ',' && *after != '}'))
            return false;
        m_p += previous.size();
        return true;
    }
    const char* position() const { return m_p; }

private:
    // Nesting the fast path reads; deeper values (up to kMaxJsonDepth) are left to simdjson.
    static constexpr int kMaxFlatDepth = 32;
    static bool isNumberChar(char c)
    {
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    }
    // memcmp(a, b, n) == 0 for the short keys, inline: words of eight bytes, the last one
    // overlapping the one before (a call to memcmp per key was 9 % of the parse).
    static bool sameBytes(const char* a, const char* b, size_t n)
    {
        if (n < 8) {
            if (n < 4)
                return std::memcmp(a, b, n) == 0;
            uint32_t x[2], y[2];
            std::memcpy(&x[0], a, 4);
            std::memcpy(&x[1], a + n - 4, 4);
            std::memcpy(&y[0], b, 4);
            std::memcpy(&y[1], b + n - 4, 4);
            return x[0] == y[0] && x[1] == y[1];
        }
        for (size_t at = 0;; at += 8) {
            if (at + 8 > n)
                at = n - 8;
            uint64_t x, y;
            std::memcpy(&x, a + at, 8);
            std::memcpy(&y, b + at, 8);
            if (x != y)
                return false;
            if (at + 8 == n)
                return true;
        }
    }
    // A word whose bytes equal to c (or below n) have their high bit set; other bytes clear.
    // Exact (no false positives) as long as the bytes tested are ASCII, which the caller
    // checks separately through the 0x80 bits.
    static uint64_t hasByte(uint64_t word, char c)
    {
        const uint64_t x = word ^ (0x0101010101010101ull * static_cast<unsigned char>(c));
        return hasByteBelow(x, 1);
    }
    static uint64_t hasByteBelow(uint64_t word, unsigned n)
    {
        return (word - 0x0101010101010101ull * n) & ~word & 0x8080808080808080ull;
    }
    // Whether the eight bytes at p are all digits, and their value.
    static bool eightDigits(const char* p, uint32_t& out)
    {
        uint64_t word;
        std::memcpy(&word, p, 8);
        if (((word & 0xF0F0F0F0F0F0F0F0ull) |
             (((word + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
            return false;
        word -= 0x3030303030303030ull;
        word = word * 10 + (word >> 8);
        word = (((word & 0x000000FF000000FFull) * 0x000F424000000064ull) +
                (((word >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >>
               32;
        out = static_cast<uint32_t>(word);
        return true;
    }

    bool word(std::string_view w)
    {
        if (static_cast<size_t>(m_end - m_p) < w.size() || std::memcmp(m_p, w.data(), w.size()) != 0)
            return false;
        m_p += w.size();
        return m_p == m_end || !isWordChar(*m_p);
    }
    static bool isWordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'; }
    bool integer(int64_t& out)
    {
        const bool negative = m_p < m_end && *m_p == '-';
        if (negative)
            ++m_p;
        const char* digits = m_p;
        uint64_t value = 0;
        uint32_t eight = 0;
        // at most three rounds: more than 19 digits are given up below
        while (m_p + 8 <= m_end && m_p - digits < 24 && eightDigits(m_p, eight)) {
            value = value * 100000000 + eight;
            m_p += 8;
        }
        while (m_p < m_end && static_cast<unsigned char>(*m_p - '0') <= 9) {
            value = value * 10 + static_cast<uint64_t>(*m_p - '0');
            ++m_p;
        }
        // 19 digits fit in uint64_t; beyond int64_t's range parse() says what it is
        const auto count = m_p - digits;
        if (count == 0 || count > 19 || (count > 1 && *digits == '0') ||
            value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return false;
        if (m_p < m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E'))
            return false;
        out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
        return true;
    }

    const char* m_p;
    const char* m_end;
};

} // namespace

namespace {

// The metadata object at in, written to metadata as writeMetadata writes it (with the keys it
// picks out into record), or false (nothing decided: parse() reads the line).
bool readFlatMetadata(FlatScanner& in, RecordFields& record, std::string& metadata)
{
    metadata.clear();
    metadata.reserve(256); // once: a record's metadata, grown 15, 30, 60... bytes, was 5 allocations
    if (!in.take('{'))
        return false;
    metadata += '{';
    in.skipSpace();
    for (bool first = true; !in.take('}'); first = false) {
        if (!first) {
            if (!in.take(','))
                return false;
            in.skipSpace();
            metadata += ',';
        }
        std::string_view key;
        if (!in.take('"') || !in.string(key))
            return false;
        in.skipSpace();
        if (!in.take(':'))
            return false;
        in.skipSpace();
        FlatScanner::appendPlainString(metadata, key);
        metadata += ':';
        if (in.take('"')) {
            std::string_view value;
            if (!in.string(value))
                return false;
            FlatScanner::appendPlainString(metadata, value);
            if (key == "backend")
                record.backend.assign(value);
            else if (key == "origin_phase_scope_id")
                record.origin.phaseScopeId = std::string(value);
        } else if (key == "origin_thread_id" && (in.peek('-') || in.peekDigit())) {
            // parse() takes an int64 here and writes it back; other numbers are left to it
            int64_t thread = 0;
            if (!in.int64(thread))
                return false;
            metadata += std::to_string(thread);
            record.origin.threadId = thread;
        } else if (!in.canonicalValue(metadata, 1)) {
            return false;
        }
        in.skipSpace();
    }
    metadata += '}';
    return true;
}

} // namespace

std::optional<EventRecordParser::Outcome>
EventRecordParser::parseFlatLine(std::string_view text, const RecordLocation& where, EventChunk& chunk)
{
    RecordFields& record = *m_record;
    record.clear();
    m_metadata.clear();
    FlatScanner in(text);
    if (!in.take('{'))
        return std::nullopt;
    in.skipSpace();
    if (in.peek('}'))
        return std::nullopt; // nothing to gain; parse() says what is missing
    for (size_t position = 0;; ++position) {
        if (!in.take('"'))
            return std::nullopt;
        // The key at this position of the last line first, as parse() does.
        std::optional<Field> known;
        if (position < m_keyOrder.size() && m_keyOrder[position] < kFieldCount &&
            in.takeKey(kFieldNames[m_keyOrder[position]])) {
            known = static_cast<Field>(m_keyOrder[position]);
        } else {
            std::string_view key;
            if (!in.string(key))
                return std::nullopt;
            known = findField(key);
            if (!known)
                return std::nullopt; // unknown keys are reported by parse()
            rememberKeyAt(m_keyOrder, position, known);
        }
        in.skipSpace();
        if (!in.take(':'))
            return std::nullopt;
        in.skipSpace();
        if (*known == Field::Metadata) {
            if (record.metadataSeen)
                return std::nullopt;
            record.metadataSeen = true;
            if (in.takeRepeat(m_lastMetadata.raw)) {
                // The same text as the last record's metadata (a writer repeats it on most
                // lines): the same canonical text and picked-out keys.
                m_metadata = m_lastMetadata.canonical;
                record.backend = m_lastMetadata.backend;
                record.origin = m_lastMetadata.origin;
            } else if (in.peek('{')) {
                const char* rawStart = in.position();
                if (!readFlatMetadata(in, record, m_metadata))
                    return std::nullopt;
                m_lastMetadata.raw.assign(rawStart, static_cast<size_t>(in.position() - rawStart));
                m_lastMetadata.canonical = m_metadata;
                m_lastMetadata.backend = record.backend;
                m_lastMetadata.origin = record.origin;
            } else {
                Scalar value;
                std::string_view valueText;
                if (!in.scalar(value, valueText) || value.kind != Scalar::Kind::Null)
                    return std::nullopt; // parse() rejects a metadata that is not an object
            }
        } else {
            Scalar& slot = record.slot(*known);
            if (slot.kind != Scalar::Kind::Absent)
                return std::nullopt; // duplicate keys are reported by parse()
            std::string_view valueText;
            if (!in.scalar(slot, valueText))
                return std::nullopt;
        }
        in.skipSpace();
        if (in.take('}'))
            break;
        if (!in.take(','))
            return std::nullopt;
        in.skipSpace();
    }
    in.skipSpace();
    if (!in.atEnd())
        return std::nullopt; // parse() warns about text after the object
    ++chunk.recordsRead;
    return finish(record, where, chunk);
}

EventRecordParser::Outcome EventRecordParser::finish(RecordFields& record, const RecordLocation& where,
                                                     EventChunk& chunk)
{
    const auto& fields = record.fields;
    const auto& unknownKeys = record.unknownKeys;
    const auto& duplicateKeys = record.duplicateKeys;
    auto& reject = record.reject;
    const auto& backend = record.backend;
    auto& origin = record.origin;
    const bool metadataSeen = record.metadataSeen;
    auto has = [&](Field f) { return fields[static_cast<size_t>(f)].kind != Scalar::Kind::Absent; };
    auto get = [&](Field f) -> const Scalar& { return fields[static_cast<size_t>(f)]; };
    // Only a record's first reason is kept: later ones are not even spelled out (a hostile or
    // mangled record may fail every field, and each message is a few allocations).
    auto rejectOnce = [&reject](auto&& why) {
        if (!reject.empty())
            return;
        if constexpr (std::is_invocable_v<decltype(why)>)
            reject = why();
        else
            reject = why;
    };

    const bool legacy =
        !has(Field::SchemaVersion) && (has(Field::LegacyTimestamp) || has(Field::LegacyAllocated));
    int64_t schemaVersion = 0;
    if (!legacy) {
        const Scalar& version = get(Field::SchemaVersion);
        if (version.kind == Scalar::Kind::Absent)
            rejectOnce("missing required field 'schema_version' (and no legacy fields 'timestamp', "
                       "'memory_allocated')");
        else if (const std::optional<int64_t> number = integerValue(version); !number)
            rejectOnce([&] {
                return "field 'schema_version': expected an integer, got " + describeNonInteger(version);
            });
        else if (*number < 2 || *number > 4)
            rejectOnce([&] {
                return "unsupported schema_version " + std::to_string(*number) + " (2, 3 or 4 expected)";
            });
        else
            schemaVersion = *number;
    }

    // null counters are only valid from schema 4 on
    const bool nullCountersAllowed = schemaVersion >= 4;
    auto takeInt = [&](Field f, IntRule rule, int64_t fallback = 0) -> int64_t {
        const Scalar& s = get(f);
        // the name is only spelled out for a message: no allocation per field on the hot path
        auto name = [f] { return std::string(nameOf(f)); };
        switch (s.kind) {
        case Scalar::Kind::Int:
            return s.i;
        case Scalar::Kind::Absent:
            if (rule == IntRule::Required || rule == IntRule::RequiredNullable)
                rejectOnce([&] { return "missing required field '" + name() + "'"; });
            return rule == IntRule::Nullable ? kNullInt : fallback;
        case Scalar::Kind::Null:
            if (rule == IntRule::Required)
                rejectOnce([&] {
                    return "field '" + name() + "' is null" +
                           (schemaVersion > 0 && !nullCountersAllowed
                                ? " (null counters need schema_version 4)"
                                : "");
                });
            return (rule == IntRule::Optional) ? fallback : kNullInt;
        default:
            if (const std::optional<int64_t> number = integerValue(s))
                return *number;
            rejectOnce(
                [&] { return "field '" + name() + "': expected an integer, got " + describeNonInteger(s); });
            return kNullInt;
        }
    };
    auto takeString = [&](Field f, bool required) -> std::string_view {
        const Scalar& s = get(f);
        if (s.kind == Scalar::Kind::String)
            return s.s;
        if (s.kind == Scalar::Kind::Absent || s.kind == Scalar::Kind::Null) {
            if (required)
                rejectOnce([&] { return "missing required field '" + std::string(nameOf(f)) + "'"; });
            return {};
        }
        rejectOnce([&] {
            return "field '" + std::string(nameOf(f)) + "': expected a string, got " + kindName(s.kind);
        });
        return {};
    };
    auto requireNonNegative = [&](Field f, int64_t v) {
        if (v != kNullInt && v < 0)
            rejectOnce([&] {
                return "field '" + std::string(nameOf(f)) + "' is negative (" + std::to_string(v) + ")";
            });
    };

    int64_t timestampNs = 0, allocated = 0, reserved = 0, active = kNullInt, inactive = kNullInt, change = 0,
            used = 0, freeBytes = kNullInt, total = kNullInt;
    std::string_view eventTypeText, collector;
    std::string hostText;
    // the fields the counters were read from, for messages (legacy records have other names)
    Field allocatedField = Field::Allocated, reservedField = Field::Reserved, activeField = Field::Active,
          inactiveField = Field::Inactive, usedField = Field::Used, freeField = Field::Free,
          totalField = Field::Total;
    std::string_view backendText = backend;
    EventSource source;
    source.schemaVersion = schemaVersion;

    // Fields both shapes share.
    const std::string_view sessionId = takeString(Field::SessionId, schemaVersion == 3);
    if (get(Field::Host).kind == Scalar::Kind::Int)
        hostText = std::to_string(get(Field::Host).i); // "int/str" upstream
    else
        hostText = std::string(takeString(Field::Host, false));
    const std::string_view jobId = takeString(Field::JobId, false);
    const std::string_view context = takeString(Field::Context, false);
    source.pid = takeInt(Field::Pid, IntRule::Optional, 0);
    source.rank = takeInt(Field::Rank, IntRule::Optional, 0);
    source.localRank = takeInt(Field::LocalRank, IntRule::Optional, 0);
    source.worldSize = takeInt(Field::WorldSize, IntRule::Optional, 1);

    if (legacy) {
        const Scalar& ts = get(Field::LegacyTimestamp);
        const std::optional<int64_t> ns =
            ts.kind == Scalar::Kind::Int ? checkedMul(ts.i, 1'000'000'000) : std::nullopt;
        if (ns)
            timestampNs = *ns;
        else if (ts.kind == Scalar::Kind::Int) // its nanoseconds do not fit int64
            rejectOnce(
                [&] { return "field 'timestamp': " + std::to_string(ts.i) + " seconds is out of range"; });
        else if (ts.kind == Scalar::Kind::Float && std::isfinite(ts.d) && std::abs(ts.d) < 9.2e9)
            timestampNs = std::llround(ts.d * 1e9);
        else if (ts.kind == Scalar::Kind::Absent)
            rejectOnce("missing required field 'timestamp' (legacy record)");
        else
            rejectOnce([&] {
                return std::string("field 'timestamp': expected seconds as a number, got ") +
                       kindName(ts.kind);
            });
        // The canonical name first, then its legacy twin: upstream's legacy conversion reads them
        // in this order, and stormlog's MemoryEvent.to_dict (OOM dump events.json) writes the
        // twins: device_used, device_free, active_memory, inactive_memory.
        auto either = [&](Field canonical, Field twin) { return has(canonical) ? canonical : twin; };
        allocatedField = either(Field::Allocated, Field::LegacyAllocated);
        allocated = takeInt(allocatedField, IntRule::Required);
        reservedField = either(Field::Reserved, Field::LegacyReserved);
        reserved = takeInt(reservedField, IntRule::Optional, allocated);
        change = takeInt(either(Field::Change, Field::LegacyChange), IntRule::Optional, 0);
        activeField = either(Field::Active, Field::LegacyActive);
        active = takeInt(activeField, IntRule::Nullable);
        inactiveField = either(Field::Inactive, Field::LegacyInactive);
        inactive = takeInt(inactiveField, IntRule::Nullable);
        // without a device counter the device is taken to hold what was allocated (upstream)
        usedField = either(Field::Used, Field::LegacyUsed);
        if (has(usedField) && get(usedField).kind != Scalar::Kind::Null) {
            used = takeInt(usedField, IntRule::Required);
        } else {
            used = allocated;
            usedField = allocatedField;
        }
        freeField = either(Field::Free, Field::LegacyFree);
        freeBytes = takeInt(freeField, IntRule::Nullable);
        totalField = Field::LegacyTotalMemory;
        for (Field f :
             {Field::Total, Field::LegacyTotalMemory, Field::LegacyDeviceTotal, Field::LegacyTotalBytes}) {
            if (has(f) && get(f).kind != Scalar::Kind::Null) {
                totalField = f;
                total = takeInt(f, IntRule::Nullable);
                break;
            }
        }
        source.samplingIntervalMs = takeInt(Field::SamplingIntervalMs, IntRule::Optional, 0);
        eventTypeText = has(Field::EventTypeName) ? takeString(Field::EventTypeName, true)
                        : has(Field::LegacyType)  ? takeString(Field::LegacyType, true)
                                                  : std::string_view("sample");
        if (get(Field::LegacyBackend).kind == Scalar::Kind::String && backendText.empty())
            backendText = get(Field::LegacyBackend).s;
        const Scalar& device = get(Field::LegacyDevice);
        if (device.kind == Scalar::Kind::Int) {
            source.deviceId = device.i;
        } else if (device.kind == Scalar::Kind::String) {
            const std::string name = lowered(trimmed(device.s));
            const size_t colon = name.find(':');
            if (name.rfind("cpu", 0) == 0)
                source.deviceId = -1;
            else if (colon != std::string::npos) {
                int64_t index = 0;
                const char* begin = name.data() + colon + 1;
                const char* end = name.data() + name.size();
                auto [ptr, ec] = std::from_chars(begin, end, index);
                if (ec == std::errc() && ptr == end)
                    source.deviceId = index;
                else
                    rejectOnce([&] {
                        return "field 'device': cannot read a device index from '" + std::string(device.s) +
                               "'";
                    });
            }
        } else if (has(Field::DeviceId)) {
            source.deviceId = takeInt(Field::DeviceId, IntRule::Optional, 0);
        }
        // upstream's _legacy_collector: the record's collector, else the tracker of its backend
        collector = takeString(Field::Collector, false);
        if (trimmed(collector).empty())
            collector = legacyCollectorOf(lowered(trimmed(backendText)));
    } else {
        timestampNs = takeInt(Field::TimestampNs, IntRule::Required);
        eventTypeText = takeString(Field::EventTypeName, true);
        collector = takeString(Field::Collector, false);
        source.samplingIntervalMs = takeInt(Field::SamplingIntervalMs, IntRule::Optional, 0);
        source.deviceId = takeInt(Field::DeviceId, IntRule::Optional, 0);
        const IntRule counter = nullCountersAllowed ? IntRule::RequiredNullable : IntRule::Required;
        allocated = takeInt(Field::Allocated, counter);
        reserved = takeInt(Field::Reserved, counter);
        used = takeInt(Field::Used, counter);
        change = takeInt(Field::Change, nullCountersAllowed ? IntRule::Nullable : IntRule::Optional, 0);
        active = takeInt(Field::Active, IntRule::Nullable);
        inactive = takeInt(Field::Inactive, IntRule::Nullable);
        freeBytes = takeInt(Field::Free, IntRule::Nullable);
        total = takeInt(Field::Total, IntRule::Nullable);
    }

    if (reject.empty()) {
        if (trimmed(eventTypeText).empty())
            rejectOnce("empty event_type");
        if (timestampNs < 0)
            rejectOnce([&] { return "timestamp is negative (" + std::to_string(timestampNs) + ")"; });
        requireNonNegative(allocatedField, allocated);
        requireNonNegative(reservedField, reserved);
        requireNonNegative(activeField, active);
        requireNonNegative(inactiveField, inactive);
        requireNonNegative(usedField, used);
        requireNonNegative(freeField, freeBytes);
        requireNonNegative(totalField, total);
        if (used != kNullInt && total != kNullInt && used > total)
            rejectOnce([&] {
                return "device_used_bytes (" + std::to_string(used) + ") exceeds device_total_bytes (" +
                       std::to_string(total) + ")";
            });
        if (source.rank < 0 || source.localRank < 0)
            rejectOnce("negative rank or local_rank");
        else if (source.worldSize < 1 || source.rank >= source.worldSize)
            rejectOnce([&] {
                return "rank " + std::to_string(source.rank) + " is not below world_size " +
                       std::to_string(source.worldSize);
            });
    }

    if (!reject.empty()) {
        chunk.problems.addError(m_file, where.line, qs(reject), where.index);
        return Outcome::Rejected;
    }

    for (const std::string& key : unknownKeys)
        chunk.problems.addWarning(m_file, where.line, withTexts("unknown key '%1' ignored", {key}),
                                  where.index);
    for (const std::string& key : duplicateKeys)
        chunk.problems.addWarning(
            m_file, where.line, withTexts("duplicate key '%1': the last value is used", {key}), where.index);
    for (uint64_t bits = record.present; bits != 0; bits &= bits - 1) {
        const auto i = static_cast<size_t>(std::countr_zero(bits));
        const auto f = static_cast<Field>(i);
        if (fields[i].kind != Scalar::Kind::Absent && (legacy ? !legacyAccepts(f) : isLegacyField(f)))
            chunk.problems.addWarning(m_file, where.line, withTexts("unknown key '%1' ignored", {nameOf(f)}),
                                      where.index);
    }
    if (!metadataSeen)
        m_metadata = "{}";

    EventStore& store = chunk.store;
    const auto row = static_cast<uint32_t>(store.size());
    const EventType type = eventTypeFromString(lowered(trimmed(eventTypeText)));
    store.timestampNs.push_back(timestampNs);
    store.allocated.push_back(allocated);
    store.reserved.push_back(reserved);
    store.active.push_back(active);
    store.inactive.push_back(inactive);
    store.change.push_back(change);
    store.used.push_back(used);
    store.free.push_back(freeBytes);
    store.total.push_back(total);
    store.type.push_back(type);
    // consecutive records nearly always repeat these: compared before hashed
    StringPool& strings = store.strings;
    store.typeName.push_back(strings.internRecent(eventTypeText, 0));
    source.sessionId = strings.internRecent(sessionId, 1);
    source.collector = strings.internRecent(collector, 2);
    source.host = strings.internRecent(hostText, 3);
    source.jobId = strings.internRecent(jobId, 4);
    store.source.push_back(chunk.addSource(source));
    store.context.push_back(strings.internRecent(context, 5));
    store.metadata.push_back(m_metadata == "{}" ? 0 : strings.internRecent(m_metadata, 6));
    if (origin.phaseScopeId || origin.threadId)
        store.origins.emplace(row, std::move(origin));
    if (!backendText.empty())
        chunk.backendBySession.try_emplace(std::string(sessionId), backendText);
    if (legacy)
        ++chunk.legacyRecords;
    if ((type == EventType::PhaseEnter || type == EventType::PhaseExit) && !sessionId.empty())
        extractPhaseBoundary(m_metadata, sessionId, type, source.rank, timestampNs, row, where, chunk);
    return Outcome::Loaded;
}

void EventRecordParser::extractPhaseBoundary(std::string_view metadataJson, std::string_view sessionId,
                                             EventType type, int64_t rank, int64_t timestampNs, uint32_t row,
                                             const RecordLocation& where, EventChunk& chunk)
{
    auto ignore = [&](const QString& why) {
        chunk.problems.addWarning(m_file, where.line, QStringLiteral("phase_scope ignored: %1").arg(why),
                                  where.index);
    };
    m_phaseBuffer.assign(metadataJson);
    m_phaseBuffer.append(simdjson::SIMDJSON_PADDING, ' ');
    // A parser of the pool: a parser of its own would allocate its buffers for every record
    // parser (each window of a load, each look of the follower) that meets a phase event.
    PooledJsonParser phaseParser;
    od::document doc;
    od::object metadata;
    if (phaseParser->iterate(m_phaseBuffer.data(), metadataJson.size(), m_phaseBuffer.size()).get(doc) ||
        doc.get_object().get(metadata)) {
        ignore(QStringLiteral("unreadable metadata"));
        return;
    }
    od::object scope;
    if (metadata.find_field_unordered("phase_scope").get_object().get(scope)) {
        ignore(QStringLiteral("metadata.phase_scope is missing or not an object"));
        return;
    }
    PhaseBoundary boundary;
    boundary.sessionId.assign(sessionId);
    boundary.rank = rank;
    boundary.timestampNs = timestampNs;
    boundary.eventRow = row;
    std::optional<std::string> action, scopeId;
    std::optional<int64_t> sequence, depth;
    bool hasPath = false, hasName = false;
    QString problem;
    for (auto fieldResult : scope) {
        od::field field;
        std::string_view key;
        if (std::move(fieldResult).get(field) || field.unescaped_key().get(key)) {
            ignore(QStringLiteral("unreadable phase_scope"));
            return;
        }
        od::value& value = field.value();
        Scalar scalar;
        auto wrongType = [&](const char* expected) {
            if (problem.isEmpty())
                problem =
                    QStringLiteral("'%1' is %2, expected %3").arg(qs(key), kindName(scalar.kind), expected);
        };
        if (key == "path") {
            od::array path;
            if (value.get_array().get(path)) {
                problem = QStringLiteral("'path' is not a list");
                continue;
            }
            hasPath = true;
            for (auto elementResult : path) {
                std::string_view part;
                if (elementResult.get_string().get(part)) {
                    problem = QStringLiteral("'path' holds a non-string");
                    break;
                }
                boundary.path.emplace_back(part);
            }
            continue;
        }
        if (key == "attributes") {
            od::json_type type;
            if (!value.type().get(type) && type == od::json_type::object &&
                !writeCanonicalJson(value, boundary.attributesJson))
                continue;
            boundary.attributesJson.clear();
            continue; // attributes are optional: anything but an object is dropped
        }
        if (readScalar(value, scalar)) {
            ignore(QStringLiteral("unreadable phase_scope"));
            return;
        }
        const bool isString = scalar.kind == Scalar::Kind::String;
        const bool isInt = scalar.kind == Scalar::Kind::Int;
        if (key == "action") {
            isString ? void(action = std::string(scalar.s)) : wrongType("a string");
        } else if (key == "name") {
            hasName = isString;
            isString ? void(boundary.name.assign(scalar.s)) : wrongType("a string");
        } else if (key == "scope_id") {
            isString ? void(scopeId = std::string(scalar.s)) : wrongType("a string");
        } else if (key == "parent_scope_id") {
            if (isString)
                boundary.parentScopeId = std::string(scalar.s);
            else if (scalar.kind != Scalar::Kind::Null)
                wrongType("a string or null");
        } else if (key == "depth") {
            isInt ? void(depth = scalar.i) : wrongType("an integer");
        } else if (key == "thread_id") {
            isInt ? void(boundary.threadId = scalar.i) : wrongType("an integer");
        } else if (key == "thread_name") {
            if (isString)
                boundary.threadName.assign(scalar.s);
            else if (scalar.kind != Scalar::Kind::Null)
                wrongType("a string or null");
        } else if (key == "sequence") {
            isInt ? void(sequence = scalar.i) : wrongType("an integer");
        }
    }
    const std::string_view expected = type == EventType::PhaseEnter ? "enter" : "exit";
    if (!problem.isEmpty())
        return ignore(problem);
    if (!action)
        return ignore(QStringLiteral("no 'action'"));
    if (*action != expected)
        return ignore(
            QStringLiteral("action '%1' does not match event_type phase_%2").arg(qs(*action), qs(expected)));
    if (!scopeId)
        return ignore(QStringLiteral("no 'scope_id'"));
    if (!sequence)
        return ignore(QStringLiteral("no 'sequence'"));
    if (!hasPath)
        return ignore(QStringLiteral("no 'path'"));
    boundary.action = type == EventType::PhaseEnter ? PhaseAction::Enter : PhaseAction::Exit;
    boundary.scopeId = std::move(*scopeId);
    boundary.sequence = *sequence;
    boundary.depth = depth.value_or(static_cast<int64_t>(boundary.path.size()));
    if (!hasName && !boundary.path.empty())
        boundary.name = boundary.path.back();
    chunk.boundaries.push_back(std::move(boundary));
}

QString chunkDifference(const EventChunk& a, const EventChunk& b)
{
    const EventStore& x = a.store;
    const EventStore& y = b.store;
    if (x.size() != y.size())
        return QStringLiteral("rows: %1 vs %2").arg(x.size()).arg(y.size());
    // Sources compared field by field, their strings by text (the two chunks intern apart): the
    // fuzz target compares every row, and a formatted text per row was a tenth of its execution.
    auto sameSource = [&x, &y](uint32_t idX, uint32_t idY) {
        const EventSource& u = x.sources[idX];
        const EventSource& v = y.sources[idY];
        return x.str(u.sessionId) == y.str(v.sessionId) && x.str(u.collector) == y.str(v.collector) &&
               x.str(u.host) == y.str(v.host) && x.str(u.jobId) == y.str(v.jobId) && u.pid == v.pid &&
               u.rank == v.rank && u.localRank == v.localRank && u.worldSize == v.worldSize &&
               u.deviceId == v.deviceId && u.samplingIntervalMs == v.samplingIntervalMs &&
               u.schemaVersion == v.schemaVersion;
    };
    for (uint32_t row = 0; row < x.size(); ++row) {
        const bool same =
            x.timestampNs[row] == y.timestampNs[row] && x.allocated[row] == y.allocated[row] &&
            x.reserved[row] == y.reserved[row] && x.active[row] == y.active[row] &&
            x.inactive[row] == y.inactive[row] && x.change[row] == y.change[row] &&
            x.used[row] == y.used[row] && x.free[row] == y.free[row] && x.total[row] == y.total[row] &&
            x.type[row] == y.type[row] && x.str(x.typeName[row]) == y.str(y.typeName[row]) &&
            x.str(x.context[row]) == y.str(y.context[row]) &&
            x.str(x.metadata[row]) == y.str(y.metadata[row]) && sameSource(x.source[row], y.source[row]);
        if (!same)
            return QStringLiteral("row %1 differs (metadata '%2' vs '%3')")
                .arg(row)
                .arg(qs(x.str(x.metadata[row])), qs(y.str(y.metadata[row])));
        const auto ox = x.origins.find(row);
        const auto oy = y.origins.find(row);
        if ((ox == x.origins.end()) != (oy == y.origins.end()) ||
            (ox != x.origins.end() && (ox->second.phaseScopeId != oy->second.phaseScopeId ||
                                       ox->second.threadId != oy->second.threadId)))
            return QStringLiteral("origin of row %1 differs").arg(row);
    }
    if (x.origins.size() != y.origins.size())
        return QStringLiteral("origins: %1 vs %2").arg(x.origins.size()).arg(y.origins.size());
    if (a.boundaries.size() != b.boundaries.size())
        return QStringLiteral("phase boundaries: %1 vs %2").arg(a.boundaries.size()).arg(b.boundaries.size());
    for (size_t i = 0; i < a.boundaries.size(); ++i) {
        const PhaseBoundary& p = a.boundaries[i];
        const PhaseBoundary& q = b.boundaries[i];
        if (p.eventRow != q.eventRow || p.scopeId != q.scopeId || p.sequence != q.sequence ||
            p.name != q.name || p.path != q.path || p.timestampNs != q.timestampNs ||
            p.attributesJson != q.attributesJson)
            return QStringLiteral("phase boundary %1 differs").arg(i);
    }
    if (a.backendBySession != b.backendBySession)
        return QStringLiteral("backends differ");
    if (a.recordsRead != b.recordsRead || a.legacyRecords != b.legacyRecords)
        return QStringLiteral("records read %1 vs %2, legacy %3 vs %4")
            .arg(a.recordsRead)
            .arg(b.recordsRead)
            .arg(a.legacyRecords)
            .arg(b.legacyRecords);
    const auto& pa = a.problems.kept();
    const auto& pb = b.problems.kept();
    if (a.problems.errorCount() != b.problems.errorCount() ||
        a.problems.warningCount() != b.problems.warningCount() || pa.size() != pb.size())
        return QStringLiteral("problems: %1/%2 vs %3/%4")
            .arg(a.problems.errorCount())
            .arg(a.problems.warningCount())
            .arg(b.problems.errorCount())
            .arg(b.problems.warningCount());
    for (size_t i = 0; i < pa.size(); ++i) {
        if (pa[i] != pb[i]) // field by field: formatting both was a sixth of fuzz_jsonfastpath's time
            return QStringLiteral("problem %1: '%2' vs '%3'").arg(i).arg(pa[i].toString(), pb[i].toString());
    }
    return {};
}

qint64 advanceLine(const char* data, size_t from, size_t to, qint64 lineAtFrom)
{
    return lineAtFrom + countNewlines(data + from, data + to);
}

QString tooLongRecordReason(qint64 bytes)
{
    return withNumbers("line of %1 bytes is longer than the %2 MB a record may have",
                       {bytes, qint64(kMaxRecordBytes >> 20)});
}

void reportLineProblem(EventChunk& chunk, const QString& file, qint64 line, qint64 bytes,
                       bool partialLastLine, const QString& reason)
{
    if (partialLastLine)
        chunk.problems.addWarning(
            file, line,
            withNumbers("truncated last line ignored (%1 bytes without a newline; a live "
                        "writer may be mid-line): ",
                        {bytes}) +
                reason);
    else
        chunk.problems.addError(file, line, reason);
}

bool parseJsonLinesRange(const char* data, size_t begin, size_t end, size_t capacity, qint64 firstLine,
                         bool endsFile, EventRecordParser& parser, EventChunk& chunk,
                         const RangeControl& control, qint64* linesRead)
{
    PooledJsonParser json;
    size_t pos = begin;
    qint64 line = firstLine;
    qint64 sinceCancelPoll = 0;
    size_t nextProgress = begin + control.progressStepBytes;
    while (pos < end) {
        const void* newline = std::memchr(data + pos, '\n', end - pos);
        const size_t lineEnd = newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) : end;
        const std::string_view text = trimmed(std::string_view(data + pos, lineEnd - pos));
        // Most lines are flat records, read without simdjson; the others (and any line the
        // fast path is unsure of) go through simdjson below. A record beyond the size limit is
        // refused below whatever its shape: the fast path would load it.
        if (!text.empty() && !(control.flatFastPath && text.size() <= kMaxRecordBytes &&
                               parser.parseFlatLine(text, RecordLocation{line, -1}, chunk))) {
            const size_t start = static_cast<size_t>(text.data() - data);
            const bool partialLastLine = !newline && endsFile;
            auto report = [&](const QString& reason) {
                reportLineProblem(chunk, parser.file(), line, qint64(text.size()), partialLastLine, reason);
            };
            od::document doc;
            od::object object;
            // A record beyond the limit is not parsed: the parser's index would need ~4 bytes
            // per input byte (a crashed writer can leave hundreds of MB without a newline).
            const bool tooLong = text.size() > kMaxRecordBytes;
            error_code error = tooLong ? simdjson::CAPACITY
                                       : json->iterate(data + start, text.size(), capacity - start).get(doc);
            if (!error)
                error = doc.get_object().get(object);
            if (error) {
                ++chunk.recordsRead;
                report(tooLong               ? tooLongRecordReason(qint64(text.size()))
                       : text.front() == '{' ? invalidJsonMessage(error)
                                             : QStringLiteral("line is not a JSON object"));
            } else {
                const auto outcome = parser.parse(object, RecordLocation{line, -1}, chunk);
                if (outcome == EventRecordParser::Outcome::SyntaxError) {
                    report(invalidJsonMessage(parser.syntaxError()));
                } else {
                    const char* after = nullptr;
                    if (doc.current_location().get(after) == simdjson::SUCCESS && after != nullptr)
                        chunk.problems.addWarning(parser.file(), line,
                                                  QStringLiteral("text after the JSON object ignored"));
                }
            }
        }
        pos = lineEnd + 1;
        ++line;
        if (++sinceCancelPoll >= kCancelPollRecords) {
            sinceCancelPoll = 0;
            if (control.cancelled())
                return false;
        }
        if (pos >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(std::min(pos, end)));
            nextProgress = pos + control.progressStepBytes;
        }
    }
    if (linesRead)
        *linesRead = line - firstLine;
    if (control.progress)
        control.progress(static_cast<qint64>(end));
    return !control.cancelled();
}

namespace {

// Skips the document's root value: *after is where the first token after it starts, or
// nullptr when the input ends with it. On success doc is rewound; false when the root value
// could not be skipped (it is broken, and doc is left unusable: iterate again).
bool skipRootValue(od::document& doc, const char** after)
{
    std::string_view root;
    *after = nullptr;
    if (doc.raw_json().get(root))
        return false;
    if (doc.current_location().get(*after) != simdjson::SUCCESS)
        *after = nullptr;
    doc.rewind();
    return true;
}

// Elements of an event array; stops at a syntax error (the rest cannot be located).
bool parseEventArray(od::array& array, const simdjson::padded_string& buffer, EventRecordParser& parser,
                     EventChunk& chunk, const RangeControl& control)
{
    const char* data = buffer.data();
    size_t lineOffset = 0;
    qint64 line = 1;
    qint64 index = 0;
    size_t nextProgress = kProgressStepBytes;
    for (auto elementResult : array) {
        od::value element;
        if (auto error = std::move(elementResult).get(element)) {
            chunk.problems.addError(parser.file(), line,
                                    QStringLiteral("invalid JSON after array element %1: %2; the rest of the "
                                                   "array is not loaded")
                                        .arg(index - 1)
                                        .arg(simdjson::error_message(error)));
            return true;
        }
        const char* location = nullptr;
        if (element.current_location().get(location) == simdjson::SUCCESS && location >= data + lineOffset) {
            const auto offset = static_cast<size_t>(location - data);
            line = advanceLine(data, lineOffset, offset, line);
            lineOffset = offset;
        }
        od::object object;
        if (element.get_object().get(object)) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, QStringLiteral("array element is not a JSON object"),
                                    index);
        } else if (parser.parse(object, RecordLocation{line, index}, chunk) ==
                   EventRecordParser::Outcome::SyntaxError) {
            chunk.problems.addError(parser.file(), line,
                                    QStringLiteral("invalid JSON: %1; the rest of the array is not loaded")
                                        .arg(simdjson::error_message(parser.syntaxError())),
                                    index);
            return true;
        }
        ++index;
        if (index % kCancelPollRecords == 0 && control.cancelled())
            return false;
        if (lineOffset >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(lineOffset));
            nextProgress = lineOffset + kProgressStepBytes;
        }
    }
    return true;
}

} // namespace

bool parseJsonDocument(const simdjson::padded_string& buffer, EventRecordParser& parser, EventChunk& chunk,
                       const RangeControl& control)
{
    PooledJsonParser json;
    od::document doc;
    const size_t bom = std::string_view(buffer.data(), buffer.size()).starts_with("\xEF\xBB\xBF") ? 3 : 0;
    const std::string_view text = trimmed(std::string_view(buffer.data() + bom, buffer.size() - bom));
    const qint64 firstLine =
        advanceLine(buffer.data(), 0, static_cast<size_t>(text.data() - buffer.data()), 1);
    auto broken = [&](error_code error) {
        chunk.problems.addError(parser.file(), firstLine, invalidJsonMessage(error));
        return true;
    };
    auto iterate = [&] {
        return json
            ->iterate(buffer.data() + bom, buffer.size() - bom,
                      buffer.size() + simdjson::SIMDJSON_PADDING - bom)
            .get(doc);
    };
    if (auto error = iterate())
        return broken(error);
    // A document ends where its root value ends. What follows (records written one after
    // another, an export appended twice) would otherwise be dropped without a word: it is an
    // Error at its line (added after the root's own problems, in line order), and the rest of
    // the file is not loaded.
    const char* rest = nullptr;
    if (!skipRootValue(doc, &rest)) {
        if (auto error = iterate()) // the root is broken: the parse below stops at the break
            return broken(error);
    }
    const size_t trailing = rest ? static_cast<size_t>(rest - buffer.data()) : 0;
    auto reportTrailing = [&] {
        if (trailing == 0)
            return;
        ++chunk.recordsRead; // the rest counts as one rejected record: loaded + rejected stays recordsRead
        const std::string_view upToRest = trimmed(std::string_view(buffer.data(), trailing));
        const auto rootEnd = static_cast<size_t>(upToRest.data() + upToRest.size() - buffer.data());
        chunk.problems.addError(
            parser.file(), advanceLine(buffer.data(), 0, trailing, 1),
            withNumbers("more JSON after the document's root value ended on line %1; the rest of the file "
                        "(%2 bytes) is not loaded (a document holds one value: write one array, or one "
                        "record per line)",
                        {advanceLine(buffer.data(), 0, rootEnd - 1, 1), qint64(buffer.size() - trailing)}));
    };
    bool keepGoing = true;
    if (!text.empty() && text.front() == '[') {
        od::array array;
        if (auto error = doc.get_array().get(array))
            return broken(error);
        keepGoing = parseEventArray(array, buffer, parser, chunk, control);
    } else {
        // An object: either {"events": [...]} or one event. Look at the keys first.
        od::object root;
        if (auto error = doc.get_object().get(root))
            return broken(error);
        bool wrapper = false;
        for (auto fieldResult : root) {
            std::string_view key;
            if (auto error = fieldResult.unescaped_key().get(key))
                return broken(error);
            if (key == "events")
                wrapper = true;
        }
        doc.rewind();
        if (auto error = doc.get_object().get(root))
            return broken(error);
        if (wrapper) {
            for (auto fieldResult : root) {
                od::field field;
                std::string_view key;
                if (auto error = std::move(fieldResult).get(field))
                    return broken(error);
                if (auto error = field.unescaped_key().get(key))
                    return broken(error);
                if (key != "events")
                    continue;
                od::array array;
                if (field.value().get_array().get(array)) {
                    chunk.problems.addError(parser.file(), firstLine,
                                            QStringLiteral("'events' is not an array"));
                    return true;
                }
                keepGoing = parseEventArray(array, buffer, parser, chunk, control);
                break;
            }
        } else if (parser.parse(root, RecordLocation{firstLine, -1}, chunk) ==
                   EventRecordParser::Outcome::SyntaxError) {
            chunk.problems.addError(parser.file(), firstLine, invalidJsonMessage(parser.syntaxError()));
        }
    }
    if (keepGoing)
        reportTrailing();
    if (keepGoing && control.progress)
        control.progress(static_cast<qint64>(buffer.size()));
    return keepGoing && !control.cancelled();
}

std::optional<size_t> countArraySlice(const simdjson::padded_string& slice)
{
    PooledJsonParser json;
    od::document doc;
    od::array array;
    size_t count = 0;
    // A slice that goes on after its array (a second array appended to the file) is not one
    // clean array: the whole-document parse reports what follows.
    const char* rest = nullptr;
    if (json->iterate(slice).get(doc) || !skipRootValue(doc, &rest) || rest || doc.get_array().get(array) ||
        array.count_elements().get(count))
        return std::nullopt;
    return count;
}

SliceOutcome parseArraySlice(const simdjson::padded_string& slice, qint64 firstLine, qint64 firstIndex,
                             EventRecordParser& parser, EventChunk& chunk, const RangeControl& control)
{
    PooledJsonParser json;
    od::document doc;
    od::array array;
    if (json->iterate(slice).get(doc) || doc.get_array().get(array))
        return SliceOutcome::Unusable;
    const char* data = slice.data();
    size_t lineOffset = 0;
    qint64 line = firstLine;
    qint64 index = firstIndex;
    size_t nextProgress = control.progressStepBytes;
    for (auto elementResult : array) {
        od::value element;
        if (std::move(elementResult).get(element))
            return SliceOutcome::Unusable;
        const char* location = nullptr;
        if (element.current_location().get(location) == simdjson::SUCCESS && location >= data + lineOffset) {
            const auto offset = static_cast<size_t>(location - data);
            line = advanceLine(data, lineOffset, offset, line);
            lineOffset = offset;
        }
        od::object object;
        if (element.get_object().get(object)) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, QStringLiteral("array element is not a JSON object"),
                                    index);
        } else if (parser.parse(object, RecordLocation{line, index}, chunk) ==
                   EventRecordParser::Outcome::SyntaxError) {
            return SliceOutcome::Unusable;
        }
        ++index;
        if (index % kCancelPollRecords == 0 && control.cancelled())
            return SliceOutcome::Cancelled;
        if (lineOffset >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(lineOffset));
            nextProgress = lineOffset + control.progressStepBytes;
        }
    }
    if (control.progress)
        control.progress(static_cast<qint64>(slice.size()));
    return control.cancelled() ? SliceOutcome::Cancelled : SliceOutcome::Parsed;
}

} // namespace gapscope::detail
