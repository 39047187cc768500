// ChartNavigation: the wheel, keys and drags that zoom and pan a visible range, the keys and
// steps that move a timeline's cursor, and CursorTimeline turning mouse and keys into moves.
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/CursorTimeline.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

using namespace gapscope;

namespace {

// 1000 ns per pixel over 1000 pixels.
const TimeAxis kView{0, 1'000'000, 0.0, 1000.0};

// A timeline over four samples 100 ns apart, one pixel per ns; optionally with marks.
class SampleTimeline : public CursorTimeline
{
public:
    explicit SampleTimeline(bool withMarks) : CursorTimeline(nullptr), m_withMarks(withMarks)
    {
        resize(500, 40);
        resetView(m_times.front(), m_times.front(), m_times.back());
    }
    void stepCursor(int steps) override
    {
        const auto at = std::lower_bound(m_times.begin(), m_times.end(), cursorTime());
        moveCursorByUser(
            m_times[CursorNavigation::steppedIndex(at - m_times.begin(), steps, m_times.size())]);
    }
    bool hasData = true;
    qint64 shownBeginNs() const { return visibleBeginNs(); }
    qint64 shownEndNs() const { return visibleEndNs(); }

protected:
    bool canMoveCursor() const override { return hasData; }
    qint64 snappedTime(double x) const override
    {
        return *std::min_element(m_times.begin(), m_times.end(),
                                 [x](int64_t a, int64_t b) { return std::abs(a - x) < std::abs(b - x); });
    }
    std::optional<qint64> firstCursorTime() const override { return m_times.front(); }
    std::optional<qint64> lastCursorTime() const override { return m_times.back(); }
    std::optional<std::span<const int64_t>> cursorMarks() const override
    {
        if (!m_withMarks)
            return std::nullopt;
        return std::span<const int64_t>(m_marks);
    }

private:
    bool m_withMarks;
    std::vector<int64_t> m_times{100, 200, 300, 400};
    std::vector<int64_t> m_marks{100, 300};
};

} // namespace

class TestChartNavigation : public QObject
{
    Q_OBJECT

private slots:
    void wheel_data()
    {
        QTest::addColumn<QPoint>("angleDelta");
        QTest::addColumn<double>("x");
        QTest::addColumn<bool>("moves");
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::newRow("notch up zooms in about the middle")
            << QPoint(0, 120) << 500.0 << true << qint64(100'000) << qint64(900'000);
        QTest::newRow("the time under the mouse stays")
            << QPoint(0, 120) << 250.0 << true << qint64(50'000) << qint64(850'000);
        QTest::newRow("notch down zooms out")
            << QPoint(0, -120) << 500.0 << true << qint64(-125'000) << qint64(1'125'000);
        QTest::newRow("two notches") << QPoint(0, 240) << 0.0 << true << qint64(0) << qint64(640'000);
        QTest::newRow("left of the plot is its left edge")
            << QPoint(0, 120) << -50.0 << true << qint64(0) << qint64(800'000);
        QTest::newRow("right of the plot is its right edge")
            << QPoint(0, 120) << 2000.0 << true << qint64(200'000) << qint64(1'000'000);
        QTest::newRow("horizontal notch pans a tenth")
            << QPoint(120, 0) << 500.0 << true << qint64(-100'000) << qint64(900'000);
        QTest::newRow("mostly horizontal pans")
            << QPoint(-240, 30) << 500.0 << true << qint64(200'000) << qint64(1'200'000);
        QTest::newRow("no delta") << QPoint(0, 0) << 500.0 << false << qint64(0) << qint64(0);
    }

    void wheel()
    {
        QFETCH(QPoint, angleDelta);
        QFETCH(double, x);
        QFETCH(bool, moves);
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        const std::optional<TimeAxis> next = RangeNavigation::afterWheel(kView, angleDelta, x);
        QCOMPARE(next.has_value(), moves);
        if (!next)
            return;
        QCOMPARE(next->beginNs, begin);
        QCOMPARE(next->endNs, end);
        QCOMPARE(next->pixelLeft, kView.pixelLeft);
        QCOMPARE(next->pixelRight, kView.pixelRight);
    }

    void keys_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<bool>("moves");
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::newRow("left pans an eighth")
            << int(Qt::Key_Left) << true << qint64(-125'000) << qint64(875'000);
        QTest::newRow("right") << int(Qt::Key_Right) << true << qint64(125'000) << qint64(1'125'000);
        QTest::newRow("up zooms in") << int(Qt::Key_Up) << true << qint64(100'000) << qint64(900'000);
        QTest::newRow("plus") << int(Qt::Key_Plus) << true << qint64(100'000) << qint64(900'000);
        QTest::newRow("equal") << int(Qt::Key_Equal) << true << qint64(100'000) << qint64(900'000);
        QTest::newRow("down zooms out") << int(Qt::Key_Down) << true << qint64(-125'000) << qint64(1'125'000);
        QTest::newRow("minus") << int(Qt::Key_Minus) << true << qint64(-125'000) << qint64(1'125'000);
        QTest::newRow("home is the view's") << int(Qt::Key_Home) << false << qint64(0) << qint64(0);
        QTest::newRow("a letter") << int(Qt::Key_A) << false << qint64(0) << qint64(0);
    }

    void keys()
    {
        QFETCH(int, key);
        QFETCH(bool, moves);
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        const std::optional<TimeAxis> next = RangeNavigation::afterKey(kView, key, 500'000);
        QCOMPARE(next.has_value(), moves);
        if (!next)
            return;
        QCOMPARE(next->beginNs, begin);
        QCOMPARE(next->endNs, end);
    }

    void keyAnchor_data()
    {
        QTest::addColumn<std::optional<qint64>>("cursor");
        QTest::addColumn<qint64>("anchor");
        QTest::newRow("cursor in view") << std::optional<qint64>(250'000) << qint64(250'000);
        QTest::newRow("cursor at the end") << std::optional<qint64>(1'000'000) << qint64(1'000'000);
        QTest::newRow("cursor before the view") << std::optional<qint64>(-1) << qint64(500'000);
        QTest::newRow("cursor after the view") << std::optional<qint64>(1'000'001) << qint64(500'000);
        QTest::newRow("no cursor") << std::optional<qint64>() << qint64(500'000);
    }

    void keyAnchor()
    {
        QFETCH(std::optional<qint64>, cursor);
        QFETCH(qint64, anchor);
        std::optional<int64_t> cursorNs;
        if (cursor)
            cursorNs = *cursor;
        QCOMPARE(RangeNavigation::keyAnchorNs(kView, cursorNs), anchor);
    }

    void drag()
    {
        // content follows the pointer: dragging right shows earlier times
        const TimeAxis right = RangeNavigation::afterDrag(kView, 300, 400);
        QCOMPARE(right.beginNs, -100'000);
        QCOMPARE(right.endNs, 900'000);
        const TimeAxis left = RangeNavigation::afterDrag(kView, 300, 250);
        QCOMPARE(left.beginNs, 50'000);
        QCOMPARE(left.endNs, 1'050'000);
        QCOMPARE(RangeNavigation::afterDrag(kView, 300, 300), kView);
    }

    // RangeDrag: a press and release without moving is a click; past the drag distance, a pan.
    void rangeDrag()
    {
        RangeDrag drag;
        QVERIFY(!drag.move(QPointF(400, 10)));
        QVERIFY(!drag.release());
        drag.press(QPointF(300, 10), kView);
        QVERIFY(drag.isPressed());
        QVERIFY(!drag.move(QPointF(301, 10))); // within the drag distance
        QCOMPARE(drag.release(), std::optional<QPointF>(QPointF(300, 10)));
        QVERIFY(!drag.isPressed());
        drag.press(QPointF(300, 10), kView);
        const std::optional<TimeAxis> moved = drag.move(QPointF(400, 10));
        QVERIFY(moved);
        QCOMPARE(*moved, RangeNavigation::afterDrag(kView, 300, 400));
        QVERIFY(drag.isPanning());
        // once panning, every move pans, back to the press too
        QCOMPARE(drag.move(QPointF(300, 10)), std::optional<TimeAxis>(kView));
        QVERIFY(!drag.release()); // a pan is no click
        QVERIFY(!drag.isPanning());
    }

    void cursorKeys_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<int>("modifiers");
        QTest::addColumn<bool>("handled");
        QTest::addColumn<int>("move");
        QTest::addColumn<int>("steps");
        using Move = CursorNavigation::Move;
        QTest::newRow("left") << int(Qt::Key_Left) << int(Qt::NoModifier) << true << int(Move::Step) << -1;
        QTest::newRow("right") << int(Qt::Key_Right) << int(Qt::NoModifier) << true << int(Move::Step) << 1;
        QTest::newRow("shift left") << int(Qt::Key_Left) << int(Qt::ShiftModifier) << true << int(Move::Step)
                                    << -10;
        QTest::newRow("shift right") << int(Qt::Key_Right) << int(Qt::ShiftModifier) << true
                                     << int(Move::Step) << 10;
        QTest::newRow("page up") << int(Qt::Key_PageUp) << int(Qt::NoModifier) << true
                                 << int(Move::PreviousMark) << 0;
        QTest::newRow("page down") << int(Qt::Key_PageDown) << int(Qt::NoModifier) << true
                                   << int(Move::NextMark) << 0;
        QTest::newRow("home") << int(Qt::Key_Home) << int(Qt::NoModifier) << true << int(Move::First) << 0;
        QTest::newRow("shift end") << int(Qt::Key_End) << int(Qt::ShiftModifier) << true << int(Move::Last)
                                   << 0;
        QTest::newRow("up is not a cursor key") << int(Qt::Key_Up) << int(Qt::NoModifier) << false << 0 << 0;
    }

    void cursorKeys()
    {
        QFETCH(int, key);
        QFETCH(int, modifiers);
        QFETCH(bool, handled);
        QFETCH(int, move);
        QFETCH(int, steps);
        const auto keyMove = CursorNavigation::keyMove(key, Qt::KeyboardModifiers(modifiers));
        QCOMPARE(keyMove.has_value(), handled);
        if (keyMove)
            QCOMPARE(*keyMove, (CursorNavigation::KeyMove{CursorNavigation::Move(move), steps}));
    }

    void steppedIndex_data()
    {
        QTest::addColumn<qint64>("position");
        QTest::addColumn<int>("steps");
        QTest::addColumn<qint64>("count");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("forward") << qint64(5) << 1 << qint64(10) << qint64(6);
        QTest::newRow("back") << qint64(5) << -1 << qint64(10) << qint64(4);
        QTest::newRow("clamped at the first") << qint64(5) << -10 << qint64(10) << qint64(0);
        QTest::newRow("clamped at the last") << qint64(8) << 10 << qint64(10) << qint64(9);
        QTest::newRow("from before the first") << qint64(-1) << 1 << qint64(10) << qint64(0);
        QTest::newRow("one sample") << qint64(0) << 3 << qint64(1) << qint64(0);
    }

    void steppedIndex()
    {
        QFETCH(qint64, position);
        QFETCH(int, steps);
        QFETCH(qint64, count);
        QFETCH(qint64, expected);
        QCOMPARE(qint64(CursorNavigation::steppedIndex(position, steps, size_t(count))), expected);
    }

    void marks_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<std::optional<qint64>>("before");
        QTest::addColumn<std::optional<qint64>>("after");
        using Opt = std::optional<qint64>;
        QTest::newRow("before the first") << qint64(5) << Opt() << Opt(10);
        QTest::newRow("on a mark") << qint64(20) << Opt(10) << Opt(30);
        QTest::newRow("between") << qint64(15) << Opt(10) << Opt(20);
        QTest::newRow("on the last") << qint64(30) << Opt(20) << Opt();
        QTest::newRow("after the last") << qint64(35) << Opt(30) << Opt();
    }

    void marks()
    {
        QFETCH(qint64, ns);
        QFETCH(std::optional<qint64>, before);
        QFETCH(std::optional<qint64>, after);
        const std::vector<int64_t> marks{10, 20, 30};
        const auto toQint = [](std::optional<int64_t> v) {
            return v ? std::optional<qint64>(*v) : std::nullopt;
        };
        QCOMPARE(toQint(CursorNavigation::markBefore(marks, ns)), before);
        QCOMPARE(toQint(CursorNavigation::markAfter(marks, ns)), after);
        QCOMPARE(toQint(CursorNavigation::markBefore({}, ns)), std::optional<qint64>());
        QCOMPARE(toQint(CursorNavigation::markAfter({}, ns)), std::optional<qint64>());
    }

    void cursorTimelineKeys()
    {
        SampleTimeline timeline(true);
        QSignalSpy moved(&timeline, &CursorTimeline::cursorMoved);
        QCOMPARE(timeline.cursorTime(), 100);
        QTest::keyClick(&timeline, Qt::Key_Right);
        QCOMPARE(timeline.cursorTime(), 200);
        QTest::keyClick(&timeline, Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(timeline.cursorTime(), 400);
        QTest::keyClick(&timeline, Qt::Key_Home);
        QCOMPARE(timeline.cursorTime(), 100);
        QTest::keyClick(&timeline, Qt::Key_PageDown);
        QCOMPARE(timeline.cursorTime(), 300);
        QTest::keyClick(&timeline, Qt::Key_PageDown); // nothing after the last mark
        QCOMPARE(timeline.cursorTime(), 300);
        QTest::keyClick(&timeline, Qt::Key_PageUp);
        QCOMPARE(timeline.cursorTime(), 100);
        QTest::keyClick(&timeline, Qt::Key_End);
        QCOMPARE(timeline.cursorTime(), 400);
        QCOMPARE(moved.count(), 6); // every move that changed the cursor, once
        QCOMPARE(moved.last().front().toLongLong(), 400);

        // setCursorTime follows the chart without echoing back
        timeline.setCursorTime(200);
        QCOMPARE(timeline.cursorTime(), 200);
        QCOMPARE(moved.count(), 6);
    }

    void cursorTimelineWithoutMarksOrData()
    {
        SampleTimeline timeline(false);
        QSignalSpy moved(&timeline, &CursorTimeline::cursorMoved);
        QTest::keyClick(&timeline, Qt::Key_PageDown); // no marks: the key is not the timeline's
        QCOMPARE(timeline.cursorTime(), 100);
        timeline.hasData = false;
        QTest::keyClick(&timeline, Qt::Key_Right);
        QTest::mousePress(&timeline, Qt::LeftButton, Qt::NoModifier, QPoint(300, 20));
        QCOMPARE(timeline.cursorTime(), 100);
        QCOMPARE(moved.count(), 0);
    }

    void cursorTimelineMouse()
    {
        SampleTimeline timeline(false);
        QSignalSpy moved(&timeline, &CursorTimeline::cursorMoved);
        QTest::mousePress(&timeline, Qt::LeftButton, Qt::NoModifier, QPoint(290, 20));
        QCOMPARE(timeline.cursorTime(), 300); // the nearest sample
        QMouseEvent drag(QEvent::MouseMove, QPointF(190, 20), timeline.mapToGlobal(QPointF(190, 20)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&timeline, &drag);
        QCOMPARE(timeline.cursorTime(), 200);
        QTest::mouseRelease(&timeline, Qt::LeftButton, Qt::NoModifier, QPoint(190, 20));
        QTest::mousePress(&timeline, Qt::RightButton, Qt::NoModifier, QPoint(390, 20));
        QCOMPARE(timeline.cursorTime(), 200); // only the left button moves the cursor
        QCOMPARE(moved.count(), 2);
    }

    void visibleRange()
    {
        SampleTimeline timeline(false);
        QCOMPARE(timeline.shownBeginNs(), 100);
        QCOMPARE(timeline.shownEndNs(), 400);
        timeline.setVisibleRange(300, 200); // either order
        QCOMPARE(timeline.shownBeginNs(), 200);
        QCOMPARE(timeline.shownEndNs(), 300);
    }
};

QTEST_MAIN(TestChartNavigation)
#include "tst_chartnavigation.moc"
