// libFuzzer target: PyTorch memory snapshots (model/snapshot), seeded with small real-shaped
// pickles cut from the real snapshot (protocols 2, 4 and 5, one gzip-compressed, the layout
// before 2.1, records to leave out). The input goes through loadSnapshotBytes (gzip, the
// restricted pickle reader, the build of the columns) and the pickle reader alone (its repr of
// what it read, which walks cycles and sharing); the outcome is data or a reason, and the data's
// ids all point into its tables.
#include "fuzz/FuzzSupport.h"
#include "model/snapshot/PickleReader.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/snapshot/SnapshotSummary.h"
#include "model/snapshot/SnapshotTimeline.h"

namespace {

using namespace gapscope;
using fuzz::require;

void checkData(const SnapshotData& data)
{
    const size_t strings = data.strings.count();
    const size_t stacks = data.frames.stackCount();
    require(strings >= 1 && data.strings.view(0).empty(), "string 0 is the empty one");
    require(stacks >= 1 && data.frames.stack(0).empty(), "stack 0 is the empty one");
    for (const uint32_t frame : data.frames.stackFrames)
        require(frame < data.frames.frames.size(), "a stack names a frame that does not exist");
    for (const SnapshotFrame& frame : data.frames.frames)
        require(frame.name < strings && frame.filename < strings,
                "a frame names a string that does not exist");
    size_t nextBlock = 0;
    for (size_t s = 0; s < data.segments.size(); ++s) {
        const SnapshotSegment& segment = data.segments[s];
        require(segment.firstBlock == nextBlock, "segments' blocks do not follow each other");
        nextBlock += segment.blockCount;
        require(nextBlock <= data.blocks.size(), "a segment's blocks run past the blocks");
        require(segment.frames < stacks && segment.typeName < strings, "a segment's id points nowhere");
        require(segment.totalSize >= 0, "a negative segment size");
        for (const SnapshotBlock& block : data.blocksOf(segment))
            require(block.segment == s && block.frames < stacks && block.stateName < strings &&
                        block.size >= 0,
                    "a block's ids point nowhere");
    }
    require(nextBlock == data.blocks.size(), "blocks that belong to no segment");
    for (size_t t = 0; t < data.traces.size(); ++t) {
        const SnapshotTrace& trace = data.traces[t];
        const size_t n = trace.count();
        require(trace.device == int64_t(t), "device_traces[i] is not device i");
        require(trace.addresses.size() == n && trace.sizes.size() == n && trace.streams.size() == n &&
                    trace.timesUs.size() == n && trace.frameStacks.size() == n &&
                    trace.compileContexts.size() == n && trace.userMetadata.size() == n,
                "ragged trace columns");
        for (size_t i = 0; i < n; ++i)
            require(trace.frameStacks[i] < stacks && trace.compileContexts[i] < strings &&
                        trace.userMetadata[i] < strings && trace.sizes[i] >= 0,
                    "a trace entry's ids point nowhere");
        for (size_t i = 0; i < trace.deviceFree.size(); ++i)
            require(trace.deviceFree[i].first < n &&
                        (i == 0 || trace.deviceFree[i - 1].first < trace.deviceFree[i].first),
                    "device_free entries out of order");
        for (size_t i = 0; i < trace.unknownActions.size(); ++i) {
            const auto [entry, name] = trace.unknownActions[i];
            require(entry < n && trace.actions[entry] == TraceAction::Unknown && name < strings &&
                        (i == 0 || trace.unknownActions[i - 1].first < entry),
                    "an unknown action's name is not where it belongs");
        }
        size_t unknown = 0;
        for (const TraceAction action : trace.actions)
            unknown += action == TraceAction::Unknown;
        require(unknown == trace.unknownActions.size(), "an Unknown action without its name");
    }
    for (const SnapshotAnnotation& annotation : data.annotations)
        require(annotation.stage < strings && annotation.name < strings, "an annotation names no string");
    const SnapshotSummary summary = summarizeSnapshot(data);
    const SnapshotTotals& t = summary.totals;
    require(t.segmentCount == int64_t(data.segments.size()) && t.blockCount == int64_t(data.blocks.size()),
            "the summary counts other segments or blocks");
    require(t.activeBytes >= t.allocatedBytes && t.inactiveBytes >= t.inactiveSplitBytes &&
                t.inactiveBytes >= t.largestFreeBlockBytes,
            "totals that contradict each other");
    require(summary.traceEntryCount == int64_t(data.traceEntryCount()), "the summary counts other entries");
    require(data.timelines && data.timelines->size() == data.traces.size(), "a trace without its timeline");
    for (size_t i = 0; i < data.traces.size(); ++i) {
        const SnapshotTimeline& timeline = (*data.timelines)[i];
        const uint32_t n = uint32_t(data.traces[i].count());
        require(timeline.entryCount == n && timeline.allocatedBytes.size() == n &&
                    timeline.activeBytes.size() == n,
                "a timeline of another length than its trace");
        for (const SnapshotAllocation& allocation : timeline.allocations)
            require((allocation.liveBeforeTrace() || allocation.begin < n) &&
                        (allocation.liveAtSnapshot() || allocation.end < n) &&
                        (allocation.liveBeforeTrace() || allocation.liveAtSnapshot() ||
                         allocation.begin < allocation.end),
                    "an allocation that closes before it opens or outside the trace");
        for (const uint32_t entry : timeline.segmentEntries)
            require(entry < n, "a segment mark outside the trace");
        for (const uint32_t entry : timeline.oomEntries)
            require(entry < n && data.traces[i].actions[entry] == TraceAction::Oom,
                    "an OOM mark on another entry");
        // the state at a moment is answered for any entry, also past the end
        timeline.stateAfter(n);
        timeline.stateAfter(SnapshotAllocation::kBeforeTrace);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(bytes), size);
    const SnapshotLoadOutcome outcome = loadSnapshotBytes(input, QStringLiteral("fuzz.pickle"));
    require(bool(outcome.data) != !outcome.fatalError.isEmpty(), "an outcome is data or a reason, not both");
    require(!outcome.cancelled, "cancelled without a cancel");
    if (outcome.data)
        checkData(*outcome.data);
    else if (outcome.errorOffset)
        require(*outcome.errorOffset >= 0, "a negative error offset");

    const PickleReadOutcome read = readPickle(input);
    require(bool(read.arena) != !read.error.reason.empty(), "a read is an arena or a reason");
    if (read.arena) {
        require(read.stopOffset > 0 && size_t(read.stopOffset) <= size, "STOP outside the input");
        const std::string repr = read.arena->reprText(read.arena->root(), 512, 16);
        require(repr.size() <= 515, "reprText past its budget");
    } else {
        require(read.error.offset >= 0 && size_t(read.error.offset) <= size,
                "an error offset outside the input");
    }
    return 0;
}
