// The rows of the snapshot page's segment map (model/snapshot/SnapshotSegmentMap): groups by
// stream and pool, the two orders, the block under an offset, a block's top frames; and the
// fragmentation findings (model/snapshot/SnapshotFragmentation) on the real snapshot (none: its
// inactive split bytes are 2.2 % of reserved, as memory_stats says) and on a fragmented one.

#include "model/snapshot/SnapshotFragmentation.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/snapshot/SnapshotSummary.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gapscope;

namespace {

std::shared_ptr<const SnapshotData> load(const QString& name)
{
    const SnapshotLoadOutcome loaded =
        loadSnapshotFile(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/") + name);
    if (!loaded.data)
        qWarning("%s", qPrintable(loaded.fatalError));
    return loaded.data;
}

constexpr int64_t MiB = 1 << 20;

} // namespace

class TestSnapshotSegmentMap : public QObject
{
    Q_OBJECT

private slots:
    void layoutCountsEverySegmentOnce_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("order");
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("segments");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<qint64>("largest");
        for (const int order : {int(SegmentOrder::Address), int(SegmentOrder::Size)}) {
            const QByteArray suffix = order == int(SegmentOrder::Address) ? " by address" : " by size";
            QTest::newRow("snapshot.pickle" + suffix)
                << "snapshot.pickle" << order << 1 << 74 << 262 << qint64(75497472);
            QTest::newRow("pair/snapshot.pickle.gz" + suffix)
                << "pair/snapshot.pickle.gz" << order << 1 << 78 << 270 << qint64(-1);
            QTest::newRow("fragmented" + suffix)
                << "layouts/fragmented.pickle" << order << 2 << 3 << 10 << qint64(512 * MiB);
            QTest::newRow("two devices" + suffix)
                << "layouts/two-devices.pickle" << order << -1 << -1 << -1 << qint64(-1);
        }
    }

    void layoutCountsEverySegmentOnce()
    {
        QFETCH(QString, file);
        QFETCH(int, order);
        QFETCH(int, groups);
        QFETCH(int, segments);
        QFETCH(int, blocks);
        QFETCH(qint64, largest);
        const auto data = load(file);
        QVERIFY(data);
        const SegmentMapLayout layout = layoutSegmentMap(*data, SegmentOrder(order));
        if (groups >= 0)
            QCOMPARE(int(layout.groups.size()), groups);
        if (segments >= 0)
            QCOMPARE(int(layout.rows.size()), segments);
        if (blocks >= 0)
            QCOMPARE(int(layout.blockCount), blocks);
        if (largest >= 0)
            QCOMPARE(layout.largestSegmentBytes, largest);
        // every segment once, every group contiguous and in (device, stream, pool) order
        QCOMPARE(layout.rows.size(), data->segments.size());
        std::vector<int> seen(data->segments.size());
        for (const uint32_t row : layout.rows)
            ++seen[row];
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
        QCOMPARE(layout.blockCount, data->blocks.size());
        uint32_t next = 0;
        int64_t reserved = 0;
        for (size_t g = 0; g < layout.groups.size(); ++g) {
            const SegmentMapGroup& group = layout.groups[g];
            QCOMPARE(group.firstRow, next);
            QVERIFY(group.rowCount > 0);
            next += group.rowCount;
            reserved += group.reservedBytes;
            if (g > 0) {
                const SegmentMapGroup& before = layout.groups[g - 1];
                QVERIFY(std::tie(before.device, before.stream, before.pool) <
                        std::tie(group.device, group.stream, group.pool));
            }
            for (uint32_t r = group.firstRow + 1; r < group.firstRow + group.rowCount; ++r) {
                const SnapshotSegment& a = data->segments[layout.rows[r - 1]];
                const SnapshotSegment& b = data->segments[layout.rows[r]];
                QCOMPARE(b.device, group.device);
                QCOMPARE(b.stream, group.stream);
                if (SegmentOrder(order) == SegmentOrder::Address)
                    QVERIFY(a.address < b.address);
                else
                    QVERIFY(a.totalSize > b.totalSize ||
                            (a.totalSize == b.totalSize && a.address < b.address));
            }
        }
        QCOMPARE(size_t(next), layout.rows.size());
        QCOMPARE(reserved, summarizeSnapshot(*data).totals.reservedBytes);
    }

    void blockAtOffsetFindsTheBlock()
    {
        const auto data = load(QStringLiteral("layouts/fragmented.pickle"));
        QVERIFY(data);
        // the segment at the lowest address: [active 64 MiB, inactive 200, active 48, inactive 200]
        const SegmentMapLayout layout = layoutSegmentMap(*data, SegmentOrder::Address);
        const uint32_t s = layout.rows.front();
        const SnapshotSegment& segment = data->segments[s];
        QCOMPARE(segment.totalSize, 512 * MiB);
        const auto stateAt = [&](int64_t offset) -> std::optional<BlockState> {
            const auto block = blockAtOffset(*data, s, offset);
            if (!block)
                return std::nullopt;
            return data->blocks[*block].state;
        };
        QVERIFY(stateAt(0) == BlockState::ActiveAllocated);
        QVERIFY(stateAt(64 * MiB - 1) == BlockState::ActiveAllocated);
        QVERIFY(stateAt(64 * MiB) == BlockState::Inactive);
        QVERIFY(stateAt(264 * MiB) == BlockState::ActiveAllocated);
        QVERIFY(stateAt(512 * MiB - 1) == BlockState::Inactive);
        QVERIFY(stateAt(512 * MiB) == std::nullopt);
        QVERIFY(stateAt(-1) == std::nullopt);
        QVERIFY(blockAtOffset(*data, uint32_t(data->segments.size()), 0) == std::nullopt);
    }

    void topFramesArePythonFirst()
    {
        const auto data = load(QStringLiteral("layouts/fragmented.pickle"));
        QVERIFY(data);
        const SegmentMapLayout layout = layoutSegmentMap(*data, SegmentOrder::Address);
        const SnapshotBlock& first = data->blocks[*blockAtOffset(*data, layout.rows.front(), 0)];
        // PyTorch's order is C++ innermost first; the allocator's own frames are left out
        QCOMPARE(blockTopFrames(*data, first, 8),
                 (QStringList{QStringLiteral("forward (/work/model.py:42)"),
                              QStringLiteral("train_step (/work/train.py:7)")}));
        QCOMPARE(blockTopFrames(*data, first, 1), QStringList{QStringLiteral("forward (/work/model.py:42)")});
        const QString tooltip = blockDescription(*data, uint32_t(&first - data->blocks.data()));
        QVERIFY2(
            tooltip.startsWith(QStringLiteral("64.00 MiB block, active_allocated\nrequested 64.00 MiB\n")),
            qPrintable(tooltip));
        QVERIFY2(tooltip.contains(QStringLiteral("allocated at:\n  forward (/work/model.py:42)")),
                 qPrintable(tooltip));
        // a free block has no stack
        const SnapshotBlock& free = data->blocks[*blockAtOffset(*data, layout.rows.front(), 64 * MiB)];
        QVERIFY(blockTopFrames(*data, free, 8).isEmpty());
        QVERIFY(blockDescription(*data, uint32_t(&free - data->blocks.data()))
                    .endsWith(QStringLiteral("no stack recorded")));

        // the real snapshot: its C++ frames (no Python frame was recorded there) after the allocator's
        const auto real = load(QStringLiteral("snapshot.pickle"));
        QVERIFY(real);
        const auto active =
            std::find_if(real->blocks.begin(), real->blocks.end(),
                         [](const SnapshotBlock& b) { return b.state == BlockState::ActiveAllocated; });
        QVERIFY(active != real->blocks.end());
        const QStringList frames = blockTopFrames(*real, *active, 3);
        QCOMPARE(frames.size(), 3);
        for (const QString& frame : frames)
            QVERIFY2(!frame.startsWith(QStringLiteral("c10::cuda::CUDACachingAllocator")), qPrintable(frame));
    }

    void groupTitles()
    {
        SegmentMapGroup group;
        group.stream = 7;
        group.pool = {1, 2};
        group.device = 1;
        QCOMPARE(segmentGroupTitle(group, false), QStringLiteral("stream 7 · pool (1, 2)"));
        QCOMPARE(segmentGroupTitle(group, true), QStringLiteral("device 1 · stream 7 · pool (1, 2)"));
        group.pool = {};
        QCOMPARE(segmentGroupTitle(group, false), QStringLiteral("stream 7 · default pool"));
    }

    // The real snapshots' inactive split bytes are memory_stats' own; a few percent of reserved:
    // no finding. The fragmented layout: one Warning, for its default pool only.
    void fragmentation_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("memoryStats"); // its inactive_split_bytes.all.current, or ""
        QTest::addColumn<int>("findings");
        QTest::newRow("snapshot.pickle") << "snapshot.pickle"
                                         << "memory_stats.json" << 0;
        QTest::newRow("pair") << "pair/snapshot.pickle.gz"
                              << "pair/memory_stats.json" << 0;
        QTest::newRow("fragmented") << "layouts/fragmented.pickle"
                                    << "" << 1;
    }

    void fragmentation()
    {
        QFETCH(QString, file);
        QFETCH(QString, memoryStats);
        QFETCH(int, findings);
        const auto data = load(file);
        QVERIFY(data);
        int64_t split = 0;
        for (const PoolFragmentation& pool : poolFragmentation(*data))
            split += pool.inactiveSplitBytes;
        QCOMPARE(split, summarizeSnapshot(*data).totals.inactiveSplitBytes);
        if (!memoryStats.isEmpty()) {
            QFile stats(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/") + memoryStats);
            QVERIFY(stats.open(QIODevice::ReadOnly));
            const QJsonObject counters = QJsonDocument::fromJson(stats.readAll()).object();
            QCOMPARE(split, counters.value(QStringLiteral("inactive_split_bytes.all.current")).toInteger());
        }
        const std::vector<Finding> found = snapshotFragmentationFindings(*data);
        QCOMPARE(int(found.size()), findings);
        if (findings == 0)
            return;
        const Finding& f = found.front();
        QVERIFY(f.classification == Classification::AllocatorFragmentation);
        QVERIFY(f.severity == Severity::Warning);
        QCOMPARE(f.findEvidence("inactive_split_bytes")->value, double(800 * MiB));
        QCOMPARE(f.findEvidence("reserved_bytes")->value, double(1024 * MiB));
        QCOMPARE(f.findEvidence("largest_free_block_bytes")->value, double(200 * MiB));
        QCOMPARE(f.findEvidence("split_segments")->value, 2.0);
        QVERIFY2(f.description.find(
                     "device 0, stream 0, default pool: 800.00 MiB of the 1.00 GiB reserved (78.1 %)") == 0,
                 f.description.c_str());
        QVERIFY2(f.description.find("expandable_segments=False") != std::string::npos, f.description.c_str());
        std::string remediation;
        for (const std::string& step : f.remediation)
            remediation += step + "\n";
        for (const char* named : {"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "max_split_size_mb",
                                  "garbage_collection_threshold", "max_split_size=-1"})
            QVERIFY2(remediation.find(named) != std::string::npos, named);

        // below either bar: none (the floor, then the share)
        SnapshotFragmentationRule rule;
        rule.minSplitBytes = 801 * MiB;
        QVERIFY(snapshotFragmentationFindings(*data, rule).empty());
        rule = {};
        rule.minSplitShare = 0.79;
        QVERIFY(snapshotFragmentationFindings(*data, rule).empty());
        rule = {};
        rule.warningSplitShare = 0.8;
        QVERIFY(snapshotFragmentationFindings(*data, rule).front().severity == Severity::Info);
    }
};

QTEST_GUILESS_MAIN(TestSnapshotSegmentMap)
#include "tst_snapshotsegmentmap.moc"
