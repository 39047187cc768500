#pragma once
// The base of the timelines under a chart whose cursor the user clicks, drags and steps
// (TimelineScrubber over a trace's usable samples, VerdictLane over a budget log's ticks): it
// holds the cursor and the chart's visible range they draw, and turns the mouse (a left press
// or drag puts the cursor on the sample nearest to it) and the keys (CursorNavigation::keyMove:
// arrows step, Shift ten, PageUp/PageDown marks, Home/End the ends) into cursor moves. A
// subclass says what its samples, steps, marks and ends are.

#include <QWidget>

#include <cstdint>
#include <optional>
#include <span>

namespace gapscope {

class CursorTimeline : public QWidget
{
    Q_OBJECT
public:
    qint64 cursorTime() const { return m_cursorNs; }

public slots:
    void setCursorTime(qint64 ns); // does not emit cursorMoved
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    virtual void stepCursor(int steps) = 0; // +-N samples or ticks, emits cursorMoved

signals:
    void cursorMoved(qint64 ns); // user clicked, dragged or stepped

protected:
    explicit CursorTimeline(QWidget* parent);

    // Whether there is anything to put the cursor on; without it mouse and keys pass through.
    virtual bool canMoveCursor() const = 0;
    // The cursor time for a click or drag at pixel x: the nearest sample, x held inside the lane.
    virtual qint64 snappedTime(double x) const = 0;
    // Home and End; nullopt leaves the cursor where it is.
    virtual std::optional<qint64> firstCursorTime() const = 0;
    virtual std::optional<qint64> lastCursorTime() const = 0;
    // Ascending times PageUp/PageDown jump between; nullopt: the timeline has none and the keys
    // pass through.
    virtual std::optional<std::span<const int64_t>> cursorMarks() const { return std::nullopt; }

    qint64 visibleBeginNs() const { return m_visibleBeginNs; }
    qint64 visibleEndNs() const { return m_visibleEndNs; }
    // Cursor and visible range of a newly shown log or trace, without cursorMoved.
    void resetView(qint64 cursorNs, qint64 visibleBeginNs, qint64 visibleEndNs);
    // A cursor move the user made: repaints and emits cursorMoved when the time changes.
    void moveCursorByUser(qint64 ns);

    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    qint64 m_cursorNs = 0;
    qint64 m_visibleBeginNs = 0;
    qint64 m_visibleEndNs = 0;
};

} // namespace gapscope
