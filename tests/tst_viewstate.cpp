// The view state of a page: the visible range with its zoom steps (Back, Forward, a new step
// dropping the ones ahead), the cursor announced on every set, the analysis window, and a
// view that clamps the range while being told of it.
#include "app/pages/ViewState.h"

#include <QSignalSpy>
#include <QTest>

using namespace gapscope;

namespace {

// A view that cannot show less than kMinSpan nor leave [0, 1000]: like the charts, it clamps
// a range it is given and reports the clamped one back.
class ClampingView : public QObject
{
public:
    static constexpr qint64 kMinSpan = 100;
    explicit ClampingView(ViewState* state) : m_state(state)
    {
        connect(state, &ViewState::visibleRangeChanged, this, &ClampingView::setVisibleRange);
    }
    void setVisibleRange(qint64 begin, qint64 end)
    {
        begin = std::max<qint64>(begin, 0);
        end = std::min<qint64>(std::max(end, begin + kMinSpan), 1000);
        begin = std::min(begin, end - kMinSpan);
        if (TimeRange{begin, end} == m_range)
            return;
        m_range = {begin, end};
        m_state->setVisibleRange(begin, end);
    }
    TimeRange m_range;

private:
    ViewState* m_state;
};

} // namespace

class TestViewState : public QObject
{
    Q_OBJECT
private slots:
    void firstRangeStartsTheHistory()
    {
        ViewState state;
        QSignalSpy ranges(&state, &ViewState::visibleRangeChanged);
        QVERIFY(!state.canZoomBack());
        state.setVisibleRange(10, 5); // reversed: swapped
        QCOMPARE(state.visibleRange(), (TimeRange{5, 10}));
        QCOMPARE(state.zoomHistory().size(), size_t(1));
        QCOMPARE(ranges.count(), 1);
        state.setVisibleRange(5, 10); // unchanged: not announced
        QCOMPARE(ranges.count(), 1);
    }

    void zoomSteps_data()
    {
        QTest::addColumn<QList<int>>("operations"); // >0 zoomTo(0, n), 0 back, -1 forward, -2 pan by 1
        QTest::addColumn<qint64>("expectedEnd");
        QTest::addColumn<int>("expectedSteps");
        QTest::addColumn<int>("expectedStep");
        QTest::addColumn<bool>("canBack");
        QTest::addColumn<bool>("canForward");
        QTest::newRow("two steps") << QList<int>{100, 50} << qint64(50) << 3 << 2 << true << false;
        QTest::newRow("back") << QList<int>{100, 50, 0} << qint64(100) << 3 << 1 << true << true;
        QTest::newRow("back twice") << QList<int>{100, 50, 0, 0} << qint64(1000) << 3 << 0 << false << true;
        QTest::newRow("back past the start")
            << QList<int>{100, 0, 0, 0} << qint64(1000) << 2 << 0 << false << true;
        QTest::newRow("back and forward")
            << QList<int>{100, 50, 0, 0, -1} << qint64(100) << 3 << 1 << true << true;
        QTest::newRow("a new step drops the ones ahead")
            << QList<int>{100, 50, 0, 0, 70} << qint64(70) << 2 << 1 << true << false;
        QTest::newRow("pan refines the step")
            << QList<int>{100, -2} << qint64(101) << 2 << 1 << true << false;
    }

    void zoomSteps()
    {
        QFETCH(QList<int>, operations);
        QFETCH(qint64, expectedEnd);
        QFETCH(int, expectedSteps);
        QFETCH(int, expectedStep);
        QFETCH(bool, canBack);
        QFETCH(bool, canForward);
        ViewState state;
        state.setVisibleRange(0, 1000);
        QSignalSpy history(&state, &ViewState::zoomHistoryChanged);
        for (int op : operations) {
            if (op > 0)
                state.zoomTo(0, op);
            else if (op == 0)
                state.zoomBack();
            else if (op == -1)
                state.zoomForward();
            else
                state.setVisibleRange(state.visibleRange().beginNs + 1, state.visibleRange().endNs + 1);
        }
        QCOMPARE(state.visibleRange().endNs, expectedEnd);
        QCOMPARE(int(state.zoomHistory().size()), expectedSteps);
        QCOMPARE(int(state.zoomStep()), expectedStep);
        QCOMPARE(state.canZoomBack(), canBack);
        QCOMPARE(state.canZoomForward(), canForward);
        QVERIFY(history.count() >= 1);
    }

    void clampingViewGetsTheLastWord()
    {
        ViewState state;
        // a follower connected before the clamping view gets the clamped range last
        TimeRange follower;
        connect(&state, &ViewState::visibleRangeChanged, &state, [&](qint64 b, qint64 e) {
            follower = {b, e};
        });
        ClampingView view(&state);
        state.setVisibleRange(0, 1000);
        state.zoomTo(500, 510); // narrower than the view allows
        QCOMPARE(view.m_range, (TimeRange{500, 600}));
        QCOMPARE(state.visibleRange(), (TimeRange{500, 600}));
        QCOMPARE(follower, (TimeRange{500, 600}));
        // the step holds the clamped range: Back and Forward return to what was shown
        state.zoomBack();
        QCOMPARE(follower, (TimeRange{0, 1000}));
        state.zoomForward();
        QCOMPARE(follower, (TimeRange{500, 600}));
    }

    void cursorIsAlwaysAnnounced()
    {
        ViewState state;
        QSignalSpy cursor(&state, &ViewState::cursorChanged);
        state.setCursor(42);
        state.setCursor(42); // the views re-read their values at an unchanged time
        QCOMPARE(cursor.count(), 2);
        QCOMPARE(state.cursorNs(), qint64(42));
        state.syncCursor(7); // the views placed it already: nobody is told
        QCOMPARE(cursor.count(), 2);
        QCOMPARE(state.cursorNs(), qint64(7));
    }

    void analysisWindowAndReset()
    {
        ViewState state;
        QSignalSpy window(&state, &ViewState::analysisWindowChanged);
        state.setAnalysisWindow(TimeWindow{1, 2});
        state.setAnalysisWindow(TimeWindow{1, 2});
        QCOMPARE(window.count(), 1);
        QCOMPARE(state.analysisWindow(), std::optional<TimeWindow>(TimeWindow{1, 2}));
        state.setVisibleRange(0, 10);
        state.zoomTo(2, 3);
        state.setCursor(5);
        state.reset();
        QCOMPARE(window.count(), 2);
        QVERIFY(!state.analysisWindow());
        QVERIFY(state.zoomHistory().empty());
        QVERIFY(!state.canZoomBack());
        QCOMPARE(state.cursorNs(), qint64(0));
        // the first range after a reset starts a new history
        state.setVisibleRange(2, 3);
        QCOMPARE(state.zoomHistory().size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestViewState)
#include "tst_viewstate.moc"
