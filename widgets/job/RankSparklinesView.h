#pragma once
// Small multiples of a distributed job: every rank's gap (or gap ratio) as a sparkline, one row
// per rank on one shared time axis (the page's visible range, aligned like the heatmap), with
// one y scale for all rows or each row its own, the rank's label, host and latest value. Rows
// scroll; up to kMaxRanks ranks: beyond that a sparkline each is no longer readable, and the
// view says to use the heatmap instead. Lines are min/max decimated to the pixel width
// (MinMaxPyramid) and computed only when the range, the width, the measure or the data change;
// a repaint draws only the rows in view.
//
// A click on a line puts the cursor there; a double click on a row activates the rank; the
// wheel scrolls, Ctrl+wheel zooms the shared range and a horizontal wheel pans it.

#include "model/job/JobViewData.h"

#include <QPolygonF>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QScrollArea;

namespace gapscope {

class RankSparklinesView : public QWidget
{
    Q_OBJECT
public:
    static constexpr size_t kMaxRanks = 64;

    explicit RankSparklinesView(QWidget* parent = nullptr);
    ~RankSparklinesView() override;

    void setJob(std::shared_ptr<const JobViewData> job);
    void setCrossRankSummary(std::optional<JobCrossRankSummary> summary);
    void setCollectiveIntervals(std::vector<JobCollectiveInterval> intervals);
    void setMeasure(JobMeasure measure);
    JobMeasure measure() const;
    // One y scale for every row (the default), or each row fitted to its own values.
    void setSharedScale(bool shared);
    bool sharedScale() const;
    void setHighlightedRank(std::optional<int64_t> rank);
    // More ranks than kMaxRanks: no sparklines, a note pointing at the heatmap.
    bool isOverLimit() const;

    qint64 visibleBeginNs() const;
    qint64 visibleEndNs() const;

    // The scrolled rows and what they show, in the rows widget's coordinates (tests).
    QWidget* rowsWidget() const;
    QScrollArea* scrollArea() const;
    QRect rowRect(size_t rankIndex) const;
    QRect plotRect(size_t rankIndex) const; // the sparkline of a row
    // The line of a row in pixels, as last computed (empty for a missing rank).
    QPolygonF drawnLine(size_t rankIndex) const;
    // The values at the top and the bottom of a row's sparkline.
    std::pair<double, double> valueRange(size_t rankIndex) const;
    std::optional<size_t> rankIndexAt(QPoint rowsPos) const;
    QString toolTipAt(QPoint rowsPos) const; // HTML
    // How often the lines have been computed.
    int lineBuilds() const;
    QString noteText() const;

public slots:
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void setCursorTime(qint64 ns);

signals:
    void cursorRequested(qint64 ns);
    void rankActivated(qint64 rank);
    // Ctrl+wheel or a horizontal wheel: the range the user asks for (the page clamps it through
    // its view state).
    void visibleRangeRequested(qint64 beginNs, qint64 endNs);

protected:
    void changeEvent(QEvent* event) override;

private:
    class Private;
    class Rows;
    class Axis;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
