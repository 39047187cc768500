#pragma once
// "Where it came from": a snapshot's allocations grouped by the stack of frames that made them
// (Python and C++), the snapshot page's sites table and `gapscope analyze`'s "sites". A pure
// function of the data and its timelines (model/snapshot/SnapshotTimeline).
//
// The allocations are the timelines' (MemoryViz.js's pairing, so a site's bytes add up to the
// active memory timeline's level): bytes at the peak are those live right after the entry where
// the device's active level peaked (SnapshotTimeline::peakEntry), so the sites' bytes at the peak
// add up to peakActiveBytes. Bytes at the snapshot are the sizes of the snapshot's active_allocated
// blocks of the site's stacks (what the segment map highlights). A device with segments and no
// trace (a snapshot taken with context="state") has no timeline: its active_allocated blocks are
// its allocations, live all along at their requested size, as the timeline counts them.
//
// With several devices the sites cover all of them: bytes at the peak sum each device's own peak.

#include "model/snapshot/SnapshotData.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace gapscope {

struct SnapshotTimeline;

enum class SiteGrouping
{
    Stack,    // one site per distinct stack of frames
    Function, // one site per function of the stack's top frame (its name and file, not its line)
};

struct SnapshotSite
{
    // Its stacks (one when grouped by Stack), ascending: the blocks and allocations it covers.
    std::vector<FrameStackId> stacks;
    // The stack it is named after (the one with the most bytes at the peak when grouped by Function).
    FrameStackId frames = 0;
    // Its top frame (meaningfulFrames' first) as "name (file:line)" ("name (file)" by Function);
    // "(no stack recorded)" or "(allocator frames only)" when the stack has no such frame.
    QString name;
    int64_t bytesAtPeak = 0;
    int64_t bytesAtSnapshot = 0;
    int64_t allocations = 0; // in the trace, those live before it or all along included
    int64_t largestBytes = 0;
    int64_t totalBytes = 0; // every allocation's size added
    int64_t blocksAtSnapshot = 0;
};

struct SnapshotSites
{
    SiteGrouping grouping = SiteGrouping::Stack;
    // By bytes at the peak, then bytes at the snapshot, then total bytes, descending; ties in the
    // order first met (the timeline's order of allocations).
    std::vector<SnapshotSite> sites;
    int64_t peakActiveBytes = 0; // the devices' peaks added: the sites' bytesAtPeak sum to it
    int64_t allocations = 0;
};

// The sites of data over timelines (one per device trace, as SnapshotData::timelines).
SnapshotSites buildSnapshotSites(const SnapshotData& data, const std::vector<SnapshotTimeline>& timelines,
                                 SiteGrouping grouping);
// Over data.timelines, built here when the loader did not.
SnapshotSites buildSnapshotSites(const SnapshotData& data, SiteGrouping grouping);

enum class SiteFileName
{
    Path, // the file as the frame wrote it
    Tail, // its last two path components ("nn/functional.py"), for a table's narrow column
};

// The name of a stack's site (SnapshotSite::name: with the file's Path).
QString siteName(const SnapshotData& data, FrameStackId stack, SiteGrouping grouping,
                 SiteFileName file = SiteFileName::Path);

// What the sites table's tooltip and detail say of a site: its name, its figures (bytes at the
// peak as a share of peakActiveBytes) and the frames of its stack (the one it is named after) as
// the segment map's tooltip lists a block's (stackTopFrames: Python first), at most maxFrames.
QString siteDescription(const SnapshotData& data, const SnapshotSites& sites, const SnapshotSite& site,
                        int maxFrames);

} // namespace gapscope
