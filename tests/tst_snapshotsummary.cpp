// The totals of a snapshot (model/snapshot/SnapshotSummary, issue 34), a pure function of its
// segments, blocks and traces, on snapshots made here: what each total counts, which inactive
// blocks are split, the largest free block, devices, pools, streams and actions.

#include "model/snapshot/SnapshotSummary.h"

#include <QTest>

using namespace gapscope;

namespace {

struct BlockSpec
{
    int64_t size;
    BlockState state;
    int64_t requested = -1; // -1: the size
};

// One segment per entry of specs on (device, stream, pool), its blocks following each other.
void addSegment(SnapshotData& data, int64_t device, int64_t stream, SegmentPoolId pool,
                const std::vector<BlockSpec>& blocks)
{
    SnapshotSegment segment;
    segment.device = device;
    segment.stream = stream;
    segment.pool = pool;
    segment.address = 0x7f0000000000ull + uint64_t(data.segments.size()) * 0x10000000ull;
    segment.firstBlock = uint32_t(data.blocks.size());
    uint64_t address = segment.address;
    for (const BlockSpec& spec : blocks) {
        SnapshotBlock block;
        block.address = address;
        block.size = spec.size;
        block.requestedSize = spec.requested < 0 ? spec.size : spec.requested;
        block.state = spec.state;
        block.segment = uint32_t(data.segments.size());
        data.blocks.push_back(block);
        segment.totalSize += spec.size;
        address += uint64_t(spec.size);
    }
    segment.blockCount = uint32_t(blocks.size());
    data.segments.push_back(segment);
}

void addEntries(SnapshotData& data, size_t device, const std::vector<TraceAction>& actions)
{
    if (data.traces.size() <= device)
        data.traces.resize(device + 1);
    SnapshotTrace& trace = data.traces[device];
    trace.device = int64_t(device);
    for (const TraceAction action : actions) {
        trace.actions.push_back(action);
        trace.addresses.push_back(0);
        trace.sizes.push_back(0);
        trace.streams.push_back(0);
        trace.timesUs.push_back(SnapshotTrace::kNoTime);
        trace.frameStacks.push_back(0);
        trace.compileContexts.push_back(0);
        trace.userMetadata.push_back(0);
    }
}

} // namespace

Q_DECLARE_METATYPE(std::vector<BlockSpec>)

namespace {

constexpr auto kAllocated = BlockState::ActiveAllocated;
constexpr auto kPending = BlockState::ActivePendingFree;
constexpr auto kInactive = BlockState::Inactive;

} // namespace

class TestSnapshotSummary : public QObject
{
    Q_OBJECT
private slots:
    void empty()
    {
        const SnapshotSummary summary = summarizeSnapshot(SnapshotData{});
        QCOMPARE(summary.totals, SnapshotTotals{});
        QVERIFY(summary.devices.empty());
        QVERIFY(summary.pools.empty());
        QVERIFY(summary.streams.empty());
        QCOMPARE(summary.traceEntryCount, int64_t(0));
        QCOMPARE(summary.frameStackCount, int64_t(0));
    }

    // Each total on one segment of given blocks.
    void totals_data()
    {
        QTest::addColumn<std::vector<BlockSpec>>("blocks");
        QTest::addColumn<QList<qint64>>("totals"); // reserved, allocated, active, requested, inactive split,
                                                   // inactive, largest free
        QTest::newRow("one free block: not split") << std::vector<BlockSpec>{{2 << 20, kInactive}}
                                                   << QList<qint64>{2 << 20, 0, 0, 0, 0, 2 << 20, 2 << 20};
        QTest::newRow("one allocated block") << std::vector<BlockSpec>{{2 << 20, kAllocated, 1000}}
                                             << QList<qint64>{2 << 20, 2 << 20, 2 << 20, 1000, 0, 0, 0};
        QTest::newRow("allocated, free, pending: split")
            << std::vector<BlockSpec>{{512, kAllocated, 500}, {1024, kInactive}, {2048, kPending, 2000}}
            << QList<qint64>{3584, 512, 2560, 500, 1024, 1024, 1024};
        QTest::newRow("two free blocks around one allocated: the largest")
            << std::vector<BlockSpec>{{4096, kInactive}, {512, kAllocated}, {8192, kInactive}}
            << QList<qint64>{12800, 512, 512, 512, 12288, 12288, 8192};
        QTest::newRow("a state another version wrote: counted in reserved only")
            << std::vector<BlockSpec>{{512, BlockState::Unknown}, {512, kAllocated}}
            << QList<qint64>{1024, 512, 512, 512, 0, 0, 0};
    }
    void totals()
    {
        QFETCH(std::vector<BlockSpec>, blocks);
        QFETCH(QList<qint64>, totals);
        SnapshotData data;
        addSegment(data, 0, 0, {}, blocks);
        const SnapshotTotals t = summarizeSnapshot(data).totals;
        QCOMPARE((QList<qint64>{t.reservedBytes, t.allocatedBytes, t.activeBytes, t.requestedBytes,
                                t.inactiveSplitBytes, t.inactiveBytes, t.largestFreeBlockBytes}),
                 totals);
        QCOMPARE(t.segmentCount, int64_t(1));
        QCOMPARE(t.blockCount, int64_t(blocks.size()));
        int64_t byState = 0;
        for (const int64_t n : t.blocksByState)
            byState += n;
        QCOMPARE(byState, t.blockCount);
    }

    // Devices, pools and streams: counted apart, ascending; the device totals add up to all.
    void devicesPoolsStreams()
    {
        SnapshotData data;
        addSegment(data, 1, 7, {0, 0}, {{100, kAllocated}, {50, kInactive}});
        addSegment(data, 0, 0, {1, 2}, {{1000, kAllocated}});
        addSegment(data, 1, 0, {0, 0}, {{30, kInactive}});
        addSegment(data, 0, 7, {1, 2}, {{10, kPending}, {20, kInactive}});
        const SnapshotSummary summary = summarizeSnapshot(data);
        QCOMPARE(summary.devices.size(), size_t(2));
        QCOMPARE(summary.devices[0].device, int64_t(0));
        QCOMPARE(summary.devices[0].totals.reservedBytes, int64_t(1030));
        QCOMPARE(summary.devices[0].totals.inactiveSplitBytes, int64_t(20));
        QCOMPARE(summary.devices[1].device, int64_t(1));
        QCOMPARE(summary.devices[1].totals.reservedBytes, int64_t(180));
        QCOMPARE(summary.devices[1].totals.largestFreeBlockBytes, int64_t(50));
        QCOMPARE(summary.totals.reservedBytes, int64_t(1210));
        QCOMPARE(summary.totals.allocatedBytes, int64_t(1100));
        QCOMPARE(summary.totals.activeBytes, int64_t(1110));
        QCOMPARE(summary.totals.largestFreeBlockBytes, int64_t(50));
        QCOMPARE(summary.pools, (std::vector<SnapshotPoolCount>{{{0, 0}, 2, 180}, {{1, 2}, 2, 1030}}));
        QCOMPARE(summary.streams, (std::vector<SnapshotStreamCount>{{0, 2, 1030}, {7, 2, 180}}));
    }

    // Trace entries per action, over every device.
    void actions()
    {
        SnapshotData data;
        addEntries(
            data, 0,
            {TraceAction::Alloc, TraceAction::FreeRequested, TraceAction::FreeCompleted, TraceAction::Alloc});
        addEntries(data, 2,
                   {TraceAction::SegmentAlloc, TraceAction::Oom, TraceAction::Unknown,
                    TraceAction::SegmentMap, TraceAction::SegmentUnmap, TraceAction::SegmentFree,
                    TraceAction::Snapshot});
        const SnapshotSummary summary = summarizeSnapshot(data);
        QCOMPARE(summary.traceEntryCount, int64_t(11));
        QCOMPARE(summary.entries(TraceAction::Alloc), int64_t(2));
        for (const TraceAction action :
             {TraceAction::FreeRequested, TraceAction::FreeCompleted, TraceAction::SegmentAlloc,
              TraceAction::SegmentFree, TraceAction::SegmentMap, TraceAction::SegmentUnmap,
              TraceAction::Snapshot, TraceAction::Oom, TraceAction::Unknown})
            QCOMPARE(summary.entries(action), int64_t(1));
        QCOMPARE(data.traceEntryCount(), size_t(11));
        QVERIFY(data.devices() == (std::vector<int64_t>{0, 2}));
    }

    // The names PyTorch writes, and back.
    void actionNames()
    {
        for (size_t i = 0; i < kTraceActionCount - 1; ++i)
            QCOMPARE(traceActionFromName(toString(TraceAction(i))), TraceAction(i));
        QCOMPARE(traceActionFromName("free"), TraceAction::Unknown);
        QCOMPARE(std::string_view(toString(TraceAction::SegmentUnmap)), std::string_view("segment_unmap"));
        QCOMPARE(std::string_view(toString(BlockState::ActivePendingFree)),
                 std::string_view("active_pending_free"));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotSummary)
#include "tst_snapshotsummary.moc"
