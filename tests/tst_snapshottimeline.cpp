// One device's memory over its snapshot trace (model/snapshot/SnapshotTimeline, issue 34): the
// allocator's counters walked back from the snapshot's totals, and the allocations paired by
// PyTorch's own viewer's rules. The real snapshots' figures are what
// tests/data/snapshot/expected.py (`timeline`) computes with Python's pickle.load.

#include "model/snapshot/SnapshotSummary.h"
#include "model/snapshot/SnapshotTimeline.h"
#include "tests/SnapshotFixtures.h"

#include <QTest>

using namespace gapscope;

namespace {

constexpr uint32_t kBefore = SnapshotAllocation::kBeforeTrace;

struct Entry
{
    TraceAction action;
    uint64_t address;
    int64_t size;
    int64_t timeUs = SnapshotTrace::kNoTime;
};

// A snapshot of one device: one segment of the given blocks, a trace of the given entries.
SnapshotData makeSnapshot(const std::vector<std::pair<int64_t, BlockState>>& blocks,
                          const std::vector<Entry>& entries)
{
    SnapshotData data;
    SnapshotSegment segment;
    segment.address = 0x1000;
    uint64_t address = segment.address;
    for (const auto& [size, state] : blocks) {
        SnapshotBlock block;
        block.address = address;
        block.size = size;
        block.requestedSize = size;
        block.state = state;
        data.blocks.push_back(block);
        segment.totalSize += size;
        address += uint64_t(size);
    }
    segment.blockCount = uint32_t(blocks.size());
    data.segments.push_back(segment);
    data.traces.resize(1);
    SnapshotTrace& trace = data.traces[0];
    for (const Entry& entry : entries) {
        trace.actions.push_back(entry.action);
        trace.addresses.push_back(entry.address);
        trace.sizes.push_back(entry.size);
        trace.streams.push_back(0);
        trace.timesUs.push_back(entry.timeUs);
        trace.frameStacks.push_back(0);
        trace.compileContexts.push_back(0);
        trace.userMetadata.push_back(0);
    }
    return data;
}

} // namespace

class TestSnapshotTimeline : public QObject
{
    Q_OBJECT
private slots:
    // The real snapshots against expected.py's `timeline`.
    void realSnapshots_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QList<qint64>>(
            "counters"); // initial allocated, initial reserved, lowest, highest allocated
        QTest::addColumn<QList<qint64>>("allocations"); // allocations, live before, live at snapshot
        QTest::addColumn<QList<qint64>>("active");      // initial, final, peak, peak entry (-1: before)
        QTest::addColumn<qint64>("segmentEntries");
        QTest::addColumn<QList<qint64>>("oomEntries");
        QTest::newRow("snapshot (20 000 entries)")
            << QStringLiteral("snapshot.pickle") << QList<qint64>{331552768, 1182793728, 225828864, 995041560}
            << QList<qint64>{6874, 243, 196} << QList<qint64>{327292928, 274432000, 990781720, 1443}
            << qint64(13) << QList<qint64>{};
        QTest::newRow("pair (100 000 entries, ending in an OOM)")
            << QStringLiteral("pair/snapshot.pickle.gz")
            << QList<qint64>{1102368392, 5639241728, 230006784, 6467485696} << QList<qint64>{33525, 213, 242}
            << QList<qint64>{1094979208, 6460096512, 6460096512, 99998} << qint64(121)
            << QList<qint64>{99999};
    }
    void realSnapshots()
    {
        QFETCH(QString, file);
        QFETCH(QList<qint64>, counters);
        QFETCH(QList<qint64>, allocations);
        QFETCH(QList<qint64>, active);
        QFETCH(qint64, segmentEntries);
        QFETCH(QList<qint64>, oomEntries);
        const auto data = test::loadSnapshotFixture(file);
        const std::vector<SnapshotTimeline> timelines = buildSnapshotTimelines(*data);
        QCOMPARE(timelines.size(), size_t(1));
        const SnapshotTimeline& t = timelines[0];
        QVERIFY(t.hasTimes);
        // the loader built the same, once
        QVERIFY(data->timelines);
        QCOMPARE(data->timelines->size(), size_t(1));
        QCOMPARE(data->timelines->front().activeBytes, t.activeBytes);
        QCOMPARE(data->timelines->front().allocatedBytes, t.allocatedBytes);
        QCOMPARE(qint64(t.entryCount), qint64(data->traces[0].count()));

        const auto [lowest, highest] = std::minmax_element(t.allocatedBytes.begin(), t.allocatedBytes.end());
        QCOMPARE((QList<qint64>{t.initialAllocatedBytes, t.initialReservedBytes,
                                std::min(*lowest, t.initialAllocatedBytes),
                                std::max(*highest, t.initialAllocatedBytes)}),
                 counters);
        // the counters end where the allocator's own do
        const SnapshotTotals totals = summarizeSnapshot(*data).totals;
        QCOMPARE(t.allocatedBytes.back(), totals.allocatedBytes);
        QCOMPARE(t.reservedAfter(t.entryCount - 1), totals.reservedBytes);

        qint64 before = 0, atSnapshot = 0;
        for (const SnapshotAllocation& a : t.allocations) {
            before += a.liveBeforeTrace();
            atSnapshot += a.liveAtSnapshot();
            QVERIFY(a.liveBeforeTrace() || a.liveAtSnapshot() || a.begin < a.end);
        }
        QCOMPARE((QList<qint64>{qint64(t.allocations.size()), before, atSnapshot}), allocations);
        QCOMPARE((QList<qint64>{t.initialActiveBytes, t.activeBytes.back(), t.peakActiveBytes,
                                t.peakEntry == kBefore ? -1 : qint64(t.peakEntry)}),
                 active);
        QCOMPARE(qint64(t.segmentEntries.size()), segmentEntries);
        QCOMPARE(QList<qint64>(t.oomEntries.begin(), t.oomEntries.end()), oomEntries);

        // the level after an entry is the sum of the allocations live after it
        for (const uint32_t entry : {kBefore, 0u, t.peakEntry, t.entryCount / 2, t.entryCount - 1}) {
            int64_t sum = 0;
            for (const SnapshotAllocation& a : t.allocations) {
                if (a.liveAfter(entry))
                    sum += a.size;
            }
            const SnapshotAllocatorState state = t.stateAfter(entry);
            QCOMPARE(state.activeBytes, sum);
            QCOMPARE(state.entry, entry);
        }
    }

    // The counters and the pairing on a trace made here.
    void pairing()
    {
        // one segment: [256 allocated at 0x1000][256 allocated at 0x1100 (live all along)][512 free]
        const SnapshotData data = makeSnapshot(
            {{256, BlockState::ActiveAllocated},
             {256, BlockState::ActiveAllocated},
             {512, BlockState::Inactive}},
            {
                {TraceAction::FreeRequested, 0x9000, 128, 10}, // freed, its alloc before the trace
                {TraceAction::FreeCompleted, 0x9000, 128, 11},
                {TraceAction::SegmentAlloc, 0x1000, 1024, 12},
                {TraceAction::Alloc, 0x1000, 256, 13},
                {TraceAction::Alloc, 0x1200, 512, 14},
                {TraceAction::FreeRequested, 0x1200, 512, 15},
                {TraceAction::FreeCompleted, 0x1200, 512, 16},
                {TraceAction::Oom, 0, 4096, 17},
            });
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        QVERIFY(t.hasTimes);
        // counters: allocated ends at 512 (both allocated blocks), reserved at 1024
        QCOMPARE(t.allocatedBytes, (std::vector<int64_t>{256, 256, 256, 512, 1024, 512, 512, 512}));
        QCOMPARE(t.initialAllocatedBytes, int64_t(384));
        QCOMPARE(t.initialReservedBytes, int64_t(0));
        QCOMPARE(t.reservedAfter(kBefore), int64_t(0));
        QCOMPARE(t.reservedAfter(1), int64_t(0));
        QCOMPARE(t.reservedAfter(2), int64_t(1024));
        QCOMPARE(t.reservedAfter(7), int64_t(1024));
        // allocations: the freed one and the block live all along before the trace, then two
        QCOMPARE(t.allocations.size(), size_t(4));
        QCOMPARE(t.allocations[0].address, uint64_t(0x9000));
        QCOMPARE(t.allocations[0].end, 1u);
        QCOMPARE(t.allocations[1].address, uint64_t(0x1100));
        QVERIFY(t.allocations[1].liveBeforeTrace() && t.allocations[1].liveAtSnapshot());
        QCOMPARE(t.allocations[2].begin, 3u);
        QVERIFY(t.allocations[2].liveAtSnapshot());
        QCOMPARE(t.allocations[3].begin, 4u);
        QCOMPARE(t.allocations[3].end, 6u);
        QCOMPARE(t.initialActiveBytes, int64_t(384));
        QCOMPARE(t.activeBytes, (std::vector<int64_t>{384, 256, 256, 512, 1024, 1024, 512, 512}));
        QCOMPARE(t.peakActiveBytes, int64_t(1024));
        QCOMPARE(t.peakEntry, 4u);
        QCOMPARE(t.segmentEntries, std::vector<uint32_t>{2});
        QCOMPARE(t.oomEntries, std::vector<uint32_t>{7});
        // a moment of the clock
        QCOMPARE(t.entryAtTime(data.traces[0], 9), kBefore);
        QCOMPARE(t.entryAtTime(data.traces[0], 14), 4u);
        QCOMPARE(t.entryAtTime(data.traces[0], 1000), 7u);
        const SnapshotAllocatorState at = t.stateAfter(t.entryAtTime(data.traces[0], 14));
        QCOMPARE(at.allocatedBytes, int64_t(1024));
        QCOMPARE(at.reservedBytes, int64_t(1024));
        QCOMPARE(at.activeBytes, int64_t(1024));
        QCOMPARE(at.liveAllocations, int64_t(3));
    }

    // An older trace: `free` (one action before free_requested/free_completed) closes an
    // allocation; no times, so the axis is the entry index.
    void olderTraceWithoutTimes()
    {
        SnapshotData data =
            makeSnapshot({{512, BlockState::Inactive}},
                         {{TraceAction::Alloc, 0x1000, 512}, {TraceAction::Unknown, 0x1000, 512}});
        const SnapshotStringId free = data.strings.append("free");
        data.traces[0].unknownActions.emplace_back(1, free);
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        QVERIFY(!t.hasTimes);
        QCOMPARE(t.allocations.size(), size_t(1));
        QCOMPARE(t.allocations[0].end, 1u);
        QCOMPARE(t.activeBytes, (std::vector<int64_t>{512, 0}));
        QCOMPARE(t.entryAtTime(data.traces[0], 0), 0u);
        QCOMPARE(t.entryAtTime(data.traces[0], 99), 1u);
        QCOMPARE(t.entryAtTime(data.traces[0], -1), kBefore);
    }

    // Sizes near 2^63 (a hostile file can name them; the builder only checks they are not
    // negative): the levels saturate instead of overflowing (UBSan would stop the ASan run).
    void hugeSizes()
    {
        constexpr int64_t kHuge = std::numeric_limits<int64_t>::max() / 2 + 1;
        const SnapshotData data =
            makeSnapshot({{kHuge, BlockState::ActiveAllocated}, {kHuge, BlockState::ActiveAllocated}},
                         {{TraceAction::Alloc, 0x9000, kHuge},
                          {TraceAction::Alloc, 0xa000, kHuge},
                          {TraceAction::SegmentAlloc, 0x1000, kHuge},
                          {TraceAction::SegmentFree, 0x1000, kHuge}});
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        QCOMPARE(t.peakActiveBytes, std::numeric_limits<int64_t>::max());
        QCOMPARE(summarizeSnapshot(data).totals.allocatedBytes, std::numeric_limits<int64_t>::max());
        QCOMPARE(t.allocatedBytes.back(), std::numeric_limits<int64_t>::max());
    }

    // No trace entries (_snapshot() without _record_memory_history): nothing but the end state.
    void emptyTrace()
    {
        const SnapshotData data = makeSnapshot({{256, BlockState::ActiveAllocated}}, {});
        const SnapshotTimeline t = buildSnapshotTimeline(data, 0);
        QCOMPARE(t.entryCount, 0u);
        QVERIFY(!t.hasTimes);
        QCOMPARE(t.initialAllocatedBytes, int64_t(256));
        QCOMPARE(t.initialReservedBytes, int64_t(256));
        QCOMPARE(t.allocations.size(), size_t(1));
        QCOMPARE(t.peakActiveBytes, int64_t(256));
        QCOMPARE(t.peakEntry, kBefore);
        QCOMPARE(t.entryAtTime(data.traces[0], 5), kBefore);
        QCOMPARE(t.stateAfter(kBefore).liveAllocations, int64_t(1));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotTimeline)
#include "tst_snapshottimeline.moc"
