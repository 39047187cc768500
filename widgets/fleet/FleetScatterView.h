#pragma once
// The fleet page's scatter: one point per run, its duration across and its peak gap up,
// coloured by its worst finding's class. Drawn with QPainter (10 000 points in a few ms: one
// drawRects per colour), not a chart series per point. Dragging a rubber band selects the runs
// inside it (runsBrushed); the selected runs are drawn larger and outlined; a double-click on a
// point activates its run.

#include <QColor>
#include <QPoint>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace gapscope {

struct FleetScatterPoint
{
    double durationS = 0;
    double peakGapBytes = 0;
    int colorIndex = 0; // into the legend's entries
    int run = -1;       // what the signals name
};

class FleetScatterView : public QWidget
{
    Q_OBJECT
public:
    explicit FleetScatterView(QWidget* parent = nullptr);

    // The legend's entries (a class each), coloured in order; entry 0 is "no finding".
    void setLegend(const QStringList& entries);
    void setPoints(std::vector<FleetScatterPoint> points);
    const std::vector<FleetScatterPoint>& points() const { return m_points; }
    void setSelectedRuns(const std::vector<int>& runs);
    // Both axes logarithmic (runs spread over decades of duration and gap), or linear from zero.
    void setLogScale(bool log);
    bool isLogScale() const { return m_log; }
    // The colour of a legend entry.
    static QColor entryColor(int index);
    // The runs whose points lie inside a rectangle of the widget (what a drag selects).
    std::vector<int> runsInside(const QRect& rect) const;
    // The run of the point nearest to pos within a few pixels, or -1.
    int runAt(const QPoint& pos) const;
    // Where a point is drawn.
    QPointF pointPosition(const FleetScatterPoint& point) const;

    QSize sizeHint() const override { return {600, 400}; }

signals:
    void runsBrushed(const std::vector<int>& runs);
    void runActivated(int run);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QRectF plotRect() const;
    void updateRanges();
    // The legend's entries laid out in rows over the plot: each entry's top left.
    std::vector<QPointF> legendLayout(int* rows) const;
    // A value's fraction of its axis (0 at the origin, 1 at the end).
    double fractionX(double seconds) const;
    double fractionY(double bytes) const;
    // pointPosition inside a plot rectangle computed once (plotRect lays out the legend).
    QPointF positionIn(const QRectF& plot, const FleetScatterPoint& point) const;

    std::vector<FleetScatterPoint> m_points;
    std::vector<char> m_selected; // by run
    QStringList m_legend;
    bool m_log = false;
    double m_maxX = 1;
    double m_maxY = 1;
    double m_minX = 1; // the log axes' origins
    double m_minY = 1;
    bool m_dragging = false;
    QPoint m_dragFrom;
    QPoint m_dragTo;
};

} // namespace gapscope
