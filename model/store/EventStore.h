#pragma once
// Columnar store of stormlog events. One row per event; numeric columns are contiguous
// arrays, strings are interned. Rows are grouped by partition (session, rank) and sorted
// by timestamp within a partition (stable: file order breaks ties).

#include "analysis/GapAnalysis.h" // kNullInt, GapInput
#include "analysis/Phases.h"
#include "model/store/PackedColumn.h"

#include <QString>

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gapscope {

// Interned strings: id 0 is the empty/null string.
class StringPool
{
public:
    StringPool() = default;
    // A copy indexes its own strings (a copy of the index would keep views into the original's).
    StringPool(const StringPool& other);
    StringPool& operator=(const StringPool& other);
    StringPool(StringPool&&) noexcept = default;
    StringPool& operator=(StringPool&&) noexcept = default;
    uint32_t intern(std::string_view s);
    // intern() for a value that is usually the same as the last one interned for `slot`
    // (< kRecentSlots; a column, say): compared with it before hashing.
    static constexpr size_t kRecentSlots = 8;
    uint32_t internRecent(std::string_view s, size_t slot)
    {
        const uint32_t recent = m_recent[slot];
        if (recent != 0 && recent < size() && at(recent) == s)
            return recent;
        return m_recent[slot] = intern(s);
    }
    const std::string& at(uint32_t id) const { return id == 0 ? emptyString() : m_data->strings[id]; }
    size_t size() const { return m_data ? m_data->strings.size() : 1; }

private:
    static const std::string& emptyString();
    struct Data
    {
        std::deque<std::string> strings; // deque: stable addresses for the views in index
        std::unordered_map<std::string_view, uint32_t> index;
    };
    // Made by the first string other than "": a pool that holds none allocates nothing. Stores
    // are made, moved and dropped by the dozen for every read of a small file (a chunk per
    // window, per look of the live follower), and libstdc++'s deque allocates its map even when
    // empty or moved from.
    std::unique_ptr<Data> m_data;
    std::array<uint32_t, kRecentSlots> m_recent{}; // ids are the same in a copy
};

enum class EventType : uint8_t
{
    Other = 0, // event_type kept verbatim in the eventTypeName column
    Sample,
    Allocation,
    Deallocation,
    Peak,
    Warning,
    Critical,
    Error,
    Start,
    Stop,
    CollectorDegraded,
    CollectorRecovered,
    PhaseEnter,
    PhaseExit,
    Collective,
};
EventType eventTypeFromString(std::string_view trimmedLower);
std::string_view toString(EventType type);

// Per-event fields that are constant over long runs (one id per row).
struct EventSource
{
    uint32_t sessionId = 0; // pool id; 0 = no session_id (schema 2)
    uint32_t collector = 0;
    uint32_t host = 0;
    uint32_t jobId = 0;
    int64_t pid = 0;
    int64_t rank = 0;
    int64_t localRank = 0;
    int64_t worldSize = 1;
    int64_t deviceId = 0;
    int64_t samplingIntervalMs = 0;
    int64_t schemaVersion = 0;
    bool operator==(const EventSource&) const = default;
};

struct Partition
{
    uint32_t sessionIndex = 0; // into TraceData::sessions
    int64_t rank = 0;
    uint32_t begin = 0; // rows [begin, end)
    uint32_t end = 0;
    size_t size() const { return end - begin; }
};

class EventStore
{
public:
    // Numeric columns, kNullInt = null. Every column is packed (PackedColumn: blocks of 1024
    // rows, a line through each block and the rows' distances from it in as few bits as the
    // block needs): timestamps sampled at a steady rate cost the bits of their jitter, counters
    // those of their movement within a block. Random access by row is O(1); the readers that
    // walk many rows (the analysis, the chart's pyramids) decode a block at a time
    // (forEachBlock, Int64ColumnReader).
    PackedColumn<int64_t> timestampNs;
    PackedColumn<int64_t> allocated;
    PackedColumn<int64_t> reserved;
    PackedColumn<int64_t> active;
    PackedColumn<int64_t> inactive;
    PackedColumn<int64_t> change;
    PackedColumn<int64_t> used;
    PackedColumn<int64_t> free;
    PackedColumn<int64_t> total;
    PackedColumn<EventType> type;
    // used - reserved of a row (analysis/GapAnalysis.h gapBytes)
    int64_t gapAt(uint32_t row) const { return gapBytes(used[row], reserved[row]); }
    PackedColumn<uint32_t> typeName; // pool id of the verbatim event_type
    PackedColumn<uint32_t> source;   // index into sources
    PackedColumn<uint32_t> context;  // pool id
    PackedColumn<uint32_t> metadata; // pool id of the compact metadata JSON ("{}" -> 0)

    // Sparse per-event attributes (only events that carry them).
    std::unordered_map<uint32_t, EventOrigin> origins; // row -> origin ids

    std::vector<EventSource> sources;
    StringPool strings;

    size_t size() const { return timestampNs.size(); }
    const std::string& str(uint32_t id) const { return strings.at(id); }
    // Gives back the spare capacity of the columns that have more than a little of it
    // (vectors grow 2x while loading; a column reserved from a good estimate is left alone,
    // as copying it would cost more than its few spare rows).
    void shrinkToFit();
    // Room for `rows` rows in every column (packed ones estimated from the rows so far).
    void reserveRows(size_t rows);
    // See PackedColumn::keepUnpacked: for the chunk of a parse thread.
    void keepRowsUnpacked();
    void packRows();
    // Removes every row, string and source; the columns keep their capacity.
    void clearRows();
    // Calls f(column) for each row column, dense or packed.
    template <typename F> void forEachColumn(F&& f) { forEachColumnOf(f, *this); }
    // Calls f(column of stores[0], column of stores[1], ...) for each row column: the one list
    // of the columns.
    template <typename F, typename... Stores> static void forEachColumnOf(F&& f, Stores&... stores)
    {
        f(stores.timestampNs...);
        f(stores.allocated...);
        f(stores.reserved...);
        f(stores.active...);
        f(stores.inactive...);
        f(stores.change...);
        f(stores.used...);
        f(stores.free...);
        f(stores.total...);
        f(stores.type...);
        f(stores.typeName...);
        f(stores.source...);
        f(stores.context...);
        f(stores.metadata...);
    }
    // The names of the row columns, in forEachColumnOf's order (the benchmark's breakdown).
    static constexpr std::array<std::string_view, 14> kColumnNames{
        "timestampNs", "allocated", "reserved", "active",   "inactive", "change",  "used",
        "free",        "total",     "type",     "typeName", "source",   "context", "metadata"};
    // Approximate resident bytes of the store by part (for the benchmark).
    struct MemoryUse
    {
        size_t columns = 0;
        size_t strings = 0; // the pool's strings and its index
        size_t origins = 0; // the sparse per-row origins
        size_t sources = 0;
        size_t total() const { return columns + strings + origins + sources; }
    };
    MemoryUse memoryUse() const;
    // Approximate resident bytes of the store (for the benchmark and the status bar).
    size_t memoryBytes() const { return memoryUse().total(); }
};

} // namespace gapscope
