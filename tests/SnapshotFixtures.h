#pragma once
// The snapshot tests' fixtures (tests/data/snapshot): their bytes, bytes as the reader takes
// them, a fixture loaded, and snapshots made by hand.

#include "analysis/Int64Math.h"
#include "model/snapshot/SnapshotLoader.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <string_view>
#include <utility>
#include <vector>

namespace gapscope::test {

inline const QString kSnapshotData = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/");

// A file under tests/data/snapshot, whole; a missing fixture ends the test run.
inline QByteArray readSnapshotData(const QString& relative)
{
    QFile file(kSnapshotData + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    return file.readAll();
}

// A fixture loaded as the window loads it (timelines built); one that does not load ends the run.
inline std::shared_ptr<const SnapshotData> loadSnapshotFixture(const QString& relative)
{
    SnapshotLoadOutcome outcome = loadSnapshotFile(kSnapshotData + relative);
    if (!outcome.data)
        qFatal("cannot load %s: %s", qPrintable(relative), qPrintable(outcome.fatalError));
    return outcome.data;
}

inline std::string_view bytesView(const QByteArray& bytes)
{
    return std::string_view(bytes.constData(), size_t(bytes.size()));
}

// One entry of a trace made by hand.
struct TraceEntry
{
    TraceAction action;
    uint64_t address;
    int64_t size;
    int64_t timeUs = SnapshotTrace::kNoTime;
};

// A snapshot of one device: one segment of the given blocks, a trace of the given entries.
inline SnapshotData makeSnapshot(const std::vector<std::pair<int64_t, BlockState>>& blocks,
                                 const std::vector<TraceEntry>& entries)
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
        segment.totalSize = saturatingAdd(segment.totalSize, size); // the huge-size tests
        address += uint64_t(size);
    }
    segment.blockCount = uint32_t(blocks.size());
    data.segments.push_back(segment);
    data.traces.resize(1);
    SnapshotTrace& trace = data.traces[0];
    for (const TraceEntry& entry : entries) {
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

} // namespace gapscope::test
