#include "analysis/Units.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace gapscope;

class TestUnits : public QObject
{
    Q_OBJECT

private slots:
    void bytes_data();
    void bytes();
    void bytesPerSecond();
};

void TestUnits::bytes_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    const double KiB = 1024.0, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;
    QTest::newRow("zero") << 0.0 << "0 B";
    QTest::newRow("bytes") << 512.0 << "512 B";
    QTest::newRow("largest bytes") << 1023.0 << "1023 B";
    QTest::newRow("would print 1024 B") << 1023.6 << "1.00 KiB";
    QTest::newRow("one KiB") << KiB << "1.00 KiB";
    QTest::newRow("1.5 KiB") << 1536.0 << "1.50 KiB";
    QTest::newRow("MiB") << 204.7 * MiB << "204.70 MiB";
    QTest::newRow("1.5 GiB") << 1.5 * GiB << "1.50 GiB";
    QTest::newRow("would print 1024.00 MiB") << 1023.999 * MiB << "1.00 GiB";
    QTest::newRow("TiB") << 5 * TiB << "5.00 TiB";
    QTest::newRow("negative") << -2 * MiB << "-2.00 MiB";
    QTest::newRow("negative bytes") << -100.0 << "-100 B";
    QTest::newRow("nan") << std::nan("") << "nan B";
    QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "inf B";
}

void TestUnits::bytes()
{
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(formatBytes(value)), expected);
}

void TestUnits::bytesPerSecond()
{
    // The drift slope of the parity vector drift.expected.json.
    QCOMPARE(QString::fromStdString(formatBytesPerSecond(214641759.3)), QStringLiteral("204.70 MiB/s"));
    QCOMPARE(QString::fromStdString(formatBytesPerSecond(10.0)), QStringLiteral("10 B/s"));
}

QTEST_GUILESS_MAIN(TestUnits)
#include "tst_units.moc"
