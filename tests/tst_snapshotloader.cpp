// PyTorch memory snapshots loaded (model/snapshot/SnapshotLoader, issue 34): the two real snapshots
// of tests/data/snapshot (PyTorch 2.11 on an H200) give the totals Python's pickle.load gives
// (tests/data/snapshot/expected.py) and the allocator's own counters (memory_stats.json, taken
// right after the dump); the layouts of older and newer versions (block history, no traces, keys
// no version wrote, two devices) load; a record that cannot be used is a problem and the rest
// loads; a hostile or broken file is refused with its offset and reason, nothing run.

#include "model/snapshot/SnapshotLoader.h"
#include "model/snapshot/SnapshotSummary.h"
#include "tests/SnapshotFixtures.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <atomic>
#include <numeric>

using namespace gapscope;

namespace {

const QString& kData = test::kSnapshotData;

QByteArray readData(const QString& relative)
{
    return test::readSnapshotData(relative);
}

std::shared_ptr<const SnapshotData> load(const QString& relative)
{
    const SnapshotLoadOutcome outcome = loadSnapshotFile(kData + relative);
    if (!outcome.data)
        qWarning("%s", qPrintable(outcome.fatalError));
    return outcome.data;
}

// A stack as text, frame by frame ("name|filename|line;..."): what compares across loads.
QString stackText(const SnapshotData& data, FrameStackId id)
{
    QStringList frames;
    for (const uint32_t index : data.frames.stack(id)) {
        const SnapshotFrame& frame = data.frames.frame(index);
        frames << QStringLiteral("%1|%2|%3")
                      .arg(data.strings.text(frame.name), data.strings.text(frame.filename))
                      .arg(frame.line);
    }
    return frames.join(QLatin1Char(';'));
}

// Two loads of the same snapshot in different forms hold the same data (ids may differ; text and
// numbers may not).
void compareData(const SnapshotData& a, const SnapshotData& b)
{
    QCOMPARE(a.segments.size(), b.segments.size());
    QCOMPARE(a.blocks.size(), b.blocks.size());
    for (size_t i = 0; i < a.segments.size(); ++i) {
        QCOMPARE(a.segments[i].address, b.segments[i].address);
        QCOMPARE(a.segments[i].totalSize, b.segments[i].totalSize);
        QCOMPARE(a.segments[i].blockCount, b.segments[i].blockCount);
        QCOMPARE(stackText(a, a.segments[i].frames), stackText(b, b.segments[i].frames));
    }
    for (size_t i = 0; i < a.blocks.size(); ++i) {
        QCOMPARE(a.blocks[i].address, b.blocks[i].address);
        QCOMPARE(a.blocks[i].size, b.blocks[i].size);
        QCOMPARE(a.blocks[i].requestedSize, b.blocks[i].requestedSize);
        QCOMPARE(a.blocks[i].state, b.blocks[i].state);
        QCOMPARE(stackText(a, a.blocks[i].frames), stackText(b, b.blocks[i].frames));
    }
    QCOMPARE(a.traces.size(), b.traces.size());
    for (size_t t = 0; t < a.traces.size(); ++t) {
        const SnapshotTrace& x = a.traces[t];
        const SnapshotTrace& y = b.traces[t];
        QCOMPARE(x.actions, y.actions);
        QCOMPARE(x.addresses, y.addresses);
        QCOMPARE(x.sizes, y.sizes);
        QCOMPARE(x.streams, y.streams);
        QCOMPARE(x.timesUs, y.timesUs);
        for (size_t i = 0; i < x.count(); ++i)
            QCOMPARE(stackText(a, x.frameStacks[i]), stackText(b, y.frameStacks[i]));
    }
    QCOMPARE(a.frames.stackCount(), b.frames.stackCount());
    QCOMPARE(a.frames.frames.size(), b.frames.frames.size());
}

} // namespace

class TestSnapshotLoader : public QObject
{
    Q_OBJECT
private slots:
    // The totals of the real snapshots: what expected.py computes with Python's pickle.load, and
    // the allocator's own counters of the same moment.
    void realSnapshots_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QList<qint64>>("totals");  // segments, blocks, reserved, allocated, active,
                                                    // requested, inactive split, largest free
        QTest::addColumn<QList<qint64>>("actions"); // entries per TraceAction
        QTest::addColumn<qint64>("stacks");
        QTest::addColumn<qint64>("frames");
        QTest::newRow("snapshot.pickle")
            << "snapshot.pickle"
            << QList<qint64>{74, 262, 1715470336, 278691840, 278691840, 274432000, 37978112, 75497472}
            << QList<qint64>{6631, 6678, 6678, 13, 0, 0, 0, 0, 0, 0} << qint64(84) << qint64(405);
        QTest::newRow("pair/snapshot.pickle.gz")
            << "pair/snapshot.pickle.gz"
            << QList<qint64>{78, 270, 6643777536, 6467485696, 6467485696, 6460096512, 176291840, 16171008}
            << QList<qint64>{33312, 33283, 33283, 41, 80, 0, 0, 0, 1, 0} << qint64(85) << qint64(407);
    }
    void realSnapshots()
    {
        QFETCH(QString, path);
        QFETCH(QList<qint64>, totals);
        QFETCH(QList<qint64>, actions);
        QFETCH(qint64, stacks);
        QFETCH(qint64, frames);
        const auto data = load(path);
        QVERIFY(data);
        QCOMPARE(data->problems.errorCount() + data->problems.warningCount(), qint64(0));
        QVERIFY(data->ignoredKeys.isEmpty());
        const SnapshotSummary summary = summarizeSnapshot(*data);
        const SnapshotTotals& t = summary.totals;
        QCOMPARE(
            (QList<qint64>{t.segmentCount, t.blockCount, t.reservedBytes, t.allocatedBytes, t.activeBytes,
                           t.requestedBytes, t.inactiveSplitBytes, t.largestFreeBlockBytes}),
            totals);
        QList<qint64> byAction;
        for (const int64_t n : summary.traceEntriesByAction)
            byAction << n;
        QCOMPARE(byAction, actions);
        QCOMPARE(summary.traceEntryCount, std::accumulate(actions.begin(), actions.end(), qint64(0)));
        QCOMPARE(summary.frameStackCount, stacks);
        QCOMPARE(qint64(data->frames.frames.size()), frames);
        QCOMPARE(summary.pools.size(), size_t(1));
        QCOMPARE(summary.pools[0].pool, SegmentPoolId{});
        QCOMPARE(summary.pools[0].segments, t.segmentCount);
        QCOMPARE(summary.streams.size(), size_t(1));
        QCOMPARE(summary.streams[0].stream, int64_t(0));
        QCOMPARE(data->devices(), std::vector<int64_t>{0});

        // the allocator's own counters: each equal (torch.cuda.memory_stats() right after the dump)
        QFile statsFile(kData + QFileInfo(path).path() + QStringLiteral("/memory_stats.json"));
        QVERIFY(statsFile.open(QIODevice::ReadOnly));
        const QJsonObject stats = QJsonDocument::fromJson(statsFile.readAll()).object();
        const auto stat = [&](const char* name) {
            return stats.value(QLatin1StringView(name)).toInteger(-1);
        };
        QCOMPARE(t.reservedBytes, stat("reserved_bytes.all.current"));
        QCOMPARE(t.allocatedBytes, stat("allocated_bytes.all.current"));
        QCOMPARE(t.activeBytes, stat("active_bytes.all.current"));
        QCOMPARE(t.requestedBytes, stat("requested_bytes.all.current"));
        QCOMPARE(t.inactiveSplitBytes, stat("inactive_split_bytes.all.current"));
        QCOMPARE(t.segmentCount, stat("segment.all.current"));
        QCOMPARE(t.blocksByState[size_t(BlockState::ActiveAllocated)], stat("allocation.all.current"));
        QCOMPARE(t.blocksByState[size_t(BlockState::ActiveAllocated)], stat("active.all.current"));
        // allocated = active: nothing was waiting for a stream when the snapshots were taken
        QCOMPARE(t.blocksByState[size_t(BlockState::ActivePendingFree)], qint64(0));

        // each segment's own counters agree with its blocks
        for (const SnapshotSegment& segment : data->segments) {
            int64_t blocks = 0, allocated = 0, requested = 0;
            uint64_t next = segment.address;
            for (const SnapshotBlock& block : data->blocksOf(segment)) {
                blocks += block.size;
                QCOMPARE(block.address, next);
                next += uint64_t(block.size);
                if (block.state == BlockState::ActiveAllocated) {
                    allocated += block.size;
                    requested += block.requestedSize;
                }
            }
            QCOMPARE(blocks, segment.totalSize);
            QCOMPARE(allocated, segment.allocatedSize);
            QCOMPARE(requested, segment.requestedSize);
        }
    }

    // What Python says of single entries of the real snapshots: the first entry's stack (30
    // frames, C++ then Python), the pair's segment_free entries and its one oom.
    void realEntries()
    {
        const auto data = load(QStringLiteral("snapshot.pickle"));
        QVERIFY(data);
        const SnapshotTrace& trace = data->traces.at(0);
        QCOMPARE(trace.actions[0], TraceAction::FreeRequested);
        QCOMPARE(trace.addresses[0], uint64_t(140428351357952));
        QCOMPARE(trace.sizes[0], int64_t(2048));
        QCOMPARE(trace.timesUs[0], int64_t(1796404932551367));
        QCOMPARE(data->strings.text(trace.compileContexts[0]), QStringLiteral("N/A"));
        QCOMPARE(data->strings.text(trace.userMetadata[0]), QString());
        const auto stack = data->frames.stack(trace.frameStacks[0]);
        QCOMPARE(stack.size(), size_t(30));
        const SnapshotFrame& innermost = data->frames.frame(stack.front());
        QCOMPARE(data->strings.text(innermost.name), QStringLiteral("torch::unwind::unwind()"));
        QCOMPARE(data->strings.text(innermost.filename), QStringLiteral("??"));
        const SnapshotFrame& outermost = data->frames.frame(stack.back());
        QCOMPARE(data->strings.text(outermost.name), QStringLiteral("<module>"));
        QCOMPARE(data->strings.text(outermost.filename),
                 QStringLiteral("/home/trainer1/tools/gpu_capture/capture.py"));
        QCOMPARE(outermost.line, int64_t(262));
        // segment 31's first block: allocated, with its stack
        const SnapshotBlock& block = data->blocksOf(data->segments.at(31)).front();
        QCOMPARE(block.address, uint64_t(140427042750464));
        QCOMPARE(block.state, BlockState::ActiveAllocated);
        QCOMPARE(data->frames.stack(block.frames).size(), size_t(29));
        QCOMPARE(data->segments.at(31).type, SegmentType::Large);
        QCOMPARE(data->strings.text(data->segments.at(31).typeName), QStringLiteral("large"));
        // equal stacks are one id: every entry's stack is one of the 84
        for (const FrameStackId id : trace.frameStacks)
            QVERIFY(id < data->frames.stackCount());
        QCOMPARE(data->annotations.size(), size_t(96));
        QCOMPARE(data->strings.text(data->annotations[0].name),
                 QStringLiteral("Optimizer.zero_grad#Adam.zero_grad"));
        QCOMPARE(data->annotations[0].timeUs, int64_t(1796404931946669));
        QCOMPARE(data->allocatorSettings.size(), size_t(9));
        QCOMPARE(data->allocatorSettings[1],
                 (SnapshotSetting{QStringLiteral("max_split_size"), QStringLiteral("-1")}));
        QCOMPARE(data->allocatorSettings[2],
                 (SnapshotSetting{QStringLiteral("garbage_collection_threshold"), QStringLiteral("0.0")}));
        QCOMPARE(data->allocatorSettings[3],
                 (SnapshotSetting{QStringLiteral("expandable_segments"), QStringLiteral("False")}));
        QVERIFY(data->allocatorSettings[8].value.startsWith(QStringLiteral("{'1': 0, '2': 0,")));

        const auto pair = load(QStringLiteral("pair/snapshot.pickle.gz"));
        QVERIFY(pair);
        QVERIFY(pair->compressed);
        QCOMPARE(pair->inputBytes, qint64(945497));
        QCOMPARE(pair->pickleBytes, qint64(17021364));
        const SnapshotTrace& last = pair->traces.at(0);
        QCOMPARE(last.count(), size_t(100000));
        QCOMPARE(last.actions[99853], TraceAction::SegmentFree);
        QCOMPARE(last.addresses[99853], uint64_t(139950334935040));
        QCOMPARE(last.sizes[99853], int64_t(12582912));
        QCOMPARE(last.timesUs[99853], int64_t(1796407784007989));
        QCOMPARE(last.actions[99999], TraceAction::Oom);
        QCOMPARE(last.addresses[99999], uint64_t(0)); // an oom entry has device_free, not addr
        QCOMPARE(last.sizes[99999], int64_t(134217728));
        QCOMPARE(last.timesUs[99999], int64_t(1796407784020264));
        QCOMPARE(last.deviceFreeAt(99999), std::optional<int64_t>(142678818816));
        QCOMPARE(last.deviceFreeAt(99853), std::optional<int64_t>());
        QCOMPARE(last.deviceFree.size(), size_t(1));
        QCOMPARE(pair->frames.stack(last.frameStacks[99999]).size(), size_t(31));
    }

    // The layouts of make_pickles.py: each loads, with these totals (expected.py prints them).
    void layouts_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QList<qint64>>("totals"); // segments, blocks, reserved, allocated, active,
                                                   // requested, inactive split, largest free, entries
        QTest::addColumn<qint64>("stacks");
        const QList<qint64> small{3, 11, 117440512, 27656192, 27656192, 26542080, 14286848, 75497472, 40};
        QList<qint64> noEntries = small;
        noEntries.back() = 0;
        QTest::newRow("protocol 2") << "layouts/small-p2.pickle" << small << qint64(30);
        QTest::newRow("protocol 4") << "layouts/small-p4.pickle" << small << qint64(30);
        QTest::newRow("protocol 5") << "layouts/small-p5.pickle" << small << qint64(30);
        QTest::newRow("gzip") << "layouts/small.pickle.gz" << small << qint64(30);
        QTest::newRow("unknown keys") << "layouts/unknown-keys.pickle" << small << qint64(30);
        QTest::newRow("block history (before 2.1)") << "layouts/history.pickle" << small << qint64(30);
        QTest::newRow("no device_traces") << "layouts/no-traces.pickle" << noEntries << qint64(3);
        QTest::newRow("empty device_traces") << "layouts/empty-traces.pickle" << noEntries << qint64(3);
        QTest::newRow("a list of segments (1.13)")
            << "layouts/segments-list.pickle" << noEntries << qint64(3);
        QTest::newRow("two devices") << "layouts/two-devices.pickle"
                                     << QList<qint64>{5,        18,       213909504, 47251456, 47251456,
                                                      45416448, 15663104, 75497472,  50}
                                     << qint64(30);
    }
    void layouts()
    {
        QFETCH(QString, path);
        QFETCH(QList<qint64>, totals);
        QFETCH(qint64, stacks);
        const auto data = load(path);
        QVERIFY(data);
        QCOMPARE(data->problems.errorCount(), qint64(0));
        const SnapshotSummary summary = summarizeSnapshot(*data);
        const SnapshotTotals& t = summary.totals;
        QCOMPARE((QList<qint64>{t.segmentCount, t.blockCount, t.reservedBytes, t.allocatedBytes,
                                t.activeBytes, t.requestedBytes, t.inactiveSplitBytes,
                                t.largestFreeBlockBytes, summary.traceEntryCount}),
                 totals);
        QCOMPARE(summary.frameStackCount, stacks);
    }

    // The same snapshot at protocols 2, 4 and 5, gzip-compressed, with keys no version wrote, or
    // in the layout before 2.1 (where it has the fields): the same data.
    void formsAgree()
    {
        const auto p4 = load(QStringLiteral("layouts/small-p4.pickle"));
        QVERIFY(p4);
        for (const char* other : {"layouts/small-p2.pickle", "layouts/small-p5.pickle",
                                  "layouts/small.pickle.gz", "layouts/unknown-keys.pickle"}) {
            const auto data = load(QString::fromLatin1(other));
            QVERIFY2(data, other);
            compareData(*p4, *data);
            if (QTest::currentTestFailed())
                QFAIL(other);
            if (data->ignoredKeys.isEmpty())
                QCOMPARE(data->allocatorSettings, p4->allocatorSettings);
        }
        // history: the blocks' address, requested size and frames from history[0] (their latest
        // entry); the segments without pool or frames, the entries without time_us
        const auto history = load(QStringLiteral("layouts/history.pickle"));
        QVERIFY(history);
        QCOMPARE(history->blocks.size(), p4->blocks.size());
        for (size_t i = 0; i < p4->blocks.size(); ++i) {
            QCOMPARE(history->blocks[i].address, p4->blocks[i].address);
            if (p4->blocks[i].state != BlockState::Inactive) // a free block's requested_size is stale
                QCOMPARE(history->blocks[i].requestedSize, p4->blocks[i].requestedSize);
            QCOMPARE(stackText(*history, history->blocks[i].frames), stackText(*p4, p4->blocks[i].frames));
        }
        const SnapshotTrace& trace = history->traces.at(0);
        QCOMPARE(trace.count(), size_t(40));
        QCOMPARE(trace.timesUs[0], SnapshotTrace::kNoTime);
        QCOMPARE(trace.addresses, p4->traces.at(0).addresses);
        QCOMPARE(history->segments[0].frames, FrameStackId(0));
    }

    // Keys a version adds are read past and named; the rest of the record is read.
    void unknownKeysAreIgnored()
    {
        const auto data = load(QStringLiteral("layouts/unknown-keys.pickle"));
        QVERIFY(data);
        QCOMPARE(data->problems.warningCount() + data->problems.errorCount(), qint64(0));
        QStringList ignored = data->ignoredKeys;
        ignored.sort();
        QCOMPARE(ignored,
                 (QStringList{"device_traces[][].new_entry_field", "frames[].column", "future_top_level",
                              "segments[].blocks[].new_block_field", "segments[].new_segment_field"}));
        QCOMPARE(data->allocatorSettings.back(),
                 (SnapshotSetting{QStringLiteral("new_setting"), QStringLiteral("3")}));
    }

    void noTracesAndTwoDevices()
    {
        const auto none = load(QStringLiteral("layouts/no-traces.pickle"));
        QVERIFY(none);
        QVERIFY(none->traces.empty());
        QCOMPARE(none->traceEntryCount(), size_t(0));
        const auto empty = load(QStringLiteral("layouts/empty-traces.pickle"));
        QVERIFY(empty);
        QCOMPARE(empty->traces.size(), size_t(1));
        QCOMPARE(empty->traces[0].count(), size_t(0));
        QVERIFY(empty->allocatorSettings.empty());

        const auto two = load(QStringLiteral("layouts/two-devices.pickle"));
        QVERIFY(two);
        QCOMPARE(two->devices(), (std::vector<int64_t>{0, 1}));
        QCOMPARE(two->traces.size(), size_t(2));
        QCOMPARE(two->traces[1].device, int64_t(1));
        QCOMPARE(two->traces[1].count(), size_t(10));
        const SnapshotSummary summary = summarizeSnapshot(*two);
        QCOMPARE(summary.devices.size(), size_t(2));
        QCOMPARE(summary.devices[0].device, int64_t(0));
        QCOMPARE(summary.devices[0].totals.segmentCount, int64_t(3));
        QCOMPARE(summary.devices[1].device, int64_t(1));
        QCOMPARE(summary.devices[1].totals.segmentCount, int64_t(2));
        QCOMPARE(summary.devices[0].totals.reservedBytes + summary.devices[1].totals.reservedBytes,
                 summary.totals.reservedBytes);
    }

    // Records that cannot be used are problems with their place; the rest loads; an action no
    // PyTorch wrote is kept with its name; an address of 2^64 - 1 is one, 2^64 is not.
    void badRecordsAreProblems()
    {
        const auto data = load(QStringLiteral("layouts/bad-fields.pickle"));
        QVERIFY(data);
        QStringList reasons;
        for (const LoadProblem& problem : data->problems.kept())
            reasons << problem.reason;
        QCOMPARE(reasons,
                 (QStringList{
                     "segments[1]: 'total_size' is a str, not an int, segment left out",
                     "segments[2]: an int, not a dict, segment left out",
                     "segments[3]: no 'address', segment left out",
                     "device_traces[0][1]: no 'action', entry left out",
                     "device_traces[0][2]: 'size' is negative (-5), entry left out",
                     "device_traces[0][4]: a str, not a dict, entry left out",
                     "device_traces[0][6]: 'addr' is an int too large for 64 bits (18446744073709551616), "
                     "not an address, entry left out",
                 }));
        QCOMPARE(data->problems.kept()[1].index, qint64(2));
        QCOMPARE(data->segments.size(), size_t(1));
        const SnapshotTrace& trace = data->traces.at(0);
        QCOMPARE(trace.count(), size_t(3));
        QCOMPARE(trace.actions[1], TraceAction::Unknown);
        QCOMPARE(trace.actionName(1, data->strings), std::string_view("future_action"));
        QCOMPARE(trace.actionName(0, data->strings), std::string_view(toString(trace.actions[0])));
        QCOMPARE(trace.addresses[2], std::numeric_limits<uint64_t>::max());
        QCOMPARE(summarizeSnapshot(*data).entries(TraceAction::Unknown), int64_t(1));
    }

    // What a hostile file could make unbounded stays bounded: the allocator settings read (the
    // first 1024, the rest a problem) and the unknown keys named (the first 256).
    void boundedTables()
    {
        const auto str = [](const QByteArray& text) {
            return QByteArray("\x8c", 1) + char(text.size()) + text;
        };
        const auto keys = [&](const char* prefix, int n) {
            QByteArray items("(");
            for (int i = 0; i < n; ++i)
                items += str(prefix + QByteArray::number(i)) + QByteArray("K\0", 2);
            return items;
        };
        // {'segments': [], 'allocator_settings': {'k0': 0, ...}, 'x0': 0, ...} built by hand
        const QByteArray pickle = QByteArray("\x80\x04}(", 4) + str("segments") + "]" +
                                  str("allocator_settings") + "}" + keys("k", 2000) + "u" +
                                  keys("x", 1000).mid(1) + "u.";
        const SnapshotLoadOutcome outcome = loadSnapshotBytes(pickle, QStringLiteral("many.pickle"));
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->allocatorSettings.size(), size_t(1024));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(1));
        QCOMPARE(outcome.data->problems.kept().front().reason,
                 QStringLiteral("allocator_settings: 2000 settings, the first 1024 read"));
        QCOMPARE(outcome.data->ignoredKeys.size(), qsizetype(256));
        QCOMPARE(outcome.data->ignoredKeys.front(), QStringLiteral("x0"));
    }

    // Refused: each with its reason and offset, in the loader's words ("path: reason"), and the
    // command the REDUCE names was not run.
    void refused_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<qint64>("offset"); // -1: none (not a pickle error)
        QTest::newRow("os.system, protocol 4")
            << "hostile/reduce-os-system-p4.pickle"
            << "opcode STACK_GLOBAL (0x93) at byte 28 names Python code (posix.system): refused"
            << qint64(28);
        QTest::newRow("os.system, protocol 2")
            << "hostile/reduce-os-system-p2.pickle"
            << "opcode GLOBAL (0x63) at byte 2 names Python code" << qint64(2);
        QTest::newRow("protocol 0 GLOBAL") << "hostile/global-p0.pickle"
                                           << "opcode GLOBAL (0x63) at byte 0 names Python code" << qint64(0);
        QTest::newRow("200 000 deep")
            << "hostile/deep-list.pickle"
            << "APPEND at byte 401001: values nested deeper than 1000" << qint64(401001);
        QTest::newRow("BINGET unset")
            << "hostile/binget-unset.pickle"
            << "BINGET at byte 11 fetches memo 5, which was never set" << qint64(11);
        QTest::newRow("huge length") << "hostile/huge-length.pickle"
                                     << "BINUNICODE8 at byte 2 needs 4611686018427387904 more bytes"
                                     << qint64(2);
        QTest::newRow("not a snapshot's dict") << "values.jsonl"
                                               << "byte 0x7b at byte 0 is not a pickle opcode" << qint64(0);
    }
    void refused()
    {
        QFETCH(QString, path);
        QFETCH(QString, reason);
        QFETCH(qint64, offset);
        const QString marker = QStringLiteral("/tmp/gapscope-hostile-pickle-was-run");
        QFile::remove(marker);
        const SnapshotLoadOutcome outcome = loadSnapshotFile(kData + path);
        QVERIFY(!outcome.data);
        const QString prefix = kData + path + QStringLiteral(": ");
        QVERIFY2(outcome.fatalError.startsWith(prefix + reason), qPrintable(outcome.fatalError));
        QCOMPARE(outcome.errorOffset, std::optional<qint64>(offset));
        QVERIFY(!QFile::exists(marker));
    }

    // Pickles of something else: said so, with what they hold.
    void notSnapshots_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("reason");
        QTest::newRow("a dict of other keys")
            << QByteArray::fromHex("80047d948c0161944b01732e")
            << "a pickled dict without 'segments' or 'device_traces' (keys: 'a')";
        QTest::newRow("a list of ints") << QByteArray::fromHex("80045d94284b014b02652e")
                                        << "a pickle of a list, not of a snapshot's dict";
        QTest::newRow("an int") << QByteArray::fromHex("80044b052e")
                                << "a pickle of an int, not of a snapshot's dict";
    }
    void notSnapshots()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, reason);
        const SnapshotLoadOutcome outcome = loadSnapshotBytes(pickle, QStringLiteral("x.pickle"));
        QVERIFY(!outcome.data);
        QVERIFY2(outcome.fatalError.startsWith(QStringLiteral("x.pickle: ") + reason),
                 qPrintable(outcome.fatalError));
        QVERIFY(!outcome.errorOffset);
    }

    // gzip: cut, damaged, or inflating past the limit: refused with why; several members read.
    void gzip()
    {
        const QByteArray whole = readData(QStringLiteral("layouts/small.pickle.gz"));
        const auto plain =
            loadSnapshotBytes(readData(QStringLiteral("layouts/small-p4.pickle")), QStringLiteral("p"));
        QVERIFY(plain.data);
        SnapshotLoadOutcome cut = loadSnapshotBytes(whole.left(whole.size() / 2), QStringLiteral("cut.gz"));
        QVERIFY(!cut.data);
        QVERIFY2(cut.fatalError.startsWith(
                     QStringLiteral("cut.gz: a gzip file that cannot be read: the gzip data is "
                                    "cut short after")),
                 qPrintable(cut.fatalError));
        QByteArray damaged = whole;
        for (qsizetype i = 40; i < 80; ++i)
            damaged[i] = char(damaged[i] ^ 0x5a);
        SnapshotLoadOutcome bad = loadSnapshotBytes(damaged, QStringLiteral("bad.gz"));
        QVERIFY(!bad.data);
        QVERIFY2(bad.fatalError.contains(QStringLiteral("damaged gzip data")) ||
                     bad.fatalError.contains(QStringLiteral("cut short")),
                 qPrintable(bad.fatalError));
        SnapshotLoadLimits limits;
        limits.maxInflatedBytes = 10000;
        SnapshotLoadOutcome bomb = loadSnapshotBytes(whole, QStringLiteral("bomb.gz"), {}, limits);
        QVERIFY(!bomb.data);
        QVERIFY2(
            bomb.fatalError.endsWith(QStringLiteral("it inflates to more than 10000 bytes, the most read")),
            qPrintable(bomb.fatalError));
        // gzip -c a b > c: two members are one stream (here the second is an empty member)
        QByteArray twoMembers = whole + QByteArray::fromHex("1f8b080000000000020303000000000000000000");
        SnapshotLoadOutcome two = loadSnapshotBytes(twoMembers, QStringLiteral("two.gz"));
        QVERIFY2(two.data, qPrintable(two.fatalError));
        QCOMPARE(two.data->pickleBytes, plain.data->pickleBytes);

        QVERIFY(headIsGzip(std::string_view(whole.constData(), 2)));
        QVERIFY(gzipHeadIsPickle(std::string_view(whole.constData(), size_t(whole.size()))));
        QVERIFY(gzipHeadIsPickle(std::string_view(whole.constData(), 1024)));
        QVERIFY(!gzipHeadIsPickle(std::string_view(whole.constData(), 12))); // nothing inflated yet
        const QByteArray text = readData(QStringLiteral("../recognition/trace.jsonl.gz"));
        QVERIFY(headIsGzip(std::string_view(text.constData(), size_t(text.size()))));
        QVERIFY(!gzipHeadIsPickle(std::string_view(text.constData(), size_t(text.size()))));
        QVERIFY(headIsPickle("\x80\x04"));
        QVERIFY(!headIsPickle("\x80\x06"));
        QVERIFY(!headIsPickle("(l"));
    }

    // After a load: the arena is gone, what stays is the columns (under 100 bytes per entry);
    // progress reaches the end, cancel stops it.
    void heldAndControl()
    {
        const auto pair = load(QStringLiteral("pair/snapshot.pickle.gz"));
        QVERIFY(pair);
        const double perEntry = double(pair->heldBytes()) / double(pair->traceEntryCount());
        QVERIFY2(perEntry < 100, qPrintable(QString::number(perEntry)));

        LoadControl control;
        std::atomic<bool> cancel{false};
        control.cancel = &cancel;
        qint64 last = -1, total = 0;
        bool monotonic = true;
        control.progress = [&](qint64 done, qint64 of) {
            monotonic = monotonic && done >= last;
            last = done;
            total = of;
        };
        const SnapshotLoadOutcome all =
            loadSnapshotFile(kData + QStringLiteral("pair/snapshot.pickle.gz"), control);
        QVERIFY(all.data);
        QVERIFY(monotonic);
        QCOMPARE(last, qint64(945497));
        QCOMPARE(total, qint64(945497));
        cancel = true;
        const SnapshotLoadOutcome cancelled =
            loadSnapshotFile(kData + QStringLiteral("snapshot.pickle"), control);
        QVERIFY(cancelled.cancelled);
        QVERIFY(!cancelled.data);
    }
};

QTEST_GUILESS_MAIN(TestSnapshotLoader)
#include "tst_snapshotloader.moc"
