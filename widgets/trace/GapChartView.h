#pragma once
// The gap chart: device used - allocator reserved over time, with the drift regression line,
// spike markers (the largest emphasised), the threshold band (mean +- z * std), toggleable
// counter overlays and phase spans shaded behind. Draws what AnalysisResult holds; computes
// no statistics. Min/max decimated to the pixel width, so any size redraws fast.
// Markers follow the findings: spike markers only with a spike finding, the drift fit only
// with a drift finding, and every mark drawn has a legend entry. The y axis fits the visible
// data or starts at zero (ByteRangeMode), linear or logarithmic (both also in the chart's
// context menu); the threshold band is clipped, never followed; the x axis title reads out the
// visible time span and value range. A rank of a distributed job opened from the job page also
// shows its collective-attribution intervals as translucent bands behind the series, coloured
// by class as on the job heatmap.

#include "analysis/PhaseSteps.h"
#include "analysis/RangeMeasurement.h"
#include "model/items/BookmarksModel.h"
#include "model/job/JobViewData.h"
#include "model/trace/AnalysisRunner.h"
#include "widgets/chart/ByteAxis.h"

#include <QList>
#include <QPointF>
#include <QRectF>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

enum class ChartOverlay
{
    Allocated,
    Reserved,
    DeviceUsed,
    DeviceTotal,
    Phases,
    ThresholdBand,
    Regression,
    Spikes,
    // the tracker's own warning and critical events (AnalysisResult::trackerWarnings): a lane of
    // ticks along the bottom of the plot, clustered per few pixels
    TrackerWarnings,
    // an attached PyTorch memory snapshot's allocator counters (setSnapshot)
    SnapshotAllocated,
    SnapshotReserved,
};

// The dense lines, decimated to the plot width and painted as one polyline each.
enum class ChartLine
{
    Gap,
    OutsideWindow,
    Allocated,
    Reserved,
    DeviceUsed,
    DeviceTotal,
    Comparison, // setComparisonLine
    // setSnapshot: step lines (a level holds until the next entry), over the snapshot's entries
    SnapshotAllocated,
    SnapshotReserved,
};

class SnapshotOverlay;
struct SnapshotData;

class GapChartView : public QWidget
{
    Q_OBJECT
public:
    explicit GapChartView(QWidget* parent = nullptr);
    ~GapChartView() override;

    // steps: the training steps of the result's (session, rank) (analysis/PhaseSteps.h), built
    // once by whoever shows it; the hover readout, the measurement and the step axis name them.
    void setAnalysis(std::shared_ptr<const AnalysisResult> result,
                     std::shared_ptr<const StepIndex> steps = nullptr);
    std::shared_ptr<const AnalysisResult> analysis() const;
    // The steps given with the analysis; null or empty where its phases carry none.
    std::shared_ptr<const StepIndex> steps() const;
    bool hasSteps() const;

    // The x axis labelled with training steps at step boundaries (StepAxis.h) instead of time
    // since the trace start; time again where the result has no steps.
    bool isStepAxis() const;
    // Whether the step labels are drawn: asked for and the result has steps.
    bool showsStepAxis() const;
    // The x axis labels as drawn, left to right.
    QStringList xAxisLabels() const;

    // A line from outside the analysis (the compare window's B − A): values in bytes at absolute
    // times on this chart's clock, ascending; drawn under the gap, decimated like it, in the
    // legend under name and in the tooltip. Empty times remove it.
    void setComparisonLine(const QString& name, std::vector<int64_t> timesNs, std::vector<double> values);

    // A PyTorch memory snapshot of the process the trace recorded (File > Attach Snapshot...): the
    // allocator's allocated and reserved bytes after each entry of the snapshot's trace of the
    // trace's device (else device 0) drawn as step lines over the span of its entries ("Snapshot
    // allocated", "Snapshot reserved": in the legend, toggled by ChartOverlay::SnapshotAllocated
    // and SnapshotReserved), its oom entries as OOM markers, its segment allocations and frees
    // as ticks along the bottom of the plot, and its allocator state in the tooltip. Kept when
    // the analysis changes; null removes it.
    void setSnapshot(std::shared_ptr<const SnapshotData> snapshot);
    std::shared_ptr<const SnapshotData> snapshot() const;
    // What is drawn of it (the device chosen, the span, the allocator's state at a moment);
    // null without a snapshot or without a trace shown.
    const SnapshotOverlay* snapshotOverlay() const;
    // Why none of the snapshot is drawn (no timed entries, or none within the trace's time):
    // shown as the chart's note; empty when it is drawn or there is none.
    QString snapshotNote() const;

    void setOverlayVisible(ChartOverlay overlay, bool visible);
    bool isOverlayVisible(ChartOverlay overlay) const;

    qint64 cursorTime() const;
    qint64 visibleBeginNs() const;
    qint64 visibleEndNs() const;
    // index into analysis()->findings, -1 for none
    int highlightedFinding() const;
    // number of points currently handed to the chart for the gap series (after decimation)
    int drawnGapPointCount() const;
    // the points (x: seconds since the start of the drawn range, y: bytes) currently drawn for a
    // line after decimation, in time order; empty while the line is hidden
    QList<QPointF> drawnPoints(ChartLine line) const;

    // Range measurement (Alt+drag, or Ctrl+Shift+drag where the window manager takes Alt+drag):
    // the span shaded and labelled with what the gap did in it (analysis/RangeMeasurement.h),
    // from the samples of the result shown; Escape clears it. The span stays while zooming
    // and is measured again over a new result of the same trace.
    void measureRange(qint64 beginNs, qint64 endNs);
    void clearMeasurement();
    // The span measured, also when no sample lies in it (then measurement() is nullopt).
    std::optional<TimeWindow> measuredSpan() const;
    std::optional<RangeMeasurement> measurement() const;
    // "Δt 0.300 s · 4 samples · Δgap +152.85 MiB · min ... · max ... · slope ..." of the span;
    // with steps under it, "steps 250-550 (301 steps)" after Δt and "+6.40 MiB per step" after
    // the slope.
    static QString measurementText(const TimeWindow& span,
                                   const std::optional<RangeMeasurement>& measurement);

    // Bookmarks, drawn as flags on the time axis (ascending time).
    void setBookmarks(std::vector<Bookmark> bookmarks);
    // What the chart marks at a moment of the trace: each out-of-memory error of its OOM bundles
    // (TraceData::ooms), a red line over the plot labelled "OOM: <reason>", and each `error`
    // event of the rank shown that is not one of them, a red tick at the top. Both explain
    // themselves in the tooltip.
    struct EventMarker
    {
        qint64 timeNs = 0;
        bool oom = false;
        QString label;   // drawn ("OOM: torch.cuda.OutOfMemoryError"); empty for an error tick
        QString toolTip; // plain text
        QRectF rect;     // where the label (or the tick) was drawn, chart view coordinates
    };
    // The markers in the visible range as last painted.
    QList<EventMarker> eventMarkers() const;
    // The tracker's warning and critical events in the visible range as last painted: one mark
    // per cluster of events within kTrackerWarningClusterPx pixels (206 fragmentation warnings
    // in 4 s stay readable at any width), in the lane along the bottom of the plot.
    struct TrackerWarningMark
    {
        qint64 firstNs = 0;
        qint64 lastNs = 0;
        int count = 0;
        bool critical = false; // any critical event in it (drawn red, else amber)
        QRectF rect;           // chart view coordinates
    };
    static constexpr double kTrackerWarningClusterPx = 4;
    QList<TrackerWarningMark> trackerWarningMarks() const;
    // The tooltip's lines on the tracker warnings near ns (HTML; empty where there are none):
    // the count, each context text (the first few of a cluster), stormlog's fragmentation share.
    QString trackerWarningToolTip(qint64 ns) const;
    // The collective-attribution intervals of the rank shown, on its own clock (the trace's
    // time, as the job's analysis reports them): shaded behind the series in the colour of
    // their class (JobViewStyle collectiveClassPen), a legend entry per class shown, named in
    // the tooltip. Kept when the analysis changes: whoever shows a rank decides which apply.
    void setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals);
    const std::vector<JobCollectiveInterval>& collectiveIntervals() const;
    // The tooltip's lines on the intervals at ns (HTML; empty outside every interval).
    QString collectiveToolTip(qint64 ns) const;
    // The fill of a class's bands.
    QColor collectiveFill(CollectiveClass classification) const;

    ByteRangeMode yRangeMode() const;
    // A log2 byte axis: ticks at powers of two, values at or below zero not drawn.
    bool isLogScale() const;
    // The y axis labels as drawn, bottom to top.
    QStringList yAxisLabels() const;
    // "Time since trace start · showing 12.50 s, values 1.30 GiB to 1.31 GiB (range 100.00 KiB)"
    QString visibleSpanText() const;
    // Where the phase labels are drawn (chart view coordinates); never two overlapping.
    QList<QRectF> phaseLabelRects() const;
    // The note over the plot, centred under the phase lanes: on a trace without a device total
    // (no gap to draw), and on one whose gap cannot be observed (analysis/Notice.h
    // gap_not_observable: its gap line is drawn muted and named "Gap (not observable: 0 by construction)").
    // Empty text and rect (chart view coordinates) without one.
    QString noteText() const;
    QRectF noteRect() const;

public slots:
    void setCursorTime(qint64 ns);
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void resetZoom();
    void highlightFinding(int findingIndex);
    void setYRangeMode(ByteRangeMode mode);
    void setLogScale(bool on);
    void setStepAxis(bool on);

signals:
    void visibleRangeChanged(qint64 beginNs, qint64 endNs);
    void cursorRequested(qint64 ns);                  // user clicked a time
    void rangeSelected(qint64 beginNs, qint64 endNs); // Shift+drag: analyse this window
    void hoveredTime(qint64 ns);
    // A legend entry was clicked: its series should be hidden (visible false).
    void overlayToggleRequested(gapscope::ChartOverlay overlay, bool visible);
    // A span was measured or the measurement cleared.
    void measurementChanged();

    void yRangeModeChanged(ByteRangeMode mode); // the user chose it in the context menu
    void logScaleChanged(bool on);              // likewise
    void stepAxisChanged(bool on);              // likewise

protected:
    void changeEvent(QEvent* event) override; // follows palette and font changes (dark themes)

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
