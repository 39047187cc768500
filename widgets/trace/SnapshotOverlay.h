#pragma once
// A PyTorch memory snapshot of the process a trace recorded, on the gap chart's time axis (File >
// Attach Snapshot..., --snapshot, a snapshot beside a run's sink): what GapChartView draws of it
// and says about it. The allocator's allocated and reserved bytes after every entry of the
// snapshot's trace of the trace's device (model/snapshot/SnapshotTimeline) become step lines (a
// level holds until the next entry) decimated to the plot's pixel columns, its `oom` entries OOM
// markers, its segment entries ticks along the bottom of the plot, and the allocator's state at a
// moment the tooltip's and the cursor readout's lines. Snapshot times are epoch microseconds,
// the trace's epoch nanoseconds: the same clock, so nothing is shifted.

#include "model/snapshot/SnapshotTimeline.h"
#include "model/store/Decimation.h"
#include "widgets/chart/TimeAxis.h"

#include <QColor>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QPainter;
class QRectF;

namespace gapscope {

class SnapshotOverlay
{
public:
    enum class Level
    {
        Allocated, // torch.cuda.memory_allocated(): SnapshotTimeline::allocatedBytes
        Reserved,  // torch.cuda.memory_reserved(): SnapshotTimeline::reservedSteps
    };
    // The allocator's state at a moment (momentAt): after the last entry at or before it, and
    // how far the entry nearest to it lies (entry time - moment: negative before it).
    struct Moment
    {
        SnapshotAllocatorState state;
        uint32_t nearestEntry = 0;
        int64_t nearestOffsetNs = 0;
    };

    // device: the trace's device_id; the snapshot's trace of that device is drawn where it has
    // entries, else device 0's. Builds the lines' level-of-detail pyramids: O(entries).
    SnapshotOverlay(std::shared_ptr<const SnapshotData> data, int64_t device);

    const std::shared_ptr<const SnapshotData>& data() const { return m_data; }
    // The device whose trace is drawn; null timeline and trace when the snapshot has none for it.
    int64_t device() const { return m_device; }
    const SnapshotTimeline* timeline() const { return m_timeline; }
    const SnapshotTrace* trace() const { return m_trace; }
    // Whether there is anything to draw: entries that carry their time (PyTorch 2.2 and later).
    bool drawable() const { return !m_timesNs.empty(); }
    // The first and the last entry's time (ns on the trace's clock); 0 unless drawable().
    int64_t beginNs() const { return drawable() ? m_timesNs.front() : 0; }
    int64_t endNs() const { return drawable() ? m_timesNs.back() : 0; }
    int64_t entryNs(uint32_t entry) const { return m_timesNs[entry]; }
    // Whether its entries and [beginNs, endNs] share a moment.
    bool overlaps(int64_t beginNs, int64_t endNs) const
    {
        return drawable() && this->beginNs() <= endNs && this->endNs() >= beginNs;
    }
    // Why none of the snapshot is drawn over a trace spanning [traceBeginNs, traceEndNs] (no
    // timed entries, or none inside it); empty when its lines are drawn.
    QString noteFor(int64_t traceBeginNs, int64_t traceEndNs) const;

    // The step line of a level over [beginNs, endNs] (with the entries just outside it, so that
    // it reaches the edges), decimated to `columns` pixel columns: the smallest and the largest
    // level of each column and the level it hands to the next one, each held until the next
    // point. Points (ns, bytes) in time order; empty unless drawable().
    std::vector<std::pair<int64_t, double>> stepLine(Level level, int64_t beginNs, int64_t endNs,
                                                     int columns) const;

    // The state at ns; nullopt outside [beginNs(), endNs()].
    std::optional<Moment> momentAt(int64_t ns) const;
    // "allocated 1.20 GiB · reserved 1.50 GiB · active 1.18 GiB · 812 live allocations · entry
    // 51,234 (alloc) 0.120 ms before": what the tooltip and the cursor readout say.
    QString momentText(const Moment& moment) const;

    // The snapshot's oom entries: the marker's label ("OOM (snapshot): 128.00 MiB requested")
    // and its tooltip (device free, the state before it, the top frames).
    const std::vector<uint32_t>& oomEntries() const;
    QString oomLabel(uint32_t entry) const;
    QString oomToolTip(uint32_t entry) const;

    // segment_alloc / segment_map (up) and segment_free / segment_unmap (down) as ticks rising
    // from `bottom` of the plot, at most one of each per pixel column; color: the reserved line's.
    void drawSegmentTicks(QPainter* painter, const QRectF& plot, const TimeAxis& axis, double bottom,
                          const QColor& color) const;
    // The tooltip's lines (plain text) on the segment entries within a few pixels of ns.
    QString segmentToolTip(int64_t ns, const TimeAxis& axis) const;

private:
    // A level after each knot: its times (ascending), levels and positions 0..n-1 for the
    // decimation, and the pyramid over them.
    struct Steps
    {
        std::vector<int64_t> timesNs;
        std::vector<int64_t> levels;
        std::vector<uint32_t> rows;
        MinMaxPyramid pyramid;
        void build();
    };
    const Steps& steps(Level level) const { return level == Level::Allocated ? m_allocated : m_reserved; }
    bool isGrowth(uint32_t entry) const;

    std::shared_ptr<const SnapshotData> m_data;
    int64_t m_device = 0;
    const SnapshotTimeline* m_timeline = nullptr;
    const SnapshotTrace* m_trace = nullptr;
    std::vector<int64_t> m_timesNs; // every entry's, empty without times
    Steps m_allocated;
    Steps m_reserved;
};

} // namespace gapscope
