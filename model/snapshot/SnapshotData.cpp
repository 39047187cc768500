#include "model/snapshot/SnapshotData.h"

#include "model/snapshot/SnapshotTimeline.h"

#include <algorithm>

namespace gapscope {

const char* toString(BlockState state)
{
    switch (state) {
    case BlockState::ActiveAllocated:
        return "active_allocated";
    case BlockState::ActivePendingFree:
        return "active_pending_free";
    case BlockState::Inactive:
        return "inactive";
    case BlockState::Unknown:
        return "unknown";
    }
    return "unknown";
}

const char* toString(TraceAction action)
{
    switch (action) {
    case TraceAction::Alloc:
        return "alloc";
    case TraceAction::FreeRequested:
        return "free_requested";
    case TraceAction::FreeCompleted:
        return "free_completed";
    case TraceAction::SegmentAlloc:
        return "segment_alloc";
    case TraceAction::SegmentFree:
        return "segment_free";
    case TraceAction::SegmentMap:
        return "segment_map";
    case TraceAction::SegmentUnmap:
        return "segment_unmap";
    case TraceAction::Snapshot:
        return "snapshot";
    case TraceAction::Oom:
        return "oom";
    case TraceAction::Unknown:
        return "unknown";
    }
    return "unknown";
}

TraceAction traceActionFromName(std::string_view name)
{
    for (size_t i = 0; i < kTraceActionCount - 1; ++i)
        if (name == toString(TraceAction(i)))
            return TraceAction(i);
    return TraceAction::Unknown;
}

std::optional<int64_t> SnapshotTrace::deviceFreeAt(size_t entry) const
{
    const auto it = std::lower_bound(deviceFree.begin(), deviceFree.end(), entry,
                                     [](const auto& item, size_t e) { return item.first < e; });
    if (it == deviceFree.end() || it->first != entry)
        return std::nullopt;
    return it->second;
}

std::string_view SnapshotTrace::actionName(size_t entry, const SnapshotStrings& strings) const
{
    if (actions[entry] != TraceAction::Unknown)
        return toString(actions[entry]);
    const auto it = std::lower_bound(unknownActions.begin(), unknownActions.end(), entry,
                                     [](const auto& item, size_t e) { return item.first < e; });
    return it == unknownActions.end() || it->first != entry ? std::string_view("unknown")
                                                            : strings.view(it->second);
}

size_t SnapshotTrace::heldBytes() const
{
    return actions.capacity() * sizeof(TraceAction) + addresses.capacity() * sizeof(uint64_t) +
           sizes.capacity() * sizeof(int64_t) + streams.capacity() * sizeof(int64_t) +
           timesUs.capacity() * sizeof(int64_t) + frameStacks.capacity() * sizeof(FrameStackId) +
           compileContexts.capacity() * sizeof(SnapshotStringId) +
           userMetadata.capacity() * sizeof(SnapshotStringId) +
           deviceFree.capacity() * sizeof(deviceFree[0]) +
           unknownActions.capacity() * sizeof(unknownActions[0]);
}

std::vector<int64_t> SnapshotData::devices() const
{
    std::vector<int64_t> all;
    for (const SnapshotSegment& segment : segments)
        all.push_back(segment.device);
    for (const SnapshotTrace& trace : traces)
        if (trace.count() > 0)
            all.push_back(trace.device);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

size_t SnapshotData::traceEntryCount() const
{
    size_t count = 0;
    for (const SnapshotTrace& trace : traces)
        count += trace.count();
    return count;
}

size_t SnapshotData::heldBytes() const
{
    size_t bytes = sizeof(SnapshotData) + segments.capacity() * sizeof(SnapshotSegment) +
                   blocks.capacity() * sizeof(SnapshotBlock) +
                   annotations.capacity() * sizeof(SnapshotAnnotation) + strings.heldBytes() +
                   frames.frames.capacity() * sizeof(SnapshotFrame) +
                   (frames.stackStarts.capacity() + frames.stackFrames.capacity()) * sizeof(uint32_t);
    for (const SnapshotTrace& trace : traces)
        bytes += sizeof(SnapshotTrace) + trace.heldBytes();
    if (timelines) {
        for (const SnapshotTimeline& timeline : *timelines)
            bytes += sizeof(SnapshotTimeline) + timeline.heldBytes();
    }
    return bytes;
}

} // namespace gapscope
