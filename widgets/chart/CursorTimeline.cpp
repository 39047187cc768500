#include "widgets/chart/CursorTimeline.h"

#include "widgets/chart/ChartNavigation.h"

#include <QKeyEvent>
#include <QMouseEvent>

#include <utility>

namespace gapscope {

CursorTimeline::CursorTimeline(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
}

void CursorTimeline::setCursorTime(qint64 ns)
{
    if (ns == m_cursorNs)
        return;
    m_cursorNs = ns;
    update();
}

void CursorTimeline::setVisibleRange(qint64 beginNs, qint64 endNs)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    if (beginNs == m_visibleBeginNs && endNs == m_visibleEndNs)
        return;
    m_visibleBeginNs = beginNs;
    m_visibleEndNs = endNs;
    update();
}

void CursorTimeline::resetView(qint64 cursorNs, qint64 visibleBeginNs, qint64 visibleEndNs)
{
    m_cursorNs = cursorNs;
    m_visibleBeginNs = visibleBeginNs;
    m_visibleEndNs = visibleEndNs;
    update();
}

void CursorTimeline::moveCursorByUser(qint64 ns)
{
    if (ns == m_cursorNs)
        return;
    m_cursorNs = ns;
    update();
    emit cursorMoved(ns);
}

void CursorTimeline::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !canMoveCursor()) {
        QWidget::mousePressEvent(event);
        return;
    }
    setFocus(Qt::MouseFocusReason);
    moveCursorByUser(snappedTime(event->position().x()));
    event->accept();
}

void CursorTimeline::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton) || !canMoveCursor()) {
        QWidget::mouseMoveEvent(event);
        return;
    }
    moveCursorByUser(snappedTime(event->position().x()));
    event->accept();
}

void CursorTimeline::keyPressEvent(QKeyEvent* event)
{
    const auto keyMove = CursorNavigation::keyMove(event->key(), event->modifiers());
    const auto marks = cursorMarks();
    const bool markKey = keyMove && (keyMove->move == CursorNavigation::Move::PreviousMark ||
                                     keyMove->move == CursorNavigation::Move::NextMark);
    if (!keyMove || !canMoveCursor() || (markKey && !marks)) {
        QWidget::keyPressEvent(event);
        return;
    }
    std::optional<qint64> target;
    switch (keyMove->move) {
    case CursorNavigation::Move::Step:
        stepCursor(keyMove->steps);
        break;
    case CursorNavigation::Move::PreviousMark:
        target = CursorNavigation::markBefore(*marks, m_cursorNs);
        break;
    case CursorNavigation::Move::NextMark:
        target = CursorNavigation::markAfter(*marks, m_cursorNs);
        break;
    case CursorNavigation::Move::First:
        target = firstCursorTime();
        break;
    case CursorNavigation::Move::Last:
        target = lastCursorTime();
        break;
    }
    if (target)
        moveCursorByUser(*target);
    event->accept();
}

} // namespace gapscope
