#include "widgets/chart/ChartNavigation.h"

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace gapscope {

std::optional<TimeAxis> RangeNavigation::afterWheel(const TimeAxis& view, QPoint angleDelta, double x)
{
    if (std::abs(angleDelta.x()) > std::abs(angleDelta.y()))
        return view.pannedByPixels(double(angleDelta.x()) / kWheelNotch * view.pixelWidth() /
                                   kWheelPanDivisor);
    if (angleDelta.y() == 0)
        return std::nullopt;
    return view.zoomedAbout(view.toNsClamped(x),
                            std::pow(kZoomPerNotch, double(angleDelta.y()) / kWheelNotch));
}

std::optional<TimeAxis> RangeNavigation::afterKey(const TimeAxis& view, int key, int64_t anchorNs)
{
    switch (key) {
    case Qt::Key_Left:
        return view.pannedBy(-view.spanNs() / kKeyPanDivisor);
    case Qt::Key_Right:
        return view.pannedBy(view.spanNs() / kKeyPanDivisor);
    case Qt::Key_Up:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        return view.zoomedAbout(anchorNs, kZoomPerNotch);
    case Qt::Key_Down:
    case Qt::Key_Minus:
        return view.zoomedAbout(anchorNs, 1.0 / kZoomPerNotch);
    default:
        return std::nullopt;
    }
}

int64_t RangeNavigation::keyAnchorNs(const TimeAxis& view, std::optional<int64_t> cursorNs)
{
    if (cursorNs && *cursorNs >= view.beginNs && *cursorNs <= view.endNs)
        return *cursorNs;
    return view.beginNs + view.spanNs() / 2;
}

TimeAxis RangeNavigation::afterDrag(const TimeAxis& atPress, double pressX, double x)
{
    return atPress.pannedByPixels(x - pressX);
}

void RangeDrag::press(QPointF position, const TimeAxis& shown)
{
    m_pressed = position;
    m_atPress = shown;
    m_panning = false;
}

std::optional<TimeAxis> RangeDrag::move(QPointF position)
{
    if (!m_pressed)
        return std::nullopt;
    if (!m_panning && std::abs(position.x() - m_pressed->x()) < QApplication::startDragDistance())
        return std::nullopt;
    m_panning = true;
    return RangeNavigation::afterDrag(m_atPress, m_pressed->x(), position.x());
}

std::optional<QPointF> RangeDrag::release()
{
    const std::optional<QPointF> pressed = m_pressed;
    const bool panned = m_panning;
    m_pressed.reset();
    m_panning = false;
    return panned ? std::nullopt : pressed;
}

RangeNavigator::RangeNavigator(View view, QObject* parent) : QObject(parent), m_view(std::move(view)) {}

void RangeNavigator::watch(QWidget* widget)
{
    widget->installEventFilter(this);
}

bool RangeNavigator::eventFilter(QObject* watched, QEvent* event)
{
    switch (event->type()) {
    case QEvent::Wheel: {
        auto* wheel = static_cast<QWheelEvent*>(event);
        const std::optional<TimeAxis> axis = m_view.axis();
        if (!axis)
            break;
        const auto next =
            RangeNavigation::afterWheel(*axis, wheel->angleDelta(), m_view.pixelX(wheel->position()));
        if (!next)
            break;
        m_view.setRange(*next);
        wheel->accept();
        return true;
    }
    case QEvent::MouseButtonDblClick:
        if (static_cast<QMouseEvent*>(event)->button() != Qt::LeftButton)
            break;
        m_view.resetRange();
        event->accept();
        return true;
    case QEvent::KeyPress: {
        const int key = static_cast<QKeyEvent*>(event)->key();
        const std::optional<TimeAxis> axis = m_view.axis();
        if (!m_view.keys || !axis)
            break;
        if (key == Qt::Key_Home) {
            m_view.resetRange();
        } else if (const auto next = RangeNavigation::afterKey(
                       *axis, key, RangeNavigation::keyAnchorNs(*axis, m_view.cursor()))) {
            m_view.setRange(*next);
        } else {
            break;
        }
        event->accept();
        return true;
    }
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

std::optional<CursorNavigation::KeyMove> CursorNavigation::keyMove(int key, Qt::KeyboardModifiers modifiers)
{
    const int step = modifiers.testFlag(Qt::ShiftModifier) ? kLargeStep : 1;
    switch (key) {
    case Qt::Key_Left:
        return KeyMove{Move::Step, -step};
    case Qt::Key_Right:
        return KeyMove{Move::Step, step};
    case Qt::Key_PageUp:
        return KeyMove{Move::PreviousMark, 0};
    case Qt::Key_PageDown:
        return KeyMove{Move::NextMark, 0};
    case Qt::Key_Home:
        return KeyMove{Move::First, 0};
    case Qt::Key_End:
        return KeyMove{Move::Last, 0};
    default:
        return std::nullopt;
    }
}

size_t CursorNavigation::steppedIndex(int64_t position, int steps, size_t count)
{
    return size_t(std::clamp<int64_t>(position + steps, 0, int64_t(count) - 1));
}

std::optional<int64_t> CursorNavigation::markBefore(std::span<const int64_t> marks, int64_t ns)
{
    const auto it = std::lower_bound(marks.begin(), marks.end(), ns);
    if (it == marks.begin())
        return std::nullopt;
    return *std::prev(it);
}

std::optional<int64_t> CursorNavigation::markAfter(std::span<const int64_t> marks, int64_t ns)
{
    const auto it = std::upper_bound(marks.begin(), marks.end(), ns);
    if (it == marks.end())
        return std::nullopt;
    return *it;
}

} // namespace gapscope
