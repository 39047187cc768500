#pragma once
// The active memory timeline of a PyTorch memory snapshot, as PyTorch's memory_viz draws its
// "Active Memory Timeline": the allocations live over the trace stacked in the order they opened,
// the largest in view each a band of its own (a qualitative palette), the rest folded into one
// muted band on top; segment allocations and frees as ticks along the bottom, OOM entries as red
// lines. What is drawn is model/snapshot/SnapshotTimelineLayout's, laid out again for each range
// and width (min/max per pixel column: a million entries stay interactive).
//
// x is the time since the trace's first entry (or the entry index: setAxis, "by entry"); y is
// bytes. The wheel zooms about the mouse, a drag pans, a double-click or Home shows all again
// (RangeNavigator); a click selects the state after the entries under the mouse (entrySelected);
// the tooltip names the allocation, segment entry or OOM under the mouse. setHighlightedFrames
// outlines the allocations of some stacks and dims the others. Draws and forwards input only.

#include "model/snapshot/SnapshotTimelineLayout.h"
#include "widgets/chart/ChartNavigation.h"

#include <QList>
#include <QRectF>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

class ActiveMemoryView : public QWidget
{
    Q_OBJECT
public:
    explicit ActiveMemoryView(QWidget* parent = nullptr);
    ~ActiveMemoryView() override;

    // The snapshot and the timeline drawn (index into SnapshotData::timelines, as traces); the
    // whole trace in view, no selection, no highlight.
    void setSnapshot(std::shared_ptr<const SnapshotData> data, size_t timelineIndex = 0);
    std::shared_ptr<const SnapshotData> snapshot() const { return m_data; }
    size_t timelineIndex() const { return m_timelineIndex; }
    // The timeline drawn, null without one.
    const SnapshotTimeline* timeline() const;

    // Time (the default) or entry index; a trace without times is drawn by entry whatever is asked.
    void setAxis(TimelineAxis axis);
    TimelineAxis axis() const;
    // How many allocations are drawn distinct (TimelineLayoutRequest::kDefaultDistinct).
    void setDistinctCount(int count);
    int distinctCount() const { return m_distinct; }
    // The reserved counter as a line over the bands.
    void setShowReserved(bool show);
    bool showsReserved() const { return m_showReserved; }

    // The allocations of these stacks outlined and drawn distinct, the others dimmed; none: all
    // drawn alike.
    void setHighlightedFrames(FrameStackId stack);
    void setHighlightedFrames(std::vector<FrameStackId> stacks);
    void clearHighlight();
    const std::vector<FrameStackId>& highlightedFrames() const { return m_highlighted; }

    // The range shown, on the axis drawn (epoch microseconds or entry indexes).
    TimelineRange visibleRange() const { return m_range; }
    TimelineRange fullRange() const;
    void setVisibleRange(int64_t begin, int64_t end);
    bool isZoomed() const { return m_range != fullRange(); }
    void resetZoom();

    // The entry whose state is selected (kNoEntry: before the first); nullopt when none is.
    std::optional<uint32_t> selectedEntry() const { return m_selected; }
    void selectEntry(std::optional<uint32_t> entry);

    // What is drawn, for tests: the layout at the plot's width, the plot, the axis labels.
    const SnapshotTimelineLayout& drawnLayout() const;
    QRectF plotRect() const;
    QStringList xTickLabels() const;
    QStringList yTickLabels() const;
    // Bytes at the top of the plot.
    double yMaxBytes() const;
    // The marks drawn: segment ticks along the bottom, OOM lines with their label.
    struct DrawnMark
    {
        TraceAction action = TraceAction::Unknown;
        uint32_t entry = 0;
        double x = 0;  // widget coordinates: where it lies (an OOM's line)
        QRectF rect;   // the tick, or an OOM's label
        QString label; // "OOM" for an OOM; empty for a tick
    };
    QList<DrawnMark> drawnMarks() const;
    // The distinct allocation drawn under a point (index into SnapshotTimeline::allocations).
    std::optional<uint32_t> allocationAt(QPointF pos) const;
    // The tooltip at a point: an OOM, a segment entry, an allocation, the folded band; empty
    // elsewhere.
    QString toolTipAt(QPointF pos) const;
    // The entry whose state a click at x selects.
    std::optional<uint32_t> entryAtX(double x) const;

    // The qualitative colour of a band (by allocation), for the palette.
    static QColor bandColor(uint32_t allocation, const QPalette& palette);
    // The folded band's colour.
    static QColor foldedColor(const QPalette& palette);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // A click chose the state after this entry (kNoEntry: before the first).
    void entrySelected(quint32 entry);
    void visibleRangeChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void invalidateLayout();
    void setRange(TimelineRange range, bool notify);
    double xOfColumn(int column) const;
    double xOfPosition(int64_t position) const;
    double yOf(double bytes) const;
    double bytesAtY(double y) const;
    // The column under x, or -1 outside the plot.
    int columnAtX(double x) const;
    // The nearest mark of marks within a few pixels of x.
    const TimelineMark* markNear(const std::vector<TimelineMark>& marks, double x) const;
    QRectF markLane() const;
    QRectF plotRectFor(const QFontMetrics& metrics) const;
    struct XTick
    {
        double x = 0;
        QString label;
    };
    std::vector<XTick> xTicks() const;
    QString legendText() const;

    std::shared_ptr<const SnapshotData> m_data;
    size_t m_timelineIndex = 0;
    std::unique_ptr<SnapshotTimeline> m_ownTimeline; // where the data came without the loader's
    TimelineAxis m_axis = TimelineAxis::Time;
    TimelineRange m_range;
    int m_distinct = TimelineLayoutRequest::kDefaultDistinct;
    bool m_showReserved = true;
    std::vector<FrameStackId> m_highlighted;
    std::optional<uint32_t> m_selected;

    mutable QSize m_plotSize; // the size m_plot was worked out for
    mutable QRectF m_plot;
    mutable SnapshotTimelineLayout m_layout;
    mutable bool m_layoutValid = false;

    RangeDrag m_drag;
};

} // namespace gapscope
