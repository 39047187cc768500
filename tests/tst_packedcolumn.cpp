// PackedColumn returns every value it was given, for any mix of values, nulls and block sizes,
// and packs rarely-varying data into fewer bytes than a plain vector.

#include "analysis/GapAnalysis.h" // kNullInt
#include "model/store/PackedColumn.h"

#include <QtTest>

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

using namespace gapscope;

namespace {

template <typename T> PackedColumn<T> packed(const std::vector<T>& values)
{
    PackedColumn<T> column;
    for (T value : values)
        column.push_back(value);
    return column;
}

std::vector<int64_t> randomValues(size_t count, int64_t spread, int nullEvery, uint64_t seed)
{
    std::vector<int64_t> values;
    uint64_t state = seed;
    for (size_t i = 0; i < count; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto r = int64_t(state >> 20);
        values.push_back(nullEvery > 0 && int(i % size_t(nullEvery)) == nullEvery - 1
                             ? kNullInt
                             : (spread > 0 ? 1'000'000'000 + r % spread : r));
    }
    return values;
}

} // namespace

class TestPackedColumn : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<qint64>("spread");
        QTest::addColumn<int>("nullEvery");
        QTest::addColumn<int>("count");
        constexpr int blocks = int(PackedColumn<int64_t>::kBlockRows);
        for (qint64 spread : {qint64(1), qint64(200), qint64(70'000), qint64(1) << 40, qint64(0)}) {
            for (int nullEvery : {0, 1, 7}) {
                for (int count : {0, 5, blocks, 3 * blocks + 17}) {
                    QTest::addRow("spread %lld nulls %d n %d", spread, nullEvery, count)
                        << spread << nullEvery << count;
                }
            }
        }
    }

    void roundTrip()
    {
        QFETCH(qint64, spread);
        QFETCH(int, nullEvery);
        QFETCH(int, count);
        const std::vector<int64_t> values =
            randomValues(size_t(count), spread, nullEvery, uint64_t(count) + 3);
        const PackedColumn<int64_t> column = packed(values);
        QCOMPARE(column.size(), values.size());
        QCOMPARE(column.toVector(), values);
    }

    void extremesAndNulls()
    {
        constexpr int64_t max = std::numeric_limits<int64_t>::max();
        std::vector<int64_t> values;
        for (size_t i = 0; i < 2 * PackedColumn<int64_t>::kBlockRows; ++i) {
            const int64_t pattern[] = {max, kNullInt + 1, kNullInt, 0, -1, max - 1};
            values.push_back(pattern[i % 6]);
        }
        QCOMPARE(packed(values).toVector(), values);
        // one value and nulls in a block
        std::vector<int64_t> sparse(PackedColumn<int64_t>::kBlockRows + 3, kNullInt);
        sparse[10] = 42;
        QCOMPARE(packed(sparse).toVector(), sparse);
    }

    void unsignedIds()
    {
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < 5000; ++i)
            ids.push_back(i % 300 == 0 ? std::numeric_limits<uint32_t>::max() : i / 100);
        const PackedColumn<uint32_t> column = packed(ids);
        QCOMPARE(column.toVector(), ids);
        PackedColumn<uint32_t> assigned;
        assigned.assign(3000, 7);
        QCOMPARE(assigned.toVector(), std::vector<uint32_t>(3000, 7));
        QVERIFY(assigned == packed(std::vector<uint32_t>(3000, 7)));
        QVERIFY(!(assigned == column));
    }

    // append() gives the rows of both columns in order, whether the source is packed or was
    // kept unpacked, across every alignment of the destination's tail to the blocks.
    void append_data()
    {
        QTest::addColumn<int>("before");
        QTest::addColumn<int>("added");
        QTest::addColumn<bool>("unpackedSource");
        constexpr int blocks = int(PackedColumn<int64_t>::kBlockRows);
        for (int before : {0, 5, blocks, 2 * blocks + 17}) {
            for (int added : {0, 3, blocks - 5, blocks, 3 * blocks + 5}) {
                for (bool unpacked : {false, true})
                    QTest::addRow("%d + %d%s", before, added, unpacked ? " unpacked" : "")
                        << before << added << unpacked;
            }
        }
    }
    void append()
    {
        QFETCH(int, before);
        QFETCH(int, added);
        QFETCH(bool, unpackedSource);
        const std::vector<int64_t> first = randomValues(size_t(before), 70'000, 7, 1);
        const std::vector<int64_t> second = randomValues(size_t(added), 1 << 20, 5, 2);
        PackedColumn<int64_t> to = packed(first);
        PackedColumn<int64_t> from;
        if (unpackedSource)
            from.keepUnpacked();
        for (int64_t value : second)
            from.push_back(value);
        QCOMPARE(from.toVector(), second);
        to.append(from);
        std::vector<int64_t> both = first;
        both.insert(both.end(), second.begin(), second.end());
        QCOMPARE(to.toVector(), both);
        // the appended rows are packed as if pushed one by one
        PackedColumn<int64_t> expected = packed(both);
        to.shrink_to_fit();
        expected.shrink_to_fit();
        QCOMPARE(to.memoryBytes(), expected.memoryBytes());

        // ids through a map (the string and source ids of a merged chunk)
        std::vector<uint32_t> ids;
        for (int i = 0; i < added; ++i)
            ids.push_back(uint32_t(i % 7));
        PackedColumn<uint32_t> idsFrom;
        if (unpackedSource)
            idsFrom.keepUnpacked();
        for (uint32_t id : ids)
            idsFrom.push_back(id);
        PackedColumn<uint32_t> idsTo;
        idsTo.assign(size_t(before), 1);
        const uint32_t map[] = {0, 10, 20, 30, 40, 50, 60};
        idsTo.append(idsFrom, [&map](uint32_t id) { return map[id]; });
        std::vector<uint32_t> mapped(size_t(before), 1);
        for (uint32_t id : ids)
            mapped.push_back(map[id]);
        QCOMPARE(idsTo.toVector(), mapped);
    }

    // A column kept unpacked holds plain values until pack(), then packs as usual.
    void keepUnpackedThenPack()
    {
        const size_t rows = 5 * PackedColumn<int64_t>::kBlockRows + 100;
        const std::vector<int64_t> values = randomValues(rows, 200, 11, 4);
        PackedColumn<int64_t> column;
        column.keepUnpacked();
        for (int64_t value : values)
            column.push_back(value);
        QCOMPARE(column.toVector(), values);
        QVERIFY(column.memoryBytes() >= rows * sizeof(int64_t));
        column.pack();
        QCOMPARE(column.toVector(), values);
        PackedColumn<int64_t> expected = packed(values);
        column.shrink_to_fit();
        expected.shrink_to_fit();
        QCOMPARE(column.memoryBytes(), expected.memoryBytes());
        column.push_back(7); // packed from here on
        QCOMPARE(column[rows], int64_t(7));
    }

    // clear() keeps the capacity for the next fill; reserveRows() makes room for the rows
    // it is told of, so filling up to them does not grow the column.
    void clearAndReserve()
    {
        constexpr size_t kBlock = PackedColumn<int64_t>::kBlockRows;
        const std::vector<int64_t> values = randomValues(100 * kBlock, 1 << 20, 0, 5);
        PackedColumn<int64_t> column;
        for (size_t row = 0; row < 10 * kBlock; ++row)
            column.push_back(values[row]);
        const size_t filled = column.memoryBytes();
        column.clear();
        QVERIFY(column.empty());
        QCOMPARE(column.memoryBytes(), filled);
        for (size_t row = 0; row < 10 * kBlock; ++row)
            column.push_back(values[row]);
        QCOMPARE(column.memoryBytes(), filled);

        column.reserveRows(100 * kBlock);
        const size_t reserved = column.memoryBytes();
        QVERIFY(reserved > filled);
        for (size_t row = 10 * kBlock; row < values.size(); ++row)
            column.push_back(values[row]);
        QCOMPARE(column.memoryBytes(), reserved);
        QCOMPARE(column.toVector(), values);
    }

    // forEachRun gives the maximal runs of equal values, whole constant blocks included.
    void forEachRun_data()
    {
        QTest::addColumn<int>("runLength");
        QTest::addColumn<int>("count");
        constexpr int blocks = int(PackedColumn<uint32_t>::kBlockRows);
        for (int runLength : {1, 3, blocks - 1, blocks, 5 * blocks + 3}) {
            for (int count : {0, 1, blocks, 7 * blocks + 11})
                QTest::addRow("runs of %d, %d rows", runLength, count) << runLength << count;
        }
    }
    void forEachRun()
    {
        QFETCH(int, runLength);
        QFETCH(int, count);
        PackedColumn<uint32_t> column;
        for (int row = 0; row < count; ++row)
            column.push_back(uint32_t(row / runLength % 3)); // 0, 1, 2, 0, ...: neighbours differ
        std::vector<std::array<size_t, 3>> runs;
        column.forEachRun([&runs](uint32_t value, size_t begin, size_t end) {
            runs.push_back({value, begin, end});
        });
        std::vector<std::array<size_t, 3>> expected;
        for (int begin = 0; begin < count; begin += runLength)
            expected.push_back(
                {size_t(begin / runLength % 3), size_t(begin), size_t(std::min(count, begin + runLength))});
        QCOMPARE(runs, expected);
    }

    void packsNarrowData()
    {
        const size_t rows = 100 * PackedColumn<int64_t>::kBlockRows;
        // constant: no bytes per row beyond the block headers
        const PackedColumn<int64_t> constant = packed(std::vector<int64_t>(rows, 85'899'345'920));
        QVERIFY(constant.memoryBytes() < rows / 8);
        // counters moving within 64 MB: at most 4 bytes a row instead of 8
        PackedColumn<int64_t> counters = packed(randomValues(rows, 64 << 20, 50, 9));
        counters.shrink_to_fit();
        QVERIFY(counters.memoryBytes() <= rows * 4 + rows / 8);
    }
};

QTEST_GUILESS_MAIN(TestPackedColumn)
#include "tst_packedcolumn.moc"
