// "Where it came from" (model/snapshot/SnapshotSites, issue 34): a snapshot's allocations grouped
// by their stack of frames, or by the function of their top frame. The real snapshots' figures are
// what tests/data/snapshot/expected.py (`sites`) computes with Python's pickle.load.

#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/snapshot/SnapshotSites.h"
#include "model/snapshot/SnapshotTimeline.h"
#include "tests/SnapshotFixtures.h"

#include <QTest>

#include <map>
#include <numeric>
#include <string>

using namespace gapscope;

namespace {

// A snapshot made here: frames and stacks, one segment of blocks, one device's trace.
class MadeSnapshot
{
public:
    MadeSnapshot() { m_data.traces.resize(1); }

    uint32_t frame(const char* name, const char* file, int64_t line)
    {
        m_data.frames.frames.push_back(SnapshotFrame{intern(name), intern(file), line});
        return uint32_t(m_data.frames.frames.size() - 1);
    }
    // innermost first, as PyTorch lists them
    FrameStackId stack(std::initializer_list<uint32_t> frames)
    {
        SnapshotFrames& f = m_data.frames;
        f.stackFrames.insert(f.stackFrames.end(), frames.begin(), frames.end());
        f.stackStarts.push_back(uint32_t(f.stackFrames.size()));
        return FrameStackId(f.stackCount() - 1);
    }
    void block(int64_t size, BlockState state, FrameStackId frames)
    {
        if (m_data.segments.empty()) {
            m_data.segments.emplace_back();
            m_data.segments.back().address = 0x100000;
        }
        SnapshotSegment& segment = m_data.segments.back();
        SnapshotBlock b;
        b.address = segment.address + uint64_t(segment.totalSize);
        b.size = size;
        b.requestedSize = size;
        b.state = state;
        b.frames = frames;
        m_data.blocks.push_back(b);
        segment.totalSize += size;
        ++segment.blockCount;
    }
    void entry(TraceAction action, uint64_t address, int64_t size, FrameStackId frames)
    {
        SnapshotTrace& trace = m_data.traces[0];
        trace.actions.push_back(action);
        trace.addresses.push_back(address);
        trace.sizes.push_back(size);
        trace.streams.push_back(0);
        trace.timesUs.push_back(int64_t(trace.actions.size()));
        trace.frameStacks.push_back(frames);
        trace.compileContexts.push_back(0);
        trace.userMetadata.push_back(0);
    }
    SnapshotData& data() { return m_data; }

private:
    // as the loader, one id per text
    SnapshotStringId intern(const char* text)
    {
        const auto [it, added] = m_ids.try_emplace(text, SnapshotStringId(m_data.strings.count()));
        if (added)
            m_data.strings.append(text);
        return it->second;
    }

    SnapshotData m_data;
    std::map<std::string, SnapshotStringId> m_ids;
};

QList<qint64> figures(const SnapshotSite& site)
{
    return {site.bytesAtPeak, site.bytesAtSnapshot, site.allocations, site.largestBytes, site.totalBytes};
}

} // namespace

class TestSnapshotSites : public QObject
{
    Q_OBJECT
private slots:
    // The real snapshots against expected.py's `sites` (by stack) and `sites(..., True)` (by function).
    void realSnapshots_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("byFunction");
        QTest::addColumn<QList<qint64>>("totals"); // peak active bytes, sites, allocations, bytes at snapshot
        QTest::addColumn<QStringList>("names");    // the top three
        QTest::addColumn<QList<qint64>>("top");    // at peak, at snapshot, allocations, largest, total
        const QString functional =
            QStringLiteral("/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py");
        const QString adam =
            QStringLiteral("/opt/torch/.venv/lib/python3.12/site-packages/torch/optim/adam.py");
        QTest::newRow("snapshot, by stack")
            << QStringLiteral("snapshot.pickle") << false << QList<qint64>{990781720, 57, 6874, 278691840}
            << QStringList{QStringLiteral("relu (%1:1723)").arg(functional),
                           QStringLiteral("dropout (%1:1443)").arg(functional),
                           QStringLiteral("_in_projection_packed (%1:5843)").arg(functional)}
            << QList<qint64>{149946368, 0, 76, 37486592, 1723858944};
        QTest::newRow("snapshot, by function")
            << QStringLiteral("snapshot.pickle") << true << QList<qint64>{990781720, 17, 6874, 278691840}
            << QStringList{QStringLiteral("dropout (%1)").arg(functional),
                           QStringLiteral("_in_projection_packed (%1)").arg(functional),
                           QStringLiteral("relu (%1)").arg(functional)}
            << QList<qint64>{203833344, 0, 456, 37486592, 3232235520};
        QTest::newRow("pair, by stack")
            << QStringLiteral("pair/snapshot.pickle.gz") << false
            << QList<qint64>{6460096512, 71, 33525, 6467485696}
            << QStringList{QStringLiteral("scenario_pair (/home/trainer1/tools/gpu_capture/capture.py:300)"),
                           QStringLiteral("_init_group (%1:182)").arg(adam),
                           QStringLiteral("_init_group (%1:178)").arg(adam)}
            << QList<qint64>{6174015488, 6174015488, 46, 134217728, 6174015488};
        QTest::newRow("pair, by function")
            << QStringLiteral("pair/snapshot.pickle.gz") << true
            << QList<qint64>{6460096512, 18, 33525, 6467485696}
            << QStringList{QStringLiteral("scenario_pair (/home/trainer1/tools/gpu_capture/capture.py)"),
                           QStringLiteral("_init_group (%1)").arg(adam),
                           QStringLiteral("at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, "
                                          "c10::DispatchKeySet, c10::ScalarType, "
                                          "std::optional<c10::MemoryFormat>)")}
            << QList<qint64>{6190186496, 6190186496, 523, 134217728, 9221148196};
        // a cut of the real snapshot over two devices (expected.py's `sites` of each device: the
        // peaks, allocations and bytes at the snapshot added; device 1's stacks are all device 0's)
        QTest::newRow("two devices, by stack")
            << QStringLiteral("layouts/two-devices.pickle") << false
            << QList<qint64>{210319616 + 78159872, 24, 33 + 13, 27656192 + 19595264}
            << QStringList{QStringLiteral("_in_projection_packed (%1:5843)").arg(functional),
                           QStringLiteral("relu (%1:1723)").arg(functional),
                           QStringLiteral("dropout (%1:1443)").arg(functional)}
            << QList<qint64>{48955392, 0, 2, 24477696, 48955392};
    }
    void realSnapshots()
    {
        QFETCH(QString, file);
        QFETCH(bool, byFunction);
        QFETCH(QList<qint64>, totals);
        QFETCH(QStringList, names);
        QFETCH(QList<qint64>, top);
        const auto data = test::loadSnapshotFixture(file);
        QVERIFY(data->timelines);
        const SnapshotSites sites =
            buildSnapshotSites(*data, byFunction ? SiteGrouping::Function : SiteGrouping::Stack);
        // each device's own peak, added (one device but in two-devices.pickle)
        int64_t peaks = 0;
        for (const SnapshotTimeline& timeline : *data->timelines)
            peaks += timeline.peakActiveBytes;
        QCOMPARE(sites.peakActiveBytes, peaks);
        const auto sum = [&](auto field) {
            return std::accumulate(sites.sites.begin(), sites.sites.end(), int64_t(0),
                                   [&](int64_t n, const SnapshotSite& s) { return n + s.*field; });
        };
        // every byte live at the peak is some site's; every allocation and allocated block too
        QCOMPARE((QList<qint64>{sum(&SnapshotSite::bytesAtPeak), qint64(sites.sites.size()),
                                sum(&SnapshotSite::allocations), sum(&SnapshotSite::bytesAtSnapshot)}),
                 totals);
        QCOMPARE(sites.allocations, totals[2]);
        QStringList got;
        for (size_t i = 0; i < 3; ++i)
            got << sites.sites[i].name;
        QCOMPARE(got, names);
        QCOMPARE(figures(sites.sites.front()), top);
        // sorted by bytes at the peak; every stack in one site
        size_t stacks = 0;
        for (size_t i = 0; i < sites.sites.size(); ++i) {
            const SnapshotSite& site = sites.sites[i];
            QVERIFY(i == 0 || sites.sites[i - 1].bytesAtPeak >= site.bytesAtPeak);
            QVERIFY(std::is_sorted(site.stacks.begin(), site.stacks.end()));
            QVERIFY(std::find(site.stacks.begin(), site.stacks.end(), site.frames) != site.stacks.end());
            QVERIFY(byFunction || site.stacks.size() == 1);
            QVERIFY(site.largestBytes <= site.totalBytes);
            stacks += site.stacks.size();
        }
        QCOMPARE(stacks, buildSnapshotSites(*data, SiteGrouping::Stack).sites.size());
    }

    // A trace made here: the peak, the snapshot's blocks, the names.
    void madeTrace()
    {
        MadeSnapshot made;
        const uint32_t unwind = made.frame("torch::unwind::unwind()", "??", 0);
        const uint32_t malloc = made.frame("c10::cuda::CUDACachingAllocator::Native::malloc", "", 0);
        const uint32_t empty = made.frame("at::detail::empty_generic", "??", 0);
        const uint32_t forward42 = made.frame("forward", "/work/model.py", 42);
        const uint32_t forward50 = made.frame("forward", "/work/model.py", 50);
        const uint32_t step = made.frame("train_step", "/work/train.py", 7);
        const FrameStackId attention = made.stack({unwind, malloc, empty, forward42, step});
        const FrameStackId mlp = made.stack({unwind, malloc, empty, forward50, step});
        const FrameStackId cpp = made.stack({unwind, malloc, empty});
        const FrameStackId allocatorOnly = made.stack({unwind, malloc});
        // the snapshot: [300 attention][200 cpp][500 free], and a pending free of mlp
        made.block(300, BlockState::ActiveAllocated, attention);
        made.block(200, BlockState::ActiveAllocated, cpp);
        made.block(100, BlockState::ActivePendingFree, mlp);
        made.block(400, BlockState::Inactive, 0);
        const uint64_t base = 0x100000;
        made.entry(TraceAction::FreeCompleted, 0x900000, 64, allocatorOnly); // alloc'd before the trace
        made.entry(TraceAction::Alloc, base + 600, 1000, mlp);               // 1
        made.entry(TraceAction::Alloc, base + 1600, 50, cpp);                // 2
        made.entry(TraceAction::Alloc, base, 300, attention);                // 3: the peak, 1350 + 200
        made.entry(TraceAction::FreeCompleted, base + 600, 1000, mlp);       // 4
        made.entry(TraceAction::FreeCompleted, base + 1600, 50, cpp);        // 5
        made.entry(TraceAction::Alloc, base + 600, 100, mlp);                // 6
        made.entry(TraceAction::FreeCompleted, base + 600, 100, mlp);        // 7
        made.entry(TraceAction::Alloc, base + 300, 200, 0);                  // 8: no stack recorded
        const SnapshotData& data = made.data();
        const SnapshotTimeline timeline = buildSnapshotTimeline(data, 0);
        QCOMPARE(timeline.peakEntry, 3u);
        QCOMPARE(timeline.peakActiveBytes, int64_t(1350));

        const SnapshotSites sites = buildSnapshotSites(data, {timeline}, SiteGrouping::Stack);
        QCOMPARE(sites.peakActiveBytes, int64_t(1350));
        QCOMPARE(sites.allocations, int64_t(6));
        QCOMPARE(sites.sites.size(), size_t(5));
        QStringList names;
        for (const SnapshotSite& site : sites.sites)
            names << site.name;
        QCOMPARE(names, (QStringList{QStringLiteral("forward (/work/model.py:50)"),
                                     QStringLiteral("forward (/work/model.py:42)"),
                                     QStringLiteral("at::detail::empty_generic"),
                                     QStringLiteral("(no stack recorded)"),
                                     QStringLiteral("(allocator frames only)")}));
        QCOMPARE(figures(sites.sites[0]), (QList<qint64>{1000, 0, 2, 1000, 1100}));
        QCOMPARE(sites.sites[0].stacks, std::vector<FrameStackId>{mlp});
        QCOMPARE(figures(sites.sites[1]), (QList<qint64>{300, 300, 1, 300, 300}));
        QCOMPARE(sites.sites[1].blocksAtSnapshot, int64_t(1));
        // the block of 200 is the allocation at base + 300 whose stack was not recorded: it
        // counts where its block says, as the segment map draws it
        QCOMPARE(figures(sites.sites[2]), (QList<qint64>{50, 200, 1, 50, 50}));
        QCOMPARE(figures(sites.sites[3]), (QList<qint64>{0, 0, 1, 200, 200}));
        QCOMPARE(figures(sites.sites[4]), (QList<qint64>{0, 0, 1, 64, 64}));

        // by function: the two lines of forward are one site, named after the one with more at the peak
        const SnapshotSites functions = buildSnapshotSites(data, {timeline}, SiteGrouping::Function);
        QCOMPARE(functions.sites.size(), size_t(4));
        QCOMPARE(functions.sites[0].name, QStringLiteral("forward (/work/model.py)"));
        QCOMPARE(figures(functions.sites[0]), (QList<qint64>{1300, 300, 3, 1000, 1400}));
        QCOMPARE(functions.sites[0].stacks, (std::vector<FrameStackId>{attention, mlp}));
        QCOMPARE(functions.sites[0].frames, mlp);
        QCOMPARE(siteName(data, cpp, SiteGrouping::Function), QStringLiteral("at::detail::empty_generic"));
        // a table's narrow column: the file's last two components
        QCOMPARE(siteName(data, attention, SiteGrouping::Stack, SiteFileName::Tail),
                 QStringLiteral("forward (work/model.py:42)"));
        QCOMPARE(siteName(data, attention, SiteGrouping::Function, SiteFileName::Tail),
                 QStringLiteral("forward (work/model.py)"));
        QCOMPARE(siteName(data, cpp, SiteGrouping::Stack, SiteFileName::Tail),
                 QStringLiteral("at::detail::empty_generic"));
    }

    // No trace (a snapshot taken with context="state"): the allocated blocks are the allocations,
    // live all along at their requested size.
    void blocksWithoutTrace()
    {
        MadeSnapshot made;
        const uint32_t forward = made.frame("forward", "/work/model.py", 42);
        const FrameStackId stack = made.stack({forward});
        made.block(512, BlockState::ActiveAllocated, stack);
        made.block(512, BlockState::ActiveAllocated, stack);
        made.block(1024, BlockState::Inactive, 0);
        made.data().blocks[1].requestedSize = 500;
        made.data().traces.clear();
        const SnapshotSites sites = buildSnapshotSites(made.data(), SiteGrouping::Stack);
        QCOMPARE(sites.sites.size(), size_t(1));
        QCOMPARE(figures(sites.sites[0]), (QList<qint64>{1012, 1024, 2, 512, 1012}));
        QCOMPARE(sites.peakActiveBytes, int64_t(1012));
        QCOMPARE(sites.sites[0].blocksAtSnapshot, int64_t(2));

        // nothing at all
        const SnapshotSites none = buildSnapshotSites(SnapshotData{}, SiteGrouping::Function);
        QVERIFY(none.sites.empty());
        QCOMPARE(none.peakActiveBytes, int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotSites)
#include "tst_snapshotsites.moc"
