#include "model/snapshot/SnapshotTimelineLayout.h"

#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/store/Decimation.h"
#include "model/text/Text.h"

#include <QStringList>

#include <algorithm>
#include <numeric>

namespace gapscope {

namespace {

constexpr uint32_t kNone = TimelineColumn::kNoEntry;
constexpr int64_t kNanosecondsPerMicrosecond = 1000;

// The "by entry" axis as a column: entry i lies at i. Lets the decimation read positions the
// same way on either axis.
struct EntryIndexColumn
{
    size_t count = 0;
    size_t size() const { return count; }
    int64_t operator[](size_t row) const { return int64_t(row); }
    ColumnRows<int64_t> blockAt(size_t row, int64_t* buffer) const
    {
        const size_t first = row - row % kColumnBlockRows;
        const size_t rows = std::min(kColumnBlockRows, count - first);
        std::iota(buffer, buffer + rows, int64_t(first));
        return {buffer, first, rows};
    }
};

// An entry as a signed index: kNone (before the first entry) is -1.
int64_t signedEntry(uint32_t entry)
{
    return entry == kNone ? -1 : int64_t(entry);
}

// The allocation is live in one of the states after entries lo..hi (signed, -1: before the first).
bool liveDuring(const SnapshotAllocation& a, int64_t lo, int64_t hi)
{
    const int64_t opened = a.liveBeforeTrace() ? -1 : int64_t(a.begin);
    const int64_t closed = a.liveAtSnapshot() ? std::numeric_limits<int64_t>::max() : int64_t(a.end);
    return opened <= hi && closed > lo;
}

int64_t levelAfter(const SnapshotTimeline& timeline, uint32_t entry)
{
    return entry == kNone ? timeline.initialActiveBytes : timeline.activeBytes[entry];
}

int64_t traceSpanNs(const SnapshotTrace& trace, const SnapshotTimeline& timeline)
{
    if (!timeline.hasTimes || timeline.entryCount == 0)
        return 0;
    return saturatingMul(saturatingSub(trace.timesUs[timeline.entryCount - 1], trace.timesUs[0]),
                         kNanosecondsPerMicrosecond);
}

// The trace a timeline was built from.
const SnapshotTrace* traceOf(const SnapshotData& data, const SnapshotTimeline& timeline)
{
    for (const SnapshotTrace& trace : data.traces)
        if (trace.device == timeline.device && trace.count() >= timeline.entryCount)
            return &trace;
    return nullptr;
}

} // namespace

int64_t timelinePosition(const SnapshotTrace& trace, TimelineAxis axis, uint32_t entry)
{
    return axis == TimelineAxis::Time ? trace.timesUs[entry] : int64_t(entry);
}

TimelineRange fullTimelineRange(const SnapshotTimeline& timeline, const SnapshotTrace& trace,
                                TimelineAxis axis)
{
    TimelineRange range;
    range.axis = axis == TimelineAxis::Time && timeline.hasTimes ? TimelineAxis::Time : TimelineAxis::Entries;
    if (timeline.entryCount == 0) {
        range.end = 1;
        return range;
    }
    range.begin = timelinePosition(trace, range.axis, 0);
    range.end = std::max(timelinePosition(trace, range.axis, timeline.entryCount - 1), range.begin + 1);
    return range;
}

const TimelineColumn* SnapshotTimelineLayout::columnAt(int column) const
{
    if (columns.empty())
        return nullptr;
    return &columns[size_t(std::clamp(column, 0, int(columns.size()) - 1))];
}

int SnapshotTimelineLayout::bandAt(int column, int64_t bytes) const
{
    // the last band drawn wins, as it is painted over the others
    for (int b = int(bands.size()) - 1; b >= 0; --b) {
        const std::vector<TimelineBandRun>& runs = bands[size_t(b)].runs;
        const auto after =
            std::upper_bound(runs.begin(), runs.end(), column,
                             [](int c, const TimelineBandRun& run) { return c < run.firstColumn; });
        if (after == runs.begin())
            continue;
        const TimelineBandRun& run = *(after - 1);
        if (column <= run.lastColumn && bytes >= run.bottomBytes &&
            bytes < run.bottomBytes + bands[size_t(b)].size)
            return b;
    }
    return -1;
}

SnapshotTimelineLayout layoutSnapshotTimeline(const SnapshotTimeline& timeline, const SnapshotTrace& trace,
                                              const TimelineLayoutRequest& request)
{
    SnapshotTimelineLayout layout;
    layout.range = request.range;
    if (layout.range.axis == TimelineAxis::Time && !timeline.hasTimes)
        layout.range.axis = TimelineAxis::Entries;
    layout.range.end = std::max(layout.range.end, saturatingAdd(layout.range.begin, 1));
    layout.width = std::max(request.width, 0);
    layout.highlighting = !request.highlightedStacks.empty();
    const uint32_t n = std::min<uint32_t>(timeline.entryCount, uint32_t(trace.count()));
    if (layout.width == 0 || n == 0)
        return layout;
    const TimelineAxis axis = layout.range.axis;
    const int64_t begin = layout.range.begin;
    const int64_t end = layout.range.end;
    const int width = layout.width;

    // the positions of the entries on the axis, and the entries in [begin, end]
    const EntryIndexColumn entryIndexes{n};
    const Int64ColumnView positions = axis == TimelineAxis::Time
                                          ? Int64ColumnView(std::span<const int64_t>(trace.timesUs.data(), n))
                                          : Int64ColumnView(entryIndexes);
    const auto firstAtOrAfter = [&](int64_t position) -> uint32_t {
        if (axis == TimelineAxis::Entries)
            return uint32_t(std::clamp<int64_t>(position, 0, n));
        return uint32_t(std::lower_bound(trace.timesUs.begin(), trace.timesUs.begin() + n, position) -
                        trace.timesUs.begin());
    };
    const uint32_t ea = firstAtOrAfter(begin);
    const uint32_t pastEnd = end == std::numeric_limits<int64_t>::max() ? n : firstAtOrAfter(end + 1);
    if (pastEnd > ea) { // else the view lies between two entries: first > last
        layout.firstEntry = ea;
        layout.lastEntry = pastEnd - 1;
    }

    // the entries of each column: the columns split the range as the decimation does
    const PixelColumns pixels{begin, end, width};
    const std::vector<int64_t> starts = pixels.columnStarts();
    std::vector<uint32_t> columnFirst(size_t(width) + 1);
    columnFirst[0] = ea;
    for (int c = 1; c < width; ++c)
        columnFirst[size_t(c)] = std::max(ea, firstAtOrAfter(saturatingAdd(begin, starts[size_t(c)])));
    columnFirst[size_t(width)] = std::max(ea, pastEnd);
    layout.columns.resize(size_t(width));
    // whether the state a column opens with shows in it: its first entry lies after its left edge
    std::vector<char> openingShows(static_cast<size_t>(width));
    for (int c = 0; c < width; ++c) {
        TimelineColumn& column = layout.columns[size_t(c)];
        const uint32_t first = columnFirst[size_t(c)];
        const uint32_t past = std::max(first, columnFirst[size_t(c) + 1]);
        column.openingEntry = first == 0 ? kNone : first - 1;
        if (past > first) {
            column.firstEntry = first;
            column.lastEntry = past - 1;
        }
        const int64_t edge = c == 0 ? 0 : starts[size_t(c)];
        openingShows[size_t(c)] =
            !column.hasEntries() || saturatingSub(timelinePosition(trace, axis, first), begin) > edge;
        const int64_t opening = levelAfter(timeline, column.openingEntry);
        column.minBytes = openingShows[size_t(c)] ? opening : std::numeric_limits<int64_t>::max();
        column.maxBytes = openingShows[size_t(c)] ? opening : std::numeric_limits<int64_t>::min();
    }

    // the level: min/max decimation of the entries in view, first and last kept
    if (pastEnd > ea) {
        std::vector<uint32_t> rows(pastEnd - ea);
        std::iota(rows.begin(), rows.end(), ea);
        const auto level = [&](uint32_t entry) { return double(timeline.activeBytes[entry]); };
        for (const uint32_t kept :
             decimateMinMax(positions, rows, RowSpan{0, rows.size()}, begin, end, width, level)) {
            const uint32_t entry = rows[kept];
            TimelineColumn& column = layout.columns[size_t(pixels.columnOf(positions[entry]))];
            column.minBytes = std::min(column.minBytes, timeline.activeBytes[entry]);
            column.maxBytes = std::max(column.maxBytes, timeline.activeBytes[entry]);
        }
    }

    // reserved: the highest level shown, from the steps in each column
    {
        auto step = std::lower_bound(timeline.reservedSteps.begin(), timeline.reservedSteps.end(), ea,
                                     [](const auto& s, uint32_t e) { return s.first < e; });
        for (int c = 0; c < width; ++c) {
            TimelineColumn& column = layout.columns[size_t(c)];
            const bool firstIsStep = column.hasEntries() && step != timeline.reservedSteps.end() &&
                                     step->first == column.firstEntry;
            column.reservedBytes = openingShows[size_t(c)] || !firstIsStep
                                       ? timeline.reservedAfter(column.openingEntry)
                                       : std::numeric_limits<int64_t>::min();
            for (; column.hasEntries() && step != timeline.reservedSteps.end() &&
                   step->first <= column.lastEntry;
                 ++step)
                column.reservedBytes = std::max(column.reservedBytes, step->second);
        }
    }

    // the allocations in view: live in a state shown (after entries lo..hi)
    const int64_t lo = openingShows[0] ? signedEntry(layout.columns[0].openingEntry) : int64_t(ea);
    const int64_t hi = pastEnd > ea ? int64_t(pastEnd) - 1 : lo;
    const std::vector<SnapshotAllocation>& allocations = timeline.allocations;
    const auto beforeCount =
        uint32_t(std::partition_point(allocations.begin(), allocations.end(),
                                      [](const SnapshotAllocation& a) { return a.liveBeforeTrace(); }) -
                 allocations.begin());
    // (size, index) side by side: the selection below compares without reaching into allocations
    struct Candidate
    {
        int64_t size;
        uint32_t allocation;
        // the larger first, the earlier on a tie
        bool operator<(const Candidate& other) const
        {
            return size != other.size ? size > other.size : allocation < other.allocation;
        }
    };
    std::vector<Candidate> visible;
    for (uint32_t i = 0; i < allocations.size(); ++i) {
        const SnapshotAllocation& a = allocations[i];
        if (i >= beforeCount && int64_t(a.begin) > hi)
            break; // opened ones are in the order they opened
        if (liveDuring(a, lo, hi))
            visible.push_back({a.size, i});
    }
    layout.visibleAllocations = visible.size();

    // the distinct ones: the largest, and the largest of the highlighted stacks
    std::vector<uint32_t> distinct;
    const auto takeLargest = [&](std::vector<Candidate>& candidates, size_t count) {
        if (candidates.size() > count)
            std::nth_element(candidates.begin(), candidates.begin() + std::ptrdiff_t(count),
                             candidates.end());
        for (size_t i = 0; i < std::min(count, candidates.size()); ++i)
            distinct.push_back(candidates[i].allocation);
    };
    std::vector<FrameStackId> stacks = request.highlightedStacks;
    std::sort(stacks.begin(), stacks.end());
    const auto highlighted = [&](uint32_t i) {
        return std::binary_search(stacks.begin(), stacks.end(), allocations[i].frames);
    };
    if (!stacks.empty()) {
        std::vector<Candidate> ofStacks;
        std::copy_if(visible.begin(), visible.end(), std::back_inserter(ofStacks),
                     [&](const Candidate& c) { return highlighted(c.allocation); });
        takeLargest(ofStacks, TimelineLayoutRequest::kMaxHighlighted);
    }
    takeLargest(visible, size_t(std::max(request.distinct, 0)));
    // memory_viz's stacking order: those live before the trace reversed, then as they opened
    const auto rank = [&](uint32_t i) { return i < beforeCount ? beforeCount - 1 - i : i; };
    std::sort(distinct.begin(), distinct.end(), [&](uint32_t x, uint32_t y) { return rank(x) < rank(y); });
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    layout.foldedAllocations = visible.size() - distinct.size();
    layout.bands.resize(distinct.size());
    for (size_t b = 0; b < distinct.size(); ++b) {
        layout.bands[b].allocation = distinct[b];
        layout.bands[b].size = allocations[distinct[b]].size;
        layout.bands[b].highlighted = !stacks.empty() && highlighted(distinct[b]);
    }

    // the bands: a sweep over the opens and closes of the distinct allocations, column by column;
    // the stack holds the live ones in stacking order (one opening is above every live one)
    struct Event
    {
        uint32_t entry;
        uint32_t band;
        bool opens;
    };
    std::vector<Event> events;
    std::vector<uint32_t> stack;
    const uint32_t opening = layout.columns[0].openingEntry;
    for (uint32_t b = 0; b < distinct.size(); ++b) {
        const SnapshotAllocation& a = allocations[distinct[b]];
        if (a.liveAfter(opening))
            stack.push_back(b);
        if (!a.liveBeforeTrace() && a.begin >= ea && a.begin < pastEnd)
            events.push_back({a.begin, b, true});
        if (!a.liveAtSnapshot() && a.end >= ea && a.end < pastEnd)
            events.push_back({a.end, b, false});
    }
    std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
        return x.entry != y.entry ? x.entry < y.entry : !x.opens && y.opens;
    });
    std::vector<int> seenInColumn(distinct.size(), -1);
    std::vector<int64_t> bottomInColumn(distinct.size(), 0);
    std::vector<uint32_t> touched;
    auto event = events.begin();
    for (int c = 0; c < width; ++c) {
        TimelineColumn& column = layout.columns[size_t(c)];
        touched.clear();
        int64_t top = 0;
        const auto record = [&] { // the state now shows in the column
            int64_t bottom = 0;
            for (const uint32_t b : stack) {
                if (seenInColumn[b] != c) {
                    seenInColumn[b] = c;
                    touched.push_back(b);
                }
                bottomInColumn[b] = bottom;
                bottom += layout.bands[b].size;
            }
            top = std::max(top, bottom);
        };
        const bool eventAtFirst =
            column.hasEntries() && event != events.end() && event->entry == column.firstEntry;
        if (openingShows[size_t(c)] || (column.hasEntries() && !eventAtFirst))
            record();
        for (; column.hasEntries() && event != events.end() && event->entry <= column.lastEntry; ++event) {
            if (event->opens) {
                stack.push_back(event->band);
            } else {
                const auto it = std::find(stack.begin(), stack.end(), event->band);
                if (it != stack.end())
                    stack.erase(it);
            }
            record();
        }
        column.distinctTopBytes = top;
        for (const uint32_t b : touched) {
            std::vector<TimelineBandRun>& runs = layout.bands[b].runs;
            if (!runs.empty() && runs.back().lastColumn == c - 1 &&
                runs.back().bottomBytes == bottomInColumn[b])
                runs.back().lastColumn = c;
            else
                runs.push_back({c, c, bottomInColumn[b]});
        }
    }

    // the marks
    const auto marksOf = [&](const std::vector<uint32_t>& entries, std::vector<TimelineMark>& marks) {
        for (auto it = std::lower_bound(entries.begin(), entries.end(), ea);
             it != entries.end() && *it < pastEnd; ++it)
            marks.push_back(
                {*it, int(pixels.columnOf(positions[*it])), trace.actions[*it], trace.sizes[*it]});
    };
    marksOf(timeline.segmentEntries, layout.segmentMarks);
    marksOf(timeline.oomEntries, layout.oomMarks);

    for (const TimelineColumn& column : layout.columns) {
        layout.maxBytes = std::max(layout.maxBytes, column.maxBytes);
        layout.maxReservedBytes = std::max(layout.maxReservedBytes, column.reservedBytes);
    }
    return layout;
}

QString timelineEntryText(const SnapshotTrace& trace, const SnapshotTimeline& timeline, uint32_t entry)
{
    if (entry == kNone)
        return QStringLiteral("before the first entry");
    QString text = QStringLiteral("entry %1").arg(countText(entry));
    if (timeline.hasTimes && entry < timeline.entryCount) {
        const int64_t sinceNs =
            saturatingMul(saturatingSub(trace.timesUs[entry], trace.timesUs[0]), kNanosecondsPerMicrosecond);
        text += QStringLiteral(" · %1").arg(
            durationText(sinceNs, timeResolutionNs(traceSpanNs(trace, timeline))));
    }
    return text;
}

QString allocationDescription(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t index,
                              int maxFrames)
{
    if (index >= timeline.allocations.size())
        return {};
    const SnapshotAllocation& a = timeline.allocations[index];
    const SnapshotTrace* trace = traceOf(data, timeline);
    QStringList lines;
    lines << QStringLiteral("%1 allocation at 0x%2 (stream %3)")
                 .arg(bytesText(a.size), QString::number(a.address, 16))
                 .arg(a.stream);
    lines << (a.liveBeforeTrace() || !trace
                  ? QStringLiteral("live before the trace began")
                  : QStringLiteral("allocated at %1").arg(timelineEntryText(*trace, timeline, a.begin)));
    if (a.liveAtSnapshot() || !trace) {
        lines << QStringLiteral("still live at the snapshot");
    } else {
        QString freed = QStringLiteral("freed at %1").arg(timelineEntryText(*trace, timeline, a.end));
        if (timeline.hasTimes && !a.liveBeforeTrace()) {
            const int64_t liveNs = saturatingMul(
                saturatingSub(trace->timesUs[a.end], trace->timesUs[a.begin]), kNanosecondsPerMicrosecond);
            freed += QStringLiteral(" (live %1)")
                         .arg(durationText(liveNs, timeResolutionNs(traceSpanNs(*trace, timeline))));
        }
        lines << freed;
    }
    lines << stackTooltipLines(data, a.frames, maxFrames, QStringLiteral("allocated at"));
    return lines.join(QLatin1Char('\n'));
}

QString oomDescription(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t entry)
{
    const SnapshotTrace* trace = traceOf(data, timeline);
    if (!trace || entry >= timeline.entryCount)
        return {};
    QStringList lines;
    lines << QStringLiteral("OOM: an allocation of %1 failed (stream %2)")
                 .arg(bytesText(trace->sizes[entry]))
                 .arg(trace->streams[entry]);
    lines << QStringLiteral("at %1").arg(timelineEntryText(*trace, timeline, entry));
    if (const std::optional<int64_t> free = trace->deviceFreeAt(entry))
        lines << QStringLiteral("device free then: %1").arg(bytesText(*free));
    const SnapshotAllocatorState state = timeline.stateAfter(entry);
    lines << QStringLiteral("allocated %1 · reserved %2 · active %3")
                 .arg(bytesText(state.allocatedBytes), bytesText(state.reservedBytes),
                      bytesText(state.activeBytes));
    lines << stackTooltipLines(data, trace->frameStacks[entry], 8, QStringLiteral("asked for at"));
    return lines.join(QLatin1Char('\n'));
}

QString segmentEntryDescription(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t entry)
{
    const SnapshotTrace* trace = traceOf(data, timeline);
    if (!trace || entry >= timeline.entryCount)
        return {};
    return QStringLiteral("%1 of %2 at 0x%3 (stream %4)\n%5 · reserved after it %6")
        .arg(QString::fromUtf8(trace->actionName(entry, data.strings)), bytesText(trace->sizes[entry]),
             QString::number(trace->addresses[entry], 16))
        .arg(trace->streams[entry])
        .arg(timelineEntryText(*trace, timeline, entry), bytesText(timeline.reservedAfter(entry)));
}

QString allocatorStateText(const SnapshotData& data, const SnapshotTimeline& timeline, uint32_t entry)
{
    const SnapshotTrace* trace = traceOf(data, timeline);
    if (!trace)
        return {};
    const SnapshotAllocatorState state = timeline.stateAfter(entry);
    return QStringLiteral("After %1: allocated %2 · reserved %3 · active %4 in %5")
        .arg(timelineEntryText(*trace, timeline, state.entry), bytesText(state.allocatedBytes),
             bytesText(state.reservedBytes), bytesText(state.activeBytes),
             englishPlural(QStringLiteral("%1 live allocation(s)").arg(countText(state.liveAllocations)),
                           state.liveAllocations));
}

} // namespace gapscope
