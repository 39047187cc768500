// ByteAxis: 1-2-5 ticks in one IEC unit per axis, and the range of a byte axis in the
// "fit data" and "from zero" modes.
#include "widgets/chart/ByteAxis.h"

#include <QStringList>
#include <QTest>

#include <cmath>

using namespace gapscope;

namespace {
constexpr double KiB = 1024.0;
constexpr double MiB = 1024.0 * KiB;
constexpr double GiB = 1024.0 * MiB;

QStringList labelsOf(const ByteAxis& axis)
{
    QStringList labels;
    for (double tick : axis.ticks())
        labels << axis.label(tick);
    return labels;
}
} // namespace

class TestByteAxis : public QObject
{
    Q_OBJECT
private slots:
    void ticks_data()
    {
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<int>("maxTicks");
        QTest::addColumn<QStringList>("labels");
        // the quiet parity trace: formerly 1/32 GiB steps (1.344, 1.375 ... GiB)
        QTest::newRow("gap near 1.5 GiB")
            << 1.33 * GiB << 1.64 * GiB << 10
            << QStringList{"1.35 GiB", "1.40 GiB", "1.45 GiB", "1.50 GiB", "1.55 GiB", "1.60 GiB"};
        // the budget chart: formerly "512 MiB" among the GiB ticks
        QTest::newRow("budget 0-5 GiB")
            << 0.0 << 5 * GiB << 10
            << QStringList{"0 GiB",   "0.5 GiB", "1.0 GiB", "1.5 GiB", "2.0 GiB", "2.5 GiB",
                           "3.0 GiB", "3.5 GiB", "4.0 GiB", "4.5 GiB", "5.0 GiB"};
        QTest::newRow("half to one and a half GiB")
            << 0.5 * GiB << 1.5 * GiB << 4 << QStringList{"0.5 GiB", "1.0 GiB", "1.5 GiB"};
        // the CPU sink: 100 KiB of allocator counters near 26 MiB
        QTest::newRow("cpu sink") << 26.12 * MiB << 26.22 * MiB << 8
                                  << QStringList{"26.12 MiB", "26.14 MiB", "26.16 MiB",
                                                 "26.18 MiB", "26.20 MiB", "26.22 MiB"};
        // a step below 1/100 GiB drops to MiB instead of five decimals
        QTest::newRow("100 KiB near 1.3 GiB")
            << 1.3 * GiB << 1.3 * GiB + 100 * KiB << 5
            << QStringList{"1331.20 MiB", "1331.22 MiB", "1331.24 MiB", "1331.26 MiB", "1331.28 MiB"};
        QTest::newRow("negative to positive")
            << -7 * GiB << 8 * GiB << 8
            << QStringList{"-6 GiB", "-4 GiB", "-2 GiB", "0 GiB", "2 GiB", "4 GiB", "6 GiB", "8 GiB"};
        QTest::newRow("below one GiB")
            << 0.0 << 900 * MiB << 5 << QStringList{"0 MiB", "200 MiB", "400 MiB", "600 MiB", "800 MiB"};
        QTest::newRow("bytes") << 0.0 << 100.0 << 5
                               << QStringList{"0 B", "20 B", "40 B", "60 B", "80 B", "100 B"};
        QTest::newRow("no fractions of a byte")
            << 0.0 << 3.0 << 10 << QStringList{"0 B", "1 B", "2 B", "3 B"};
        QTest::newRow("flat") << 2 * GiB << 2 * GiB << 6 << QStringList{"2 GiB"};
    }
    void ticks()
    {
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(int, maxTicks);
        QFETCH(QStringList, labels);
        const ByteAxis axis = ByteAxis::forRange(min, max, maxTicks);
        QCOMPARE(labelsOf(axis), labels);

        // the properties every axis has: one unit, a 1-2-5 step, no more ticks than asked
        const std::vector<double> ticks = axis.ticks();
        QVERIFY(qsizetype(ticks.size()) <= maxTicks + 1);
        for (const QString& label : labelsOf(axis))
            QVERIFY2(label.endsWith(QLatin1Char(' ') + axis.unitName()), qPrintable(label));
        const double unitStep = axis.step / axis.unitBytes();
        const double mantissa = unitStep / std::pow(10.0, std::floor(std::log10(unitStep) + 1e-9));
        QVERIFY2(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                     std::abs(mantissa - 5) < 1e-9,
                 qPrintable(QString::number(unitStep)));
        for (size_t i = 0; i < ticks.size(); ++i) {
            QVERIFY(ticks[i] >= min - axis.step * 1e-6 && ticks[i] <= max + axis.step * 1e-6);
            if (i > 0)
                QVERIFY(std::abs(ticks[i] - ticks[i - 1] - axis.step) <= axis.step * 1e-6);
        }
    }

    void logTicks_data()
    {
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<int>("maxTicks");
        QTest::addColumn<QStringList>("labels");
        QTest::newRow("every fifth power: the units' own")
            << KiB << GiB << 6 << QStringList{"1 KiB", "32 KiB", "1 MiB", "32 MiB", "1 GiB"};
        QTest::newRow("every power") << 3.0 << 100.0 << 10
                                     << QStringList{"4 B", "8 B", "16 B", "32 B", "64 B"};
        QTest::newRow("every second power")
            << 0.5 * GiB << 16 * GiB << 3 << QStringList{"1 GiB", "4 GiB", "16 GiB"};
        QTest::newRow("one octave") << 0.8 * GiB << 1.6 * GiB << 8 << QStringList{"1 GiB"};
        QTest::newRow("no fractions of a byte") << 0.1 << 2.0 << 8 << QStringList{"1 B", "2 B"};
        QTest::newRow("nothing positive") << 0.0 << 0.0 << 8 << QStringList{};
    }
    void logTicks()
    {
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(int, maxTicks);
        QFETCH(QStringList, labels);
        QStringList drawn;
        double previous = 0;
        for (double tick : logByteTicks(min, max, maxTicks)) {
            QVERIFY(tick > previous && tick >= min && tick <= max);
            QCOMPARE(std::exp2(std::round(std::log2(tick))), tick); // a power of two
            previous = tick;
            drawn << logByteTickLabel(tick);
        }
        QVERIFY(drawn.size() <= maxTicks);
        QCOMPARE(drawn, labels);
    }

    void range_data()
    {
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::addColumn<int>("mode");
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        const int fit = int(ByteRangeMode::FitData);
        const int zero = int(ByteRangeMode::FromZero);
        QTest::newRow("fit keeps the data's extent")
            << 1.3 * GiB << 1.6 * GiB << fit << 1.3 * GiB << 1.6 * GiB;
        QTest::newRow("from zero starts at zero") << 1.3 * GiB << 1.6 * GiB << zero << 0.0 << 1.6 * GiB;
        QTest::newRow("fit keeps a nearby zero") << 0.1 * GiB << 2 * GiB << fit << 0.0 << 2 * GiB;
        QTest::newRow("from zero, negative data") << -3 * GiB << -1 * GiB << zero << -3 * GiB << 0.0;
        QTest::newRow("from zero, both signs") << -1 * GiB << 2 * GiB << zero << -1 * GiB << 2 * GiB;
        QTest::newRow("fit, flat line centred")
            << 5 * GiB << 5 * GiB << fit << 5 * GiB - 0.25 * GiB << 5 * GiB + 0.25 * GiB;
        QTest::newRow("from zero, flat line above zero") << 4096.0 << 4096.0 << zero << 0.0 << 4096.0;
        QTest::newRow("from zero, all zero") << 0.0 << 0.0 << zero << 0.0 << 2048.0;
        QTest::newRow("no data") << 1.0 << 0.0 << fit << 0.0 << GiB;
    }
    void range()
    {
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(int, mode);
        QFETCH(double, min);
        QFETCH(double, max);
        const ByteRange r = byteAxisRange(low, high, ByteRangeMode(mode));
        QCOMPARE(r.min, min);
        QCOMPARE(r.max, max);
        if (ByteRangeMode(mode) == ByteRangeMode::FromZero) {
            QVERIFY(r.min <= 0 && r.max >= 0);
            if (low >= 0)
                QCOMPARE(r.min, 0.0);
        }
    }
};

QTEST_APPLESS_MAIN(TestByteAxis)
#include "tst_byteaxis.moc"
