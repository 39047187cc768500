#include "model/trace/EventRecordParser.h"

#include "analysis/Int64Math.h"
#include "model/read/JsonParserPool.h"
#include "model/read/JsonText.h"
#include "model/text/Text.h"
#include "model/trace/PyLiteral.h"
#include "model/trace/RecordFields.h"

#include <charconv>
#include <cmath>
#include <type_traits>

// Records to columns: EventRecordParser::finish judges the fields either reading took (which
// are required, nullable, their fallbacks, legacy records' twins) and appends the record to the
// chunk's columns, with the phase boundary of a phase event.

namespace gapscope::detail {

using simdjson::error_code;
namespace od = simdjson::ondemand;

namespace {

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

std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
    return out;
}

enum class IntRule
{
    Required,         // present, not null
    RequiredNullable, // present; null allowed (stored as kNullInt)
    Optional,         // absent or null -> the fallback
    Nullable,         // absent or null -> kNullInt
};

} // namespace

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
            const std::string name = lowered(trimmedJson(device.s));
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
        if (trimmedJson(collector).empty())
            collector = legacyCollectorOf(lowered(trimmedJson(backendText)));
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
        if (trimmedJson(eventTypeText).empty())
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
    const EventType type = eventTypeFromString(lowered(trimmedJson(eventTypeText)));
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

} // namespace gapscope::detail
