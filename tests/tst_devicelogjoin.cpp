// analysis/DeviceLogJoin: each sample takes the nearest log row within the tolerance.
#include "analysis/DeviceLogJoin.h"

#include <QtTest>

#include <vector>

using namespace gapscope;

using Times = std::vector<int64_t>;
using Rows = std::vector<qint64>; // per sample: the row taken, -1 none
Q_DECLARE_METATYPE(Times)
Q_DECLARE_METATYPE(Rows)

class TestDeviceLogJoin : public QObject
{
    Q_OBJECT

private slots:
    void nearest_data();
    void nearest();
    void tolerance_data();
    void tolerance();
};

void TestDeviceLogJoin::nearest_data()
{
    QTest::addColumn<Times>("log");
    QTest::addColumn<Times>("samples");
    QTest::addColumn<qint64>("toleranceNs");
    QTest::addColumn<Rows>("rows");
    QTest::addColumn<int>("before");
    QTest::addColumn<int>("after");
    const Times log{100, 200, 300, 700};
    QTest::newRow("on the rows") << log << Times{100, 200, 300, 700} << qint64(50) << Rows{0, 1, 2, 3} << 0
                                 << 0;
    QTest::newRow("nearest, not interpolated")
        << log << Times{140, 160, 290} << qint64(50) << Rows{0, 1, 2} << 0 << 0;
    QTest::newRow("half way takes the earlier")
        << log << Times{150, 250} << qint64(50) << Rows{0, 1} << 0 << 0;
    QTest::newRow("before and after the log within the tolerance")
        << log << Times{60, 740} << qint64(50) << Rows{0, 3} << 0 << 0;
    QTest::newRow("before and after the log beyond it")
        << log << Times{10, 49, 751, 900} << qint64(50) << Rows{-1, -1, -1, -1} << 2 << 2;
    QTest::newRow("in a hole of the log")
        << log << Times{500, 360, 640} << qint64(60) << Rows{-1, 2, 3} << 0 << 0;
    QTest::newRow("samples in any order")
        << log << Times{700, 100, 210} << qint64(50) << Rows{3, 0, 1} << 0 << 0;
    QTest::newRow("zero tolerance: same moment only")
        << log << Times{100, 101, 300} << qint64(0) << Rows{0, -1, 2} << 0 << 0;
    QTest::newRow("one row") << Times{500} << Times{480, 500, 530} << qint64(25) << Rows{0, 0, -1} << 0 << 1;
    QTest::newRow("no samples") << log << Times{} << qint64(50) << Rows{} << 0 << 0;
    QTest::newRow("extreme times do not overflow")
        << Times{std::numeric_limits<int64_t>::min() + 1, std::numeric_limits<int64_t>::max() - 1}
        << Times{0, std::numeric_limits<int64_t>::max()} << qint64(10) << Rows{-1, 1} << 0 << 0;
}

void TestDeviceLogJoin::nearest()
{
    QFETCH(Times, log);
    QFETCH(Times, samples);
    QFETCH(qint64, toleranceNs);
    QFETCH(Rows, rows);
    QFETCH(int, before);
    QFETCH(int, after);
    const Times used(log.size(), 0);
    const DeviceLogJoin join = joinNearest(samples, {log, used}, toleranceNs);
    QCOMPARE(join.rowOfSample.size(), rows.size());
    size_t matched = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        QCOMPARE(qint64(join.rowOfSample[i]), rows[i]);
        matched += rows[i] >= 0 ? 1 : 0;
    }
    QCOMPARE(join.matched, matched);
    QCOMPARE(join.unmatched, rows.size() - matched);
    QCOMPARE(join.before, size_t(before));
    QCOMPARE(join.after, size_t(after));
}

void TestDeviceLogJoin::tolerance_data()
{
    QTest::addColumn<Times>("log");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("steady 100 ms") << Times{0, 100, 200, 300} << qint64(200);
    // nvidia-smi -lms 100 really writes 100 or 101 ms apart; a lost row does not widen it
    QTest::newRow("jitter and a lost row") << Times{0, 100, 201, 301, 502, 602} << qint64(200);
    QTest::newRow("median, not the mean, of a pause") << Times{0, 10, 20, 30, 10000} << qint64(20);
    QTest::newRow("one row") << Times{5} << qint64(0);
    QTest::newRow("none") << Times{} << qint64(0);
}

void TestDeviceLogJoin::tolerance()
{
    QFETCH(Times, log);
    QFETCH(qint64, expected);
    QCOMPARE(qint64(defaultJoinToleranceNs(log)), expected);
}

QTEST_APPLESS_MAIN(TestDeviceLogJoin)
#include "tst_devicelogjoin.moc"
