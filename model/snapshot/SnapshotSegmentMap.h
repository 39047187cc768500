#pragma once
// The rows of the snapshot page's segment map (widgets/snapshot/SegmentMapView): every segment
// of a snapshot as one row, grouped by device, stream and pool (segment_pool_id), sorted inside
// its group by address or by size; and what the view's tooltip says of a block. A pure function
// of the data: the view only draws these rows and forwards input.

#include "model/snapshot/SnapshotData.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

enum class SegmentOrder
{
    Address, // ascending address inside each group
    Size,    // largest total_size first inside each group (ties by address)
};

struct SegmentMapGroup
{
    int64_t device = 0;
    int64_t stream = 0;
    SegmentPoolId pool;
    int64_t reservedBytes = 0; // its segments' total_size
    int64_t activeBytes = 0;   // their active blocks
    uint32_t firstRow = 0;     // its segments: SegmentMapLayout::rows[firstRow, firstRow + rowCount)
    uint32_t rowCount = 0;
};

struct SegmentMapLayout
{
    std::vector<SegmentMapGroup> groups; // by device, stream, pool ascending
    std::vector<uint32_t> rows;          // segment indexes (SnapshotData::segments), group after group
    int64_t largestSegmentBytes = 0;     // the scale every bar is drawn to
    size_t blockCount = 0;               // blocks of every segment in rows
};

SegmentMapLayout layoutSegmentMap(const SnapshotData& data, SegmentOrder order);

// The block of segment that holds the byte at offset from its start (offset in [0, total_size)),
// as an index into SnapshotData::blocks; nullopt outside the segment or between blocks.
std::optional<uint32_t> blockAtOffset(const SnapshotData& data, uint32_t segment, int64_t offset);

// The frames of a stack that say where its memory was asked for, at most max, as indexes into
// SnapshotFrames::frames: the Python frames (filename ending in ".py") first, innermost first, then
// the others; the allocator's own frames (torch::unwind, CapturedTraceback, CUDACachingAllocator)
// left out. Empty when no stack was recorded (torch.cuda.memory._record_memory_history not on) or
// it holds only the allocator's frames. The first is what a stack is named after (its site).
std::vector<uint32_t> meaningfulFrames(const SnapshotData& data, FrameStackId stack, size_t max);
// "name (file:line)", the name alone for a frame with no line; each part shortened for display.
QString frameText(const SnapshotData& data, uint32_t frame);
// The texts of a stack's meaningfulFrames.
QStringList stackTopFrames(const SnapshotData& data, FrameStackId stack, int max);
inline QStringList blockTopFrames(const SnapshotData& data, const SnapshotBlock& block, int max)
{
    return stackTopFrames(data, block.frames, max);
}

// What the view's tooltip says of a block: size, requested size, state, its segment's stream
// and pool, and its top frames (or that none were recorded).
QString blockDescription(const SnapshotData& data, uint32_t block, int maxFrames = 8);

// "stream 0 · default pool", "stream 93… · pool (1, 2)"; device named when the data has several.
QString segmentGroupTitle(const SegmentMapGroup& group, bool nameDevice);

} // namespace gapscope
