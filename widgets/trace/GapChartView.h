#pragma once
// The gap chart: device used - allocator reserved over time, with the drift regression line,
// spike markers (the largest emphasised), the threshold band (mean +- z * std), toggleable
// counter overlays and phase spans shaded behind. Draws what AnalysisResult holds; computes
// no statistics. Min/max decimated to the pixel width, so any size redraws fast.
// Markers follow the findings: spike markers only with a spike finding, the drift fit only
// with a drift finding, and every mark drawn has a legend entry. The y axis fits the visible
// data or starts at zero (ByteRangeMode), linear or logarithmic (both also in the chart's
// context menu); the threshold band is clipped, never followed; the x axis title reads out the
// visible time span and value range.

#include "model/trace/AnalysisRunner.h"
#include "widgets/chart/ByteAxis.h"

#include <QList>
#include <QPointF>
#include <QRectF>
#include <QStringList>
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

    ByteRangeMode yRangeMode() const;
    // A log2 byte axis: ticks at powers of two, values at or below zero not drawn.
    bool isLogScale() const;
    // The y axis labels as drawn, bottom to top.
    QStringList yAxisLabels() const;
    // "Time since trace start · showing 12.50 s, values 1.30 GiB to 1.31 GiB (range 100.00 KiB)"
    QString visibleSpanText() const;
    // Where the phase labels are drawn (chart view coordinates); never two overlapping.
    QList<QRectF> phaseLabelRects() const;
    // The note shown on a trace without a device total (chart view coordinates), else empty.
    QRectF noteRect() const;

public slots:
    void setCursorTime(qint64 ns);
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void resetZoom();
    void highlightFinding(int findingIndex);
    void setYRangeMode(ByteRangeMode mode);
    void setLogScale(bool on);

signals:
    void visibleRangeChanged(qint64 beginNs, qint64 endNs);
    void cursorRequested(qint64 ns);                  // user clicked a time
    void rangeSelected(qint64 beginNs, qint64 endNs); // Shift+drag: analyse this window
    void hoveredTime(qint64 ns);
    void yRangeModeChanged(ByteRangeMode mode); // the user chose it in the context menu
    void logScaleChanged(bool on);              // likewise

protected:
    void changeEvent(QEvent* event) override; // follows palette and font changes (dark themes)

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
