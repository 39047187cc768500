// End-to-end: what `gapscope analyze` and `compare` make of folders and files of real captures
// (tests/data/fixtures/real-gpu/folders, issue 30 item 5): a folder of two runs of one rank
// exits 2 naming the runs and how to read one; a folder of one run is analysed as that run
// (not as a one-rank job); a sink's manifest.json reads the sink with a note; `compare` takes
// run folders; nvidia-smi's log is named for what it is.
#include "tests/GapscopeProcess.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace {

const QString kReal = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/folders");

QString real(const QString& name)
{
    return kReal + QLatin1Char('/') + name;
}

QJsonObject parse(const QByteArray& json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class TestCliFolders : public QObject
{
    Q_OBJECT
private slots:
    void analyzeFolders_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("inputRead"); // the report's input.path ("" : no report)
        QTest::addColumn<QStringList>("stderrHas");
        QTest::newRow("two runs of rank 0")
            << QStringLiteral("single") << 2 << QString()
            << QStringList{
                   real(QStringLiteral("single")) + QStringLiteral(": 2 runs that are not ranks of one job"),
                   QStringLiteral("stock — rank 0: ") + real(QStringLiteral("single/stock/telemetry_sink")) +
                       QStringLiteral(" (session 014998b3-13f3-4f4d-961c-d5c31438b453, pid 472); also in ") +
                       real(QStringLiteral("single/stock_events.json")),
                   QStringLiteral("truth — rank 0: ") + real(QStringLiteral("single/truth/telemetry_sink")),
                   QStringLiteral("give one of them to read that run")};
        QTest::newRow("one run") << QStringLiteral("frag") << 0 << QStringLiteral("frag/telemetry_sink")
                                 << QStringList{real(QStringLiteral("frag")) +
                                                QStringLiteral(" holds one run; opened it: ") +
                                                real(QStringLiteral("frag/telemetry_sink"))};
        QTest::newRow("a run folder holding one sink")
            << QStringLiteral("single/truth") << 0 << QStringLiteral("single/truth/telemetry_sink")
            << QStringList{QStringLiteral(" holds one run; opened it")};
        QTest::newRow("a sink's manifest.json")
            << QStringLiteral("single/stock/telemetry_sink/manifest.json") << 0
            << QStringLiteral("single/stock/telemetry_sink")
            << QStringList{real(QStringLiteral("single/stock/telemetry_sink/manifest.json")) +
                           QStringLiteral(" is part of the sink ") +
                           real(QStringLiteral("single/stock/telemetry_sink"))};
        QTest::newRow("nvidia-smi's log")
            << QStringLiteral("single/nvidia-smi.csv") << 2 << QString()
            << QStringList{
                   real(QStringLiteral("single/nvidia-smi.csv")) +
                   QStringLiteral(": an nvidia-smi device-usage log (timestamp, memory.used [MiB], "
                                  "memory.total [MiB]), not a stormlog trace: attach it to a trace with "
                                  "--device-log FILE / File > Attach Device Log…")};
    }

    void analyzeFolders()
    {
        QFETCH(QString, path);
        QFETCH(int, exitCode);
        QFETCH(QString, inputRead);
        QFETCH(QStringList, stderrHas);
        const GapscopeRun r = runGapscope(
            {QStringLiteral("analyze"), real(path), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, exitCode);
        const QString err = QString::fromUtf8(r.err);
        for (const QString& line : stderrHas)
            QVERIFY2(err.contains(line), qPrintable(err));
        if (inputRead.isEmpty()) {
            QVERIFY(r.out.isEmpty());
            return;
        }
        // the run's own report: not a job's (no "job", no "ranks")
        const QJsonObject report = parse(r.out);
        QCOMPARE(report.value(QStringLiteral("input")).toObject().value(QStringLiteral("path")).toString(),
                 real(inputRead));
        QVERIFY(!report.contains(QStringLiteral("job")));
        QVERIFY(!report.contains(QStringLiteral("ranks")));
        // the same report as the sink given itself
        const GapscopeRun sink = runGapscope(
            {QStringLiteral("analyze"), real(inputRead), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(sink.exitCode, 0);
        QCOMPARE(r.out, sink.out);
    }

    // (d) compare takes run folders: each is read as its sink
    void compareRunFolders()
    {
        const GapscopeRun r = runGapscope({QStringLiteral("compare"), real(QStringLiteral("single/stock")),
                                           real(QStringLiteral("single/truth")), QStringLiteral("--format"),
                                           QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const GapscopeRun sinks =
            runGapscope({QStringLiteral("compare"), real(QStringLiteral("single/stock/telemetry_sink")),
                         real(QStringLiteral("single/truth/telemetry_sink")), QStringLiteral("--format"),
                         QStringLiteral("json")});
        QCOMPARE(sinks.exitCode, 0);
        QCOMPARE(r.out, sinks.out);
        QVERIFY2(QString::fromUtf8(r.err).contains(QStringLiteral("holds one run; opened it")),
                 r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliFolders)
#include "tst_cli_folders.moc"
