#pragma once
// The gap chart: device used - allocator reserved over time, with the drift regression line,
// spike markers (the largest emphasised), the threshold band (mean +- z * std), toggleable
// counter overlays and phase spans shaded behind. Draws what AnalysisResult holds; computes
// no statistics. Min/max decimated to the pixel width, so any size redraws fast. A rank of a
// distributed job opened from the job page also shows its collective-attribution intervals as
// translucent bands behind the series, coloured by class as on the job heatmap.

#include "model/job/JobViewData.h"
#include "model/trace/AnalysisRunner.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <memory>

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
};

class GapChartView : public QWidget
{
    Q_OBJECT
public:
    explicit GapChartView(QWidget* parent = nullptr);
    ~GapChartView() override;

    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    std::shared_ptr<const AnalysisResult> analysis() const;

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

public slots:
    void setCursorTime(qint64 ns);
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void resetZoom();
    void highlightFinding(int findingIndex);

signals:
    void visibleRangeChanged(qint64 beginNs, qint64 endNs);
    void cursorRequested(qint64 ns);                  // user clicked a time
    void rangeSelected(qint64 beginNs, qint64 endNs); // Shift+drag: analyse this window
    void hoveredTime(qint64 ns);

protected:
    void changeEvent(QEvent* event) override; // follows palette and font changes (dark themes)

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
