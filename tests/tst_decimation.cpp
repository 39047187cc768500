// Min/max decimation through the usable-row indirection: point budget, extremes, edges.
#include "analysis/GapAnalysis.h"
#include "model/store/Decimation.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace gapscope;

namespace {

struct Series
{
    std::vector<int64_t> time;
    std::vector<int64_t> value;
    std::vector<uint32_t> rows;
};

// n rows at `start + i * step`, every second store row usable (the indirection is not the
// identity); values from a deterministic LCG.
Series makeSeries(size_t usable, int64_t start, int64_t step, uint32_t seed = 12345)
{
    Series s;
    uint32_t state = seed;
    for (size_t i = 0; i < usable * 2; ++i) {
        s.time.push_back(start + int64_t(i / 2) * step);
        state = state * 1664525u + 1013904223u;
        s.value.push_back(int64_t(state >> 8) - (1 << 23));
        if (i % 2 == 1)
            s.rows.push_back(uint32_t(i));
    }
    return s;
}

std::vector<uint32_t> decimate(const Series& s, int64_t begin, int64_t end, int columns,
                               bool neighbours = false)
{
    RowSpan span = rowsInTimeRange(s.time, s.rows, begin, end);
    if (neighbours)
        span = withNeighbours(span, s.rows.size());
    return decimateMinMax(s.time, s.rows, span, begin, end, columns, std::span<const int64_t>(s.value));
}

} // namespace

class TestDecimation : public QObject
{
    Q_OBJECT
private slots:
    void rangeLookup_data()
    {
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<qint64>("first");
        QTest::addColumn<qint64>("last");
        // 10 rows at 100, 110, ..., 190
        QTest::newRow("all") << qint64(0) << qint64(1000) << qint64(0) << qint64(10);
        QTest::newRow("exact edges inclusive") << qint64(110) << qint64(150) << qint64(1) << qint64(6);
        QTest::newRow("between samples") << qint64(111) << qint64(119) << qint64(2) << qint64(2);
        QTest::newRow("before") << qint64(0) << qint64(99) << qint64(0) << qint64(0);
        QTest::newRow("after") << qint64(191) << qint64(500) << qint64(10) << qint64(10);
        QTest::newRow("inverted") << qint64(150) << qint64(110) << qint64(0) << qint64(0);
    }
    void rangeLookup()
    {
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        QFETCH(qint64, first);
        QFETCH(qint64, last);
        const Series s = makeSeries(10, 100, 10);
        const RowSpan span = rowsInTimeRange(s.time, s.rows, begin, end);
        QCOMPARE(qint64(span.first), first);
        QCOMPARE(qint64(span.last), last);
    }

    void neighbours()
    {
        QCOMPARE(withNeighbours(RowSpan{2, 5}, 10), (RowSpan{1, 6}));
        QCOMPARE(withNeighbours(RowSpan{0, 10}, 10), (RowSpan{0, 10}));
        // an empty span between two samples still yields the segment crossing the view
        QCOMPARE(withNeighbours(RowSpan{4, 4}, 10), (RowSpan{3, 5}));
        QCOMPARE(withNeighbours(RowSpan{0, 0}, 0), (RowSpan{0, 0}));
    }

    void budgetAndExtremes_data()
    {
        QTest::addColumn<int>("points");
        QTest::addColumn<int>("columns");
        QTest::newRow("100k into 1200") << 100000 << 1200;
        QTest::newRow("100k into 1") << 100000 << 1;
        QTest::newRow("fewer points than columns") << 50 << 1200;
        QTest::newRow("3 points") << 3 << 10;
        QTest::newRow("1M into 777") << 1000000 << 777;
    }
    void budgetAndExtremes()
    {
        QFETCH(int, points);
        QFETCH(int, columns);
        // epoch-scale timestamps: offsets must be taken before converting to double
        const int64_t start = 1'764'000'000'000'000'000;
        const int64_t step = 1'000'003;
        const Series s = makeSeries(size_t(points), start, step);
        const int64_t end = start + int64_t(points - 1) * step;
        const std::vector<uint32_t> kept = decimate(s, start, end, columns);

        QVERIFY(!kept.empty());
        QVERIFY(kept.size() <= size_t(2 * columns + 2));
        QVERIFY(kept.size() <= size_t(points));
        QVERIFY(std::is_sorted(kept.begin(), kept.end()));
        QVERIFY(std::adjacent_find(kept.begin(), kept.end()) == kept.end());
        QCOMPARE(kept.front(), 0u);
        QCOMPARE(kept.back(), uint32_t(points - 1));

        // every column's min and max survive: compare against a brute force per column
        const double perColumn = double(end - start) / columns;
        std::vector<int64_t> colMin(size_t(columns), INT64_MAX), colMax(size_t(columns), INT64_MIN);
        std::vector<int> keptPerColumn(size_t(columns), 0);
        auto columnOf = [&](size_t pos) {
            const int64_t offset = s.time[s.rows[pos]] - start;
            return std::clamp(int(std::floor(double(offset) / perColumn)), 0, columns - 1);
        };
        for (size_t pos = 1; pos + 1 < size_t(points); ++pos) {
            const size_t c = size_t(columnOf(pos));
            colMin[c] = std::min(colMin[c], s.value[s.rows[pos]]);
            colMax[c] = std::max(colMax[c], s.value[s.rows[pos]]);
        }
        std::vector<int64_t> keptMin(size_t(columns), INT64_MAX), keptMax(size_t(columns), INT64_MIN);
        for (size_t i = 1; i + 1 < kept.size(); ++i) {
            const size_t c = size_t(columnOf(kept[i]));
            ++keptPerColumn[c];
            keptMin[c] = std::min(keptMin[c], s.value[s.rows[kept[i]]]);
            keptMax[c] = std::max(keptMax[c], s.value[s.rows[kept[i]]]);
        }
        for (size_t c = 0; c < size_t(columns); ++c) {
            QVERIFY(keptPerColumn[c] <= 2);
            QCOMPARE(keptMin[c], colMin[c]);
            QCOMPARE(keptMax[c], colMax[c]);
        }
        // the global extremes are there
        int64_t globalMax = INT64_MIN;
        for (uint32_t row : s.rows)
            globalMax = std::max(globalMax, s.value[row]);
        int64_t keptGlobalMax = INT64_MIN;
        for (uint32_t pos : kept)
            keptGlobalMax = std::max(keptGlobalMax, s.value[s.rows[pos]]);
        QCOMPARE(keptGlobalMax, globalMax);
    }

    void subRangeWithNeighbours()
    {
        const Series s = makeSeries(10000, 0, 10);
        const std::vector<uint32_t> kept = decimate(s, 25'000, 35'000, 100, true);
        QVERIFY(kept.size() <= 202);
        // the neighbours outside the range come first and last
        QCOMPARE(s.time[s.rows[kept.front()]], 24'990);
        QCOMPARE(s.time[s.rows[kept.back()]], 35'010);
        for (size_t i = 1; i + 1 < kept.size(); ++i) {
            const int64_t t = s.time[s.rows[kept[i]]];
            QVERIFY(t >= 25'000 && t <= 35'000);
        }
    }

    void degenerateInputs()
    {
        const Series empty = makeSeries(0, 0, 10);
        QVERIFY(decimate(empty, 0, 100, 10).empty());

        const Series one = makeSeries(1, 50, 10);
        QCOMPARE(decimate(one, 0, 100, 10), std::vector<uint32_t>{0});
        QCOMPARE(decimate(one, 0, 100, 0), std::vector<uint32_t>{0});

        // all samples at the same time: first, min, max, last at most
        const Series same = makeSeries(1000, 7, 0);
        const std::vector<uint32_t> kept = decimate(same, 7, 7, 500);
        QVERIFY(kept.size() <= 4);
        QCOMPARE(kept.front(), 0u);
        QCOMPARE(kept.back(), 999u);
        int64_t maxValue = INT64_MIN;
        for (uint32_t row : same.rows)
            maxValue = std::max(maxValue, same.value[row]);
        QVERIFY(std::any_of(kept.begin(), kept.end(),
                            [&](uint32_t p) { return same.value[same.rows[p]] == maxValue; }));

        // zero columns: only the edges
        const Series many = makeSeries(100, 0, 1);
        QCOMPARE(decimate(many, 0, 99, 0), (std::vector<uint32_t>{0, 99}));
    }

    void nullValuesNeverWin()
    {
        std::vector<int64_t> time{0, 1, 2, 3, 4};
        std::vector<int64_t> value{5, kNullInt, 9, kNullInt, 6};
        std::vector<uint32_t> rows{0, 1, 2, 3, 4};
        const auto kept = decimateMinMax(time, rows, RowSpan{0, 5}, 0, 4, 1, std::span<const int64_t>(value));
        QCOMPARE(kept, (std::vector<uint32_t>{0, 2, 4}));
    }
};

QTEST_APPLESS_MAIN(TestDecimation)
#include "tst_decimation.moc"
