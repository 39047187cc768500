#pragma once
// What the active memory timeline (widgets/snapshot/ActiveMemoryView) draws of one device's
// timeline (SnapshotTimeline) over a visible range at a pixel width: a pure function of the data,
// so it is tested without a widget and timed in the bench.
//
// - Per pixel column, the lowest and highest active level over the states shown in the column
//   (model/store/Decimation's min/max decimation, first and last entries kept; the state the
//   column opens with counts where it shows), so a column's bar spans exactly what the entries
//   under it reach, and the highest reserved level.
// - The largest allocations live in view drawn distinct, as PyTorch's memory_viz draws its
//   "Active Memory Timeline": stacked in the order they opened (those live before the trace
//   first, the last one met lowest, as process_alloc_data stacks them), each band's bottom the
//   sum of the distinct ones below it live at that moment, so a band slides down when one below
//   it is freed. The others are folded into one "other allocations" band on top, up to the level.
// - The segment entries (segment_alloc/free/map/unmap) and OOM entries in view as marks.
//
// The x axis is either time (the entries' time_us, microseconds since the epoch) or the entry
// index ("by entry", as memory_viz's axis counts actions); a layout works in that unit.

#include "model/snapshot/SnapshotTimeline.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace gapscope {

enum class TimelineAxis
{
    Time,    // time_us of the entries (needs SnapshotTimeline::hasTimes)
    Entries, // entry index
};

// A visible range on an axis, both ends included: epoch microseconds or entry indexes.
struct TimelineRange
{
    TimelineAxis axis = TimelineAxis::Time;
    int64_t begin = 0;
    int64_t end = 0;
    bool operator==(const TimelineRange&) const = default;
};

struct TimelineLayoutRequest
{
    // memory_viz draws a fixed number of the largest (its Detail slider). A few hundred leave the
    // real pair/ capture's training steps grey (their peaks are thousands of allocations of a few
    // MiB, while the largest few hundred all lie in the growth before its OOM); 3000 colour them
    // and lay out 100 000 entries at 1400 px in ~4 ms.
    static constexpr int kDefaultDistinct = 3000;
    // Allocations of the highlighted stacks are drawn distinct too (the largest this many), so
    // a site picked in the table shows even where its allocations are small.
    static constexpr int kMaxHighlighted = 2000;

    TimelineRange range;
    int width = 0; // pixel columns
    int distinct = kDefaultDistinct;
    std::vector<FrameStackId> highlightedStacks; // sorted or not; empty: none
};

struct TimelineColumn
{
    static constexpr uint32_t kNoEntry = SnapshotAllocation::kBeforeTrace;
    // The entries whose position falls in the column, inclusive (kNoEntry when none), and the
    // entry whose state the column opens with (kNoEntry: before the first entry).
    uint32_t firstEntry = kNoEntry;
    uint32_t lastEntry = kNoEntry;
    uint32_t openingEntry = kNoEntry;
    // The active level over the states the column shows, and where the distinct bands drawn in
    // it end (the folded band spans [distinctTopBytes, maxBytes]).
    int64_t minBytes = 0;
    int64_t maxBytes = 0;
    int64_t distinctTopBytes = 0;
    int64_t reservedBytes = 0; // the highest reserved level it shows

    bool hasEntries() const { return firstEntry != kNoEntry; }
    // The state a click on the column selects: after its last entry, else the one it opens with.
    uint32_t shownEntry() const { return hasEntries() ? lastEntry : openingEntry; }
};

// A run of columns [firstColumn, lastColumn] where a band sits at the same bottom.
struct TimelineBandRun
{
    int firstColumn = 0;
    int lastColumn = 0;
    int64_t bottomBytes = 0;
    bool operator==(const TimelineBandRun&) const = default;
};

struct TimelineBand
{
    uint32_t allocation = 0; // index into SnapshotTimeline::allocations
    int64_t size = 0;
    bool highlighted = false; // of a highlighted stack
    std::vector<TimelineBandRun> runs;
};

struct TimelineMark
{
    uint32_t entry = 0;
    int column = 0;
    TraceAction action = TraceAction::Unknown;
    int64_t size = 0;
};

struct SnapshotTimelineLayout
{
    TimelineRange range;
    int width = 0;
    // the entries whose position lies in the range: [firstEntry, lastEntry]; none when first > last
    // (the view lies between two entries: its columns show the state of the one before)
    uint32_t firstEntry = 1;
    uint32_t lastEntry = 0;
    std::vector<TimelineColumn> columns; // width of them, left to right
    std::vector<TimelineBand> bands;     // bottom to top: the order memory_viz stacks them in
    std::vector<TimelineMark> segmentMarks;
    std::vector<TimelineMark> oomMarks;
    int64_t maxBytes = 0;         // the highest active level shown
    int64_t maxReservedBytes = 0; // the highest reserved level shown
    size_t visibleAllocations = 0;
    size_t foldedAllocations = 0; // visible, not distinct: in the "other allocations" band
    bool highlighting = false;    // the request named stacks

    bool empty() const { return columns.empty(); }
    bool hasEntries() const { return firstEntry <= lastEntry; }
    // The column of an x in [0, width), clamped.
    const TimelineColumn* columnAt(int column) const;
    // The distinct band drawn at column and bytes (index into bands), or -1.
    int bandAt(int column, int64_t bytes) const;
};

// Where an entry lies on the axis: its time_us, or its index.
int64_t timelinePosition(const SnapshotTrace& trace, TimelineAxis axis, uint32_t entry);
// The whole trace on an axis: first to last entry (a trace of one moment widened by one unit).
TimelineRange fullTimelineRange(const SnapshotTimeline& timeline, const SnapshotTrace& trace,
                                TimelineAxis axis);

SnapshotTimelineLayout layoutSnapshotTimeline(const SnapshotTimeline& timeline, const SnapshotTrace& trace,
                                              const TimelineLayoutRequest& request);

// What the timeline's tooltip says of an allocation: size, address, stream, when it opened and
// closed (entry and time since the trace's first entry), and its top frames.
QString allocationDescription(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t allocation,
                              int maxFrames = 8);
// ... of an OOM entry: the size asked for and the device's free memory then.
QString oomDescription(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t entry);
// ... of a segment entry: its action, size, address and stream.
QString segmentEntryDescription(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t entry);
// ... of the allocator's state after an entry (SnapshotTimeline::stateAfter), one line.
QString allocatorStateText(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t entry);
// "entry 1,234 · 3.250 s": an entry and, with times, its time since the trace's first entry.
QString timelineEntryText(const SnapshotTrace& trace, const SnapshotTimeline& timeline, uint32_t entry);

} // namespace gapscope
