#pragma once
// The segment map of a PyTorch memory snapshot: every segment as a horizontal bar of its blocks,
// drawn to one scale (the largest segment fills the width), in the rows and groups (stream, pool)
// model/snapshot/SnapshotSegmentMap lays out; active allocated, active pending free and inactive
// blocks in three colours of the palette's lightness. Scrolls vertically; the tooltip of a block
// is blockDescription's. Draws and forwards input only.
//
// A highlight (setHighlightedFrames: an allocation site's stacks, model/snapshot/SnapshotSites)
// outlines the live blocks those stacks allocated and dims every other block.

#include "model/snapshot/SnapshotSegmentMap.h"

#include <QAbstractScrollArea>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

class SegmentMapView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit SegmentMapView(QWidget* parent = nullptr);

    void setSnapshot(std::shared_ptr<const SnapshotData> data);
    std::shared_ptr<const SnapshotData> snapshot() const { return m_data; }
    void setOrder(SegmentOrder order);
    SegmentOrder order() const { return m_order; }
    const SegmentMapLayout& layout() const { return m_layout; }

    // Outlines the live (not inactive) blocks whose stack is one of stacks and dims the others,
    // scrolling to the first when none is in view; empty clears the highlight.
    void setHighlightedFrames(std::vector<FrameStackId> stacks);
    void setHighlightedFrames(FrameStackId stack) { setHighlightedFrames(std::vector<FrameStackId>{stack}); }
    void clearHighlight() { setHighlightedFrames(std::vector<FrameStackId>{}); }
    const std::vector<FrameStackId>& highlightedFrames() const { return m_highlighted; }
    // The blocks the highlight outlines (indexes into SnapshotData::blocks, ascending).
    const std::vector<uint32_t>& highlightedBlocks() const { return m_highlightedBlocks; }
    bool isHighlighted(const SnapshotBlock& block) const;
    // The content y of the bar of a segment (index into SnapshotData::segments); -1 when not drawn.
    int segmentTop(uint32_t segment) const;

    // The block under a point of the viewport (index into SnapshotData::blocks).
    std::optional<uint32_t> blockAt(QPoint viewportPos) const;
    // The colour a block of state is drawn in, for the palette.
    static QColor stateColor(BlockState state, const QPalette& palette);
    // For a picture (widgets/snapshot/SegmentMapExport): every segment inside the widget's size,
    // nothing scrolled out: the groups flow into columns (as many as the width holds at
    // kFitColumnWidth) and the bars get thinner where even those cannot hold them; the size
    // labels are left out of bars too thin for their text.
    void setFitToSize(bool fit);
    bool fitsToSize() const { return m_fit; }
    // The height its lines take (legend, headings, bars, margins) as laid out now.
    int drawnHeight() const { return contentHeight(); }
    static constexpr int kFitColumnWidth = 300;

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // A line of the content: a group's heading or a segment's bar.
    struct Line
    {
        int y = 0;
        int group = -1; // a heading: its group
        int row = -1;   // a bar: its row in the layout
        int x = 0;      // its column's left edge (fitted to size; else 0)
    };
    void relayout();
    // The lines at bars barHeight high, columns from the viewport's height down when fitted;
    // how many columns they take.
    int layOutLines(int barHeight, int rowGap);
    void updateScrollRange();
    int contentHeight() const;
    int columnWidth() const;
    QRect barRect(const SnapshotSegment& segment, const Line& line) const;
    const Line* lineAt(QPoint contentPos) const;

    std::shared_ptr<const SnapshotData> m_data;
    SegmentOrder m_order = SegmentOrder::Address;
    SegmentMapLayout m_layout;
    std::vector<Line> m_lines;
    int m_labelWidth = 0;
    bool m_fit = false;
    int m_barHeight = 0;
    int m_rowGap = 0;
    int m_columns = 1;
    bool m_rowLabels = true; // the bars' size labels (fitted: left out of bars too thin for them)
    std::vector<FrameStackId> m_highlighted; // ascending
    std::vector<uint32_t> m_highlightedBlocks;
};

} // namespace gapscope
