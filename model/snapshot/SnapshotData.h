#pragma once
// One loaded PyTorch memory snapshot (torch.cuda.memory._snapshot(), written by
// torch.cuda.memory._dump_snapshot): the allocator's segments and their blocks at the moment of
// the snapshot, each device's trace of allocator events before it, the allocator's settings and
// the stacks that made them. Built once by the loader (SnapshotLoader) and never changed after:
// it crosses threads as std::shared_ptr<const SnapshotData>.
//
// Segments and blocks are few (hundreds to tens of thousands): plain structs, the blocks of one
// segment contiguous. A trace can hold millions of entries: columns, one vector per field. Text
// (frame names, file names, segment types, actions a newer PyTorch adds) is interned once in
// `strings`; a stack of frames is a FrameStackId into `frames`, the same id for every entry or
// block that has the same stack, so the page can group by it without comparing frames.

#include "model/store/LoadProblem.h"

#include <QString>
#include <QStringList>

#include <compare>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gapscope {

struct SnapshotTimeline; // model/snapshot/SnapshotTimeline.h

// A string of SnapshotStrings; 0 is "".
using SnapshotStringId = uint32_t;
// A stack of SnapshotFrames; 0 is the empty stack (no frames recorded).
using FrameStackId = uint32_t;

// Interned UTF-8 text (the pickle's str values are checked UTF-8 when read).
class SnapshotStrings
{
public:
    SnapshotStrings() : m_starts{0} {}
    std::string_view view(SnapshotStringId id) const
    {
        return std::string_view(m_bytes).substr(m_starts[id], m_starts[id + 1] - m_starts[id]);
    }
    QString text(SnapshotStringId id) const
    {
        const std::string_view v = view(id);
        return QString::fromUtf8(v.data(), qsizetype(v.size()));
    }
    size_t count() const { return m_starts.size() - 1; }
    size_t heldBytes() const { return m_bytes.capacity() + m_starts.capacity() * sizeof(uint32_t); }

    // The builder's: appends a string (no deduplication here; SnapshotBuilder interns).
    SnapshotStringId append(std::string_view text)
    {
        m_bytes.append(text);
        m_starts.push_back(uint32_t(m_bytes.size()));
        return SnapshotStringId(m_starts.size() - 2);
    }
    void shrink()
    {
        m_bytes.shrink_to_fit();
        m_starts.shrink_to_fit();
    }

private:
    std::string m_bytes;
    std::vector<uint32_t> m_starts; // string i is m_bytes[m_starts[i], m_starts[i + 1])
};

// One frame of a stack: {'name': ..., 'filename': ..., 'line': ...} (C++ frames have filename
// "??" and line 0 where the symbols say nothing).
struct SnapshotFrame
{
    SnapshotStringId name = 0;
    SnapshotStringId filename = 0;
    int64_t line = 0;
    bool operator==(const SnapshotFrame&) const = default;
};

// The distinct frames and the distinct stacks of a snapshot. A stack lists frame indexes in
// PyTorch's order: the innermost frame (where the allocation happened) first.
struct SnapshotFrames
{
    std::vector<SnapshotFrame> frames;
    std::vector<uint32_t> stackStarts{0, 0}; // stack s is stackFrames[stackStarts[s], stackStarts[s + 1])
    std::vector<uint32_t> stackFrames;

    size_t stackCount() const { return stackStarts.size() - 1; } // stack 0 (empty) included
    std::span<const uint32_t> stack(FrameStackId id) const
    {
        return std::span<const uint32_t>(stackFrames.data() + stackStarts[id],
                                         stackStarts[id + 1] - stackStarts[id]);
    }
    const SnapshotFrame& frame(uint32_t index) const { return frames[index]; }
};

enum class BlockState : uint8_t
{
    ActiveAllocated,   // "active_allocated": in use by a tensor
    ActivePendingFree, // "active_pending_free": freed, waiting for its stream's events
    Inactive,          // "inactive": free space inside a segment
    Unknown            // any other text (SnapshotBlock::stateName)
};
const char* toString(BlockState state);

enum class TraceAction : uint8_t
{
    Alloc,         // "alloc"
    FreeRequested, // "free_requested"
    FreeCompleted, // "free_completed"
    SegmentAlloc,  // "segment_alloc" (cudaMalloc)
    SegmentFree,   // "segment_free" (cudaFree)
    SegmentMap,    // "segment_map" (expandable segments)
    SegmentUnmap,  // "segment_unmap"
    Snapshot,      // "snapshot": when a snapshot was taken
    Oom,           // "oom": an allocation failed; the entry has device_free instead of addr
    Unknown        // any other text (SnapshotTrace::actionName)
};
inline constexpr size_t kTraceActionCount = 10;
// PyTorch's name of an action ("alloc"); "unknown" for Unknown.
const char* toString(TraceAction action);
// TraceAction::Unknown for a name that is none of PyTorch's.
TraceAction traceActionFromName(std::string_view name);

enum class SegmentType : uint8_t
{
    Large, // "large": the large pool (blocks above 1 MiB)
    Small, // "small"
    Unknown
};

// segment_pool_id: (0, 0) for the default pool, a graph pool's id for CUDA graphs' private pools.
struct SegmentPoolId
{
    int64_t first = 0;
    int64_t second = 0;
    auto operator<=>(const SegmentPoolId&) const = default;
};

struct SnapshotSegment
{
    int64_t device = 0;
    uint64_t address = 0;
    int64_t totalSize = 0;     // reserved from the device (cudaMalloc'd, or mapped for an expandable one)
    int64_t allocatedSize = 0; // its active_allocated blocks
    int64_t activeSize = 0;    // active_allocated + active_pending_free
    int64_t requestedSize = 0; // what the tensors asked for (before rounding)
    int64_t stream = 0;        // the CUDA stream, as PyTorch writes it (int of the cudaStream_t)
    SegmentType type = SegmentType::Unknown;
    SnapshotStringId typeName = 0; // "large", "small", or what another version wrote
    SegmentPoolId pool;
    bool isExpandable = false;
    FrameStackId frames = 0; // where it was allocated (PyTorch 2.1 and later)
    uint32_t firstBlock = 0; // its blocks: SnapshotData::blocks[firstBlock, firstBlock + blockCount)
    uint32_t blockCount = 0;
};

struct SnapshotBlock
{
    uint64_t address = 0; // written by PyTorch 2.1 and later; else the segment's plus the blocks before
    int64_t size = 0;
    int64_t requestedSize = 0; // requested_size, else the latest history entry's real_size, else size
    BlockState state = BlockState::Unknown;
    SnapshotStringId stateName = 0; // the text written
    // its frames; for the layout with block `history` (before PyTorch 2.1): the frames of the latest
    // history entry (history[0], the entry upstream's _memory_viz reads)
    FrameStackId frames = 0;
    uint32_t segment = 0; // index in SnapshotData::segments
};

// One device's trace (device_traces[device]): its entries in the order PyTorch recorded them
// (oldest first), one column per field.
struct SnapshotTrace
{
    static constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

    int64_t device = 0;
    std::vector<TraceAction> actions;
    std::vector<uint64_t> addresses; // addr (0 for an oom entry, which has none)
    std::vector<int64_t> sizes;
    std::vector<int64_t> streams;
    std::vector<int64_t>
        timesUs; // time_us: microseconds since the epoch; kNoTime when not written (before 2.2)
    std::vector<FrameStackId> frameStacks;
    std::vector<SnapshotStringId> compileContexts; // compile_context (torch.compile); 0 when none
    std::vector<SnapshotStringId> userMetadata;    // user_metadata (_set_memory_metadata); 0 when none
    // The few entries with more: an oom entry's device_free, an Unknown action's name.
    std::vector<std::pair<uint32_t, int64_t>> deviceFree;              // (entry, device_free), by entry
    std::vector<std::pair<uint32_t, SnapshotStringId>> unknownActions; // (entry, action text), by entry

    size_t count() const { return actions.size(); }
    std::optional<int64_t> deviceFreeAt(size_t entry) const;
    // The action's text: PyTorch's name, or what an Unknown entry wrote.
    std::string_view actionName(size_t entry, const SnapshotStrings& strings) const;
    size_t heldBytes() const;
};

// external_annotations (PyTorch 2.8 and later): named ranges (record_function) on a device's clock.
struct SnapshotAnnotation
{
    int64_t device = 0;
    SnapshotStringId stage = 0; // "START" or "END"
    SnapshotStringId name = 0;
    int64_t timeUs = SnapshotTrace::kNoTime;
};

struct SnapshotSetting
{
    QString name;
    QString value; // ints and floats as Python prints them, str as it is, dicts and lists as their repr
    bool operator==(const SnapshotSetting&) const = default;
};

struct SnapshotData
{
    QString path;                          // what the problems and messages call the input
    qint64 inputBytes = 0;                 // bytes of the file (compressed, for a .gz)
    qint64 pickleBytes = 0;                // bytes of the pickle (decompressed)
    bool compressed = false;               // read through gzip
    std::vector<SnapshotSegment> segments; // in the order of the file
    std::vector<SnapshotBlock> blocks;     // every segment's blocks, segment after segment
    std::vector<SnapshotTrace> traces;     // device_traces: index = device (empty traces kept)
    std::vector<SnapshotSetting>
        allocatorSettings;                       // allocator_settings, in the file's order (the first 1024)
    std::vector<SnapshotAnnotation> annotations; // external_annotations
    // Keys this reader does not know, where they were met ("segments[].new_key",
    // "device_traces[][].foo", "top_level_key"): read past, never an error. The first 256 named.
    QStringList ignoredKeys;
    SnapshotStrings strings;
    SnapshotFrames frames;
    // Records that could not be used (a segment without an address, a trace entry without an
    // action: index = its position; reason names the path, "device_traces[0][12]"), and the rest.
    ProblemLog problems;
    // Each device trace's memory over time (index = as traces), built by the loader from the
    // rest (buildSnapshotTimelines) so that the page and the chart never walk a million entries
    // on the GUI thread. Null for data built without the loader (tests build it themselves).
    std::shared_ptr<const std::vector<SnapshotTimeline>> timelines;

    std::span<const SnapshotBlock> blocksOf(const SnapshotSegment& segment) const
    {
        return std::span<const SnapshotBlock>(blocks.data() + segment.firstBlock, segment.blockCount);
    }
    // The devices that have a segment or a trace, ascending.
    std::vector<int64_t> devices() const;
    size_t traceEntryCount() const;
    // Bytes held (columns, tables, text, timelines), for the benchmarks: what stays resident after
    // a load.
    size_t heldBytes() const;
};

} // namespace gapscope
