#pragma once
// Internal to the record parser (EventRecordParser.cpp, FlatRecordParser.cpp, RecordColumns.cpp):
// the fields of one record as either reading took them, before finish() judges them, and the
// value helpers both readings share so that they agree.

#include "model/trace/EventRecordParser.h"
#include "model/trace/StormlogSchema.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope::detail {

// The deepest nesting of arrays and objects a record may hold (simdjson's default).
inline constexpr int kMaxJsonDepth = 512;

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

inline const char* kindName(Scalar::Kind kind)
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

// Reads one value without judging its type. Value-level problems (a malformed or
// out-of-range number, a bad escape) make it Invalid; only a broken document is an error.
simdjson::error_code readScalar(simdjson::ondemand::value& value, Scalar& out);

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

// Notes the field found at a key position of a record (kFieldCount: an unknown key), for the
// next record's in-place comparison. Room for a record's keys is made once: growing one position
// at a time cost a reallocation per key of the first record.
inline void rememberKeyAt(std::vector<uint8_t>& keyOrder, size_t position, std::optional<Field> known)
{
    if (position >= keyOrder.capacity())
        keyOrder.reserve(std::max(2 * (position + 1), 2 * kFieldCount));
    if (position >= keyOrder.size())
        keyOrder.resize(position + 1, static_cast<uint8_t>(kFieldCount));
    keyOrder[position] = static_cast<uint8_t>(known ? static_cast<size_t>(*known) : kFieldCount);
}

} // namespace gapscope::detail
