#pragma once
// How user input moves a time view, written once: the wheel, keys and drags that zoom and pan
// a visible range (GapChartView, BudgetBreakdownView), and the keys and steps that move a
// timeline's cursor (TimelineScrubber, VerdictLane; their mouse and key events are
// CursorTimeline's). The rules are pure functions over TimeAxis and sorted times, so they are
// tested without a widget; RangeNavigator applies the range rules to a view's events.

#include "widgets/chart/TimeAxis.h"

#include <QObject>
#include <QPoint>
#include <QPointF>
#include <Qt>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

class QWidget;

namespace gapscope {

struct RangeNavigation
{
    // One wheel notch (QWheelEvent::angleDelta() 120) or one zoom key shows 80 % of the span.
    static constexpr double kZoomPerNotch = 0.8;
    static constexpr double kWheelNotch = 120.0;
    // A horizontal notch pans a tenth of the view, an arrow key an eighth.
    static constexpr double kWheelPanDivisor = 10.0;
    static constexpr int64_t kKeyPanDivisor = 8;

    // A vertical wheel zooms about the time under pixel x (held inside the axis's pixels);
    // a mostly horizontal one (tilt wheel, touchpad swipe) pans. nullopt for a zero delta.
    static std::optional<TimeAxis> afterWheel(const TimeAxis& view, QPoint angleDelta, double x);
    // Left/Right pan, Up/Plus/Equal zoom in about anchorNs, Down/Minus zoom out; nullopt for
    // any other key (Home, the reset, is the view's own: it knows the whole range).
    static std::optional<TimeAxis> afterKey(const TimeAxis& view, int key, int64_t anchorNs);
    // What the zoom keys zoom about: the cursor while it is in view, else the middle of the view.
    static int64_t keyAnchorNs(const TimeAxis& view, std::optional<int64_t> cursorNs);
    // A drag moves the range held at the press with the mouse: content follows the pointer.
    static TimeAxis afterDrag(const TimeAxis& atPress, double pressX, double x);
};

// A left-button drag that pans a view's range, with the click it may turn out to be: press takes
// the range shown, a move past the platform's drag distance starts the pan, release says whether
// it was a click (no pan). For views that do their own mouse handling around it.
class RangeDrag
{
public:
    void press(QPointF position, const TimeAxis& shown);
    // The range after a move with the button held, once the drag has started; nullopt before
    // (and without a press).
    std::optional<TimeAxis> move(QPointF position);
    // Ends the drag: where it was pressed when it was a click, nullopt after a pan or without a press.
    std::optional<QPointF> release();
    bool isPressed() const { return m_pressed.has_value(); }
    bool isPanning() const { return m_panning; }

private:
    std::optional<QPointF> m_pressed;
    TimeAxis m_atPress;
    bool m_panning = false;
};

// The wheel, double-click and key handling of a view with a visible time range, as an event
// filter on the widgets that receive that input (for a QGraphicsView: its viewport for the
// mouse, the view itself for keys). Input it does not use passes on to the widget.
class RangeNavigator : public QObject
{
    Q_OBJECT
public:
    // What the navigator asks of and tells the view.
    struct View
    {
        // The visible range on the pixels of the x that pixelX gives; nullopt while nothing is
        // shown (the input then passes on).
        std::function<std::optional<TimeAxis>()> axis;
        // x on the axis of a position in the watched widget.
        std::function<double(QPointF)> pixelX = [](QPointF position) { return position.x(); };
        std::function<void(const TimeAxis&)> setRange;
        // The whole range: a left double-click, and Home.
        std::function<void()> resetRange;
        // What the zoom keys zoom about while it is in view.
        std::function<std::optional<int64_t>()> cursor = [] { return std::nullopt; };
        // Whether the keys navigate (RangeNavigation::afterKey, Home).
        bool keys = true;
    };

    RangeNavigator(View view, QObject* parent);
    // Filters the wheel, double-click and key events of widget.
    void watch(QWidget* widget);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    View m_view;
};

struct CursorNavigation
{
    // Shift+arrow steps this many samples or ticks.
    static constexpr int kLargeStep = 10;

    enum class Move
    {
        Step,         // by steps samples or ticks
        PreviousMark, // the last mark (a phase start, ...) before the cursor
        NextMark,     // the first mark after it
        First,        // Home
        Last,         // End
    };
    struct KeyMove
    {
        Move move = Move::Step;
        int steps = 0;
        bool operator==(const KeyMove&) const = default;
    };

    // Left/Right one step (Shift: kLargeStep), PageUp/PageDown the marks, Home/End the ends;
    // nullopt for any other key.
    static std::optional<KeyMove> keyMove(int key, Qt::KeyboardModifiers modifiers);
    // position + steps kept on [0, count - 1]; count must be positive.
    static size_t steppedIndex(int64_t position, int steps, size_t count);
    // In ascending marks: the last one before ns, the first one after ns.
    static std::optional<int64_t> markBefore(std::span<const int64_t> marks, int64_t ns);
    static std::optional<int64_t> markAfter(std::span<const int64_t> marks, int64_t ns);
};

} // namespace gapscope
