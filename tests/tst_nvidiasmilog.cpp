// model/devicelog/NvidiaSmiLog: nvidia-smi's CSV logs as written on the real H200 captures,
// bad rows (file, line, reason; the rest loads), the zone of the local timestamps, and the
// series a trace's process takes.
#include "model/devicelog/NvidiaSmiLog.h"

#include <QDateTime>
#include <QtTest>

using namespace gapscope;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/devicelog/") + QLatin1String(name);
}

int64_t utcNs(int y, int mo, int d, int h, int mi, int s, int ms)
{
    return QDateTime(QDate(y, mo, d), QTime(h, mi, s, ms), QTimeZone::utc()).toMSecsSinceEpoch() * 1000000;
}

constexpr int64_t kMiB = int64_t(1) << 20;

} // namespace

class TestNvidiaSmiLog : public QObject
{
    Q_OBJECT

private slots:
    void realLogs_data();
    void realLogs();
    void badRows_data();
    void badRows();
    void refused_data();
    void refused();
    void zones_data();
    void zones();
    void badZones_data();
    void badZones();
    void seriesOfAProcess();
    void seriesOfADevice_data();
    void seriesOfADevice();
};

void TestNvidiaSmiLog::realLogs_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("scope");
    QTest::addColumn<int>("rows");
    QTest::addColumn<qint64>("firstNs");
    QTest::addColumn<qint64>("firstUsed");
    QTest::addColumn<qint64>("peakUsed");
    // the rows of the files as they are (wc -l less the header), their first line and their peak
    QTest::newRow("query-gpu, single")
        << fixture("single-nvidia-smi.csv") << int(DeviceLogScope::Device) << 230
        << qint64(utcNs(2026, 12, 4, 17, 21, 32, 503)) << qint64(0) << qint64(6217 * kMiB);
    QTest::newRow("query-gpu, ddp") << fixture("ddp-nvidia-smi.csv") << int(DeviceLogScope::Device) << 193
                                    << qint64(utcNs(2026, 12, 4, 17, 22, 21, 343)) << qint64(0) << qint64(-1);
    QTest::newRow("query-compute-apps, pair")
        << fixture("pair-nvidia-smi-apps.csv") << int(DeviceLogScope::Process) << 174
        << qint64(utcNs(2026, 12, 4, 18, 9, 32, 445)) << qint64(18 * kMiB) << qint64(-1);
}

void TestNvidiaSmiLog::realLogs()
{
    QFETCH(QString, path);
    QFETCH(int, scope);
    QFETCH(int, rows);
    QFETCH(qint64, firstNs);
    QFETCH(qint64, firstUsed);
    QFETCH(qint64, peakUsed);
    const DeviceLog log = loadNvidiaSmiLog(path, QTimeZone::utc());
    QVERIFY2(log.ok(), qPrintable(log.fatalError));
    QVERIFY2(log.problems.empty(),
             qPrintable(log.problems.kept().empty() ? QString() : log.problems.kept()[0].toString()));
    QCOMPARE(int(log.scope), scope);
    QCOMPARE(log.rowsRead, qint64(rows));
    QCOMPARE(log.timestampNs.size(), size_t(rows));
    QCOMPARE(qint64(log.timestampNs.front()), firstNs);
    QCOMPARE(qint64(log.usedBytes.front()), firstUsed);
    QCOMPARE(log.timeZone, QStringLiteral("UTC"));
    QVERIFY(std::is_sorted(log.timestampNs.begin(), log.timestampNs.end()));
    if (log.scope == DeviceLogScope::Device) {
        QCOMPARE(log.totalBytes.size(), size_t(rows));
        QCOMPARE(qint64(log.totalBytes.front()), 143771 * kMiB); // the H200's memory.total
        QVERIFY(log.pid.empty());
    } else {
        QCOMPARE(log.pid.size(), size_t(rows));
        QVERIFY(std::all_of(log.pid.begin(), log.pid.end(), [](int64_t p) { return p == 448; }));
    }
    if (peakUsed >= 0)
        QCOMPARE(qint64(*std::max_element(log.usedBytes.begin(), log.usedBytes.end())), peakUsed);
}

void TestNvidiaSmiLog::badRows_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("loaded");
    QTest::addColumn<qint64>("line");
    QTest::addColumn<QString>("reason");
    const QByteArray header = "timestamp, memory.used [MiB], memory.total [MiB]\n";
    const QByteArray good = "2026/12/04 17:21:32.503, 609 MiB, 143771 MiB\n";
    QTest::newRow("N/A") << header + good + "2026/12/04 17:21:32.603, [N/A], 143771 MiB\n" + good << 2
                         << qint64(3)
                         << QStringLiteral("memory.used is [N/A] (nvidia-smi could not read it)");
    QTest::newRow("not supported") << header + "2026/12/04 17:21:32.603, 5 MiB, [Not Supported]\n" + good << 1
                                   << qint64(2) << QStringLiteral("memory.total is [Not Supported]");
    QTest::newRow("too few fields") << header + good + "2026/12/04 17:21:32.603, 609 MiB\n"
                                    << 1 << qint64(3) << QStringLiteral("2 fields, the header names 3");
    QTest::newRow("cut short by a kill") << header + good + "2026/12/04 17:2" << 1 << qint64(3)
                                         << QStringLiteral("1 field, the header names 3");
    QTest::newRow("bad timestamp") << header + "04.12.2026 17:21:32, 609 MiB, 143771 MiB\n" + good << 1
                                   << qint64(2) << QStringLiteral("timestamp '04.12.2026 17:21:32' is not");
    QTest::newRow("no such day") << header + "2026/02/30 17:21:32.503, 609 MiB, 143771 MiB\n" + good << 1
                                 << qint64(2) << QStringLiteral("timestamp '2026/02/30 17:21:32.503'");
    QTest::newRow("not a number") << header + good + "2026/12/04 17:21:32.603, lots MiB, 143771 MiB\n"
                                  << 1 << qint64(3)
                                  << QStringLiteral("memory.used 'lots MiB' is not a number of MiB");
    QTest::newRow("unknown unit") << header + good + "2026/12/04 17:21:32.603, 609 MB, 143771 MiB\n"
                                  << 1 << qint64(3) << QStringLiteral("unknown unit 'MB'");
    QTest::newRow("negative") << header + good + "2026/12/04 17:21:32.603, -1 MiB, 143771 MiB\n"
                              << 1 << qint64(3) << QStringLiteral("memory.used '-1 MiB' is not a number");
    QTest::newRow("header of other columns") << header + good + "timestamp, memory.used [MiB]\n" + good << 2
                                             << qint64(3) << QStringLiteral("a header with other columns");
    QTest::newRow("bad pid")
        << QByteArray("timestamp, pid, used_gpu_memory [MiB]\n2026/12/04 18:09:32.445, x, 18 MiB\n"
                      "2026/12/04 18:09:32.549, 448, 584 MiB\n")
        << 1 << qint64(2) << QStringLiteral("pid 'x' is not a whole number");
}

void TestNvidiaSmiLog::badRows()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, loaded);
    QFETCH(qint64, line);
    QFETCH(QString, reason);
    const DeviceLog log = parseNvidiaSmiLog(bytes, QStringLiteral("smi.csv"), QTimeZone::utc());
    QVERIFY2(log.ok(), qPrintable(log.fatalError));
    QCOMPARE(log.timestampNs.size(), size_t(loaded));
    QCOMPARE(log.problems.errorCount(), qint64(1));
    const LoadProblem& problem = log.problems.kept().front();
    QCOMPARE(problem.file, QStringLiteral("smi.csv"));
    QCOMPARE(problem.line, line);
    QVERIFY2(problem.reason.contains(reason), qPrintable(problem.reason));
}

void TestNvidiaSmiLog::refused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("reason");
    QTest::newRow("empty") << QByteArray() << QStringLiteral("smi.csv: empty");
    QTest::newRow("noheader") << QByteArray("2026/12/04 17:21:32.503, 609 MiB, 143771 MiB\n")
                              << QStringLiteral("smi.csv:1: not an nvidia-smi CSV log");
    QTest::newRow("no memory column")
        << QByteArray("timestamp, temperature.gpu\n2026/12/04 17:21:32.503, 40\n")
        << QStringLiteral("no memory.used or used_memory column (it has: "
                          "timestamp, temperature.gpu)");
    QTest::newRow("no rows") << QByteArray("timestamp, pid, used_gpu_memory [MiB]\n")
                             << QStringLiteral("no rows after the header");
    QTest::newRow("every row bad")
        << QByteArray("timestamp, memory.used [MiB]\n2026/12/04 17:21:32.503, [N/A]\n")
        << QStringLiteral("none of its 1 rows could be read; first: smi.csv:2: memory.used is [N/A]");
    QTest::newRow("process log without pid") << QByteArray("timestamp, used_gpu_memory [MiB]\n")
                                             << QStringLiteral("a per-process log needs a pid column");
}

void TestNvidiaSmiLog::refused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, reason);
    const DeviceLog log = parseNvidiaSmiLog(bytes, QStringLiteral("smi.csv"), QTimeZone::utc());
    QVERIFY(!log.ok());
    QVERIFY2(log.fatalError.contains(reason), qPrintable(log.fatalError));
}

void TestNvidiaSmiLog::zones_data()
{
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("offsetSeconds"); // of 2026-12-04 and 2026-07-01 local times
    QTest::addColumn<qint64>("summerOffsetSeconds");
    QTest::newRow("UTC") << QStringLiteral("UTC") << QStringLiteral("UTC") << qint64(0) << qint64(0);
    QTest::newRow("+02:00") << QStringLiteral("+02:00") << QStringLiteral("UTC+02:00") << qint64(7200)
                            << qint64(7200);
    QTest::newRow("-0530") << QStringLiteral("-0530") << QStringLiteral("UTC-05:30") << qint64(-19800)
                           << qint64(-19800);
    QTest::newRow("UTC+2") << QStringLiteral("UTC+2") << QStringLiteral("UTC+02:00") << qint64(7200)
                           << qint64(7200);
    // an IANA zone follows its summer time: the offset of each row's own date
    QTest::newRow("Europe/Berlin") << QStringLiteral("Europe/Berlin") << QStringLiteral("Europe/Berlin")
                                   << qint64(3600) << qint64(7200);
    QTest::newRow("America/New_York")
        << QStringLiteral("America/New_York") << QStringLiteral("America/New_York") << qint64(-18000)
        << qint64(-14400);
}

void TestNvidiaSmiLog::zones()
{
    QFETCH(QString, zone);
    QFETCH(QString, name);
    QFETCH(qint64, offsetSeconds);
    QFETCH(qint64, summerOffsetSeconds);
    QString error;
    const auto parsed = deviceLogTimeZone(zone, &error);
    QVERIFY2(parsed, qPrintable(error));
    const QByteArray bytes = "timestamp, memory.used [MiB]\n2026/12/04 17:21:32.503, 1 MiB\n"
                             "2026/07/01 08:00:00.000, 2 MiB\n";
    const DeviceLog log = parseNvidiaSmiLog(bytes, QStringLiteral("smi.csv"), *parsed);
    QVERIFY2(log.ok(), qPrintable(log.fatalError));
    QCOMPARE(log.timeZone, name);
    QCOMPARE(log.timestampNs.size(), size_t(2));
    // local wall time less the zone's offset is UTC
    QCOMPARE(qint64(log.timestampNs[0]),
             qint64(utcNs(2026, 12, 4, 17, 21, 32, 503) - offsetSeconds * 1000000000));
    QCOMPARE(qint64(log.timestampNs[1]),
             qint64(utcNs(2026, 7, 1, 8, 0, 0, 0) - summerOffsetSeconds * 1000000000));
}

void TestNvidiaSmiLog::badZones_data()
{
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no such zone") << QStringLiteral("Mars/Olympus")
                                  << QStringLiteral("unknown time zone 'Mars/Olympus'");
    QTest::newRow("offset too far") << QStringLiteral("+15:00") << QStringLiteral("outside -14:00 to +14:00");
    QTest::newRow("minutes") << QStringLiteral("+02:75") << QStringLiteral("outside");
}

void TestNvidiaSmiLog::badZones()
{
    QFETCH(QString, zone);
    QFETCH(QString, reason);
    QString error;
    QVERIFY(!deviceLogTimeZone(zone, &error));
    QVERIFY2(error.contains(reason), qPrintable(error));
}

void TestNvidiaSmiLog::seriesOfAProcess()
{
    // two processes, one of them on two GPUs: its rows of one moment are summed
    const QByteArray bytes = "timestamp, pid, used_gpu_memory [MiB]\n"
                             "2026/12/04 18:00:00.100, 7, 10 MiB\n"
                             "2026/12/04 18:00:00.100, 9, 20 MiB\n"
                             "2026/12/04 18:00:00.100, 7, 5 MiB\n"
                             "2026/12/04 18:00:00.200, 7, 11 MiB\n";
    const DeviceLog log = parseNvidiaSmiLog(bytes, QStringLiteral("apps.csv"), QTimeZone::utc());
    QVERIFY(log.ok());
    const DeviceLogSeriesData seven = deviceLogSeriesFor(log, 7, 0);
    QVERIFY(seven.error.isEmpty());
    QCOMPARE(seven.timestampNs,
             (std::vector<int64_t>{utcNs(2026, 12, 4, 18, 0, 0, 100), utcNs(2026, 12, 4, 18, 0, 0, 200)}));
    QCOMPARE(seven.usedBytes, (std::vector<int64_t>{15 * kMiB, 11 * kMiB}));
    const DeviceLogSeriesData missing = deviceLogSeriesFor(log, 472, 0);
    QVERIFY(missing.usedBytes.empty());
    QVERIFY2(missing.error.contains(
                 QStringLiteral("apps.csv: pid 472 is not in the per-process log (its pids: 7, 9)")),
             qPrintable(missing.error));
}

void TestNvidiaSmiLog::seriesOfADevice_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<qint64>("deviceId");
    QTest::addColumn<int>("rows");
    QTest::addColumn<QString>("error");
    const QByteArray twoGpus = "timestamp, index, memory.used [MiB]\n"
                               "2026/12/04 18:00:00.100, 0, 10 MiB\n"
                               "2026/12/04 18:00:00.100, 1, 20 MiB\n"
                               "2026/12/04 18:00:00.200, 0, 11 MiB\n";
    QTest::newRow("index picks GPU 0") << twoGpus << qint64(0) << 2 << QString();
    QTest::newRow("index picks GPU 1") << twoGpus << qint64(1) << 1 << QString();
    QTest::newRow("no such GPU") << twoGpus << qint64(3) << 0 << QStringLiteral("no rows of GPU 3");
    QTest::newRow("several GPUs without index")
        << QByteArray("timestamp, memory.used [MiB]\n2026/12/04 18:00:00.100, 10 MiB\n"
                      "2026/12/04 18:00:00.100, 20 MiB\n")
        << qint64(0) << 0 << QStringLiteral("the log holds several GPUs");
}

void TestNvidiaSmiLog::seriesOfADevice()
{
    QFETCH(QByteArray, bytes);
    QFETCH(qint64, deviceId);
    QFETCH(int, rows);
    QFETCH(QString, error);
    const DeviceLog log = parseNvidiaSmiLog(bytes, QStringLiteral("gpu.csv"), QTimeZone::utc());
    QVERIFY(log.ok());
    const DeviceLogSeriesData series = deviceLogSeriesFor(log, 0, deviceId);
    QCOMPARE(series.usedBytes.size(), size_t(rows));
    QCOMPARE(series.timestampNs.size(), size_t(rows));
    QVERIFY2(error.isEmpty() ? series.error.isEmpty() : series.error.contains(error),
             qPrintable(series.error));
}

QTEST_APPLESS_MAIN(TestNvidiaSmiLog)
#include "tst_nvidiasmilog.moc"
