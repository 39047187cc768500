#pragma once
// A timeline under the chart: a cursor the user drags or steps with the arrow keys, a phase
// lane, finding ticks, and the chart's visible range drawn as a window over the whole run.

#include "model/items/BookmarksModel.h"
#include "model/trace/AnalysisRunner.h"
#include "widgets/chart/CursorTimeline.h"

#include <memory>
#include <vector>

namespace gapscope {

class TimelineScrubber : public CursorTimeline
{
    Q_OBJECT
public:
    explicit TimelineScrubber(QWidget* parent = nullptr);
    ~TimelineScrubber() override;

    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    // Bookmarks, drawn as small flags over the run (ascending time).
    void setBookmarks(std::vector<Bookmark> bookmarks);
    const std::vector<Bookmark>& bookmarks() const;
    // The times of the out-of-memory errors marked (TraceData::ooms within the run shown): a red
    // line over the lanes, named in the tooltip.
    std::vector<qint64> oomMarkerTimes() const;
    QSize sizeHint() const override;
    // constant, so loading a trace with more phase lanes never changes the window's minimum
    QSize minimumSizeHint() const override;

public slots:
    // +-N usable samples, emits cursorMoved. From a cursor between two samples one step reaches
    // the neighbour on that side.
    void stepCursor(int samples) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override; // rich tooltip: time, phase and findings under the mouse
    bool canMoveCursor() const override;
    qint64 snappedTime(double x) const override; // the usable sample nearest to pixel x
    // the first and last usable samples (the range's ends without any)
    std::optional<qint64> firstCursorTime() const override;
    std::optional<qint64> lastCursorTime() const override;
    std::optional<std::span<const int64_t>> cursorMarks() const override; // phase starts

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
