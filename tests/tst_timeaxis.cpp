// TimeAxis: exact mapping at epoch scale, zoom/pan/clamp, tick steps and relative labels.
#include "widgets/chart/TimeAxis.h"

#include <QTest>

using namespace gapscope;

namespace {
constexpr int64_t kEpoch = 1'764'530'479'123'456'789; // 2025-11-30, ns
constexpr int64_t kSecond = 1'000'000'000;
} // namespace

class TestTimeAxis : public QObject
{
    Q_OBJECT
private slots:
    void mapping_data()
    {
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<double>("left");
        QTest::addColumn<double>("right");
        QTest::newRow("small") << qint64(0) << qint64(1000) << 0.0 << 100.0;
        QTest::newRow("epoch ns, 1 s") << qint64(kEpoch) << qint64(kEpoch + kSecond) << 60.5 << 1187.25;
        QTest::newRow("epoch ns, 7 ns") << qint64(kEpoch) << qint64(kEpoch + 7) << 10.0 << 710.0;
        QTest::newRow("near int64 max") << qint64(INT64_MAX - 1000) << qint64(INT64_MAX) << 0.0 << 1000.0;
        QTest::newRow("whole int64") << qint64(INT64_MIN) << qint64(INT64_MAX) << 0.0 << 1920.0;
    }
    void mapping()
    {
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        QFETCH(double, left);
        QFETCH(double, right);
        const TimeAxis axis{begin, end, left, right};
        QCOMPARE(axis.toPixel(begin), left);
        QCOMPARE(axis.toPixel(end), right);
        QCOMPARE(axis.toNs(left), begin);
        QCOMPARE(axis.toNs(right), end);
        // the middle maps to the middle (within one ns of rounding)
        const double middle = (left + right) / 2;
        const qint64 mid = axis.toNs(middle);
        const __int128 expected = (__int128(begin) + __int128(end)) / 2;
        QVERIFY(std::abs(double(__int128(mid) - expected)) <=
                std::max(1.0, double(__int128(end) - begin) * 1e-15));
        // far outside saturates instead of wrapping
        QVERIFY(axis.toNs(right + 1e30) >= end);
        QVERIFY(axis.toNs(left - 1e30) <= begin);
    }

    void nanosecondResolutionAtEpochScale()
    {
        const TimeAxis axis{kEpoch, kEpoch + 1000, 0, 1000};
        for (int64_t offset : {1, 2, 3, 499, 998, 999})
            QCOMPARE(axis.toNs(axis.toPixel(kEpoch + offset)), kEpoch + offset);
        QCOMPARE(axis.toPixel(kEpoch + 1), 1.0);
    }

    void zoom_data()
    {
        QTest::addColumn<double>("factor");
        QTest::addColumn<qint64>("anchorOffset");
        QTest::newRow("in at centre") << 0.5 << qint64(500 * kSecond);
        QTest::newRow("in at left quarter") << 0.1 << qint64(250 * kSecond);
        QTest::newRow("out at right edge") << 3.0 << qint64(1000 * kSecond);
        QTest::newRow("in at left edge") << 0.25 << qint64(0);
    }
    void zoom()
    {
        QFETCH(double, factor);
        QFETCH(qint64, anchorOffset);
        const TimeAxis axis{kEpoch, kEpoch + 1000 * kSecond, 100, 1100};
        const int64_t anchor = kEpoch + anchorOffset;
        const TimeAxis zoomed = axis.zoomedAbout(anchor, factor);
        QCOMPARE(zoomed.spanNs(), int64_t(std::llround(1000.0 * kSecond * factor)));
        // the anchor stays under the same pixel
        QVERIFY(std::abs(zoomed.toPixel(anchor) - axis.toPixel(anchor)) < 1e-6);
        QCOMPARE(zoomed.pixelLeft, axis.pixelLeft);
        // never below one ns
        QCOMPARE(TimeAxis({kEpoch, kEpoch + 10, 0, 10}).zoomedAbout(kEpoch, 1e-9).spanNs(), 1);
    }

    void pan()
    {
        const TimeAxis axis{kEpoch, kEpoch + 1000, 0, 100};
        QCOMPARE(axis.pannedBy(250).beginNs, kEpoch + 250);
        QCOMPARE(axis.pannedBy(250).spanNs(), 1000);
        // dragging the content 10 px right shows earlier times: 10 px = 100 ns here
        QCOMPARE(axis.pannedByPixels(10).beginNs, kEpoch - 100);
        // the span survives the int64 limit
        const TimeAxis top{INT64_MAX - 2000, INT64_MAX - 1000, 0, 100};
        QCOMPARE(top.pannedBy(5000).endNs, INT64_MAX);
        QCOMPARE(top.pannedBy(5000).spanNs(), 1000);
    }

    void clamp_data()
    {
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<qint64>("expectedBegin");
        QTest::addColumn<qint64>("expectedEnd");
        // data: [1000, 2000], min span 10
        QTest::newRow("inside") << qint64(1200) << qint64(1300) << qint64(1200) << qint64(1300);
        QTest::newRow("left of data") << qint64(900) << qint64(1000) << qint64(1000) << qint64(1100);
        QTest::newRow("right of data") << qint64(1950) << qint64(2150) << qint64(1800) << qint64(2000);
        QTest::newRow("wider than data") << qint64(0) << qint64(5000) << qint64(1000) << qint64(2000);
        QTest::newRow("below min span") << qint64(1500) << qint64(1502) << qint64(1500) << qint64(1510);
        QTest::newRow("min span at the end") << qint64(1999) << qint64(2000) << qint64(1990) << qint64(2000);
    }
    void clamp()
    {
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        QFETCH(qint64, expectedBegin);
        QFETCH(qint64, expectedEnd);
        const TimeAxis clamped = TimeAxis{begin, end, 0, 100}.clampedTo(1000, 2000, 10);
        QCOMPARE(clamped.beginNs, expectedBegin);
        QCOMPARE(clamped.endNs, expectedEnd);
    }

    void clampShortData()
    {
        // a single sample: the view is centred on it with the minimum span
        const TimeAxis clamped = TimeAxis{0, 0, 0, 100}.clampedTo(kEpoch, kEpoch, 1000);
        QCOMPARE(clamped.beginNs, kEpoch - 500);
        QCOMPARE(clamped.endNs, kEpoch + 500);
    }

    void niceSteps_data()
    {
        QTest::addColumn<qint64>("span");
        QTest::addColumn<int>("maxTicks");
        QTest::addColumn<qint64>("step");
        QTest::newRow("1 s / 10") << qint64(kSecond) << 10 << qint64(100'000'000);
        QTest::newRow("1 s / 4") << qint64(kSecond) << 4 << qint64(500'000'000);
        QTest::newRow("7 us / 8") << qint64(7'000) << 8 << qint64(1'000);
        QTest::newRow("3 ns / 10") << qint64(3) << 10 << qint64(1);
        QTest::newRow("90 s / 6") << qint64(90 * kSecond) << 6 << qint64(15 * kSecond);
        QTest::newRow("10 min / 8") << qint64(600 * kSecond) << 8 << qint64(120 * kSecond);
        QTest::newRow("5 h / 6") << qint64(5 * 3600 * kSecond) << 6 << qint64(3600 * kSecond);
        QTest::newRow("30 days / 5") << qint64(30 * 86400 * kSecond) << 5 << qint64(10 * 86400 * kSecond);
    }
    void niceSteps()
    {
        QFETCH(qint64, span);
        QFETCH(int, maxTicks);
        QFETCH(qint64, step);
        QCOMPARE(niceTimeStepNs(span, maxTicks), step);
    }

    void ticks()
    {
        // origin at 0 relative; ticks at multiples of the step from the origin only
        const std::vector<int64_t> t = timeTicksNs(kEpoch + 150, kEpoch + 520, kEpoch, 100);
        QCOMPARE(t, (std::vector<int64_t>{kEpoch + 200, kEpoch + 300, kEpoch + 400, kEpoch + 500}));
        QCOMPARE(timeTicksNs(-250, 0, 0, 100), (std::vector<int64_t>{-200, -100, 0}));
        QVERIFY(timeTicksNs(10, 0, 0, 100).empty());
    }

    void labels_data()
    {
        QTest::addColumn<qint64>("relative");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<QString>("label");
        QTest::newRow("zero") << qint64(0) << qint64(kSecond) << "0 s";
        QTest::newRow("seconds") << qint64(12 * kSecond) << qint64(2 * kSecond) << "12 s";
        QTest::newRow("tenths") << qint64(1'500'000'000) << qint64(500'000'000) << "1.5 s";
        QTest::newRow("fine step far from origin")
            << qint64(3 * kSecond + 50'000) << qint64(50'000) << "3.00005 s";
        QTest::newRow("ns") << qint64(7) << qint64(1) << "0.000000007 s";
        QTest::newRow("minutes") << qint64(150 * kSecond) << qint64(30 * kSecond) << "2 min 30 s";
        QTest::newRow("whole minutes") << qint64(120 * kSecond) << qint64(60 * kSecond) << "2 min";
        QTest::newRow("hours") << qint64(3900 * kSecond) << qint64(300 * kSecond) << "1 h 5 min";
        QTest::newRow("minute with fraction")
            << qint64(60 * kSecond + 250'000'000) << qint64(250'000'000) << "1 min 0.25 s";
        QTest::newRow("negative") << qint64(-2 * kSecond) << qint64(kSecond) << "-2 s";
    }
    void labels()
    {
        QFETCH(qint64, relative);
        QFETCH(qint64, step);
        QFETCH(QString, label);
        QCOMPARE(formatTimeTick(relative, step), label);
    }
};

QTEST_APPLESS_MAIN(TestTimeAxis)
#include "tst_timeaxis.moc"
