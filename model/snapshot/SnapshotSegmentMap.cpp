#include "model/snapshot/SnapshotSegmentMap.h"

#include "analysis/Int64Math.h"

#include "model/text/Text.h"

#include <algorithm>
#include <tuple>

namespace gapscope {

namespace {

// The allocator's own machinery at the inner end of every stack: not where the memory was asked for.
bool isAllocatorFrame(std::string_view name)
{
    for (const std::string_view prefix :
         {"torch::unwind::", "torch::CapturedTraceback::", "torch::cuda::(anonymous namespace)::gather",
          "c10::cuda::CUDACachingAllocator::"})
        if (name.starts_with(prefix))
            return true;
    return false;
}

constexpr qsizetype kFrameChars = 160;

auto groupKey(const SnapshotSegment& s)
{
    return std::tuple(s.device, s.stream, s.pool);
}

} // namespace

SegmentMapLayout layoutSegmentMap(const SnapshotData& data, SegmentOrder order)
{
    SegmentMapLayout layout;
    std::vector<uint32_t> rows(data.segments.size());
    for (uint32_t i = 0; i < rows.size(); ++i)
        rows[i] = i;
    std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
        const SnapshotSegment& x = data.segments[a];
        const SnapshotSegment& y = data.segments[b];
        if (groupKey(x) != groupKey(y))
            return groupKey(x) < groupKey(y);
        if (order == SegmentOrder::Size && x.totalSize != y.totalSize)
            return x.totalSize > y.totalSize;
        if (x.address != y.address)
            return x.address < y.address;
        return a < b;
    });
    for (uint32_t row = 0; row < rows.size(); ++row) {
        const SnapshotSegment& s = data.segments[rows[row]];
        if (layout.groups.empty() ||
            groupKey(data.segments[rows[layout.groups.back().firstRow]]) != groupKey(s)) {
            SegmentMapGroup group;
            group.device = s.device;
            group.stream = s.stream;
            group.pool = s.pool;
            group.firstRow = row;
            layout.groups.push_back(group);
        }
        SegmentMapGroup& group = layout.groups.back();
        ++group.rowCount;
        group.reservedBytes = saturatingAdd(group.reservedBytes, s.totalSize);
        group.activeBytes = saturatingAdd(group.activeBytes, s.activeSize);
        layout.largestSegmentBytes = std::max(layout.largestSegmentBytes, s.totalSize);
        layout.blockCount += s.blockCount;
    }
    layout.rows = std::move(rows);
    return layout;
}

std::optional<uint32_t> blockAtOffset(const SnapshotData& data, uint32_t segmentIndex, int64_t offset)
{
    if (segmentIndex >= data.segments.size())
        return std::nullopt;
    const SnapshotSegment& segment = data.segments[segmentIndex];
    if (offset < 0 || offset >= segment.totalSize)
        return std::nullopt;
    const uint64_t address = segment.address + uint64_t(offset);
    // a segment holds a few blocks: a scan, which needs no order of them
    for (uint32_t i = 0; i < segment.blockCount; ++i) {
        const SnapshotBlock& block = data.blocks[segment.firstBlock + i];
        if (block.size > 0 && address >= block.address && address - block.address < uint64_t(block.size))
            return segment.firstBlock + i;
    }
    return std::nullopt;
}

std::vector<uint32_t> meaningfulFrames(const SnapshotData& data, FrameStackId stack, size_t max)
{
    std::vector<uint32_t> python;
    std::vector<uint32_t> other;
    if (stack >= data.frames.stackCount())
        return {};
    for (const uint32_t index : data.frames.stack(stack)) {
        const SnapshotFrame& frame = data.frames.frame(index);
        if (isAllocatorFrame(data.strings.view(frame.name)))
            continue;
        (data.strings.view(frame.filename).ends_with(".py") ? python : other).push_back(index);
    }
    python.insert(python.end(), other.begin(), other.end());
    if (python.size() > max)
        python.resize(max);
    return python;
}

QString frameText(const SnapshotData& data, uint32_t index)
{
    const SnapshotFrame& frame = data.frames.frame(index);
    const QString name = shownText(data.strings.text(frame.name), kFrameChars);
    if (frame.line <= 0)
        return name;
    return QStringLiteral("%1 (%2:%3)")
        .arg(name, shownText(data.strings.text(frame.filename), kFrameChars))
        .arg(frame.line);
}

QStringList stackTopFrames(const SnapshotData& data, FrameStackId stack, int max)
{
    QStringList frames;
    for (const uint32_t index : meaningfulFrames(data, stack, size_t(std::max(max, 0))))
        frames << frameText(data, index);
    return frames;
}

QString blockDescription(const SnapshotData& data, uint32_t blockIndex, int maxFrames)
{
    if (blockIndex >= data.blocks.size())
        return {};
    const SnapshotBlock& block = data.blocks[blockIndex];
    const SnapshotSegment& segment = data.segments[block.segment];
    QStringList lines;
    lines << QStringLiteral("%1 block, %2")
                 .arg(bytesText(block.size), shownText(data.strings.text(block.stateName)));
    if (block.state == BlockState::ActiveAllocated)
        lines << QStringLiteral("requested %1").arg(bytesText(block.requestedSize));
    lines << QStringLiteral("at 0x%1 in a %2 segment of %3 (stream %4)")
                 .arg(QString::number(block.address, 16), shownText(data.strings.text(segment.typeName)),
                      bytesText(segment.totalSize))
                 .arg(segment.stream);
    const QStringList frames = blockTopFrames(data, block, maxFrames);
    if (frames.isEmpty()) {
        lines << QStringLiteral("no stack recorded");
    } else {
        lines << QStringLiteral("allocated at:");
        for (const QString& frame : frames)
            lines << QStringLiteral("  %1").arg(frame);
    }
    return lines.join(QLatin1Char('\n'));
}

QString segmentGroupTitle(const SegmentMapGroup& group, bool nameDevice)
{
    QString title = QStringLiteral("stream %1").arg(group.stream);
    title += group.pool == SegmentPoolId{}
                 ? QStringLiteral(" · default pool")
                 : QStringLiteral(" · pool (%1, %2)").arg(group.pool.first).arg(group.pool.second);
    if (nameDevice)
        title = QStringLiteral("device %1 · %2").arg(group.device).arg(title);
    return title;
}

} // namespace gapscope
