// The small multiples of a distributed job: a sparkline per rank on one shared time axis,
// shared or per-row y scale, spikes kept by the decimation, missing ranks, more ranks than
// fit (scrolling) and more than kMaxRanks (the note), cursor, activation and zoom.
#include "model/text/Text.h"
#include "tests/DarkPalette.h"
#include "tests/JobFixtures.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/job/RankSparklinesView.h"

#include <QApplication>
#include <QImage>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <algorithm>

using namespace gapscope;
using namespace gapscope::test;

namespace {

void sendWheel(QWidget* widget, QPoint pos, QPoint angleDelta, Qt::KeyboardModifiers modifiers)
{
    QWheelEvent wheel(QPointF(pos), QPointF(widget->mapToGlobal(pos)), QPoint(), angleDelta, Qt::NoButton,
                      modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &wheel);
}

// Spikes one sample wide on every rank (rank r at sample 1000 + 97 r), a level that differs by rank.
std::shared_ptr<const JobViewData> spikyJob(int ranks, std::vector<int> missing = {})
{
    return syntheticJob(
        ranks, 20'000, 50'000'000,
        [](int r, int i) {
            const int64_t level = int64_t(256 + 64 * r) << 20;
            return i == 1000 + 97 * r ? level + (int64_t(4) << 30) : level;
        },
        missing);
}

} // namespace

class TestRankSparklines : public QObject
{
    Q_OBJECT

private slots:
    void rowsAndLines()
    {
        const auto job = spikyJob(8, {5});
        RankSparklinesView view;
        view.resize(900, 500);
        view.setJob(job);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.isOverLimit());
        QVERIFY(view.noteText().isEmpty());
        const auto range = alignedRangeOf(*job, nullptr);
        QCOMPARE(view.visibleBeginNs(), range->beginNs);
        QCOMPARE(view.visibleEndNs(), range->endNs);
        for (size_t i = 0; i < job->ranks.size(); ++i) {
            const QRect row = view.rowRect(i);
            QCOMPARE(row.top(), int(i) * row.height());
            QVERIFY(row.contains(view.plotRect(i)));
            QCOMPARE(view.rankIndexAt(row.center()), std::optional<size_t>(i));
            const QPolygonF line = view.drawnLine(i);
            if (!job->ranks[i].present) {
                QVERIFY(line.isEmpty());
                continue;
            }
            // min/max decimated: at most two points per pixel column and the ends
            const QRect plot = view.plotRect(i);
            QVERIFY(line.size() >= 2);
            QVERIFY(line.size() <= 2 * plot.width() + 2);
            QCOMPARE(line.front().x(), double(plot.left()));
            QCOMPARE(line.back().x(), double(plot.left() + plot.width()));
            // the spike one sample wide reaches the top of the shared scale (the largest of all:
            // the rank with the highest level) or close to it
            const auto top = std::min_element(
                line.begin(), line.end(), [](const QPointF& a, const QPointF& b) { return a.y() < b.y(); });
            const auto [low, high] = view.valueRange(i);
            const double spike = double((int64_t(256 + 64 * int(i)) << 20) + (int64_t(4) << 30));
            const double expectedY = plot.bottom() - (spike - low) / (high - low) * (plot.height() - 2);
            QVERIFY2(std::abs(top->y() - expectedY) <= 1.5,
                     qPrintable(QStringLiteral("rank %1: %2 vs %3").arg(i).arg(top->y()).arg(expectedY)));
        }
        QVERIFY(!view.rankIndexAt(QPoint(10, view.rowRect(7).bottom() + 5)));
        // shared scale: every row the same; the largest spike at the top
        const auto shared = view.valueRange(0);
        for (size_t i = 1; i < job->ranks.size(); ++i)
            QCOMPARE(view.valueRange(i), shared);
        QCOMPARE(shared.first, 0.0); // zero kept in view
        QCOMPARE(shared.second, double((int64_t(256 + 64 * 7) << 20) + (int64_t(4) << 30)));
        // per row: each row fitted to its own values
        view.setSharedScale(false);
        QCOMPARE(view.valueRange(2).second, double((int64_t(256 + 128) << 20) + (int64_t(4) << 30)));
        QVERIFY(view.valueRange(2) != view.valueRange(3));
        // the missing rank says so
        QVERIFY(view.toolTipAt(view.rowRect(5).center()).contains(QStringLiteral("missing")));
        const QString tip = view.toolTipAt(view.plotRect(2).center());
        QVERIFY2(tip.contains(QStringLiteral("rank 2")), qPrintable(tip));
        QVERIFY2(tip.contains(htmlEscape(bytesText(*job->ranks[2].latestGap))), qPrintable(tip));
    }

    void visibleRangeAndRebuilds()
    {
        const auto job = spikyJob(4);
        RankSparklinesView view;
        view.resize(800, 400);
        view.setJob(job);
        view.grab();
        const int builds = view.lineBuilds();
        QCOMPARE(builds, 1);
        view.setCursorTime(view.visibleBeginNs() + 1000);
        view.setHighlightedRank(2);
        view.setCollectiveIntervals({});
        view.setSharedScale(false);
        view.grab();
        QCOMPARE(view.lineBuilds(), builds);
        // rank 0's spike at sample 1000: in a window around it, it is the only point at the top
        const RankSeries& rank0 = job->ranks[0];
        const int64_t spikeNs = rank0.timeAt(1000);
        view.setVisibleRange(spikeNs - 2'000'000'000, spikeNs + 2'000'000'000);
        const QPolygonF line = view.drawnLine(0);
        QCOMPARE(view.lineBuilds(), builds + 1);
        const QRect plot = view.plotRect(0);
        // 81 samples in view: every one drawn, and the line cut where it enters and leaves
        // (towards the neighbours outside, two pixels beyond the plot)
        QCOMPARE(line.size(), qsizetype(83));
        QCOMPARE(line.front().x(), double(plot.left() - 2));
        QCOMPARE(line.back().x(), double(plot.left() + plot.width() + 2));
        const auto top = std::min_element(line.begin(), line.end(),
                                          [](const QPointF& a, const QPointF& b) { return a.y() < b.y(); });
        QVERIFY(std::abs(top->x() - (plot.left() + plot.width() / 2.0)) < 1.0);
        view.setMeasure(JobMeasure::GapRatio);
        QVERIFY(view.drawnLine(0).size() == line.size());
        QCOMPARE(view.lineBuilds(), builds + 2);
        QCOMPARE(view.valueRange(0).second,
                 (double(256 << 20) + double(int64_t(4) << 30)) / double(int64_t(80) << 30));
    }

    void alignment()
    {
        const auto job = buildJobViewData(loadFixtureJob(skewInputs()));
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("skew-job"));
        RankSparklinesView view;
        view.resize(800, 400);
        view.setJob(job);
        view.setCrossRankSummary(summary);
        view.setVisibleRange(job->ranks[0].timeAt(0), job->ranks[0].timeAt(0) + 4'000'000'000);
        // rank 2's clock runs a second late: aligned, its first sample is at the left edge too
        const QPolygonF line = view.drawnLine(2);
        QVERIFY(!line.isEmpty());
        QCOMPARE(line.front().x(), double(view.plotRect(2).left()));
        view.setCrossRankSummary(std::nullopt);
        QVERIFY(view.drawnLine(2).front().x() > view.plotRect(2).left() + view.plotRect(2).width() / 5);
    }

    void scrollsToSixtyFourRanks()
    {
        const auto job = spikyJob(64);
        RankSparklinesView view;
        view.resize(700, 420);
        view.setJob(job);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.isOverLimit());
        QScrollBar* bar = view.scrollArea()->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        QCOMPARE(view.rowsWidget()->height(), 64 * view.rowRect(0).height());
        // the wheel scrolls; Ctrl+wheel asks for a zoom instead
        QSignalSpy zoom(&view, &RankSparklinesView::visibleRangeRequested);
        const QPoint middle = view.plotRect(0).center();
        sendWheel(view.rowsWidget(), middle, QPoint(0, -120), Qt::NoModifier);
        QVERIFY(bar->value() > 0);
        QCOMPARE(zoom.count(), 0);
        sendWheel(view.rowsWidget(), view.plotRect(3).center(), QPoint(0, 120), Qt::ControlModifier);
        QCOMPARE(zoom.count(), 1);
        const qint64 span = zoom.at(0).at(1).toLongLong() - zoom.at(0).at(0).toLongLong();
        QVERIFY(std::abs(double(span) - 0.8 * double(view.visibleEndNs() - view.visibleBeginNs())) < 2);
        // a highlighted rank is scrolled into view
        view.setHighlightedRank(63);
        QCOMPARE(bar->value(), bar->maximum());
        QImage image = view.grab().toImage();
        QVERIFY(image.save(QStringLiteral("/tmp/ranksparklines-64.png")));
    }

    void beyondSixtyFourRanks()
    {
        const auto job = spikyJob(65);
        RankSparklinesView view;
        view.resize(700, 420);
        view.setJob(job);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.isOverLimit());
        QVERIFY2(view.noteText().contains(QStringLiteral("65 ranks")), qPrintable(view.noteText()));
        QVERIFY(view.noteText().contains(QStringLiteral("heatmap")));
        QVERIFY(!view.scrollArea()->isVisible());
        QVERIFY(view.drawnLine(0).isEmpty());
        view.setJob(spikyJob(3));
        QVERIFY(!view.isOverLimit());
        QVERIFY(view.scrollArea()->isVisible());
        QVERIFY(view.noteText().isEmpty());
    }

    void cursorAndActivation()
    {
        const auto job = spikyJob(4);
        RankSparklinesView view;
        view.resize(800, 400);
        view.setJob(job);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy cursor(&view, &RankSparklinesView::cursorRequested);
        QSignalSpy activated(&view, &RankSparklinesView::rankActivated);
        const QRect plot = view.plotRect(1);
        QTest::mouseClick(view.rowsWidget(), Qt::LeftButton, Qt::NoModifier,
                          QPoint(plot.left(), plot.center().y()));
        QCOMPARE(cursor.count(), 1);
        QCOMPARE(cursor.at(0).at(0).toLongLong(), view.visibleBeginNs());
        QTest::mouseDClick(view.rowsWidget(), Qt::LeftButton, Qt::NoModifier, view.rowRect(2).center());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toLongLong(), 2);
    }

    void drawn_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void drawn()
    {
        QFETCH(bool, dark);
        const auto job = buildJobViewData(loadFixtureJob(firstCauseInputs()));
        RankSparklinesView view;
        if (dark)
            view.setPalette(darkPalette());
        view.resize(760, 300);
        view.setJob(job);
        view.setCrossRankSummary(expectedSummary(QStringLiteral("firstcause-job")));
        view.setCollectiveIntervals(expectedIntervals(QStringLiteral("firstcause-job")));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage image = view.grab().toImage();
        QVERIFY(image.save(dark ? QStringLiteral("/tmp/ranksparklines-dark.png")
                                : QStringLiteral("/tmp/ranksparklines.png")));
        // the line's colour along every present rank's sparkline
        const QColor gap = chartColors(view.palette()).gap;
        const QPoint offset = view.rowsWidget()->mapTo(&view, QPoint(0, 0));
        for (size_t i = 0; i < 3; ++i) {
            const QRect plot = view.plotRect(i).translated(offset);
            int linePixels = 0;
            for (int y = plot.top(); y <= plot.bottom(); ++y)
                for (int x = plot.left(); x <= plot.right(); ++x) {
                    const QColor c(image.pixel(x, y));
                    linePixels += std::abs(c.red() - gap.red()) + std::abs(c.green() - gap.green()) +
                                      std::abs(c.blue() - gap.blue()) <
                                  40;
                }
            QVERIFY2(linePixels > plot.width() / 2, qPrintable(QString::number(linePixels)));
        }
    }
};

QTEST_MAIN(TestRankSparklines)
#include "tst_ranksparklines.moc"
