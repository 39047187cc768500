#include "model/snapshot/SnapshotTimeline.h"

#include "analysis/Int64Math.h"
#include "model/snapshot/SnapshotSummary.h"

#include <algorithm>
#include <unordered_map>

namespace gapscope {

namespace {

constexpr uint32_t kNone = SnapshotAllocation::kBeforeTrace;

// An entry that closes an allocation: free_completed, or `free` as versions before the split
// into free_requested / free_completed wrote it (MemoryViz.js takes both).
bool closesAllocation(const SnapshotTrace& trace, size_t entry, const SnapshotStrings& strings)
{
    const TraceAction action = trace.actions[entry];
    if (action == TraceAction::FreeCompleted)
        return true;
    return action == TraceAction::Unknown && trace.actionName(entry, strings) == "free";
}

// The snapshot's allocated and reserved bytes of one device: where its counters end.
SnapshotTotals deviceTotals(const SnapshotData& data, int64_t device)
{
    for (const SnapshotDeviceTotals& totals : summarizeSnapshot(data).devices) {
        if (totals.device == device)
            return totals.totals;
    }
    return {};
}

void walkCounters(const SnapshotData& data, const SnapshotTrace& trace, SnapshotTimeline& timeline)
{
    const SnapshotTotals end = deviceTotals(data, trace.device);
    const size_t n = trace.count();
    timeline.allocatedBytes.resize(n);
    int64_t allocated = end.allocatedBytes;
    int64_t reserved = end.reservedBytes;
    std::vector<std::pair<uint32_t, int64_t>> steps;
    for (size_t j = n; j-- > 0;) {
        timeline.allocatedBytes[j] = allocated;
        const int64_t size = trace.sizes[j];
        switch (trace.actions[j]) {
        case TraceAction::Alloc:
            allocated = saturatingSub(allocated, size);
            break;
        case TraceAction::FreeRequested:
            allocated = saturatingAdd(allocated, size);
            break;
        case TraceAction::SegmentAlloc:
        case TraceAction::SegmentMap:
            steps.emplace_back(uint32_t(j), reserved);
            reserved = saturatingSub(reserved, size);
            break;
        case TraceAction::SegmentFree:
        case TraceAction::SegmentUnmap:
            steps.emplace_back(uint32_t(j), reserved);
            reserved = saturatingAdd(reserved, size);
            break;
        default:
            break;
        }
    }
    timeline.initialAllocatedBytes = allocated;
    timeline.initialReservedBytes = reserved;
    std::reverse(steps.begin(), steps.end());
    timeline.reservedSteps = std::move(steps);
}

void pairAllocations(const SnapshotData& data, const SnapshotTrace& trace, SnapshotTimeline& timeline)
{
    const size_t n = trace.count();
    std::vector<SnapshotAllocation> opened;      // in the order of their alloc entries
    std::vector<SnapshotAllocation> before;      // live before the trace, in the order met
    std::unordered_map<uint64_t, uint32_t> open; // address -> index in opened
    std::vector<int64_t> delta(n, 0);
    for (size_t j = 0; j < n; ++j) {
        if (trace.actions[j] == TraceAction::Alloc) {
            SnapshotAllocation allocation;
            allocation.address = trace.addresses[j];
            allocation.size = trace.sizes[j];
            allocation.stream = trace.streams[j];
            allocation.frames = trace.frameStacks[j];
            allocation.begin = uint32_t(j);
            // an address opened twice without a free between (a trace cut by its ring buffer can
            // do that): the newer one holds the address, as in MemoryViz.js
            open[allocation.address] = uint32_t(opened.size());
            opened.push_back(allocation);
            delta[j] = allocation.size;
        } else if (closesAllocation(trace, j, data.strings)) {
            const auto it = open.find(trace.addresses[j]);
            if (it != open.end()) {
                SnapshotAllocation& allocation = opened[it->second];
                allocation.end = uint32_t(j);
                delta[j] = -allocation.size;
                open.erase(it);
            } else {
                SnapshotAllocation allocation;
                allocation.address = trace.addresses[j];
                allocation.size = trace.sizes[j];
                allocation.stream = trace.streams[j];
                allocation.frames = trace.frameStacks[j];
                allocation.end = uint32_t(j);
                before.push_back(allocation);
                delta[j] = -allocation.size;
            }
        } else if (trace.actions[j] == TraceAction::Oom) {
            timeline.oomEntries.push_back(uint32_t(j));
        } else if (trace.actions[j] == TraceAction::SegmentAlloc ||
                   trace.actions[j] == TraceAction::SegmentFree ||
                   trace.actions[j] == TraceAction::SegmentMap ||
                   trace.actions[j] == TraceAction::SegmentUnmap) {
            timeline.segmentEntries.push_back(uint32_t(j));
        }
    }
    // (sizes are checked non-negative by the builder, so -size does not overflow; the sums
    // saturate: a hostile file can name sizes near 2^63)
    // the snapshot's allocated blocks of this device that no open allocation explains: live all
    // along (MemoryViz.js: active_allocated only, at their requested_size)
    for (const SnapshotSegment& segment : data.segments) {
        if (segment.device != trace.device)
            continue;
        for (const SnapshotBlock& block : data.blocksOf(segment)) {
            if (block.state != BlockState::ActiveAllocated || open.count(block.address) != 0)
                continue;
            SnapshotAllocation allocation;
            allocation.address = block.address;
            allocation.size = block.requestedSize;
            allocation.stream = segment.stream;
            allocation.frames = block.frames;
            before.push_back(allocation);
        }
    }

    int64_t level = 0;
    for (const SnapshotAllocation& allocation : before)
        level = saturatingAdd(level, allocation.size);
    timeline.initialActiveBytes = level;
    timeline.peakActiveBytes = level;
    timeline.peakEntry = kNone;
    timeline.activeBytes.resize(n);
    for (size_t j = 0; j < n; ++j) {
        level = saturatingAdd(level, delta[j]);
        timeline.activeBytes[j] = level;
        if (level > timeline.peakActiveBytes) {
            timeline.peakActiveBytes = level;
            timeline.peakEntry = uint32_t(j);
        }
    }
    timeline.allocations = std::move(before);
    timeline.allocations.insert(timeline.allocations.end(), opened.begin(), opened.end());
    timeline.allocations.shrink_to_fit();
}

} // namespace

int64_t SnapshotTimeline::reservedAfter(uint32_t entry) const
{
    if (entry == kNone)
        return initialReservedBytes;
    // the last step at or before entry
    const auto it =
        std::upper_bound(reservedSteps.begin(), reservedSteps.end(), entry,
                         [](uint32_t e, const std::pair<uint32_t, int64_t>& step) { return e < step.first; });
    return it == reservedSteps.begin() ? initialReservedBytes : std::prev(it)->second;
}

SnapshotAllocatorState SnapshotTimeline::stateAfter(uint32_t entry) const
{
    SnapshotAllocatorState state;
    if (entry != kNone && entry >= entryCount)
        entry = entryCount == 0 ? kNone : entryCount - 1;
    state.entry = entry;
    state.allocatedBytes = entry == kNone ? initialAllocatedBytes : allocatedBytes[entry];
    state.reservedBytes = reservedAfter(entry);
    state.activeBytes = entry == kNone ? initialActiveBytes : activeBytes[entry];
    for (const SnapshotAllocation& allocation : allocations) {
        if (allocation.liveAfter(entry))
            ++state.liveAllocations;
    }
    return state;
}

uint32_t SnapshotTimeline::entryAtTime(const SnapshotTrace& trace, int64_t timeUs) const
{
    if (entryCount == 0)
        return kNone;
    if (!hasTimes) {
        if (timeUs < 0)
            return kNone;
        return uint32_t(std::min<int64_t>(timeUs, entryCount - 1));
    }
    const auto it = std::upper_bound(trace.timesUs.begin(), trace.timesUs.begin() + entryCount, timeUs);
    return it == trace.timesUs.begin() ? kNone : uint32_t(std::prev(it) - trace.timesUs.begin());
}

size_t SnapshotTimeline::heldBytes() const
{
    return allocatedBytes.capacity() * sizeof(int64_t) + activeBytes.capacity() * sizeof(int64_t) +
           reservedSteps.capacity() * sizeof(reservedSteps[0]) +
           allocations.capacity() * sizeof(SnapshotAllocation) +
           (segmentEntries.capacity() + oomEntries.capacity()) * sizeof(uint32_t);
}

SnapshotTimeline buildSnapshotTimeline(const SnapshotData& data, size_t traceIndex)
{
    const SnapshotTrace& trace = data.traces[traceIndex];
    SnapshotTimeline timeline;
    timeline.device = trace.device;
    timeline.entryCount = uint32_t(trace.count());
    timeline.hasTimes =
        timeline.entryCount > 0 && std::none_of(trace.timesUs.begin(), trace.timesUs.end(),
                                                [](int64_t t) { return t == SnapshotTrace::kNoTime; });
    walkCounters(data, trace, timeline);
    pairAllocations(data, trace, timeline);
    return timeline;
}

std::vector<SnapshotTimeline> buildSnapshotTimelines(const SnapshotData& data)
{
    std::vector<SnapshotTimeline> timelines;
    timelines.reserve(data.traces.size());
    for (size_t i = 0; i < data.traces.size(); ++i)
        timelines.push_back(buildSnapshotTimeline(data, i));
    return timelines;
}

} // namespace gapscope
