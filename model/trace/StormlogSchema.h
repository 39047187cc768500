#pragma once
// The fields of a stormlog event record, in one list that every reader of the trace forms
// uses: the record parser (EventRecordParser: which key is which field, which fields a legacy
// record may carry) and the CSV reader (which columns are integers, strings or metadata, which
// header names mark a stormlog CSV). Adding a field is one row here (and its Field value); the
// parser's judgement of it (required, nullable, its fallback) is in EventRecordParser::finish.
//
// stormlog/telemetry.py is the source: schema 2/3/4 records (telemetry_event_to_dict), the
// legacy records without schema_version (telemetry_event_from_record) and the names of
// MemoryEvent.to_dict (OOM dump events.json, older exports).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gapscope::detail {

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
inline constexpr size_t kFieldCount = static_cast<size_t>(Field::Count);

// Which records carry a field.
enum class FieldShape : uint8_t
{
    Schema, // schema 2/3/4 records only
    Both,   // schema records, and legacy ones (upstream's legacy conversion reads the name too)
    Legacy  // legacy records only
};

// How a CSV cell of the field is written into the JSON object the record parser reads.
enum class CellType : uint8_t
{
    Integer,  // numbers as they are; true/false as booleans (the record parser rejects them)
    String,   // always a JSON string
    Metadata, // JSON or a Python literal
    Other     // numbers as they are, anything else a string
};

struct FieldSpec
{
    std::string_view name;
    FieldShape shape;
    CellType cell;
    bool marksCsvHeader; // a CSV first line naming it is a stormlog header
};

inline constexpr std::array<FieldSpec, kFieldCount> kFields{{
    {"schema_version", FieldShape::Schema, CellType::Integer, true},
    {"session_id", FieldShape::Both, CellType::String, false},
    {"timestamp_ns", FieldShape::Schema, CellType::Integer, true},
    {"event_type", FieldShape::Both, CellType::String, true},
    {"collector", FieldShape::Both, CellType::String, false},
    {"sampling_interval_ms", FieldShape::Both, CellType::Integer, false},
    {"pid", FieldShape::Both, CellType::Integer, false},
    {"host", FieldShape::Both, CellType::String, false},
    {"job_id", FieldShape::Both, CellType::String, false},
    {"rank", FieldShape::Both, CellType::Integer, false},
    {"local_rank", FieldShape::Both, CellType::Integer, false},
    {"world_size", FieldShape::Both, CellType::Integer, false},
    {"device_id", FieldShape::Both, CellType::Integer, false},
    {"allocator_allocated_bytes", FieldShape::Both, CellType::Integer, false},
    {"allocator_reserved_bytes", FieldShape::Both, CellType::Integer, false},
    {"allocator_active_bytes", FieldShape::Both, CellType::Integer, false},
    {"allocator_inactive_bytes", FieldShape::Both, CellType::Integer, false},
    {"allocator_change_bytes", FieldShape::Both, CellType::Integer, false},
    {"device_used_bytes", FieldShape::Both, CellType::Integer, false},
    {"device_free_bytes", FieldShape::Both, CellType::Integer, false},
    {"device_total_bytes", FieldShape::Both, CellType::Integer, false},
    {"context", FieldShape::Both, CellType::String, false},
    {"metadata", FieldShape::Both, CellType::Metadata, false},
    // legacy: seconds, possibly fractional, so not an integer cell
    {"timestamp", FieldShape::Legacy, CellType::Other, true},
    {"memory_allocated", FieldShape::Legacy, CellType::Integer, true},
    {"memory_reserved", FieldShape::Legacy, CellType::Other, false},
    {"memory_change", FieldShape::Legacy, CellType::Other, false},
    {"type", FieldShape::Legacy, CellType::String, false},
    {"device", FieldShape::Legacy, CellType::String, false}, // an index or "cuda:N" / "cpu"
    {"total_memory", FieldShape::Legacy, CellType::Other, false},
    {"device_total", FieldShape::Legacy, CellType::Other, false},
    {"total_bytes", FieldShape::Legacy, CellType::Other, false},
    {"device_used", FieldShape::Legacy, CellType::Other, false},
    {"device_free", FieldShape::Legacy, CellType::Other, false},
    {"active_memory", FieldShape::Legacy, CellType::Other, false},
    {"inactive_memory", FieldShape::Legacy, CellType::Other, false},
    {"backend", FieldShape::Legacy, CellType::Other, false},
}};

constexpr const FieldSpec& specOf(Field f)
{
    return kFields[static_cast<size_t>(f)];
}

constexpr std::string_view nameOf(Field f)
{
    return specOf(f).name;
}

// A field only legacy records carry.
constexpr bool isLegacyField(Field f)
{
    return specOf(f).shape == FieldShape::Legacy;
}

// Whether a legacy record may carry the field: its own fields and the canonical names
// upstream's legacy conversion reads too (before their legacy twins).
constexpr bool legacyAccepts(Field f)
{
    return specOf(f).shape != FieldShape::Schema;
}

// The field of a key; nullopt for a key no stormlog record has. Keys are bucketed by
// length (at most a few share one) and compared directly, without hashing.
std::optional<Field> findField(std::string_view key);

} // namespace gapscope::detail
