// The command line end to end: --help and -h of every command, unknown options named with
// their command, and --device-log: nvidia-smi's log of the real H200 run turns the stock
// trace's blind gap (device used = max(allocated, reserved): 0 everywhere) into the device's.
#include "tests/GapscopeProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/devicelog/") + QLatin1String(name);
}

const QString kStock = fixture("single-stock-cut.jsonl");
const QString kSmi = fixture("single-nvidia-smi.csv");

QJsonObject jsonReport(const QStringList& args)
{
    const GapscopeRun r = runGapscope(args);
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object();
}

} // namespace

class TestCliDeviceLog : public QObject
{
    Q_OBJECT

private slots:
    void help_data();
    void help();
    void unknownOption_data();
    void unknownOption();
    void deviceLogGivesTheGap();
    void deviceLogInEveryFormat_data();
    void deviceLogInEveryFormat();
    void deviceLogRefused_data();
    void deviceLogRefused();
    void compareSides();
};

void TestCliDeviceLog::help_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mentions");
    const QStringList common{QStringLiteral("--format"),        QStringLiteral("--output"),
                             QStringLiteral("--set"),           QStringLiteral("--device-log"),
                             QStringLiteral("--device-log-tz"), QStringLiteral("--help")};
    for (const char* flag : {"--help", "-h"}) {
        QTest::addRow("analyze %s", flag)
            << QStringList{QStringLiteral("analyze"), QLatin1String(flag)}
            << common + QStringList{QStringLiteral("usage: gapscope analyze PATH..."),
                                    QStringLiteral("--session"),
                                    QStringLiteral("--rank"),
                                    QStringLiteral("--from"),
                                    QStringLiteral("--no-cache"),
                                    QStringLiteral("gap_ratio_threshold")};
        QTest::addRow("export %s", flag)
            << QStringList{QStringLiteral("export"), QLatin1String(flag)}
            << common + QStringList{QStringLiteral("usage: gapscope export"), QStringLiteral("--size"),
                                    QStringLiteral("--force"), QStringLiteral("findings-csv")};
        QTest::addRow("compare %s", flag)
            << QStringList{QStringLiteral("compare"), QLatin1String(flag)}
            << common + QStringList{QStringLiteral("usage: gapscope compare A B"),
                                    QStringLiteral("--session-a"),
                                    QStringLiteral("--rank-b"),
                                    QStringLiteral("--align"),
                                    QStringLiteral("--device-log-a"),
                                    QStringLiteral("--device-log-b")};
        QTest::addRow("screenshot %s", flag)
            << QStringList{QStringLiteral("--screenshot"), QLatin1String(flag)}
            << QStringList{QStringLiteral("usage: gapscope --screenshot")};
        QTest::addRow("top level %s", flag)
            << QStringList{QLatin1String(flag)}
            << QStringList{QStringLiteral("gapscope analyze"), QStringLiteral("gapscope export"),
                           QStringLiteral("gapscope compare"), QStringLiteral("gapscope COMMAND --help")};
    }
    // help wins over what else is wrong on the line
    QTest::newRow("help with a path")
        << QStringList{QStringLiteral("analyze"), kStock, QStringLiteral("--help")}
        << QStringList{QStringLiteral("usage: gapscope analyze")};
}

void TestCliDeviceLog::help()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, mentions);
    const GapscopeRun r = runGapscope(args);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    const QString out = QString::fromUtf8(r.out);
    for (const QString& mention : mentions)
        QVERIFY2(out.contains(mention), qPrintable(mention + QStringLiteral(" missing from:\n") + out));
}

void TestCliDeviceLog::unknownOption_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("analyze") << QStringList{QStringLiteral("analyze"), kStock, QStringLiteral("--bogus")}
                             << QStringLiteral("gapscope analyze: unknown option --bogus for analyze");
    QTest::newRow("export") << QStringList{QStringLiteral("export"), kStock, QStringLiteral("--align"),
                                           QStringLiteral("start")}
                            << QStringLiteral("gapscope export: unknown option --align for export");
    QTest::newRow("compare") << QStringList{QStringLiteral("compare"), kStock, kStock,
                                            QStringLiteral("--no-cache")}
                             << QStringLiteral("gapscope compare: unknown option --no-cache for compare");
    QTest::newRow("short") << QStringList{QStringLiteral("analyze"), kStock, QStringLiteral("-x")}
                           << QStringLiteral("unknown option -x for analyze");
    QTest::newRow("missing value") << QStringList{QStringLiteral("analyze"), kStock,
                                                  QStringLiteral("--device-log")}
                                   << QStringLiteral("gapscope analyze: --device-log needs a file name");
    QTest::newRow("zone without log") << QStringList{QStringLiteral("analyze"), kStock,
                                                     QStringLiteral("--device-log-tz"), QStringLiteral("UTC")}
                                      << QStringLiteral("--device-log-tz applies with --device-log");
}

void TestCliDeviceLog::unknownOption()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const GapscopeRun r = runGapscope(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
}

void TestCliDeviceLog::deviceLogGivesTheGap()
{
    const QStringList base{QStringLiteral("analyze"),  kStock,
                           QStringLiteral("--format"), QStringLiteral("json"),
                           QStringLiteral("--set"),    QStringLiteral("gap_ratio_threshold=0.01")};
    const QJsonObject stock = jsonReport(base);
    const QJsonObject joined =
        jsonReport(base + QStringList{QStringLiteral("--device-log"), kSmi, QStringLiteral("--device-log-tz"),
                                      QStringLiteral("UTC")});
    QVERIFY(!stock.isEmpty() && !joined.isEmpty());
    QCOMPARE(stock[QStringLiteral("device_used_source")].toObject()[QStringLiteral("kind")].toString(),
             QStringLiteral("trace"));
    // the stock collector's device used is max(allocated, reserved): no gap, no finding
    QCOMPARE(stock[QStringLiteral("gap_analysis")].toArray().size(), 0);
    QCOMPARE(stock[QStringLiteral("summary")].toObject()[QStringLiteral("peak_gap_bytes")].toInteger(),
             qint64(0));

    const QJsonObject source = joined[QStringLiteral("device_used_source")].toObject();
    QCOMPARE(source[QStringLiteral("kind")].toString(), QStringLiteral("nvidia-smi"));
    QCOMPARE(source[QStringLiteral("path")].toString(), kSmi);
    QCOMPARE(source[QStringLiteral("time_zone")].toString(), QStringLiteral("UTC"));
    QCOMPARE(source[QStringLiteral("scope")].toString(), QStringLiteral("device"));
    QCOMPARE(source[QStringLiteral("log_rows")].toInt(), 230);
    QCOMPARE(source[QStringLiteral("log_rows_rejected")].toInt(), 0);
    // nvidia-smi ran from before the tracker started to after it stopped: every sample matches
    const int samples = joined[QStringLiteral("summary")].toObject()[QStringLiteral("samples")].toInt();
    QVERIFY(samples > 200);
    QCOMPARE(source[QStringLiteral("matched_samples")].toInt(), samples);
    QCOMPARE(source[QStringLiteral("unmatched_samples")].toInt(), 0);
    QCOMPARE(source[QStringLiteral("tolerance_ns")].toInteger(), qint64(200000000)); // two 100 ms intervals
    // with the device's memory the run's leak and spike outside the allocator are found
    // the log's peak: its one row of the 3 GiB buffer, 6217 MiB used, less what the allocator reserved
    const qint64 peak =
        joined[QStringLiteral("summary")].toObject()[QStringLiteral("peak_gap_bytes")].toInteger();
    QVERIFY2(peak > qint64(5) << 30 && peak < qint64(6217) << 20, qPrintable(QString::number(peak)));
    const QJsonArray findings = joined[QStringLiteral("gap_analysis")].toArray();
    QStringList kinds;
    for (const QJsonValue& f : findings)
        kinds << f.toObject()[QStringLiteral("classification")].toString();
    QVERIFY2(kinds.contains(QStringLiteral("persistent_drift")) &&
                 kinds.contains(QStringLiteral("transient_spike")),
             qPrintable(kinds.join(QLatin1Char(','))));
}

void TestCliDeviceLog::deviceLogInEveryFormat_data()
{
    QTest::addColumn<QStringList>("args");
    const QStringList log{QStringLiteral("--device-log"), kSmi, QStringLiteral("--device-log-tz"),
                          QStringLiteral("+00:00")};
    QTest::newRow("analyze text") << QStringList{QStringLiteral("analyze"), kStock} + log;
    QTest::newRow("analyze markdown") << QStringList{QStringLiteral("analyze"), kStock,
                                                     QStringLiteral("--format"), QStringLiteral("markdown")} +
                                             log;
    QTest::newRow("export html") << QStringList{QStringLiteral("export"),   kStock,
                                                QStringLiteral("--format"), QStringLiteral("html"),
                                                QStringLiteral("--output"), QStringLiteral("-")} +
                                        log;
    QTest::newRow("compare markdown") << QStringList{QStringLiteral("compare"), kStock, kStock} + log;
}

void TestCliDeviceLog::deviceLogInEveryFormat()
{
    QFETCH(QStringList, args);
    const GapscopeRun r = runGapscope(args);
    QCOMPARE(r.exitCode, 0);
    // Markdown escapes punctuation: the words without the backslashes
    const QString out = QString::fromUtf8(r.out).remove(QLatin1Char('\\'));
    QVERIFY2(out.contains(QStringLiteral("nvidia-smi log")) &&
                 out.contains(QStringLiteral("single-nvidia-smi.csv")) &&
                 out.contains(QStringLiteral("times read in UTC")),
             qPrintable(out.left(3000)));
}

void TestCliDeviceLog::deviceLogRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("pid not in the per-process log")
        << QStringList{QStringLiteral("analyze"), kStock, QStringLiteral("--device-log"),
                       fixture("pair-nvidia-smi-apps.csv")}
        << QStringLiteral("pid 472 is not in the per-process log (its pids: 448)");
    QTest::newRow("no such log") << QStringList{QStringLiteral("analyze"), kStock,
                                                QStringLiteral("--device-log"),
                                                QStringLiteral("/nonexistent/smi.csv")}
                                 << QStringLiteral("/nonexistent/smi.csv");
    QTest::newRow("not a log") << QStringList{QStringLiteral("analyze"), kStock,
                                              QStringLiteral("--device-log"), kStock}
                               << QStringLiteral("not an nvidia-smi CSV log");
    QTest::newRow("bad zone") << QStringList{QStringLiteral("analyze"),
                                             kStock,
                                             QStringLiteral("--device-log"),
                                             kSmi,
                                             QStringLiteral("--device-log-tz"),
                                             QStringLiteral("Mars/Olympus")}
                              << QStringLiteral("--device-log-tz: unknown time zone 'Mars/Olympus'");
    QTest::newRow("budget log") << QStringList{QStringLiteral("analyze"),
                                               QStringLiteral(GAPSCOPE_TEST_DATA_DIR
                                                              "/fixtures/budget/leak.jsonl"),
                                               QStringLiteral("--device-log"), kSmi}
                                << QStringLiteral("--device-log applies to stormlog traces only");
}

void TestCliDeviceLog::deviceLogRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const GapscopeRun r = runGapscope(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
}

void TestCliDeviceLog::compareSides()
{
    // the per-process log of the pair run on its own trace: pid 448's rows
    const GapscopeRun r = runGapscope({QStringLiteral("compare"), kStock, fixture("pair-cut.jsonl"),
                                       QStringLiteral("--device-log-a"), kSmi,
                                       QStringLiteral("--device-log-b"), fixture("pair-nvidia-smi-apps.csv"),
                                       QStringLiteral("--device-log-tz"), QStringLiteral("UTC")});
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out).remove(QLatin1Char('\\'));
    QVERIFY2(out.contains(QStringLiteral("device-wide")) && out.contains(QStringLiteral("process 448 alone")),
             qPrintable(out.left(3000)));
}

QTEST_APPLESS_MAIN(TestCliDeviceLog)
#include "tst_cli_devicelog.moc"
