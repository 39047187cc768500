// pyRound against results of CPython's round(x, ndigits) (values checked in CPython 3.11).

#include "analysis/PyRound.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace gapscope;

class TestPyRound : public QObject
{
    Q_OBJECT

private slots:
    void knownValues_data();
    void knownValues();
    void signOfZero();
    void nonFinite();
    void extremeDigits();
};

void TestPyRound::knownValues_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<int>("ndigits");
    QTest::addColumn<double>("expected");

    // The binary value decides, not the decimal literal.
    QTest::newRow("2.675,2") << 2.675 << 2 << 2.67; // 2.67499999999999982236431605997495353221893310546875
    QTest::newRow("1.005,2") << 1.005 << 2 << 1.0;  // 1.00499999999999989341858963598497211933135986328125
    QTest::newRow("0.285,2") << 0.285 << 2
                             << 0.28; // 0.284999999999999975575093458246556110680103302001953125
    QTest::newRow("0.045,2") << 0.045 << 2
                             << 0.04; // 0.04499999999999999833466546306226518936455249786376953125
    // Exact binary ties go to the even digit.
    QTest::newRow("0.125,2") << 0.125 << 2 << 0.12;
    QTest::newRow("0.375,2") << 0.375 << 2 << 0.38;
    QTest::newRow("8.875,2") << 8.875 << 2 << 8.88;
    QTest::newRow("0.0625,3") << 0.0625 << 3 << 0.062;
    QTest::newRow("2.5,0") << 2.5 << 0 << 2.0;
    QTest::newRow("3.5,0") << 3.5 << 0 << 4.0;
    QTest::newRow("0.5,0") << 0.5 << 0 << 0.0;
    QTest::newRow("1.5,0") << 1.5 << 0 << 2.0;
    QTest::newRow("-2.5,0") << -2.5 << 0 << -2.0;
    // Values of the size the gap evidence has.
    QTest::newRow("1560682765.04999,1") << 1560682765.04999 << 1 << 1560682765.0;
    QTest::newRow("5368317239.25,1") << 5368317239.25 << 1 << 5368317239.2; // exact tie, 2 is even
    QTest::newRow("5368317239.35,1") << 5368317239.35 << 1 << 5368317239.4; // binary value above .35
    QTest::newRow("0.99924,4") << 0.99924 << 4 << 0.9992;
    QTest::newRow("0.87333,3") << 0.87333 << 3 << 0.873;
    QTest::newRow("214641759.2999,1") << 214641759.2999 << 1 << 214641759.3;
    // More digits than the value has: unchanged.
    QTest::newRow("0.30000000000000004,17") << 0.30000000000000004 << 17 << 0.30000000000000004;
    QTest::newRow("0.30000000000000004,16") << 0.30000000000000004 << 16 << 0.3;
    QTest::newRow("1e-5,3") << 1e-5 << 3 << 0.0;
    // Negative ndigits round to tens, hundreds, ...
    QTest::newRow("1234.5,-1") << 1234.5 << -1 << 1230.0;
    QTest::newRow("1235,-1") << 1235.0 << -1 << 1240.0;
    QTest::newRow("1245,-1") << 1245.0 << -1 << 1240.0;
    QTest::newRow("1245.0001,-1") << 1245.0001 << -1 << 1250.0;
    QTest::newRow("150,-2") << 150.0 << -2 << 200.0;
    QTest::newRow("250,-2") << 250.0 << -2 << 200.0;
    QTest::newRow("-250,-2") << -250.0 << -2 << -200.0;
    QTest::newRow("51,-2") << 51.0 << -2 << 100.0;
    QTest::newRow("50,-2") << 50.0 << -2 << 0.0;
    QTest::newRow("50.5,-2") << 50.5 << -2 << 100.0;
    QTest::newRow("9999.9,-4") << 9999.9 << -4 << 10000.0;
    QTest::newRow("96,-1") << 96.0 << -1 << 100.0;
    QTest::newRow("1e300,-300") << 1e300 << -300 << 1e300;
    QTest::newRow("123.456,-5") << 123.456 << -5 << 0.0;
}

void TestPyRound::knownValues()
{
    QFETCH(double, x);
    QFETCH(int, ndigits);
    QFETCH(double, expected);
    const double got = pyRound(x, ndigits);
    // Equal doubles, not merely close.
    QVERIFY2(got == expected, qPrintable(QStringLiteral("got %1").arg(got, 0, 'g', 17)));
}

void TestPyRound::signOfZero()
{
    QVERIFY(std::signbit(pyRound(-0.5, 0))); // round(-0.5) == -0.0
    QVERIFY(std::signbit(pyRound(-0.4, 0)));
    QVERIFY(std::signbit(pyRound(-1e-9, 3)));
    QVERIFY(std::signbit(pyRound(-40.0, -2)));
    QVERIFY(!std::signbit(pyRound(0.4, 0)));
    QVERIFY(std::signbit(pyRound(-0.0, 2)));
}

void TestPyRound::nonFinite()
{
    QVERIFY(std::isnan(pyRound(std::nan(""), 2)));
    QCOMPARE(pyRound(std::numeric_limits<double>::infinity(), 3), std::numeric_limits<double>::infinity());
    QCOMPARE(pyRound(-std::numeric_limits<double>::infinity(), -3), -std::numeric_limits<double>::infinity());
}

void TestPyRound::extremeDigits()
{
    // Python returns x unchanged above 323 digits and a signed zero below -308.
    QCOMPARE(pyRound(1.5, 400), 1.5);
    QCOMPARE(pyRound(5e-324, 323), 0.0);
    QCOMPARE(pyRound(5e-324, 324), 5e-324);
    QCOMPARE(pyRound(123.456, -400), 0.0);
    QVERIFY(std::signbit(pyRound(-123.456, -400)));
    QCOMPARE(pyRound(1.7976931348623157e308, 2), 1.7976931348623157e308);
    // Python raises OverflowError here; we return infinity.
    QVERIFY(std::isinf(pyRound(1.7976931348623157e308, -308)));
    QCOMPARE(pyRound(1.2345678901234567e-300, 305), 1.23457e-300);
}

QTEST_GUILESS_MAIN(TestPyRound)
#include "tst_pyround.moc"
