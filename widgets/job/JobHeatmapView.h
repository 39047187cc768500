#pragma once
// The rank x time heatmap of a distributed job: one row per rank on the aligned time axis,
// each pixel column coloured by the sample of largest |gap| (or gap ratio) in it, so a spike
// never vanishes at any zoom (model/job/HeatmapBinning). Missing ranks are hatched rows
// labelled "missing"; the leading first-cause suspects carry a marker in the label gutter and
// at their first spike; the cluster onset is a vertical line; collective-attribution intervals
// are outlined on their rank's row, styled by class; a colour legend with byte (or percent)
// ticks sits above. The cells are drawn into a cached image rebuilt only when the data, the
// measure, the visible range, the size or the palette change; overlays, cursor and hover are
// painted over it.
//
// Input is the gap chart's: the wheel zooms about the mouse (a horizontal one pans), a drag
// zooms to the dragged span, Ctrl+drag or a middle drag pans, a double click or Home shows
// everything, arrows pan and zoom (ChartNavigation); a click puts the cursor there; a click
// on a rank's label activates the rank (rankActivated).

#include "model/job/JobViewData.h"
#include "widgets/chart/TimeAxis.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

class JobHeatmapView : public QWidget
{
    Q_OBJECT
public:
    explicit JobHeatmapView(QWidget* parent = nullptr);
    ~JobHeatmapView() override;

    void setJob(std::shared_ptr<const JobViewData> job);
    std::shared_ptr<const JobViewData> job() const;
    void setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals);
    const std::vector<JobCollectiveInterval>& collectiveIntervals() const;
    // Offsets align the ranks' clocks; without a summary every offset is 0.
    void setCrossRankSummary(std::optional<JobCrossRankSummary> summary);
    const std::optional<JobCrossRankSummary>& crossRankSummary() const;
    // Ranks whose memory departs from their peers' (rank_divergence): their labels are drawn in
    // the warning colour with a mark, their tooltips say how.
    void setDivergentRanks(std::vector<JobDivergentRank> ranks);
    const std::vector<JobDivergentRank>& divergentRanks() const;
    void setMeasure(JobMeasure measure);
    JobMeasure measure() const;
    // A rank outlined (the rank table's current row); nullopt for none.
    void setHighlightedRank(std::optional<int64_t> rank);

    qint64 visibleBeginNs() const;
    qint64 visibleEndNs() const;
    std::optional<qint64> cursorTime() const;
    // First and last aligned sample time of the job; nullopt without samples.
    std::optional<AlignedRange> dataRange() const;

    // Geometry in widget coordinates (tests, the page).
    QRect plotRect() const;   // the cells
    QRect gutterRect() const; // the rank labels left of the cells
    QRect legendRect() const; // the colour bar
    TimeAxis pixelAxis() const;
    // The pixel rows of a rank: [top, bottom) inside the plot. Ranks share a pixel row when
    // there are more ranks than rows (each row then shows the largest magnitude of its ranks).
    QRect rowRect(size_t rankIndex) const;
    // The rank (index into job()->ranks) whose row or label is at pos.
    std::optional<size_t> rankIndexAt(QPoint pos) const;
    QString toolTipAt(QPoint pos) const; // HTML
    // The cells of a rank's row as last drawn (one per plot column, NaN empty); empty for a
    // missing rank or before the first draw.
    std::vector<double> drawnCells(size_t rankIndex) const;
    // How often the cached cell image has been rebuilt.
    int cacheBuilds() const;
    // Draws the cached image now if it is out of date (the benchmark times this alone).
    void rebuildCache();

    // The height the drawing takes at most (every row at its tallest, the legend and the axis):
    // any taller and the rest stays blank (an export is cut to it).
    int drawnHeight() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void setCursorTime(qint64 ns);
    void resetZoom();

signals:
    void visibleRangeChanged(qint64 beginNs, qint64 endNs);
    void cursorRequested(qint64 ns);
    void rankActivated(qint64 rank);

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
