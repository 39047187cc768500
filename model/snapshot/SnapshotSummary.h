#pragma once
// The totals of a snapshot, as the allocator's own counters (torch.cuda.memory_stats()) name
// them, computed from its segments and blocks: a pure function of the data.
//
// On the two real snapshots in tests/data/snapshot (PyTorch 2.11, H200) every one of
// reserved_bytes, allocated_bytes, active_bytes, requested_bytes and inactive_split_bytes equals
// memory_stats' `<name>.all.current` taken right after the dump, and segment_count equals
// `segment.all.current` (tests/data/snapshot/expected.py prints both).

#include "model/snapshot/SnapshotData.h"

#include <array>
#include <cstdint>
#include <vector>

namespace gapscope {

struct SnapshotTotals
{
    int64_t segmentCount = 0;
    int64_t blockCount = 0;
    int64_t reservedBytes = 0;  // every segment's total_size
    int64_t allocatedBytes = 0; // active_allocated blocks
    int64_t activeBytes = 0;    // active_allocated + active_pending_free blocks
    int64_t requestedBytes = 0; // requested_size of the active_allocated blocks
    // inactive blocks of segments that hold more than one block: free space the allocator cannot
    // give back without the segment's other blocks (memory_stats' inactive_split_bytes)
    int64_t inactiveSplitBytes = 0;
    int64_t inactiveBytes = 0;              // every inactive block
    int64_t largestFreeBlockBytes = 0;      // the largest inactive block (0 when none)
    std::array<int64_t, 4> blocksByState{}; // by BlockState
    bool operator==(const SnapshotTotals&) const = default;
};

struct SnapshotPoolCount
{
    SegmentPoolId pool;
    int64_t segments = 0;
    int64_t reservedBytes = 0;
    bool operator==(const SnapshotPoolCount&) const = default;
};

struct SnapshotStreamCount
{
    int64_t stream = 0;
    int64_t segments = 0;
    int64_t reservedBytes = 0;
    bool operator==(const SnapshotStreamCount&) const = default;
};

struct SnapshotDeviceTotals
{
    int64_t device = 0;
    SnapshotTotals totals;
};

struct SnapshotSummary
{
    SnapshotTotals totals;                     // every device
    std::vector<SnapshotDeviceTotals> devices; // per device that has segments, ascending
    int64_t traceEntryCount = 0;
    std::array<int64_t, kTraceActionCount> traceEntriesByAction{}; // by TraceAction
    std::vector<SnapshotPoolCount> pools;                          // segments per segment_pool_id, ascending
    std::vector<SnapshotStreamCount> streams;                      // segments per stream, ascending
    int64_t frameStackCount = 0; // distinct stacks (the empty one not counted)

    int64_t entries(TraceAction action) const { return traceEntriesByAction[size_t(action)]; }
};

SnapshotSummary summarizeSnapshot(const SnapshotData& data);
// The totals of one segment (segmentCount 1): its row of the segments CSV, summing to the whole's.
SnapshotTotals segmentTotals(const SnapshotData& data, const SnapshotSegment& segment);

} // namespace gapscope
