// analysis/Int64Math.h: checked and saturating int64 arithmetic for values read from files.
#include "analysis/Int64Math.h"

#include <QTest>

using namespace gapscope;

namespace {
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
} // namespace

class TestInt64Math : public QObject
{
    Q_OBJECT

private slots:
    void addSubMul_data()
    {
        QTest::addColumn<qint64>("a");
        QTest::addColumn<qint64>("b");
        QTest::addColumn<bool>("sumFits");
        QTest::addColumn<qint64>("saturatedSum");
        QTest::addColumn<bool>("differenceFits");
        QTest::addColumn<qint64>("saturatedDifference");
        QTest::addColumn<bool>("productFits");
        QTest::addColumn<qint64>("saturatedProduct");
        QTest::newRow("small") << qint64(7) << qint64(-3) << true << qint64(4) << true << qint64(10) << true
                               << qint64(-21);
        QTest::newRow("max + 1") << qint64(kMax) << qint64(1) << false << qint64(kMax) << true
                                 << qint64(kMax - 1) << true << qint64(kMax);
        QTest::newRow("min - 1") << qint64(kMin) << qint64(1) << true << qint64(kMin + 1) << false
                                 << qint64(kMin) << true << qint64(kMin);
        QTest::newRow("0 - min") << qint64(0) << qint64(kMin) << true << qint64(kMin) << false << qint64(kMax)
                                 << true << qint64(0);
        QTest::newRow("max - min") << qint64(kMax) << qint64(kMin) << true << qint64(-1) << false
                                   << qint64(kMax) << false << qint64(kMin);
        // 2200-01-01 + 1800-01-01 in ns: the sum fits, twice 2200 does not
        QTest::newRow("timestamps") << qint64(7'258'118'400'000'000'000) << qint64(7'258'118'400'000'000'000)
                                    << false << qint64(kMax) << true << qint64(0) << false << qint64(kMax);
        QTest::newRow("min * -1") << qint64(kMin) << qint64(-1) << false << qint64(kMin) << true
                                  << qint64(kMin + 1) << false << qint64(kMax);
    }

    void addSubMul()
    {
        QFETCH(qint64, a);
        QFETCH(qint64, b);
        QFETCH(bool, sumFits);
        QFETCH(qint64, saturatedSum);
        QFETCH(bool, differenceFits);
        QFETCH(qint64, saturatedDifference);
        QFETCH(bool, productFits);
        QFETCH(qint64, saturatedProduct);
        QCOMPARE(checkedAdd(a, b).has_value(), sumFits);
        QCOMPARE(saturatingAdd(a, b), saturatedSum);
        if (sumFits)
            QCOMPARE(*checkedAdd(a, b), saturatedSum);
        QCOMPARE(checkedSub(a, b).has_value(), differenceFits);
        QCOMPARE(saturatingSub(a, b), saturatedDifference);
        if (differenceFits)
            QCOMPARE(*checkedSub(a, b), saturatedDifference);
        QCOMPARE(checkedMul(a, b).has_value(), productFits);
        QCOMPARE(saturatingMul(a, b), saturatedProduct);
        if (productFits)
            QCOMPARE(*checkedMul(a, b), saturatedProduct);
    }

    void roundedDivide_data()
    {
        QTest::addColumn<qint64>("numerator");
        QTest::addColumn<qint64>("denominator");
        QTest::addColumn<qint64>("quotient");
        QTest::newRow("exact") << qint64(10) << qint64(5) << qint64(2);
        QTest::newRow("half rounds up") << qint64(5) << qint64(2) << qint64(3);
        QTest::newRow("below half") << qint64(7) << qint64(5) << qint64(1);
        QTest::newRow("odd half") << qint64(8) << qint64(5) << qint64(2);
        QTest::newRow("negative half away from zero") << qint64(-5) << qint64(2) << qint64(-3);
        QTest::newRow("negative below half") << qint64(-7) << qint64(5) << qint64(-1);
        QTest::newRow("min by 1") << qint64(kMin) << qint64(1) << qint64(kMin);
        QTest::newRow("max by max") << qint64(kMax) << qint64(kMax) << qint64(1);
    }

    void roundedDivide()
    {
        QFETCH(qint64, numerator);
        QFETCH(qint64, denominator);
        QFETCH(qint64, quotient);
        QCOMPARE(gapscope::roundedDivide(numerator, denominator), quotient);
    }

    void toInt64_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<qint64>("converted");
        QTest::newRow("whole") << 42.0 << true << qint64(42);
        QTest::newRow("truncated") << -2.75 << true << qint64(-2);
        QTest::newRow("-2^63") << -9223372036854775808.0 << true << qint64(kMin);
        QTest::newRow("2^63") << 9223372036854775808.0 << false << qint64(0);
        QTest::newRow("-1e308") << -1e308 << false << qint64(0);
        QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << false << qint64(0);
        QTest::newRow("inf") << std::numeric_limits<double>::infinity() << false << qint64(0);
    }

    void toInt64()
    {
        QFETCH(double, value);
        QFETCH(bool, fits);
        QFETCH(qint64, converted);
        QCOMPARE(gapscope::toInt64(value).has_value(), fits);
        if (fits)
            QCOMPARE(*gapscope::toInt64(value), converted);
    }

    void wideSpans()
    {
        // a span of more than the int64 range, as between the two ends of it
        QCOMPARE(gapscope::roundedDivide(WideInt(kMax) - kMin, 1), kMax);
        QCOMPARE(gapscope::roundedDivide(WideInt(kMin) - kMax, 1), kMin);
        QCOMPARE(gapscope::roundedDivide(WideInt(kMax) - kMin, kMax), qint64(2));
        QCOMPARE(differenceAsDouble(kMax, kMin), 18446744073709551615.0);
        QCOMPARE(differenceAsDouble(kMin, kMax), -18446744073709551615.0);
        QCOMPARE(differenceAsDouble(5, 7), -2.0);
    }
};

QTEST_GUILESS_MAIN(TestInt64Math)
#include "tst_int64math.moc"
