#include "model/snapshot/SnapshotSummary.h"

#include "analysis/Int64Math.h"

#include <algorithm>
#include <map>

namespace gapscope {

namespace {

void addSegment(SnapshotTotals& totals, const SnapshotData& data, const SnapshotSegment& segment)
{
    ++totals.segmentCount;
    totals.reservedBytes = saturatingAdd(totals.reservedBytes, segment.totalSize);
    const std::span<const SnapshotBlock> blocks = data.blocksOf(segment);
    const bool split = blocks.size() > 1;
    for (const SnapshotBlock& block : blocks) {
        ++totals.blockCount;
        ++totals.blocksByState[size_t(block.state)];
        switch (block.state) {
        case BlockState::ActiveAllocated:
            totals.allocatedBytes = saturatingAdd(totals.allocatedBytes, block.size);
            totals.activeBytes = saturatingAdd(totals.activeBytes, block.size);
            totals.requestedBytes = saturatingAdd(totals.requestedBytes, block.requestedSize);
            break;
        case BlockState::ActivePendingFree:
            totals.activeBytes = saturatingAdd(totals.activeBytes, block.size);
            break;
        case BlockState::Inactive:
            totals.inactiveBytes = saturatingAdd(totals.inactiveBytes, block.size);
            totals.largestFreeBlockBytes = std::max(totals.largestFreeBlockBytes, block.size);
            if (split)
                totals.inactiveSplitBytes = saturatingAdd(totals.inactiveSplitBytes, block.size);
            break;
        case BlockState::Unknown:
            break;
        }
    }
}

} // namespace

SnapshotTotals segmentTotals(const SnapshotData& data, const SnapshotSegment& segment)
{
    SnapshotTotals totals;
    addSegment(totals, data, segment);
    return totals;
}

SnapshotSummary summarizeSnapshot(const SnapshotData& data)
{
    SnapshotSummary summary;
    std::map<int64_t, SnapshotTotals> devices;
    std::map<SegmentPoolId, SnapshotPoolCount> pools;
    std::map<int64_t, SnapshotStreamCount> streams;
    for (const SnapshotSegment& segment : data.segments) {
        addSegment(summary.totals, data, segment);
        addSegment(devices[segment.device], data, segment);
        SnapshotPoolCount& pool = pools[segment.pool];
        pool.pool = segment.pool;
        ++pool.segments;
        pool.reservedBytes = saturatingAdd(pool.reservedBytes, segment.totalSize);
        SnapshotStreamCount& stream = streams[segment.stream];
        stream.stream = segment.stream;
        ++stream.segments;
        stream.reservedBytes = saturatingAdd(stream.reservedBytes, segment.totalSize);
    }
    for (const auto& [device, totals] : devices)
        summary.devices.push_back({device, totals});
    for (const auto& [id, pool] : pools)
        summary.pools.push_back(pool);
    for (const auto& [id, stream] : streams)
        summary.streams.push_back(stream);
    for (const SnapshotTrace& trace : data.traces) {
        summary.traceEntryCount += int64_t(trace.count());
        for (const TraceAction action : trace.actions)
            ++summary.traceEntriesByAction[size_t(action)];
    }
    summary.frameStackCount = int64_t(data.frames.stackCount()) - 1;
    return summary;
}

} // namespace gapscope
