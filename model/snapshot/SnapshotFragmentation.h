#pragma once
// Fragmentation a PyTorch memory snapshot shows, per pool (device, stream, segment_pool_id):
// free blocks inside segments that also hold other blocks (memory_stats' inactive_split_bytes),
// which the allocator can give only to requests that fit one of them and cannot return to the
// device without the segment's other blocks. gapscope's own finding (allocator_fragmentation,
// the classification the trace analysis gives the allocator's counters), with the segments that
// hold the most of it and the allocator settings in force.
//
// The rule: a pool is fragmented when its inactive split bytes are at least 128 MiB (the floor of
// analysis/AllocatorFragmentation: less is a few rounding remainders of large blocks) and at least
// a quarter of what the pool reserves (less is the allocator's ordinary slack: a block split
// for one request keeps its remainder for the next). Warning from half of reserved, else Info.
// The real snapshot in tests/data/snapshot has 36.2 MiB of inactive split bytes in 1.60 GiB
// reserved (2.2 %, memory_stats agrees): no finding, and the page says why.

#include "analysis/Finding.h"
#include "model/snapshot/SnapshotData.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace gapscope {

struct SnapshotFragmentationRule
{
    int64_t minSplitBytes = 128LL << 20;
    double minSplitShare = 0.25; // of the pool's reserved bytes
    double warningSplitShare = 0.5;
};

struct PoolFragmentation
{
    int64_t device = 0;
    int64_t stream = 0;
    SegmentPoolId pool;
    int64_t segments = 0;
    int64_t reservedBytes = 0;
    int64_t inactiveSplitBytes = 0;
    int64_t largestFreeBlockBytes = 0;
    int64_t splitSegments = 0;           // segments holding inactive split bytes
    std::vector<uint32_t> worstSegments; // by inactive split bytes, at most 3
};

// Every pool of the data with its fragmentation, ascending by (device, stream, pool).
std::vector<PoolFragmentation> poolFragmentation(const SnapshotData& data);

// The findings: one per fragmented pool, worst first. Texts name the allocator settings in force
// and PYTORCH_CUDA_ALLOC_CONF's expandable_segments, max_split_size_mb and
// garbage_collection_threshold.
std::vector<Finding> snapshotFragmentationFindings(const SnapshotData& data,
                                                   const SnapshotFragmentationRule& rule = {});

// What the page and the reports say when there is no finding: the inactive split bytes, their
// share of reserved and the rule's floor.
QString noFragmentationFindingText(int64_t inactiveSplitBytes, int64_t reservedBytes,
                                   const SnapshotFragmentationRule& rule = {});

} // namespace gapscope
