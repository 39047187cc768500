// MinMaxPyramid::decimate gives exactly decimateMinMax's result (same positions) for any
// span, column count and data, including NaN runs, ties and spans that do not align.

#include "model/store/Decimation.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace gapscope;

namespace {

struct Series
{
    std::vector<int64_t> time;  // store rows, ascending
    std::vector<uint32_t> rows; // every other store row: the row list is an indirection
    std::vector<double> values;
};

Series makeSeries(size_t count, int nanEvery, int tieModulo, uint64_t seed)
{
    Series s;
    uint64_t state = seed;
    int64_t t = 1'700'000'000'000'000'000;
    for (size_t i = 0; i < 2 * count; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        t += 1 + int64_t((state >> 40) % 1000); // irregular sampling
        s.time.push_back(t);
        const double v = tieModulo > 0 ? double((state >> 20) % uint64_t(tieModulo)) : double(state >> 30);
        s.values.push_back(
            nanEvery > 0 && (i / 2) % size_t(nanEvery) < 3 ? std::numeric_limits<double>::quiet_NaN() : v);
        if (i % 2 == 1)
            s.rows.push_back(uint32_t(i));
    }
    return s;
}

} // namespace

class TestLodPyramid : public QObject
{
    Q_OBJECT

private slots:
    void sameAsFullScan_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("nanEvery");
        QTest::addColumn<int>("tieModulo");
        for (int count : {1, 2, 63, 64, 65, 1000, 50'000}) {
            QTest::addRow("n %d", count) << count << 0 << 0;
            QTest::addRow("n %d nan runs", count) << count << 40 << 0;
            QTest::addRow("n %d ties", count) << count << 0 << 3;
        }
        QTest::addRow("all nan") << 5000 << 1 << 0;
    }

    void sameAsFullScan()
    {
        QFETCH(int, count);
        QFETCH(int, nanEvery);
        QFETCH(int, tieModulo);
        const Series s = makeSeries(size_t(count), nanEvery, tieModulo, uint64_t(count) * 7 + 1);
        const auto valueAt = [&s](uint32_t row) { return s.values[row]; };
        const MinMaxPyramid pyramid(s.rows, valueAt);
        QCOMPARE(pyramid.rowCount(), s.rows.size());
        uint64_t state = 99;
        auto random = [&state](uint64_t modulo) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return modulo ? (state >> 33) % modulo : 0;
        };
        const int64_t t0 = s.time.front();
        const int64_t t1 = s.time.back();
        for (int trial = 0; trial < 40; ++trial) {
            int64_t begin = t0, end = t1;
            if (trial > 0) {
                begin = t0 + int64_t(random(uint64_t(t1 - t0 + 1)));
                end = begin + int64_t(random(uint64_t(t1 - begin + 1)));
            }
            const int columns = trial % 7 == 3 ? 0 : 1 + int(random(2000));
            const RowSpan span = withNeighbours(rowsInTimeRange(s.time, s.rows, begin, end), s.rows.size());
            const std::vector<uint32_t> expected =
                decimateMinMax(s.time, s.rows, span, begin, end, columns, valueAt);
            const std::vector<uint32_t> actual =
                pyramid.decimate(s.time, s.rows, span, begin, end, columns, valueAt);
            QCOMPARE(actual, expected);
            QVERIFY(actual.size() <= 2 * size_t(columns) + 2);
        }
    }

    void otherRowListFallsBackToTheScan()
    {
        const Series s = makeSeries(1000, 0, 0, 5);
        const auto valueAt = [&s](uint32_t row) { return s.values[row]; };
        const MinMaxPyramid pyramid(s.rows, valueAt);
        const std::vector<uint32_t> fewer(s.rows.begin(), s.rows.begin() + 500);
        const RowSpan all{0, fewer.size()};
        QCOMPARE(pyramid.decimate(s.time, fewer, all, s.time.front(), s.time[fewer.back()], 50, valueAt),
                 decimateMinMax(s.time, fewer, all, s.time.front(), s.time[fewer.back()], 50, valueAt));
    }
};

QTEST_GUILESS_MAIN(TestLodPyramid)
#include "tst_lodpyramid.moc"
