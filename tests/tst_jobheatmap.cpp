// The rank x time heatmap of a distributed job: the binning (largest magnitude per pixel
// column, held and empty columns), time <-> pixel, hit-testing rows, missing ranks, tooltips,
// the drawn image (light and dark), navigation and when the cell cache is rebuilt.
#include "model/job/HeatmapBinning.h"
#include "model/report/ReportContent.h"
#include "model/text/Text.h"
#include "tests/DarkPalette.h"
#include "tests/JobFixtures.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/job/JobViewStyle.h"

#include <QApplication>
#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <cmath>
#include <limits>
#include <random>
#include <set>

using namespace gapscope;
using namespace gapscope::test;

Q_DECLARE_METATYPE(std::vector<double>)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<uint32_t> identityRows(size_t n)
{
    std::vector<uint32_t> rows(n);
    for (size_t i = 0; i < n; ++i)
        rows[i] = uint32_t(i);
    return rows;
}

// What binLargestMagnitude must give, by its definition, sample by sample.
std::vector<double> referenceCells(const std::vector<int64_t>& times, const std::vector<double>& values,
                                   const HeatmapColumns& range, int64_t holdLimitNs)
{
    std::vector<double> cells(size_t(range.columns), kNaN);
    std::vector<bool> sampled(size_t(range.columns), false);
    if (range.columns <= 0)
        return cells;
    for (size_t i = 0; i < times.size(); ++i) {
        if (times[i] < range.beginNs || times[i] > range.endNs)
            continue;
        const auto c = size_t(range.columnOf(times[i]));
        if (std::isnan(values[i]))
            continue;
        sampled[c] = true;
        if (std::isnan(cells[c]) || std::abs(values[i]) > std::abs(cells[c]))
            cells[c] = values[i];
    }
    if (holdLimitNs <= 0)
        return cells;
    for (int c = 0; c < range.columns; ++c) {
        if (sampled[size_t(c)])
            continue;
        // the first sample after the column's start, and the one before it
        size_t next = 0;
        while (next < times.size() && times[next] <= range.endNs &&
               (times[next] < range.beginNs || range.columnOf(times[next]) < c))
            ++next;
        if (next == 0 || next == times.size())
            continue;
        if (times[next] - times[next - 1] <= holdLimitNs)
            cells[size_t(c)] = values[next - 1];
    }
    return cells;
}

bool sameCells(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
            return false;
    return true;
}

QString cellsText(const std::vector<double>& cells)
{
    QStringList parts;
    for (double v : cells)
        parts << (std::isnan(v) ? QStringLiteral("-") : QString::number(v));
    return parts.join(QLatin1Char(' '));
}

std::shared_ptr<const JobViewData> firstCauseJob()
{
    return buildJobViewData(loadFixtureJob(firstCauseInputs()));
}

// The plot column of an aligned time, as the binning counts columns.
int columnAt(const JobHeatmapView& view, int64_t alignedNs)
{
    return int(HeatmapColumns{view.visibleBeginNs(), view.visibleEndNs(), view.plotRect().width()}.columnOf(
        alignedNs));
}

void sendWheel(QWidget* widget, QPoint pos, QPoint angleDelta)
{
    QWheelEvent wheel(QPointF(pos), QPointF(widget->mapToGlobal(pos)), QPoint(), angleDelta, Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &wheel);
}

} // namespace

class TestJobHeatmap : public QObject
{
    Q_OBJECT

private slots:
    void binning_data()
    {
        QTest::addColumn<std::vector<double>>("timesAsDouble");
        QTest::addColumn<std::vector<double>>("values");
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<int>("columns");
        QTest::addColumn<qint64>("holdLimit");
        QTest::addColumn<std::vector<double>>("expected");

        // three columns of 30 ns: [0, 30), [30, 60), [60, 90] (the end falls into the last)
        QTest::newRow("largest magnitude per column, negative wins")
            << std::vector<double>{0, 10, 20, 31, 40, 50, 61, 70, 80, 90}
            << std::vector<double>{1, -5, 3, 2, 2, 4, -1, 0, 7, -8} << qint64(0) << qint64(90) << 3
            << qint64(0) << std::vector<double>{-5, 4, -8};
        QTest::newRow("first and last sample kept at the edges")
            << std::vector<double>{0, 5, 10} << std::vector<double>{7, 1, -9} << qint64(0) << qint64(10) << 2
            << qint64(0) << std::vector<double>{7, -9};
        QTest::newRow("earliest of equal magnitudes")
            << std::vector<double>{0, 1, 2} << std::vector<double>{-3, 3, 2} << qint64(0) << qint64(2) << 1
            << qint64(0) << std::vector<double>{-3};
        QTest::newRow("empty columns without hold")
            << std::vector<double>{0, 100} << std::vector<double>{1, 2} << qint64(0) << qint64(100) << 5
            << qint64(0) << std::vector<double>{1, kNaN, kNaN, kNaN, 2};
        QTest::newRow("empty columns held between close samples")
            << std::vector<double>{0, 100} << std::vector<double>{1, 2} << qint64(0) << qint64(100) << 5
            << qint64(100) << std::vector<double>{1, 1, 1, 1, 2};
        QTest::newRow("a hole wider than the hold limit stays empty")
            << std::vector<double>{0, 100} << std::vector<double>{1, 2} << qint64(0) << qint64(100) << 5
            << qint64(99) << std::vector<double>{1, kNaN, kNaN, kNaN, 2};
        QTest::newRow("a view inside a hole: held from the sample before it")
            << std::vector<double>{0, 100} << std::vector<double>{-4, 2} << qint64(40) << qint64(60) << 4
            << qint64(100) << std::vector<double>{-4, -4, -4, -4};
        QTest::newRow("after the last sample: empty")
            << std::vector<double>{0, 10} << std::vector<double>{3, 5} << qint64(0) << qint64(40) << 4
            << qint64(1000) << std::vector<double>{3, 5, kNaN, kNaN};
        QTest::newRow("before the first sample: empty")
            << std::vector<double>{30, 40} << std::vector<double>{3, 5} << qint64(0) << qint64(40) << 4
            << qint64(1000) << std::vector<double>{kNaN, kNaN, kNaN, 5};
        QTest::newRow("missing values never win")
            << std::vector<double>{0, 1, 2} << std::vector<double>{kNaN, 5, kNaN} << qint64(0) << qint64(2)
            << 1 << qint64(0) << std::vector<double>{5};
        QTest::newRow("no rows") << std::vector<double>{} << std::vector<double>{} << qint64(0) << qint64(10)
                                 << 3 << qint64(10) << std::vector<double>{kNaN, kNaN, kNaN};
        QTest::newRow("no columns") << std::vector<double>{0, 1} << std::vector<double>{1, 2} << qint64(0)
                                    << qint64(1) << 0 << qint64(10) << std::vector<double>{};
    }

    void binning()
    {
        QFETCH(std::vector<double>, timesAsDouble);
        QFETCH(std::vector<double>, values);
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        QFETCH(int, columns);
        QFETCH(qint64, holdLimit);
        QFETCH(std::vector<double>, expected);
        const std::vector<int64_t> times(timesAsDouble.begin(), timesAsDouble.end());
        const std::vector<uint32_t> rows = identityRows(times.size());
        auto valueAt = [&](uint32_t row) { return values[row]; };
        const HeatmapColumns range{begin, end, columns};
        const std::vector<double> cells = binLargestMagnitude(times, rows, range, holdLimit, valueAt);
        QVERIFY2(sameCells(cells, expected), qPrintable(cellsText(cells) + " != " + cellsText(expected)));
        QVERIFY(sameCells(cells, referenceCells(times, values, range, holdLimit)));
        const MagnitudePyramid pyramid(times, std::span<const uint32_t>(rows), valueAt);
        QVERIFY(sameCells(binLargestMagnitude(times, rows, range, holdLimit, valueAt, &pyramid), expected));
    }

    // The pyramid gives what a scan of every sample gives, at any range and width.
    void binningMatchesTheDefinition()
    {
        std::mt19937_64 random(15);
        std::vector<int64_t> times;
        std::vector<double> values;
        int64_t t = 1'796'000'000'000'000'000;
        double level = 1e9;
        for (int i = 0; i < 60'000; ++i) {
            t += 1 + int64_t(random() % 200);
            if (random() % 5000 == 0)
                t += 50'000; // holes: some wider than the hold limit
            level += double(int64_t(random() % 2001) - 1000) * 1e5;
            values.push_back(random() % 997 == 0 ? level * -3 : (random() % 1499 == 0 ? kNaN : level));
            times.push_back(t);
        }
        const std::vector<uint32_t> rows = identityRows(times.size());
        auto valueAt = [&](uint32_t row) { return values[row]; };
        const MagnitudePyramid pyramid(times, std::span<const uint32_t>(rows), valueAt);
        for (int trial = 0; trial < 40; ++trial) {
            const int64_t a = times.front() + int64_t(random() % uint64_t(times.back() - times.front()));
            const int64_t b = a + int64_t(random() % uint64_t(times.back() - a + 1));
            const int columns = 1 + int(random() % 1600);
            const int64_t hold = trial % 3 == 0 ? 0 : 400 + int64_t(random() % 20'000);
            const HeatmapColumns range{trial == 0 ? times.front() : a, trial == 0 ? times.back() : b,
                                       columns};
            const auto expected = referenceCells(times, values, range, hold);
            QVERIFY2(sameCells(binLargestMagnitude(times, rows, range, hold, valueAt), expected),
                     qPrintable(QStringLiteral("trial %1 without the pyramid").arg(trial)));
            QVERIFY2(sameCells(binLargestMagnitude(times, rows, range, hold, valueAt, &pyramid), expected),
                     qPrintable(QStringLiteral("trial %1 with the pyramid").arg(trial)));
        }
    }

    void holdLimitFollowsTheSampling()
    {
        // 100 ms sampling: holes up to four intervals are a held counter
        const auto job = syntheticJob(2, 50, 100'000'000, [](int, int) { return int64_t(1) << 20; });
        QCOMPARE(job->ranks[0].holdLimitNs, int64_t(400'000'000));
        QCOMPARE(job->ranks[1].holdLimitNs, int64_t(400'000'000));
    }

    void timeAndPixels()
    {
        const auto job = firstCauseJob();
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t(4));
        JobHeatmapView view;
        view.resize(1000, 420);
        view.setJob(job);
        const auto range = view.dataRange();
        QVERIFY(range);
        QCOMPARE(view.visibleBeginNs(), range->beginNs);
        QCOMPARE(view.visibleEndNs(), range->endNs);
        const QRect plot = view.plotRect();
        QVERIFY(plot.width() > 800);
        const TimeAxis axis = view.pixelAxis();
        QCOMPARE(axis.toPixel(range->beginNs), double(plot.left()));
        QCOMPARE(axis.toPixel(range->endNs), double(plot.left() + plot.width()));
        QCOMPARE(axis.toNs(plot.left()), range->beginNs);
        view.rebuildCache();
        // every rank's row holds exactly the binning of its samples over the plot's columns
        for (size_t i = 0; i < job->ranks.size(); ++i) {
            const RankSeries& series = job->ranks[i];
            const auto expected = binLargestMagnitude(
                series.times(), series.rows, HeatmapColumns{range->beginNs, range->endNs, plot.width()},
                series.holdLimitNs, [&](uint32_t row) { return series.valueOfRow(JobMeasure::Gap, row); });
            QVERIFY(sameCells(view.drawnCells(i), expected));
            // the column of the rank's peak holds the peak (or one of equal magnitude)
            const double cell = view.drawnCells(i)[size_t(columnAt(view, *series.peakGapNs))];
            QCOMPARE(std::abs(cell), std::abs(double(*series.peakGap)));
        }
        // the ratio: the gap over the device total
        view.setMeasure(JobMeasure::GapRatio);
        view.rebuildCache();
        const RankSeries& rank0 = job->ranks[0];
        const auto ratio = view.drawnCells(0);
        const auto column = size_t(columnAt(view, *rank0.peakGapNs));
        const int64_t total = rank0.store().total[rank0.rows.front()];
        QVERIFY(total > 0);
        QVERIFY(std::abs(std::abs(ratio[column]) - std::abs(double(*rank0.peakGap)) / double(total)) < 1e-12);
    }

    void alignment()
    {
        const auto job = buildJobViewData(loadFixtureJob(skewInputs()));
        QVERIFY(job);
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("skew-job"));
        QCOMPARE(summary.offsetOf(2), int64_t(1'000'000'000));
        JobHeatmapView view;
        view.resize(1200, 400);
        view.setJob(job);
        const auto raw = view.dataRange();
        QSignalSpy rangeSpy(&view, &JobHeatmapView::visibleRangeChanged);
        view.setCrossRankSummary(summary);
        const auto aligned = view.dataRange();
        QVERIFY(raw && aligned);
        // upstream's offsets put every rank's first sample at the anchor rank's
        for (const RankSeries& series : job->ranks)
            QCOMPARE(series.timeAt(0) - summary.offsetOf(series.rank), job->ranks[0].timeAt(0));
        QCOMPARE(aligned->beginNs, job->ranks[0].timeAt(0));
        QVERIFY(raw->beginNs < aligned->beginNs); // rank 4 starts 200 ms before rank 0
        QCOMPARE(rangeSpy.count(), 1);            // showing everything, it still shows everything
        QCOMPARE(view.visibleBeginNs(), aligned->beginNs);
        // every rank's first sample is in the first column; without the offsets rank 2's is not
        view.rebuildCache();
        for (size_t i = 0; i < job->ranks.size(); ++i)
            QVERIFY(!std::isnan(view.drawnCells(i).front()));
        view.setCrossRankSummary(std::nullopt);
        view.rebuildCache();
        QVERIFY(std::isnan(view.drawnCells(2).front()));
        QCOMPARE(view.dataRange()->beginNs, raw->beginNs);
    }

    // One file holding several ranks (partitions of one session): a row each, aligned.
    void oneInputSeveralRanks()
    {
        const auto job = buildJobViewData(loadFixtureJob({QStringLiteral("collective-merged.jsonl")}));
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t(3));
        JobHeatmapView view;
        view.resize(900, 300);
        view.setJob(job);
        view.setCrossRankSummary(expectedSummary(QStringLiteral("collective-merged.jsonl")));
        view.setCollectiveIntervals(expectedIntervals(QStringLiteral("collective-merged.jsonl")));
        view.rebuildCache();
        for (size_t i = 0; i < 3; ++i) {
            QVERIFY(!std::isnan(view.drawnCells(i).front())); // every rank starts at the aligned start
            const QString tip = view.toolTipAt(view.rowRect(i).center());
            QVERIFY2(tip.contains(QStringLiteral("<b>rank %1</b>").arg(i)), qPrintable(tip));
        }
        QVERIFY(!view.grab().isNull());
    }

    void hitTestingRows_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("height");
        QTest::newRow("4 ranks, tall rows") << 4 << 400;
        QTest::newRow("64 ranks") << 64 << 600;
        QTest::newRow("300 ranks share pixel rows") << 300 << 260;
    }

    void hitTestingRows()
    {
        QFETCH(int, ranks);
        QFETCH(int, height);
        const auto job = syntheticJob(ranks, 200, 10'000'000, [](int r, int) { return int64_t(r) << 20; });
        JobHeatmapView view;
        view.resize(900, height);
        view.setJob(job);
        const QRect plot = view.plotRect();
        const QRect gutter = view.gutterRect();
        QVERIFY(gutter.right() < plot.left());
        int bandsSeen = 0;
        int previousBottom = plot.top();
        for (size_t i = 0; i < size_t(ranks); ++i) {
            const QRect row = view.rowRect(i);
            QCOMPARE(row.top(), previousBottom); // the rows tile the plot
            previousBottom = row.top() + row.height();
            if (row.height() == 0)
                continue; // shares the pixel row of the next rank
            ++bandsSeen;
            const auto hit = view.rankIndexAt(QPoint(plot.center().x(), row.center().y()));
            QVERIFY(hit);
            // a shared row answers with the first of its ranks
            QVERIFY(*hit <= i);
            QCOMPARE(view.rankIndexAt(QPoint(gutter.center().x(), row.center().y())), hit);
            if (ranks <= plot.height())
                QCOMPARE(*hit, i);
        }
        QCOMPARE(previousBottom, plot.top() + plot.height());
        QVERIFY(bandsSeen == std::min(ranks, plot.height()));
        QVERIFY(!view.rankIndexAt(QPoint(plot.center().x(), plot.top() - 3)));
        QVERIFY(!view.rankIndexAt(QPoint(plot.center().x(), plot.bottom() + 3)));
        QVERIFY(!view.rankIndexAt(QPoint(plot.right() + 3, plot.center().y())));
    }

    // More ranks than pixel rows: a spike of one rank still colours its shared row.
    void sharedRowsKeepSpikes()
    {
        const auto job = syntheticJob(300, 1000, 10'000'000, [](int r, int i) {
            return (r == 151 && i == 500) ? int64_t(8) << 30 : int64_t(1) << 20;
        });
        JobHeatmapView view;
        view.resize(900, 260);
        view.setJob(job);
        const QImage image = view.grab().toImage();
        const QRect row = view.rowRect(151);
        const QRect plot = view.plotRect();
        QVERIFY(row.height() > 0 || view.rowRect(152).height() > 0);
        const int y = row.top();
        const int x = plot.left() + columnAt(view, job->ranks[151].timeAt(500));
        const auto [low, high] = job->valueDomain(JobMeasure::Gap);
        const HeatmapColorScale scale(low, high, view.palette());
        QCOMPARE(image.pixel(x, y), scale.colorOf(double(int64_t(8) << 30)));
        const QString tip = view.toolTipAt(QPoint(x, y));
        QVERIFY2(tip.contains(QStringLiteral("share this pixel row")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("rank 151")), qPrintable(tip));
        QVERIFY(plot.contains(QPoint(x, y)));
    }

    void missingRanksAreHatched()
    {
        const auto job = buildJobViewData(loadFixtureJob(missingFilesInputs()));
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t(4));
        QVERIFY(!job->ranks[3].present);
        JobHeatmapView view;
        view.resize(1000, 360);
        view.setJob(job);
        const QImage image = view.grab().toImage();
        image.save(QStringLiteral("/tmp/jobheatmap-missing.png"));
        const QRect row = view.rowRect(3);
        QVERIFY(row.height() >= 20);
        const QColor base = view.palette().color(QPalette::Base);
        // the left quarter of the row (clear of the "missing" label): base and hatch lines only
        std::set<QRgb> colors;
        int hatchPixels = 0;
        for (int y = row.top() + 1; y < row.bottom() - 1; ++y)
            for (int x = row.left() + 2; x < row.left() + row.width() / 4; ++x) {
                const QRgb pixel = image.pixel(x, y);
                colors.insert(pixel);
                hatchPixels += pixel != base.rgb();
            }
        QCOMPARE(colors.size(), size_t(2));
        QVERIFY(hatchPixels > 20);
        QVERIFY(view.drawnCells(3).empty());
        // a present row has heat colours
        const QRect present = view.rowRect(0);
        std::set<QRgb> heat;
        for (int x = present.left(); x < present.right(); x += 3)
            heat.insert(image.pixel(x, present.center().y()));
        QVERIFY(heat.size() >= 3);
        const QRgb hatch = *colors.begin() == base.rgb() ? *colors.rbegin() : *colors.begin();
        QVERIFY(!heat.count(hatch));
        // labelled: the tooltip and the label inside the row
        const QString tip = view.toolTipAt(row.center());
        QVERIFY2(tip.contains(QStringLiteral("rank 3")) && tip.contains(QStringLiteral("missing")),
                 qPrintable(tip));
        int labelPixels = 0;
        for (int y = row.top(); y < row.bottom(); ++y)
            for (int x = row.center().x() - 30; x < row.center().x() + 30; ++x)
                labelPixels += !colors.count(image.pixel(x, y));
        QVERIFY(labelPixels > 20);
    }

    void toolTips()
    {
        const auto job = firstCauseJob();
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("firstcause-job"));
        JobHeatmapView view;
        view.resize(1100, 400);
        view.setJob(job);
        view.setCrossRankSummary(summary);
        view.setCollectiveIntervals(expectedIntervals(QStringLiteral("firstcause-job")));
        const auto origin = view.dataRange()->beginNs;
        const RankSeries& rank1 = job->ranks[1];
        // a sample inside the rank's first collective interval
        const auto intervals = expectedIntervals(QStringLiteral("firstcause-job"));
        const auto interval = std::find_if(intervals.begin(), intervals.end(),
                                           [](const JobCollectiveInterval& i) { return i.rank == 1; });
        QVERIFY(interval != intervals.end());
        const size_t position =
            *rank1.positionAtOrBefore(interval->startNs + (interval->endNs - interval->startNs) / 2);
        const int64_t raw = rank1.timeAt(position);
        const int64_t aligned = raw - summary.offsetOf(1);
        QVERIFY(aligned != raw); // rank 1's clock runs 3 ms early
        const int x = view.plotRect().left() + columnAt(view, aligned);
        const QString tip = view.toolTipAt(QPoint(x, view.rowRect(1).center().y()));
        QVERIFY2(tip.contains(QStringLiteral("<b>rank 1</b>")), qPrintable(tip));
        QVERIFY2(tip.contains(htmlEscape(formatRelativeTime(aligned, origin))), qPrintable(tip));
        QVERIFY2(tip.contains(htmlEscape(formatAbsoluteTime(raw))), qPrintable(tip));
        QVERIFY2(tip.contains(htmlEscape(bytesText(rank1.gapAt(position)))), qPrintable(tip));
        QVERIFY2(tip.contains(htmlEscape(percentText(rank1.valueAt(JobMeasure::GapRatio, position), 2))),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("collective_confident")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("cross_rank_synchrony")), qPrintable(tip));
        // the suspect's label
        const QString label =
            view.toolTipAt(QPoint(view.gutterRect().center().x(), view.rowRect(3).center().y()));
        QVERIFY2(label.contains(QStringLiteral("first-cause suspect (high confidence)")), qPrintable(label));
        QVERIFY2(label.contains(QStringLiteral("Click to open")), qPrintable(label));
        // the cluster onset, on any row
        const int onsetX = int(std::lround(view.pixelAxis().toPixel(*summary.clusterOnsetNs)));
        QVERIFY(view.toolTipAt(QPoint(onsetX, view.rowRect(0).center().y()))
                    .contains(QStringLiteral("Cluster onset")));
    }

    void drawnImage_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void drawnImage()
    {
        QFETCH(bool, dark);
        const auto job = firstCauseJob();
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("firstcause-job"));
        JobHeatmapView view;
        if (dark)
            view.setPalette(darkPalette());
        view.resize(1100, 380);
        view.setJob(job);
        view.setCrossRankSummary(summary);
        view.setCollectiveIntervals(expectedIntervals(QStringLiteral("firstcause-job")));
        view.setCursorTime(view.dataRange()->beginNs +
                           (view.dataRange()->endNs - view.dataRange()->beginNs) / 5);
        const QImage image = view.grab().toImage();
        QVERIFY(image.save(dark ? QStringLiteral("/tmp/jobheatmap-dark.png")
                                : QStringLiteral("/tmp/jobheatmap.png")));
        const QPalette palette = view.palette();
        const auto [low, high] = job->valueDomain(JobMeasure::Gap);
        const HeatmapColorScale scale(low, high, palette);
        // a cell away from the overlays has its value's colour
        const QRect row0 = view.rowRect(0);
        QCOMPARE(image.pixel(row0.left() + 2, row0.center().y()), scale.colorOf(view.drawnCells(0)[2]));
        // many colours in the plot; the largest gap's colour is among them
        std::set<QRgb> plotColors;
        const QRect plot = view.plotRect();
        for (int y = plot.top(); y < plot.bottom(); y += 2)
            for (int x = plot.left(); x < plot.right(); x += 2)
                plotColors.insert(image.pixel(x, y));
        QVERIFY(plotColors.size() > 8);
        QVERIFY(plotColors.count(scale.colorOf(high)));
        // the outlines of the collective intervals, the onset line and the suspect's marker
        auto count = [&](const QRect& area, const QColor& color) {
            int n = 0;
            for (int y = area.top(); y <= area.bottom(); ++y)
                for (int x = area.left(); x <= area.right(); ++x)
                    n += QColor(image.pixel(x, y)) == color;
            return n;
        };
        QVERIFY(count(plot, collectiveClassPen(CollectiveClass::Confident, palette).color()) > 200);
        const int onset = int(std::floor(view.pixelAxis().toPixel(*summary.clusterOnsetNs)));
        QVERIFY(count(QRect(onset - 1, plot.top(), 3, plot.height()), palette.color(QPalette::Text)) > 20);
        const QRect marker(view.gutterRect().left(), view.rowRect(3).top(), 12, view.rowRect(3).height());
        QVERIFY(count(marker, suspectColor(SuspectConfidence::High, palette)) > 10);
        // the legend's bar runs from the zero colour (or the most negative) to the largest magnitude's
        const QRect legend = view.legendRect();
        const double barLow = scale.hasNegative() ? -scale.maxMagnitude() : 0.0;
        auto barValue = [&](int x) {
            return barLow + (scale.maxMagnitude() - barLow) * (x + 0.5) / double(legend.width());
        };
        QCOMPARE(image.pixel(legend.left() + 1, legend.center().y()), scale.colorOf(barValue(1)));
        QCOMPARE(image.pixel(legend.right() - 1, legend.center().y()),
                 scale.colorOf(barValue(legend.width() - 2)));
        // labels readable on the palette: the gutter holds pixels near the text colour
        const QColor text = palette.color(QPalette::Text);
        int labelPixels = 0;
        const QRect gutter = view.gutterRect();
        for (int y = gutter.top(); y <= gutter.bottom(); ++y)
            for (int x = gutter.left(); x <= gutter.right(); ++x) {
                const QColor c(image.pixel(x, y));
                labelPixels += std::abs(c.red() - text.red()) + std::abs(c.green() - text.green()) +
                                   std::abs(c.blue() - text.blue()) <
                               90;
            }
        QVERIFY(labelPixels > 40);
        QCOMPARE(QColor(image.pixel(2, image.height() - 2)), palette.color(QPalette::Base));
    }

    void navigation()
    {
        const auto job = firstCauseJob();
        JobHeatmapView view;
        view.resize(1000, 400);
        view.setJob(job);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto full = *view.dataRange();
        const QRect plot = view.plotRect();
        QSignalSpy rangeSpy(&view, &JobHeatmapView::visibleRangeChanged);
        QSignalSpy cursorSpy(&view, &JobHeatmapView::cursorRequested);
        QSignalSpy rankSpy(&view, &JobHeatmapView::rankActivated);

        // wheel: zoom in about the mouse
        const QPoint middle = plot.center();
        const int64_t anchor = view.pixelAxis().toNs(middle.x());
        sendWheel(&view, middle, QPoint(0, 120));
        QCOMPARE(rangeSpy.count(), 1);
        const int64_t span = view.visibleEndNs() - view.visibleBeginNs();
        QVERIFY(std::abs(double(span) - 0.8 * double(full.endNs - full.beginNs)) < 2);
        QVERIFY(std::abs(view.pixelAxis().toNs(middle.x()) - anchor) < span / 500);
        // Home: everything again
        QTest::keyClick(&view, Qt::Key_Home);
        QCOMPARE(view.visibleBeginNs(), full.beginNs);
        QCOMPARE(view.visibleEndNs(), full.endNs);
        // drag: zoom to the dragged span
        const int a = plot.left() + plot.width() / 4;
        const int b = plot.left() + plot.width() / 2;
        const TimeAxis before = view.pixelAxis();
        QTest::mousePress(&view, Qt::LeftButton, Qt::NoModifier, QPoint(a, middle.y()));
        QTest::mouseMove(&view, QPoint(a + 30, middle.y()));
        QTest::mouseMove(&view, QPoint(b, middle.y()));
        QTest::mouseRelease(&view, Qt::LeftButton, Qt::NoModifier, QPoint(b, middle.y()));
        QCOMPARE(view.visibleBeginNs(), before.toNs(a));
        QCOMPARE(view.visibleEndNs(), before.toNs(b));
        QCOMPARE(cursorSpy.count(), 0);
        // Ctrl+drag pans: the content follows the mouse
        const TimeAxis zoomed = view.pixelAxis();
        QTest::mousePress(&view, Qt::LeftButton, Qt::ControlModifier, QPoint(b, middle.y()));
        QTest::mouseMove(&view, QPoint(b - 100, middle.y()));
        QTest::mouseRelease(&view, Qt::LeftButton, Qt::ControlModifier, QPoint(b - 100, middle.y()));
        QCOMPARE(view.visibleBeginNs(), zoomed.pannedByPixels(-100).beginNs);
        // a click puts the cursor there
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, QPoint(a, middle.y()));
        QCOMPARE(cursorSpy.count(), 1);
        QCOMPARE(cursorSpy.at(0).at(0).toLongLong(), view.pixelAxis().toNs(a));
        QCOMPARE(view.cursorTime(), std::optional<qint64>(view.pixelAxis().toNs(a)));
        // a click on a rank's label activates it
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier,
                          QPoint(view.gutterRect().center().x(), view.rowRect(2).center().y()));
        QCOMPARE(rankSpy.count(), 1);
        QCOMPARE(rankSpy.at(0).at(0).toLongLong(), 2);
        // double click: everything
        QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, middle);
        QCOMPARE(view.visibleBeginNs(), full.beginNs);
        QCOMPARE(view.visibleEndNs(), full.endNs);
        // arrows pan and zoom as in the gap chart
        QTest::keyClick(&view, Qt::Key_Up);
        const int64_t zoomedSpan = view.visibleEndNs() - view.visibleBeginNs();
        QTest::keyClick(&view, Qt::Key_Right);
        QCOMPARE(view.visibleEndNs() - view.visibleBeginNs(), zoomedSpan);
        QVERIFY(view.visibleBeginNs() > full.beginNs);
    }

    // The cell image is drawn again only when what it shows changes.
    void cacheRebuiltOnlyOnChange()
    {
        const auto job = firstCauseJob();
        JobHeatmapView view;
        view.resize(900, 360);
        view.setJob(job);
        view.grab();
        const int builds = view.cacheBuilds();
        view.setCursorTime(view.visibleBeginNs() + 1000);
        view.setHighlightedRank(2);
        view.setCollectiveIntervals(expectedIntervals(QStringLiteral("firstcause-job")));
        view.grab();
        view.grab();
        QCOMPARE(view.cacheBuilds(), builds);
        view.setVisibleRange(view.visibleBeginNs(), view.visibleEndNs() - 1'000'000'000);
        view.grab();
        QCOMPARE(view.cacheBuilds(), builds + 1);
        view.setMeasure(JobMeasure::GapRatio);
        view.grab();
        QCOMPARE(view.cacheBuilds(), builds + 2);
        view.resize(950, 360);
        view.grab();
        QCOMPARE(view.cacheBuilds(), builds + 3);
        view.setPalette(darkPalette());
        view.grab();
        QCOMPARE(view.cacheBuilds(), builds + 4);
    }

    // Timestamps and offsets anywhere in the int64 range: drawn, hovered and zoomed without
    // overflow (the suite runs under UBSan in CI).
    void extremeTimes()
    {
        constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
        const auto job = syntheticJob(
            3, 4, 3'000'000'000'000'000'000,
            [](int r, int i) { return (i % 2 ? 1 : -1) * (int64_t(r + 1) << 40); }, {}, kMin + 5);
        JobCrossRankSummary summary;
        summary.alignmentOffsetsNs = {{0, 0}, {1, kMax}, {2, kMin}};
        summary.clusterOnsetNs = kMax;
        JobFirstCauseSuspect suspect;
        suspect.rank = 2;
        suspect.alignedFirstSpikeNs = kMin;
        suspect.leadOverClusterOnsetNs = kMax;
        summary.firstCauseSuspects.push_back(suspect);
        JobCollectiveInterval interval;
        interval.rank = 1;
        interval.startNs = kMin;
        interval.endNs = kMax;
        for (bool aligned : {false, true}) {
            JobHeatmapView view;
            view.resize(700, 300);
            view.setJob(job);
            if (aligned)
                view.setCrossRankSummary(summary);
            view.setCollectiveIntervals({interval});
            QVERIFY(view.dataRange());
            QVERIFY(view.visibleEndNs() >= view.visibleBeginNs());
            QVERIFY(!view.grab().isNull());
            const QRect plot = view.plotRect();
            for (int x : {plot.left(), plot.center().x(), plot.right()})
                for (size_t i = 0; i < 3; ++i)
                    view.toolTipAt(QPoint(x, view.rowRect(i).center().y()));
            sendWheel(&view, plot.center(), QPoint(0, 120));
            sendWheel(&view, plot.center(), QPoint(0, -2400));
            sendWheel(&view, plot.center(), QPoint(240, 0));
            view.setVisibleRange(kMin, kMax);
            view.setCursorTime(kMax);
            QVERIFY(!view.grab().isNull());
        }
    }

    void emptyStates()
    {
        JobHeatmapView view;
        view.resize(600, 300);
        QVERIFY(!view.grab().isNull());
        QVERIFY(view.toolTipAt(QPoint(300, 150)).contains(QStringLiteral("No job")));
        view.setJob(std::make_shared<JobViewData>());
        QVERIFY(!view.grab().isNull());
        // ranks without samples: nothing to draw, nothing to navigate
        const auto allMissing = syntheticJob(3, 10, 1000, [](int, int) { return int64_t(0); }, {0, 1, 2});
        view.setJob(allMissing);
        QVERIFY(!view.dataRange());
        QVERIFY(!view.grab().isNull());
        QVERIFY(view.toolTipAt(view.rowRect(1).center()).contains(QStringLiteral("missing")));
        view.setVisibleRange(0, 10);
        QCOMPARE(view.visibleBeginNs(), 0);
        // one sample: a range of the minimum span around it
        const auto single = syntheticJob(1, 1, 1000, [](int, int) { return int64_t(5); });
        view.setJob(single);
        QVERIFY(view.visibleEndNs() - view.visibleBeginNs() >= 1000);
        QVERIFY(!view.grab().isNull());
    }
};

QTEST_MAIN(TestJobHeatmap)
#include "tst_jobheatmap.moc"
