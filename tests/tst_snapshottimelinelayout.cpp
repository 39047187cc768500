// What the active memory timeline draws (model/snapshot/SnapshotTimelineLayout, issue 34): the
// level per pixel column, the largest allocations as bands stacked as memory_viz stacks them, the
// rest folded, segment and OOM entries as marks. A trace made by hand checked value by value; the
// real snapshots checked against a walk over every entry, on both axes, zoomed and not.

#include "model/snapshot/SnapshotTimelineLayout.h"
#include "model/store/Decimation.h"
#include "tests/SnapshotFixtures.h"

#include <QElapsedTimer>
#include <QTest>

#include <map>
#include <set>

using namespace gapscope;
using gapscope::test::makeSnapshot;

namespace {

// Each real snapshot loaded once for all the rows that draw it.
std::shared_ptr<const SnapshotData> loadFixture(const QString& name)
{
    static std::map<QString, std::shared_ptr<const SnapshotData>> loaded;
    std::shared_ptr<const SnapshotData>& data = loaded[name];
    if (!data)
        data = test::loadSnapshotFixture(name);
    return data;
}

// A, B, C opened; A freed (B and C slide down); a segment; D opened; C freed; an OOM.
SnapshotData handMade()
{
    return makeSnapshot({{1024, BlockState::Inactive}},
                        {
                            {TraceAction::Alloc, 0x1000, 100, 0},          // 0: A
                            {TraceAction::Alloc, 0x2000, 200, 10},         // 1: B
                            {TraceAction::Alloc, 0x3000, 50, 20},          // 2: C
                            {TraceAction::FreeRequested, 0x1000, 100, 30}, // 3
                            {TraceAction::FreeCompleted, 0x1000, 100, 40}, // 4: A closes
                            {TraceAction::SegmentAlloc, 0x5000, 1024, 50}, // 5
                            {TraceAction::Alloc, 0x4000, 400, 60},         // 6: D
                            {TraceAction::FreeCompleted, 0x3000, 50, 70},  // 7: C closes
                            {TraceAction::Oom, 0, 4096, 80},               // 8
                        });
}

TimelineLayoutRequest request(TimelineAxis axis, int64_t begin, int64_t end, int width, int distinct)
{
    TimelineLayoutRequest r;
    r.range = TimelineRange{axis, begin, end};
    r.width = width;
    r.distinct = distinct;
    return r;
}

// The band of an allocation, or null.
const TimelineBand* bandOf(const SnapshotTimelineLayout& layout, uint32_t allocation)
{
    for (const TimelineBand& band : layout.bands)
        if (band.allocation == allocation)
            return &band;
    return nullptr;
}

std::vector<int64_t> columnsOf(const SnapshotTimelineLayout& layout, int64_t TimelineColumn::*field)
{
    std::vector<int64_t> values;
    for (const TimelineColumn& column : layout.columns)
        values.push_back(column.*field);
    return values;
}

// What a column shows, from a plain walk over the entries: the states after its entries, and
// the state it opens with where its first entry lies after its left edge.
struct ShownStates
{
    int64_t lo = -1; // states after entries lo..hi (-1: before the first entry)
    int64_t hi = -1;
    int64_t minBytes = std::numeric_limits<int64_t>::max();
    int64_t maxBytes = std::numeric_limits<int64_t>::min();
};

std::vector<ShownStates> walkColumns(const SnapshotTimeline& t, const SnapshotTrace& trace,
                                     const TimelineRange& range, int width)
{
    const PixelColumns pixels{range.begin, range.end, width};
    const std::vector<int64_t> starts = pixels.columnStarts();
    std::vector<ShownStates> shown(static_cast<size_t>(width));
    std::vector<int64_t> firstOf(static_cast<size_t>(width), -1);
    std::vector<int64_t> lastOf(static_cast<size_t>(width), -1);
    int64_t lastBefore = -1; // the last entry before the range
    for (uint32_t j = 0; j < t.entryCount; ++j) {
        const int64_t p = timelinePosition(trace, range.axis, j);
        if (p < range.begin) {
            lastBefore = j;
            continue;
        }
        if (p > range.end)
            break;
        const auto c = size_t(pixels.columnOf(p));
        if (firstOf[c] < 0)
            firstOf[c] = j;
        lastOf[c] = j;
        shown[c].minBytes = std::min(shown[c].minBytes, t.activeBytes[j]);
        shown[c].maxBytes = std::max(shown[c].maxBytes, t.activeBytes[j]);
    }
    int64_t previous = lastBefore; // the last entry of the columns to the left
    for (size_t c = 0; c < size_t(width); ++c) {
        const int64_t edge = c == 0 ? 0 : starts[c];
        const bool opens =
            firstOf[c] < 0 || timelinePosition(trace, range.axis, uint32_t(firstOf[c])) - range.begin > edge;
        if (opens) {
            const int64_t level = previous < 0 ? t.initialActiveBytes : t.activeBytes[size_t(previous)];
            shown[c].minBytes = std::min(shown[c].minBytes, level);
            shown[c].maxBytes = std::max(shown[c].maxBytes, level);
        }
        shown[c].lo = opens ? previous : firstOf[c];
        shown[c].hi = firstOf[c] < 0 ? previous : lastOf[c];
        if (lastOf[c] >= 0)
            previous = lastOf[c];
    }
    return shown;
}

bool liveIn(const SnapshotAllocation& a, int64_t lo, int64_t hi)
{
    const int64_t opened = a.liveBeforeTrace() ? -1 : int64_t(a.begin);
    const int64_t closed = a.liveAtSnapshot() ? std::numeric_limits<int64_t>::max() : int64_t(a.end);
    return opened <= hi && closed > lo;
}

} // namespace

class TestSnapshotTimelineLayout : public QObject
{
    Q_OBJECT
private slots:
    // One column per entry: every value by hand.
    void byEntry()
    {
        const SnapshotData data = handMade();
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        const SnapshotTrace& trace = data.traces[0];
        QCOMPARE(fullTimelineRange(t, trace, TimelineAxis::Entries),
                 (TimelineRange{TimelineAxis::Entries, 0, 8}));
        QCOMPARE(fullTimelineRange(t, trace, TimelineAxis::Time), (TimelineRange{TimelineAxis::Time, 0, 80}));
        const SnapshotTimelineLayout layout =
            layoutSnapshotTimeline(t, trace, request(TimelineAxis::Entries, 0, 8, 9, 3));
        QCOMPARE(layout.columns.size(), size_t(9));
        QCOMPARE(layout.firstEntry, 0u);
        QCOMPARE(layout.lastEntry, 8u);
        for (uint32_t c = 0; c < 9; ++c) {
            QCOMPARE(layout.columns[c].firstEntry, c);
            QCOMPARE(layout.columns[c].lastEntry, c);
            QCOMPARE(layout.columns[c].shownEntry(), c);
        }
        QCOMPARE(columnsOf(layout, &TimelineColumn::maxBytes),
                 (std::vector<int64_t>{100, 300, 350, 350, 250, 250, 650, 600, 600}));
        QCOMPARE(columnsOf(layout, &TimelineColumn::minBytes),
                 (std::vector<int64_t>{100, 300, 350, 350, 250, 250, 650, 600, 600}));
        // the distinct bands end below the level; C (50 B) is folded: 300..350 in columns 2-3
        QCOMPARE(columnsOf(layout, &TimelineColumn::distinctTopBytes),
                 (std::vector<int64_t>{100, 300, 300, 300, 200, 200, 600, 600, 600}));
        QCOMPARE(columnsOf(layout, &TimelineColumn::reservedBytes),
                 (std::vector<int64_t>{0, 0, 0, 0, 0, 1024, 1024, 1024, 1024}));
        QCOMPARE(layout.maxBytes, int64_t(650));
        QCOMPARE(layout.maxReservedBytes, int64_t(1024));
        QCOMPARE(layout.visibleAllocations, size_t(4));
        QCOMPARE(layout.foldedAllocations, size_t(1));
        // stacked in the order they opened: A, B, D; B slides down when A is freed
        QCOMPARE(layout.bands.size(), size_t(3));
        QCOMPARE(layout.bands[0].allocation, 0u);
        QCOMPARE(layout.bands[1].allocation, 1u);
        QCOMPARE(layout.bands[2].allocation, 3u);
        QCOMPARE(layout.bands[0].runs, (std::vector<TimelineBandRun>{{0, 3, 0}}));
        QCOMPARE(layout.bands[1].runs, (std::vector<TimelineBandRun>{{1, 3, 100}, {4, 8, 0}}));
        QCOMPARE(layout.bands[2].runs, (std::vector<TimelineBandRun>{{6, 8, 200}}));
        QCOMPARE(layout.bandAt(2, 150), 1);
        QCOMPARE(layout.bandAt(2, 320), -1); // the folded band
        QCOMPARE(layout.bandAt(6, 599), 2);
        // marks
        QCOMPARE(layout.segmentMarks.size(), size_t(1));
        QCOMPARE(layout.segmentMarks[0].entry, 5u);
        QCOMPARE(layout.segmentMarks[0].column, 5);
        QCOMPARE(layout.segmentMarks[0].size, int64_t(1024));
        QCOMPARE(layout.oomMarks.size(), size_t(1));
        QCOMPARE(layout.oomMarks[0].column, 8);
        QVERIFY(layout.oomMarks[0].action == TraceAction::Oom);

        // everything distinct: C too, above B
        const SnapshotTimelineLayout all =
            layoutSnapshotTimeline(t, trace, request(TimelineAxis::Entries, 0, 8, 9, 10));
        QCOMPARE(all.foldedAllocations, size_t(0));
        QCOMPARE(bandOf(all, 2)->runs, (std::vector<TimelineBandRun>{{2, 3, 300}, {4, 6, 200}}));
        QCOMPARE(columnsOf(all, &TimelineColumn::distinctTopBytes),
                 columnsOf(all, &TimelineColumn::maxBytes));
    }

    // Two entries a column on the time axis; a view between two entries; no times.
    void byTime()
    {
        const SnapshotData data = handMade();
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        const SnapshotTrace& trace = data.traces[0];
        const SnapshotTimelineLayout layout =
            layoutSnapshotTimeline(t, trace, request(TimelineAxis::Time, 0, 80, 4, 3));
        QCOMPARE(columnsOf(layout, &TimelineColumn::maxBytes), (std::vector<int64_t>{300, 350, 250, 650}));
        QCOMPARE(columnsOf(layout, &TimelineColumn::minBytes), (std::vector<int64_t>{100, 350, 250, 600}));
        QCOMPARE(layout.columns[3].firstEntry, 6u);
        QCOMPARE(layout.columns[3].lastEntry, 8u); // the last entry lies on the range's end
        QCOMPARE(bandOf(layout, 0)->runs, (std::vector<TimelineBandRun>{{0, 1, 0}}));
        QCOMPARE(bandOf(layout, 1)->runs, (std::vector<TimelineBandRun>{{0, 1, 100}, {2, 3, 0}}));
        QCOMPARE(bandOf(layout, 3)->runs, (std::vector<TimelineBandRun>{{3, 3, 200}}));

        // between entries 4 (t 40) and 5 (t 50): the state after 4 fills the view
        const SnapshotTimelineLayout between =
            layoutSnapshotTimeline(t, trace, request(TimelineAxis::Time, 41, 49, 3, 3));
        QVERIFY(!between.hasEntries());
        for (const TimelineColumn& column : between.columns) {
            QVERIFY(!column.hasEntries());
            QCOMPARE(column.openingEntry, 4u);
            QCOMPARE(column.shownEntry(), 4u);
            QCOMPARE(column.maxBytes, int64_t(250));
        }
        QCOMPARE(between.visibleAllocations, size_t(2)); // B and C
        QCOMPARE(bandOf(between, 1)->runs, (std::vector<TimelineBandRun>{{0, 2, 0}}));
        QCOMPARE(bandOf(between, 2)->runs, (std::vector<TimelineBandRun>{{0, 2, 200}}));
        QVERIFY(between.segmentMarks.empty());

        // before the first entry: the state before it (nothing live)
        const SnapshotTimelineLayout before =
            layoutSnapshotTimeline(t, trace, request(TimelineAxis::Time, -100, -1, 5, 3));
        QCOMPARE(before.columns[0].openingEntry, TimelineColumn::kNoEntry);
        QCOMPARE(before.maxBytes, int64_t(0));
        QVERIFY(before.bands.empty());

        // a trace without times is drawn by entry
        SnapshotData untimed =
            makeSnapshot({{512, BlockState::Inactive}},
                         {{TraceAction::Alloc, 0x1000, 512}, {TraceAction::FreeCompleted, 0x1000, 512}});
        const SnapshotTimeline u = buildSnapshotTimeline(untimed, 0);
        QCOMPARE(fullTimelineRange(u, untimed.traces[0], TimelineAxis::Time).axis, TimelineAxis::Entries);
        const SnapshotTimelineLayout byEntry =
            layoutSnapshotTimeline(u, untimed.traces[0], request(TimelineAxis::Time, 0, 1, 2, 3));
        QCOMPARE(byEntry.range.axis, TimelineAxis::Entries);
        QCOMPARE(columnsOf(byEntry, &TimelineColumn::maxBytes), (std::vector<int64_t>{512, 0}));

        // nothing to lay out
        QVERIFY(layoutSnapshotTimeline(t, trace, request(TimelineAxis::Time, 0, 80, 0, 3)).empty());
        const SnapshotData empty = makeSnapshot({{256, BlockState::ActiveAllocated}}, {});
        QVERIFY(layoutSnapshotTimeline(buildSnapshotTimeline(empty, 0), empty.traces[0],
                                       request(TimelineAxis::Entries, 0, 1, 100, 3))
                    .empty());
    }

    // The real snapshots: every column against a walk over its entries, every band inside the
    // level and live in its column, the largest allocations distinct.
    void realSnapshots_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("axis");
        QTest::addColumn<double>("from"); // the range as shares of the whole
        QTest::addColumn<double>("to");
        QTest::addColumn<int>("width");
        for (const QString& file :
             {QStringLiteral("snapshot.pickle"), QStringLiteral("pair/snapshot.pickle.gz")}) {
            for (const TimelineAxis axis : {TimelineAxis::Time, TimelineAxis::Entries}) {
                const QString name = file + (axis == TimelineAxis::Time ? QStringLiteral(" by time")
                                                                        : QStringLiteral(" by entry"));
                QTest::newRow(qPrintable(name + QStringLiteral(", whole, 1400 px")))
                    << file << int(axis) << 0.0 << 1.0 << 1400;
                QTest::newRow(qPrintable(name + QStringLiteral(", whole, 37 px")))
                    << file << int(axis) << 0.0 << 1.0 << 37;
                QTest::newRow(qPrintable(name + QStringLiteral(", a tenth, 900 px")))
                    << file << int(axis) << 0.45 << 0.55 << 900;
                QTest::newRow(qPrintable(name + QStringLiteral(", a few entries, 500 px")))
                    << file << int(axis) << 0.5 << 0.50005 << 500;
                QTest::newRow(qPrintable(name + QStringLiteral(", one column")))
                    << file << int(axis) << 0.2 << 0.9 << 1;
            }
        }
    }
    void realSnapshots()
    {
        QFETCH(QString, file);
        QFETCH(int, axis);
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(int, width);
        const auto data = loadFixture(file);
        const SnapshotTimeline& t = data->timelines->front();
        const SnapshotTrace& trace = data->traces[0];
        const TimelineRange whole = fullTimelineRange(t, trace, TimelineAxis(axis));
        const double span = double(whole.end - whole.begin);
        TimelineRange range{TimelineAxis(axis), whole.begin + int64_t(from * span),
                            whole.begin + int64_t(to * span)};
        TimelineLayoutRequest r;
        r.range = range;
        r.width = width;
        const SnapshotTimelineLayout layout = layoutSnapshotTimeline(t, trace, r);
        QCOMPARE(layout.columns.size(), size_t(width));
        range.end = std::max(range.end, range.begin + 1);

        const std::vector<ShownStates> shown = walkColumns(t, trace, range, width);
        int64_t maxBytes = 0;
        for (int c = 0; c < width; ++c) {
            const TimelineColumn& column = layout.columns[size_t(c)];
            QCOMPARE(column.maxBytes, shown[size_t(c)].maxBytes);
            QCOMPARE(column.minBytes, shown[size_t(c)].minBytes);
            QVERIFY(column.distinctTopBytes <= column.maxBytes);
            maxBytes = std::max(maxBytes, column.maxBytes);
        }
        QCOMPARE(layout.maxBytes, maxBytes);
        if (from == 0.0 && to == 1.0)
            QCOMPARE(layout.maxBytes, t.peakActiveBytes);

        // the bands: inside the level, live where drawn, never two on the same bytes in a
        // column with no open or close
        std::set<uint32_t> distinct;
        for (const TimelineBand& band : layout.bands) {
            distinct.insert(band.allocation);
            const SnapshotAllocation& a = t.allocations[band.allocation];
            QCOMPARE(band.size, a.size);
            QVERIFY(!band.runs.empty());
            for (const TimelineBandRun& run : band.runs) {
                QVERIFY(run.firstColumn <= run.lastColumn && run.lastColumn < width);
                QVERIFY(run.bottomBytes >= 0);
                for (int c = run.firstColumn; c <= run.lastColumn; ++c) {
                    QVERIFY2(run.bottomBytes + band.size <= layout.columns[size_t(c)].distinctTopBytes,
                             qPrintable(QStringLiteral("band of allocation %1 at column %2")
                                            .arg(band.allocation)
                                            .arg(c)));
                    QVERIFY(liveIn(a, shown[size_t(c)].lo, shown[size_t(c)].hi));
                }
            }
        }
        QCOMPARE(distinct.size(), layout.bands.size());
        QVERIFY(layout.bands.size() <= size_t(TimelineLayoutRequest::kDefaultDistinct));
        // the largest visible are the distinct ones; the others are folded
        const int64_t lo = shown.front().lo;
        const int64_t hi = shown.back().hi;
        int64_t smallestDistinct = std::numeric_limits<int64_t>::max();
        for (const uint32_t i : distinct)
            smallestDistinct = std::min(smallestDistinct, t.allocations[i].size);
        size_t visible = 0;
        for (uint32_t i = 0; i < t.allocations.size(); ++i) {
            if (!liveIn(t.allocations[i], lo, hi))
                continue;
            ++visible;
            if (t.allocations[i].size > smallestDistinct)
                QVERIFY2(distinct.count(i), qPrintable(QStringLiteral("allocation %1 folded").arg(i)));
        }
        QCOMPARE(layout.visibleAllocations, visible);
        QCOMPARE(layout.foldedAllocations, visible - layout.bands.size());

        // every segment and OOM entry in view is marked, in its column
        size_t segments = 0;
        for (const uint32_t e : t.segmentEntries)
            segments += timelinePosition(trace, range.axis, e) >= range.begin &&
                        timelinePosition(trace, range.axis, e) <= range.end;
        QCOMPARE(layout.segmentMarks.size(), segments);
        for (const TimelineMark& mark : layout.segmentMarks)
            QVERIFY(mark.entry >= layout.columns[size_t(mark.column)].firstEntry &&
                    mark.entry <= layout.columns[size_t(mark.column)].lastEntry);
        if (from == 0.0 && to == 1.0) {
            QCOMPARE(layout.segmentMarks.size(), t.segmentEntries.size());
            QCOMPARE(layout.oomMarks.size(), t.oomEntries.size());
        }
    }

    // The stacks asked for are drawn distinct and marked, even where they are small.
    void highlightedStacks()
    {
        const auto data = loadFixture(QStringLiteral("pair/snapshot.pickle.gz"));
        const SnapshotTimeline& t = data->timelines->front();
        const SnapshotTrace& trace = data->traces[0];
        TimelineLayoutRequest r;
        r.range = fullTimelineRange(t, trace, TimelineAxis::Time);
        r.width = 1400;
        const SnapshotTimelineLayout plain = layoutSnapshotTimeline(t, trace, r);
        QVERIFY(!plain.highlighting);
        // the stack of a folded allocation that is live at the end
        uint32_t folded = 0;
        while (folded < t.allocations.size() &&
               (t.allocations[folded].frames == 0 || !t.allocations[folded].liveAtSnapshot() ||
                bandOf(plain, folded)))
            ++folded;
        QVERIFY(folded < t.allocations.size());
        const FrameStackId stack = t.allocations[folded].frames;
        size_t ofStack = 0;
        for (const SnapshotAllocation& a : t.allocations)
            ofStack += a.frames == stack && liveIn(a, 0, t.entryCount - 1);
        r.highlightedStacks = {stack};
        const SnapshotTimelineLayout layout = layoutSnapshotTimeline(t, trace, r);
        QVERIFY(layout.highlighting);
        size_t highlighted = 0;
        for (const TimelineBand& band : layout.bands) {
            QCOMPARE(band.highlighted, t.allocations[band.allocation].frames == stack);
            highlighted += band.highlighted;
        }
        QCOMPARE(highlighted, std::min<size_t>(ofStack, TimelineLayoutRequest::kMaxHighlighted));
        QVERIFY(bandOf(layout, folded) || ofStack > TimelineLayoutRequest::kMaxHighlighted);
        // the level does not change with what is distinct
        QCOMPARE(columnsOf(layout, &TimelineColumn::maxBytes), columnsOf(plain, &TimelineColumn::maxBytes));
    }

    // The tooltips' texts.
    void descriptions()
    {
        const SnapshotData data = handMade();
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        const QString b = allocationDescription(data, t, 1);
        QVERIFY2(
            b.startsWith(QStringLiteral("200 B allocation at 0x2000 (stream 0)\nallocated at entry 1 · ")),
            qPrintable(b));
        QVERIFY2(b.contains(QStringLiteral("still live at the snapshot")), qPrintable(b));
        QVERIFY2(b.contains(QStringLiteral("no stack recorded")), qPrintable(b));
        const QString a = allocationDescription(data, t, 0);
        QVERIFY2(a.contains(QStringLiteral("freed at entry 4 · ")) && a.contains(QStringLiteral("(live ")),
                 qPrintable(a));
        const QString oom = oomDescription(data, t, 8);
        QVERIFY2(oom.startsWith(QStringLiteral("OOM: an allocation of 4.00 KiB failed")), qPrintable(oom));
        QVERIFY2(segmentEntryDescription(data, t, 5)
                     .startsWith(QStringLiteral("segment_alloc of 1.00 KiB at 0x5000")),
                 qPrintable(segmentEntryDescription(data, t, 5)));
        const QString state = allocatorStateText(data, t, 6);
        QVERIFY2(state.startsWith(QStringLiteral("After entry 6 · ")), qPrintable(state));
        QVERIFY2(state.endsWith(QStringLiteral("active 650 B in 3 live allocations")), qPrintable(state));
    }

    // The 100 000-entry snapshot laid out at 1400 px: how long it takes, printed, not asserted.
    void largeTraceTimed()
    {
        const auto data = loadFixture(QStringLiteral("pair/snapshot.pickle.gz"));
        const SnapshotTimeline& t = data->timelines->front();
        TimelineLayoutRequest r;
        r.range = fullTimelineRange(t, data->traces[0], TimelineAxis::Time);
        r.width = 1400;
        QElapsedTimer timer;
        timer.start();
        constexpr int kRuns = 10;
        size_t bands = 0;
        for (int i = 0; i < kRuns; ++i)
            bands += layoutSnapshotTimeline(t, data->traces[0], r).bands.size();
        qInfo("layout of %u entries at 1400 px: %.2f ms (mean of %d)", t.entryCount,
              double(timer.nsecsElapsed()) / 1e6 / kRuns, kRuns);
        QCOMPARE(bands, size_t(kRuns) * size_t(TimelineLayoutRequest::kDefaultDistinct));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotTimelineLayout)
#include "tst_snapshottimelinelayout.moc"
