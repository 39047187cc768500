#include "model/snapshot/SnapshotSites.h"

#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/snapshot/SnapshotTimeline.h"
#include "model/text/Text.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

namespace gapscope {

namespace {

constexpr size_t kNotMet = std::numeric_limits<size_t>::max();
constexpr qsizetype kFrameChars = 160; // as the segment map's frames

// What one stack adds to its site.
struct StackFigures
{
    int64_t bytesAtPeak = 0;
    int64_t bytesAtSnapshot = 0;
    int64_t allocations = 0;
    int64_t largestBytes = 0;
    int64_t totalBytes = 0;
    int64_t blocksAtSnapshot = 0;
    size_t firstMet = kNotMet; // the order its first allocation (or block) was met in
};

QString trSites(const char* text)
{
    return QCoreApplication::translate("SnapshotSites", text);
}

// The key a stack is grouped under by Function: its top frame's name and file; the stacks without
// a top frame by what their name says (no stack, the allocator's frames only).
uint64_t functionKey(const SnapshotData& data, FrameStackId stack)
{
    constexpr uint64_t kNoStack = std::numeric_limits<uint64_t>::max();
    const std::vector<uint32_t> top = meaningfulFrames(data, stack, 1);
    if (top.empty())
        return stack == 0 || stack >= data.frames.stackCount() || data.frames.stack(stack).empty()
                   ? kNoStack
                   : kNoStack - 1;
    const SnapshotFrame& frame = data.frames.frame(top.front());
    return uint64_t(frame.name) << 32 | frame.filename;
}

void addAllocation(StackFigures& figures, int64_t size, bool liveAtPeak, size_t order)
{
    ++figures.allocations;
    figures.totalBytes += size;
    figures.largestBytes = std::max(figures.largestBytes, size);
    if (liveAtPeak)
        figures.bytesAtPeak += size;
    figures.firstMet = std::min(figures.firstMet, order);
}

} // namespace

QString siteName(const SnapshotData& data, FrameStackId stack, SiteGrouping grouping, SiteFileName file)
{
    if (stack == 0 || stack >= data.frames.stackCount() || data.frames.stack(stack).empty())
        return trSites("(no stack recorded)");
    const std::vector<uint32_t> top = meaningfulFrames(data, stack, 1);
    if (top.empty())
        return trSites("(allocator frames only)");
    const SnapshotFrame& frame = data.frames.frame(top.front());
    if (frame.line <= 0 || (grouping == SiteGrouping::Stack && file == SiteFileName::Path))
        return frameText(data, top.front());
    QString path = data.strings.text(frame.filename);
    if (file == SiteFileName::Tail) {
        // the last two components: "/opt/…/torch/nn/functional.py" -> "nn/functional.py"
        const qsizetype last = path.lastIndexOf(QLatin1Char('/'));
        const qsizetype before = last > 0 ? path.lastIndexOf(QLatin1Char('/'), last - 1) : -1;
        if (before >= 0)
            path = path.mid(before + 1);
    }
    QString name = QStringLiteral("%1 (%2").arg(shownText(data.strings.text(frame.name), kFrameChars),
                                                shownText(path, kFrameChars));
    if (grouping == SiteGrouping::Stack)
        name += QStringLiteral(":%1").arg(frame.line);
    return name + QLatin1Char(')');
}

SnapshotSites buildSnapshotSites(const SnapshotData& data, const std::vector<SnapshotTimeline>& timelines,
                                 SiteGrouping grouping)
{
    SnapshotSites result;
    result.grouping = grouping;
    std::vector<StackFigures> stacks(std::max<size_t>(data.frames.stackCount(), 1));
    const auto figuresOf = [&](FrameStackId stack) -> StackFigures& {
        return stacks[stack < stacks.size() ? stack : 0];
    };

    size_t order = 0;
    std::set<int64_t> traced;
    for (const SnapshotTimeline& timeline : timelines) {
        traced.insert(timeline.device);
        result.peakActiveBytes += timeline.peakActiveBytes;
        for (const SnapshotAllocation& allocation : timeline.allocations)
            addAllocation(figuresOf(allocation.frames), allocation.size,
                          allocation.liveAfter(timeline.peakEntry), order++);
        result.allocations += int64_t(timeline.allocations.size());
    }
    for (const SnapshotSegment& segment : data.segments) {
        const bool untraced = traced.count(segment.device) == 0;
        for (const SnapshotBlock& block : data.blocksOf(segment)) {
            if (block.state != BlockState::ActiveAllocated)
                continue;
            StackFigures& figures = figuresOf(block.frames);
            figures.bytesAtSnapshot += block.size;
            ++figures.blocksAtSnapshot;
            if (untraced) { // no trace: an allocation live all along, as a timeline counts it
                addAllocation(figures, block.requestedSize, true, order);
                result.peakActiveBytes += block.requestedSize;
                ++result.allocations;
            }
            figures.firstMet = std::min(figures.firstMet, order++);
        }
    }

    std::unordered_map<uint64_t, size_t> siteOfKey;
    std::vector<size_t> firstMet;
    std::vector<int64_t> namedAfterBytes;
    for (FrameStackId stack = 0; stack < stacks.size(); ++stack) {
        const StackFigures& figures = stacks[stack];
        if (figures.firstMet == kNotMet)
            continue;
        const uint64_t key = grouping == SiteGrouping::Stack ? stack : functionKey(data, stack);
        const auto [it, added] = siteOfKey.try_emplace(key, result.sites.size());
        if (added) {
            result.sites.emplace_back();
            firstMet.push_back(kNotMet);
            namedAfterBytes.push_back(-1);
        }
        SnapshotSite& site = result.sites[it->second];
        site.stacks.push_back(stack);
        if (figures.bytesAtPeak > namedAfterBytes[it->second]) {
            namedAfterBytes[it->second] = figures.bytesAtPeak;
            site.frames = stack;
        }
        site.bytesAtPeak += figures.bytesAtPeak;
        site.bytesAtSnapshot += figures.bytesAtSnapshot;
        site.allocations += figures.allocations;
        site.largestBytes = std::max(site.largestBytes, figures.largestBytes);
        site.totalBytes += figures.totalBytes;
        site.blocksAtSnapshot += figures.blocksAtSnapshot;
        firstMet[it->second] = std::min(firstMet[it->second], figures.firstMet);
    }
    for (SnapshotSite& site : result.sites)
        site.name = siteName(data, site.frames, grouping);

    std::vector<size_t> ranks(result.sites.size());
    for (size_t i = 0; i < ranks.size(); ++i)
        ranks[i] = i;
    std::sort(ranks.begin(), ranks.end(), [&](size_t a, size_t b) {
        const SnapshotSite& x = result.sites[a];
        const SnapshotSite& y = result.sites[b];
        if (x.bytesAtPeak != y.bytesAtPeak)
            return x.bytesAtPeak > y.bytesAtPeak;
        if (x.bytesAtSnapshot != y.bytesAtSnapshot)
            return x.bytesAtSnapshot > y.bytesAtSnapshot;
        if (x.totalBytes != y.totalBytes)
            return x.totalBytes > y.totalBytes;
        return firstMet[a] < firstMet[b];
    });
    std::vector<SnapshotSite> sorted;
    sorted.reserve(ranks.size());
    for (const size_t i : ranks)
        sorted.push_back(std::move(result.sites[i]));
    result.sites = std::move(sorted);
    return result;
}

QString siteDescription(const SnapshotData& data, const SnapshotSites& sites, const SnapshotSite& site,
                        int maxFrames)
{
    QStringList lines{site.name};
    lines << trSites("%1 live at the peak (%2 of %3)")
                 .arg(bytesText(site.bytesAtPeak), shareText(site.bytesAtPeak, sites.peakActiveBytes),
                      bytesText(sites.peakActiveBytes));
    lines << englishPlural(trSites("%1 live at the snapshot in %2 block(s)")
                               .arg(bytesText(site.bytesAtSnapshot), countText(site.blocksAtSnapshot)),
                           site.blocksAtSnapshot);
    lines << englishPlural(
        trSites("%1 allocation(s) in the trace, %2 in all, the largest %3")
            .arg(countText(site.allocations), bytesText(site.totalBytes), bytesText(site.largestBytes)),
        site.allocations);
    if (site.stacks.size() > 1)
        lines << trSites("%1 stacks; the frames of the one with the most at the peak:")
                     .arg(countText(int64_t(site.stacks.size())));
    QStringList frames = stackTopFrames(data, site.frames, maxFrames + 1);
    const bool more = frames.size() > maxFrames;
    frames.resize(std::min<qsizetype>(frames.size(), std::max(maxFrames, 0)));
    if (frames.isEmpty()) {
        lines << trSites("no frame outside the allocator recorded");
    } else {
        lines << trSites("allocated at:");
        for (const QString& frame : frames)
            lines << QStringLiteral("  %1").arg(frame);
        if (more)
            lines << QStringLiteral("  …");
    }
    return lines.join(QLatin1Char('\n'));
}

SnapshotSites buildSnapshotSites(const SnapshotData& data, SiteGrouping grouping)
{
    if (data.timelines)
        return buildSnapshotSites(data, *data.timelines, grouping);
    return buildSnapshotSites(data, buildSnapshotTimelines(data), grouping);
}

} // namespace gapscope
