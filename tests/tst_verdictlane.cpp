// The verdict timeline of memory-budget logs: runs, run-ended boundaries, hatched gaps and
// the tick cursor.
#include "model/budget/BudgetLoader.h"
#include "widgets/budget/BudgetBreakdownView.h"
#include "widgets/budget/VerdictLane.h"

#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>

using namespace gapscope;

namespace {

std::shared_ptr<const BudgetAnalysisResult> analyse(const QString& name)
{
    const BudgetLoadOutcome loaded =
        loadBudgetLog(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/") + name);
    return loaded.data ? runBudgetAnalysis(loaded.data, BudgetThresholds{}) : nullptr;
}

} // namespace

class TestVerdictLane : public QObject
{
    Q_OBJECT

private slots:
    void runsFollowTheLog_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("wedge") << QStringLiteral("wedge_info_only.text");
        QTest::newRow("leak") << QStringLiteral("leak.text");
        QTest::newRow("retention") << QStringLiteral("retention.text");
    }

    void runsFollowTheLog()
    {
        QFETCH(QString, name);
        const auto result = analyse(name);
        QVERIFY(result);
        const BudgetData& data = *result->data;
        const BudgetTicks& t = data.ticks;
        VerdictLane lane;
        lane.setAnalysis(result);
        QVERIFY(!lane.runs().empty());
        // the runs tile the ticks in order; one label per run; no run spans a gap
        size_t next = 0;
        for (const VerdictLane::Run& run : lane.runs()) {
            QCOMPARE(run.firstTick, next);
            QVERIFY(run.lastTick >= run.firstTick);
            for (size_t i = run.firstTick; i <= run.lastTick; ++i)
                QCOMPARE(QString::fromStdString(t.labelOf(i)), run.label);
            for (const TickGap& gap : data.gaps)
                QVERIFY(!(gap.beforeTick >= run.firstTick && gap.beforeTick < run.lastTick));
            QVERIFY(run.length >= int64_t(run.lastTick - run.firstTick + 1));
            next = run.lastTick + 1;
        }
        QCOMPARE(next, t.size());
        // two neighbouring runs without a gap between them differ in label
        for (size_t r = 1; r < lane.runs().size(); ++r) {
            const auto& a = lane.runs()[r - 1];
            const auto& b = lane.runs()[r];
            bool gapBetween = false;
            for (const TickGap& gap : data.gaps)
                gapBetween = gapBetween || gap.beforeTick == a.lastTick;
            QVERIFY(gapBetween || a.label != b.label);
        }
    }

    void wedgeLog()
    {
        const auto result = analyse(QStringLiteral("wedge_info_only.text"));
        QVERIFY(result);
        const BudgetData& data = *result->data;
        VerdictLane lane;
        lane.resize(1000, lane.sizeHint().height());
        lane.setAnalysis(result);
        // skip-shrink runs (the log's streaks reach 5), and "verdict run ended" lines close runs
        bool skipRun = false;
        for (const auto& run : lane.runs())
            skipRun = skipRun || (run.label.startsWith(QLatin1String("skip-shrink")) && run.length >= 5);
        QVERIFY(skipRun);
        QVERIFY(!data.ticks.runEnds.empty());
        int ended = 0;
        for (const auto& run : lane.runs())
            ended += run.endedByLog ? 1 : 0;
        QVERIFY(ended >= 1);
        QVERIFY(VerdictLane::verdictColor(QStringLiteral("skip-shrink-lean-caches"), lane.palette()) !=
                VerdictLane::verdictColor(QStringLiteral("grow"), lane.palette()));

        // the gaps are drawn hatched: the middle of a gap is not a verdict colour
        QImage image(lane.size(), QImage::Format_ARGB32);
        lane.render(&image);
        const QRectF band = lane.bandRect();
        for (const TickGap& gap : data.gaps) {
            const int x = int(lane.xOfTime(gap.startNs + (gap.endNs - gap.startNs) / 2));
            QVERIFY(lane.toolTipAt(QPoint(x, int(band.center().y()))).contains(QStringLiteral("not logged")));
            int verdictPixels = 0;
            for (int y = int(band.top()) + 2; y < int(band.bottom()) - 1; ++y)
                for (const auto& run : lane.runs())
                    verdictPixels +=
                        image.pixelColor(x, y) == VerdictLane::verdictColor(run.label, lane.palette());
            QCOMPARE(verdictPixels, 0);
        }
        // a run's tooltip names its label and length
        const auto& run = lane.runs().front();
        const int x = int(lane.xOfTime(data.ticks.timestampNs[run.firstTick]));
        QVERIFY(lane.toolTipAt(QPoint(x, int(band.center().y()))).contains(run.label));
    }

    void cursorStepsTicks()
    {
        const auto result = analyse(QStringLiteral("wedge_info_only.text"));
        QVERIFY(result);
        const auto& times = result->data->ticks.timestampNs;
        VerdictLane lane;
        lane.resize(800, lane.sizeHint().height());
        lane.setAnalysis(result);
        lane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&lane));
        QCOMPARE(lane.cursorTime(), times.front());
        QSignalSpy moved(&lane, &VerdictLane::cursorMoved);
        QTest::keyClick(&lane, Qt::Key_Right);
        QCOMPARE(lane.cursorTime(), times[1]);
        QTest::keyClick(&lane, Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(lane.cursorTime(), times[11]);
        QTest::keyClick(&lane, Qt::Key_Left);
        QCOMPARE(lane.cursorTime(), times[10]);
        QTest::keyClick(&lane, Qt::Key_End);
        QCOMPARE(lane.cursorTime(), times.back());
        QTest::keyClick(&lane, Qt::Key_Right); // stays at the last tick
        QCOMPARE(lane.cursorTime(), times.back());
        QTest::keyClick(&lane, Qt::Key_Home);
        QCOMPARE(lane.cursorTime(), times.front());
        QCOMPARE(moved.count(), 5);
        QCOMPARE(moved.back().front().toLongLong(), times.front());
        // a click snaps to the nearest logged tick
        const QPoint click(int(lane.xOfTime(times[7])) + 1, int(lane.bandRect().center().y()));
        QTest::mouseClick(&lane, Qt::LeftButton, {}, click);
        QCOMPARE(lane.cursorTime(), times[7]);
        QCOMPARE(lane.cursorTick(), std::optional<size_t>(7));
        // setCursorTime does not emit
        moved.clear();
        lane.setCursorTime(times[3]);
        QCOMPARE(moved.count(), 0);
    }

    // Drawn on the chart's time axis: after a zoom a tick is at the same x in the lane as in
    // the breakdown chart above it.
    void laneZoomsWithTheChart_data()
    {
        QTest::addColumn<double>("from"); // fractions of the log
        QTest::addColumn<double>("to");
        QTest::newRow("whole log") << 0.0 << 1.0;
        QTest::newRow("the lease window") << 0.38 << 0.52;
        QTest::newRow("last tenth") << 0.9 << 1.0;
    }
    void laneZoomsWithTheChart()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        const auto result = analyse(QStringLiteral("lease_healthy.text"));
        QVERIFY(result);
        const auto& times = result->data->ticks.timestampNs;
        QWidget page;
        auto* layout = new QVBoxLayout(&page);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(0);
        auto* chart = new BudgetBreakdownView(&page);
        auto* lane = new VerdictLane(&page);
        layout->addWidget(chart, 1);
        layout->addWidget(lane);
        connect(chart, &BudgetBreakdownView::plotMarginsChanged, lane, &VerdictLane::setPlotMargins);
        page.resize(1000, 600);
        chart->setAnalysis(result);
        lane->setAnalysis(result);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const int64_t span = times.back() - times.front();
        chart->setVisibleRange(times.front() + int64_t(double(span) * from),
                               times.front() + int64_t(double(span) * to));
        // as the budget page's view state tells both views
        lane->setVisibleRange(chart->visibleBeginNs(), chart->visibleEndNs());
        QCoreApplication::processEvents();
        QCOMPARE(lane->bandRect().left(), chart->plotRect().left());
        int compared = 0;
        for (int64_t t : times) {
            if (t < chart->visibleBeginNs() || t > chart->visibleEndNs())
                continue;
            QVERIFY2(std::abs(lane->xOfTime(t) - chart->xOfTime(t)) < 0.5,
                     qPrintable(QStringLiteral("%1 vs %2").arg(lane->xOfTime(t)).arg(chart->xOfTime(t))));
            ++compared;
        }
        QVERIFY(compared >= 10);
    }

    // Every colour and mark of the lane is named in its legend, and the legend is drawn.
    void legendNamesTheColours_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("lease") << QStringLiteral("lease_healthy.text");
        QTest::newRow("wedge") << QStringLiteral("wedge_info_only.text");
        QTest::newRow("leak") << QStringLiteral("leak.text");
    }
    void legendNamesTheColours()
    {
        QFETCH(QString, name);
        const auto result = analyse(name);
        QVERIFY(result);
        VerdictLane lane;
        lane.resize(1200, lane.sizeHint().height());
        lane.setAnalysis(result);
        const std::vector<VerdictLane::LegendEntry> entries = lane.legendEntries();
        QStringList texts;
        for (const auto& entry : entries)
            texts << entry.text;
        for (const auto& run : lane.runs())
            QVERIFY2(texts.contains(run.label), qPrintable(run.label));
        QCOMPARE(texts.contains(QStringLiteral("not logged")), !result->data->gaps.empty());
        QCOMPARE(texts.contains(QStringLiteral("verdict run ended")), !result->data->ticks.runEnds.empty());
        // each verdict colour appears below the time labels, where the legend is
        QImage image(lane.size(), QImage::Format_ARGB32);
        lane.render(&image);
        const int legendTop = int(lane.bandRect().bottom()) + 3 + 22 + lane.fontMetrics().height() + 4;
        for (const auto& entry : entries) {
            if (entry.kind != VerdictLane::LegendEntry::Kind::Verdict)
                continue;
            int pixels = 0;
            for (int y = legendTop; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    pixels += image.pixelColor(x, y) == entry.color;
            QVERIFY2(pixels > 20, qPrintable(entry.text));
        }
    }

    // A short run still says which verdict it is, and zoomed in the whole label shows.
    void shortRunsNameTheirVerdict()
    {
        const auto result = analyse(QStringLiteral("lease_healthy.text"));
        QVERIFY(result);
        VerdictLane lane;
        lane.resize(1000, lane.sizeHint().height());
        lane.setAnalysis(result);
        const VerdictLane::Run* skip = nullptr;
        for (const auto& run : lane.runs())
            if (run.label.startsWith(QLatin1String("skip-shrink")))
                skip = &run;
        QVERIFY(skip);
        QVERIFY(skip->length < 20);
        const QString text = lane.runText(*skip);
        QVERIFY2(text.startsWith(QLatin1String("skip")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral("×%1").arg(skip->length)), qPrintable(text));
        const auto& times = result->data->ticks.timestampNs;
        lane.setVisibleRange(times[skip->firstTick] - 30'000'000'000, times[skip->lastTick] + 30'000'000'000);
        QCOMPARE(lane.runText(*skip), QStringLiteral("%1 ×%2").arg(skip->label).arg(skip->length));
    }

    void emptyLane()
    {
        VerdictLane lane;
        lane.resize(300, lane.sizeHint().height());
        QImage image(lane.size(), QImage::Format_ARGB32);
        lane.render(&image);
        QVERIFY(lane.runs().empty());
        QVERIFY(!lane.cursorTick());
        lane.stepCursor(1); // nothing to step, no crash
        QVERIFY(lane.toolTipAt(QPoint(10, 10)).contains(QStringLiteral("No budget log")));
    }
};

QTEST_MAIN(TestVerdictLane)
#include "tst_verdictlane.moc"
