// PackedColumn returns every value it was given, for any mix of values, nulls and block sizes,
// and packs rarely-varying data into fewer bytes than a plain vector.

#include "analysis/GapAnalysis.h" // kNullInt
#include "model/store/PackedColumn.h"

#include <QtTest>

#include <algorithm>
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

// The value patterns the store's columns hold, and the extremes: row i of `count` rows.
enum class Pattern
{
    RegularTimes,  // a steady sampling rate: the line of each block is exact
    JitteredTimes, // 100 ms steps with up to 1 ms of jitter
    Counters,      // 20 GiB moving within 64 MiB, a null now and then
    Random,        // any int64 but the null marker
    Extremes,      // INT64_MAX, INT64_MIN + 1, nulls, 0, -1 in turn
    DescendingWithNulls,
    AllNull,
};

std::vector<int64_t> patternValues(Pattern pattern, size_t count)
{
    constexpr int64_t max = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> values;
    uint64_t state = 77;
    auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state;
    };
    for (size_t i = 0; i < count; ++i) {
        const auto n = int64_t(i);
        switch (pattern) {
        case Pattern::RegularTimes:
            values.push_back(1'700'000'000'000'000'000 + n * 100'000'000);
            break;
        case Pattern::JitteredTimes:
            values.push_back(1'700'000'000'000'000'000 + n * 100'000'000 + int64_t(next() >> 44));
            break;
        case Pattern::Counters:
            values.push_back(i % 97 == 5 ? kNullInt : (20LL << 30) + int64_t(next() >> 38));
            break;
        case Pattern::Random: {
            const auto value = int64_t(next());
            values.push_back(value == kNullInt ? 0 : value);
            break;
        }
        case Pattern::Extremes: {
            const int64_t cycle[] = {max, kNullInt + 1, kNullInt, 0, -1, max - 1, kNullInt + 2};
            values.push_back(cycle[i % 7]);
            break;
        }
        case Pattern::DescendingWithNulls:
            values.push_back(i % 10 == 3 ? kNullInt : max - n * 1'000'003);
            break;
        case Pattern::AllNull:
            values.push_back(kNullInt);
            break;
        }
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
    // Every access path returns the rows pushed: operator[] (O(1) random access), blockAt,
    // forEachBlock over ranges that start and end inside blocks and cross them, a reader
    // walking forwards and jumping back, the iterators (lower_bound), and rows pushed after
    // blocks were sealed.
    void accessPaths_data()
    {
        QTest::addColumn<int>("pattern");
        QTest::addColumn<int>("count");
        constexpr int blocks = int(PackedColumn<int64_t>::kBlockRows);
        const std::pair<Pattern, const char*> patterns[] = {
            {Pattern::RegularTimes, "regular times"},
            {Pattern::JitteredTimes, "jittered times"},
            {Pattern::Counters, "counters"},
            {Pattern::Random, "random"},
            {Pattern::Extremes, "extremes"},
            {Pattern::DescendingWithNulls, "descending, nulls"},
            {Pattern::AllNull, "all null"}};
        for (const auto& [pattern, name] : patterns) {
            for (int count : {0, 1, blocks - 1, blocks, blocks + 1, 5 * blocks + 17})
                QTest::addRow("%s, %d rows", name, count) << int(pattern) << count;
        }
    }
    void accessPaths()
    {
        QFETCH(int, pattern);
        QFETCH(int, count);
        constexpr size_t kBlock = PackedColumn<int64_t>::kBlockRows;
        const std::vector<int64_t> values = patternValues(Pattern(pattern), size_t(count));
        const PackedColumn<int64_t> column = packed(values);
        QCOMPARE(column.size(), values.size());
        for (size_t row = 0; row < values.size(); ++row)
            QCOMPARE(column[row], values[row]);
        QCOMPARE(std::vector<int64_t>(column), values);

        std::array<int64_t, kBlock> buffer{};
        for (size_t row = 0; row < values.size(); row += 333) {
            const ColumnRows<int64_t> block = column.blockAt(row, buffer.data());
            QVERIFY(block.first <= row && row < block.first + block.count);
            for (size_t i = 0; i < block.count; ++i)
                QCOMPARE(block.rows[i], values[block.first + i]);
        }

        const size_t n = values.size();
        const std::pair<size_t, size_t> ranges[] = {{0, n},
                                                    {n / 3, n - n / 4},
                                                    {std::min(n, kBlock - 2), std::min(n, 2 * kBlock + 2)},
                                                    {n, n},
                                                    {5, 3}};
        for (const auto& [begin, end] : ranges) {
            std::vector<int64_t> read;
            size_t expectedFirst = begin;
            column.forEachBlock(begin, end, [&](size_t first, std::span<const int64_t> rows) {
                QCOMPARE(first, expectedFirst);
                QVERIFY(!rows.empty());
                QVERIFY(first / kBlock == (first + rows.size() - 1) / kBlock || first >= n - n % kBlock);
                expectedFirst = first + rows.size();
                read.insert(read.end(), rows.begin(), rows.end());
            });
            std::vector<int64_t> expected;
            if (begin < end)
                expected.assign(values.begin() + std::ptrdiff_t(begin), values.begin() + std::ptrdiff_t(end));
            QCOMPARE(read, expected);
        }

        // a reader forwards, then backwards (a block decoded per jump), through the view
        const Int64ColumnView view(column);
        QCOMPARE(view.size(), n);
        Int64ColumnReader reader(view);
        for (size_t row = 0; row < n; ++row)
            QCOMPARE(reader[row], values[row]);
        for (size_t row = n; row-- > 0;)
            QCOMPARE(reader[row], values[row]);
        for (size_t row = 0; row < n; row += 101)
            QCOMPARE(view[row], values[row]);

        // iterators: lower_bound finds what it finds in the vector
        if (Pattern(pattern) == Pattern::RegularTimes || Pattern(pattern) == Pattern::JitteredTimes) {
            std::vector<int64_t> sorted = values;
            std::sort(sorted.begin(), sorted.end());
            PackedColumn<int64_t> sortedColumn = packed(sorted);
            for (size_t row = 0; row < n; row += 97) {
                const int64_t key = sorted[row] + 1;
                const auto got =
                    std::lower_bound(sortedColumn.begin(), sortedColumn.end(), key) - sortedColumn.begin();
                const auto want = std::lower_bound(sorted.begin(), sorted.end(), key) - sorted.begin();
                QCOMPARE(got, want);
            }
        }

        // rows pushed after sealed blocks, then cut back
        PackedColumn<int64_t> grown = packed(values);
        std::vector<int64_t> more = values;
        for (int64_t value : patternValues(Pattern::Extremes, kBlock + 5)) {
            grown.push_back(value);
            more.push_back(value);
        }
        QCOMPARE(grown.toVector(), more);
        grown.resize(n / 2);
        more.resize(n / 2);
        QCOMPARE(grown.toVector(), more);
        grown.push_back(kNullInt);
        more.push_back(kNullInt);
        QCOMPARE(grown.toVector(), more);
        QCOMPARE(grown.back(), kNullInt);
    }

    // Bits, not bytes: a steady clock costs no bits a row, jitter of under 2^20 ns about 20 bits
    // (under 3 bytes), counters moving within 64 MiB (26 bits) under 4 bytes with their nulls.
    void bitsPerRow_data()
    {
        QTest::addColumn<int>("pattern");
        QTest::addColumn<double>("maxBytesPerRow");
        QTest::newRow("regular times") << int(Pattern::RegularTimes) << 0.05;
        QTest::newRow("jittered times") << int(Pattern::JitteredTimes) << 2.7;
        QTest::newRow("counters") << int(Pattern::Counters) << 3.45;
        QTest::newRow("all null") << int(Pattern::AllNull) << 0.05;
        QTest::newRow("random") << int(Pattern::Random) << 8.05;
    }
    void bitsPerRow()
    {
        QFETCH(int, pattern);
        QFETCH(double, maxBytesPerRow);
        const size_t rows = 200 * PackedColumn<int64_t>::kBlockRows;
        PackedColumn<int64_t> column = packed(patternValues(Pattern(pattern), rows));
        column.shrink_to_fit();
        const double bytesPerRow = double(column.memoryBytes()) / double(rows);
        QVERIFY2(bytesPerRow <= maxBytesPerRow, qPrintable(QString::number(bytesPerRow)));
    }

    // A serialiser's view: the raw blocks and the tail rebuild an equal column; a block that
    // cannot be one is refused.
    void rawBlocks_data()
    {
        QTest::addColumn<int>("pattern");
        QTest::addColumn<int>("count");
        for (Pattern pattern :
             {Pattern::JitteredTimes, Pattern::Counters, Pattern::Extremes, Pattern::AllNull})
            QTest::addRow("pattern %d", int(pattern))
                << int(pattern) << int(3 * PackedColumn<int64_t>::kBlockRows + 9);
    }
    void rawBlocks()
    {
        QFETCH(int, pattern);
        QFETCH(int, count);
        const PackedColumn<int64_t> column = packed(patternValues(Pattern(pattern), size_t(count)));
        PackedColumn<int64_t> copy;
        for (size_t b = 0; b < column.blockCount(); ++b)
            QVERIFY(copy.appendRawBlock(column.rawBlock(b)));
        for (int64_t value : column.tail())
            copy.push_back(value);
        QVERIFY(copy == column);
        QCOMPARE(copy.toVector(), column.toVector());

        PackedColumn<int64_t>::RawBlock bad = column.rawBlock(0);
        bad.bits = 65;
        QVERIFY(!PackedColumn<int64_t>().appendRawBlock(bad));
        bad = column.rawBlock(0);
        bad.words = bad.words.first(bad.words.size() / 2);
        QVERIFY(bad.bits == 0 || !PackedColumn<int64_t>().appendRawBlock(bad));
        PackedColumn<int64_t> withTail;
        withTail.push_back(1);
        QVERIFY(!withTail.appendRawBlock(column.rawBlock(0)));
        PackedColumn<uint32_t>::RawBlock nullInIds;
        nullInIds.bits = 1;
        nullInIds.hasNull = true;
        const std::vector<uint64_t> words(PackedColumn<uint32_t>::wordsPerBlock(1));
        nullInIds.words = words;
        QVERIFY(!PackedColumn<uint32_t>().appendRawBlock(nullInIds));
    }

    // forEachBlockOf walks columns side by side in pieces inside one block of each, also when
    // one is packed and the other was kept unpacked; an enum column packs like its integer.
    void severalColumns()
    {
        enum class Kind : uint8_t
        {
            A,
            B,
            C
        };
        const size_t rows = 4 * PackedColumn<int64_t>::kBlockRows + 30;
        const std::vector<int64_t> times = patternValues(Pattern::JitteredTimes, rows);
        PackedColumn<int64_t> packedTimes = packed(times);
        PackedColumn<Kind> kinds;
        kinds.keepUnpacked();
        std::vector<Kind> kindValues;
        for (size_t i = 0; i < rows; ++i) {
            kindValues.push_back(i % 50 == 0 ? Kind::C : (i % 7 == 0 ? Kind::B : Kind::A));
            kinds.push_back(kindValues.back());
        }
        size_t next = 10;
        forEachBlockOf(
            10, rows - 3,
            [&](size_t first, std::span<const int64_t> t, std::span<const Kind> k) {
                QCOMPARE(first, next);
                QCOMPARE(t.size(), k.size());
                for (size_t i = 0; i < t.size(); ++i) {
                    QCOMPARE(t[i], times[first + i]);
                    QVERIFY(k[i] == kindValues[first + i]);
                }
                next = first + t.size();
            },
            packedTimes, kinds);
        QCOMPARE(next, rows - 3);
        kinds.pack();
        QVERIFY(kinds.toVector() == kindValues);
        kinds.shrink_to_fit();
        QVERIFY(kinds.memoryBytes() < rows / 2); // 2 bits a row, not 8
    }
};

QTEST_GUILESS_MAIN(TestPackedColumn)
#include "tst_packedcolumn.moc"
