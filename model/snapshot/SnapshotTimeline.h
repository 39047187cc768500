#pragma once
// One device's memory over the time of its snapshot trace, rebuilt from the trace entries and the
// snapshot's state at its end: a pure function of the data, built once after the load.
//
// Two answers, because the trace answers two questions:
//
// - The allocator's counters (allocated and reserved bytes, as torch.cuda.memory_allocated() and
//   memory_reserved() say them) after every entry. They are walked back from the snapshot's own
//   totals (SnapshotSummary), so the last level is exactly the allocator's: an alloc entry added
//   its size, a free_requested removed it (allocated_bytes drops when the tensor is freed, not
//   when its stream's events complete), a segment_alloc or segment_map added to reserved, a
//   segment_free or segment_unmap took from it. On the real pair/ capture the reserved level
//   equals what stormlog's tracker sampled at the same moments on every one of its 563 samples
//   inside the trace. Allocated can differ by the few MiB of blocks the allocator handed out
//   whole (it does not split a block when the rest would be too small): the counters count the
//   block, a trace entry records the size rounded to 512 bytes.
//
// - The allocations themselves (the active memory timeline and the allocation sites), by the
//   rules of PyTorch's own viewer (torch/utils/viz/MemoryViz.js, process_alloc_data), so both
//   draw the same picture: an alloc opens an allocation at its address, the free_completed (or a
//   `free`, written by older versions) of that address closes it; a free of an address with no
//   alloc in the trace is an allocation live since before the trace began; an active_allocated
//   block of the snapshot with no open allocation at its address is one live all along, its
//   size the block's requested_size. Its level is the sum of the open allocations.

#include "model/snapshot/SnapshotData.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace gapscope {

struct SnapshotAllocation
{
    // The entry that opened it; kBeforeTrace when it was live before the trace's first entry.
    static constexpr uint32_t kBeforeTrace = std::numeric_limits<uint32_t>::max();
    // The entry that closed it; kAfterTrace when it was still live at the snapshot.
    static constexpr uint32_t kAfterTrace = std::numeric_limits<uint32_t>::max();

    uint64_t address = 0;
    int64_t size = 0;
    int64_t stream = 0;
    FrameStackId frames = 0; // the alloc's stack; the free's where the alloc was not recorded
    uint32_t begin = kBeforeTrace;
    uint32_t end = kAfterTrace;

    bool liveBeforeTrace() const { return begin == kBeforeTrace; }
    bool liveAtSnapshot() const { return end == kAfterTrace; }
    // Live right after entry (an allocation opened by entry is, one closed by it is not); entry
    // kBeforeTrace asks about the moment before the first entry.
    bool liveAfter(uint32_t entry) const
    {
        const bool opened = begin == kBeforeTrace || (entry != kBeforeTrace && begin <= entry);
        const bool closed = end != kAfterTrace && entry != kBeforeTrace && end <= entry;
        return opened && !closed;
    }
};

// The allocator's state at a moment of the trace (SnapshotTimeline::stateAfter).
struct SnapshotAllocatorState
{
    uint32_t entry = SnapshotAllocation::kBeforeTrace; // the last entry at or before the moment
    int64_t allocatedBytes = 0;
    int64_t reservedBytes = 0;
    int64_t activeBytes = 0; // the allocations live (the active memory timeline's level)
    int64_t liveAllocations = 0;
};

struct SnapshotTimeline
{
    int64_t device = 0;
    uint32_t entryCount = 0;
    // Every entry has a time_us (PyTorch 2.2 and later): times are epoch microseconds, else the
    // entry index is the only axis.
    bool hasTimes = false;

    // The counters before the first entry, and after each entry (entryCount values).
    int64_t initialAllocatedBytes = 0;
    int64_t initialReservedBytes = 0;
    std::vector<int64_t> allocatedBytes;
    // Reserved changes only at segment entries: (entry, reserved after it), by entry.
    std::vector<std::pair<uint32_t, int64_t>> reservedSteps;

    // The allocations, ordered by when they opened (those live before the trace first, in the
    // order they were met), and the level of the open ones before the first entry and after each.
    std::vector<SnapshotAllocation> allocations;
    int64_t initialActiveBytes = 0;
    std::vector<int64_t> activeBytes;
    // The highest active level and the first entry at which it was reached (kBeforeTrace: before
    // the first entry).
    int64_t peakActiveBytes = 0;
    uint32_t peakEntry = SnapshotAllocation::kBeforeTrace;

    // Entries the chart marks: segment_alloc / segment_free / segment_map / segment_unmap, and oom.
    std::vector<uint32_t> segmentEntries;
    std::vector<uint32_t> oomEntries;

    int64_t reservedAfter(uint32_t entry) const;
    // The state right after entry (kBeforeTrace: before the first).
    SnapshotAllocatorState stateAfter(uint32_t entry) const;
    // The last entry at or before timeUs on the trace's clock (kBeforeTrace when none is); the
    // trace's entries are in time order. Without times, timeUs is read as an entry index.
    uint32_t entryAtTime(const SnapshotTrace& trace, int64_t timeUs) const;
    size_t heldBytes() const;
};

// One timeline per device trace of data (index = device, as SnapshotData::traces), the
// segments and blocks of that device anchoring its end.
std::vector<SnapshotTimeline> buildSnapshotTimelines(const SnapshotData& data);
SnapshotTimeline buildSnapshotTimeline(const SnapshotData& data, size_t traceIndex);

} // namespace gapscope
