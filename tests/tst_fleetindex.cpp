// The fleet index (model/fleet, `gapscope index`): a tree cut from the real captures
// (tests/data/fleet/tree) indexed into SQLite; its rows, the recurring issues against upstream
// stormlog's own rules over the same tree (tests/data/fleet/expected.py -> expected.json), the
// incremental rules (unchanged not read, changed replaced, vanished marked), and shards merged
// against one index of everything, through the command line.

#include "model/fleet/FleetDatabase.h"
#include "model/fleet/FleetIndex.h"
#include "model/fleet/FleetIssues.h"
#include "tests/FleetChecks.h"
#include "tests/GapscopeProcess.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

const QString kData = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fleet");

} // namespace

class TestFleetIndex : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_tree = m_dir.filePath(QStringLiteral("tree"));
        QVERIFY(copyTree(kData + QStringLiteral("/tree"), m_tree));
        m_output = m_dir.filePath(QStringLiteral("fleet.sqlite"));
        FleetIndexSummary summary;
        QString error;
        QVERIFY2(indexFleet({{m_tree}, m_output, std::nullopt, 2}, &summary, &error), qPrintable(error));
        QCOMPARE(summary.problems, QStringList());
        QCOMPARE(summary.found, 10);
        QCOMPARE(summary.read, 10);
        QCOMPARE(summary.failed, 0);
        QCOMPARE(summary.runs, 12);
        QVERIFY2(m_database.open(m_output, &error), qPrintable(error));
    }

    void normalisedDimensions_data()
    {
        QTest::addColumn<QString>("given");
        QTest::addColumn<QString>("normalised");
        QTest::newRow("empty") << QString() << "unknown";
        QTest::newRow("numbers") << "High fragmentation: 95.3%"
                                 << "high fragmentation: <num>";
        QTest::newRow("hex before numbers") << "block 0x7f3a at 12 MB"
                                            << "block <hex> at <num> mb";
        QTest::newRow("a number inside a word stays") << "cuda0 rank2"
                                                      << "cuda0 rank2";
        QTest::newRow("blanks") << "  Large   allocation\tdetected "
                                << "large allocation detected";
    }
    void normalisedDimensions()
    {
        QFETCH(QString, given);
        QFETCH(QString, normalised);
        QCOMPARE(normalizeTextDimension(given), normalised);
    }

    void rows_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("runs");
        QTest::newRow("stock sink") << "single/stock/telemetry_sink"
                                    << "stormlog trace" << 1;
        QTest::newRow("truth sink") << "single/truth/telemetry_sink"
                                    << "stormlog trace" << 1;
        QTest::newRow("frag sink") << "frag/telemetry_sink"
                                   << "stormlog trace" << 1;
        QTest::newRow("ddp job") << "ddp"
                                 << "distributed job" << 4;
        QTest::newRow("oom bundle") << "oom/oom_dumps/oom_dump_20261204T172219Z_601_cuda_1"
                                    << "OOM bundle" << 1;
        QTest::newRow("snapshot") << "snapshot/fragmented.pickle"
                                  << "PyTorch snapshot" << 1;
        QTest::newRow("budget log") << "budget/wedge_info_only.text"
                                    << "memory-budget log" << 1;
        QTest::newRow("parity mixed") << "parity/mixed.jsonl"
                                      << "stormlog trace" << 1;
        QTest::newRow("parity phasespike") << "parity/phasespike.jsonl"
                                           << "stormlog trace" << 1;
        QTest::newRow("nvidia-smi log, passed over") << "single/nvidia-smi.csv"
                                                     << "nvidia-smi log" << 0;
    }
    void rows()
    {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        QFETCH(int, runs);
        const QString full = m_tree + QLatin1Char('/') + path;
        QCOMPARE(rowsOf(m_database.database(),
                        QStringLiteral("SELECT input_kind, run_count, vanished FROM inputs WHERE path = '%1'")
                            .arg(full)),
                 QStringList{QStringLiteral("%1|%2|0").arg(kind).arg(runs)});
        QCOMPARE(valueOf(m_database.database(),
                         QStringLiteral("SELECT COUNT(*) FROM runs WHERE input_path = '%1'").arg(full))
                     .toInt(),
                 runs);
    }

    // What each run says, as the analyses at the default settings say it.
    void runValues()
    {
        const QSqlDatabase db = m_database.database();
        const auto run = [&](const QString& where, const QString& columns) {
            return rowsOf(db, QStringLiteral("SELECT %1 FROM runs WHERE %2").arg(columns, where));
        };
        // the stock collector cannot see the gap
        QCOMPARE(run(QStringLiteral("path LIKE '%/single/stock/telemetry_sink'"),
                     QStringLiteral("rank, peak_gap_bytes, worst_class, notices")),
                 QStringList{QStringLiteral("0|0|NULL|gap_not_observable")});
        // the DDP job: rank 2 diverges; upstream's first-cause suspects (0 high, 1 low) are the start-up
        QCOMPARE(
            run(QStringLiteral("input_path LIKE '%/ddp' ORDER BY rank"),
                QStringLiteral("rank, world_size, job_id IS NOT NULL, first_cause_rank, notices, path LIKE "
                               "'%/rank' || rank || '/telemetry_sink'")),
            (QStringList{QStringLiteral("0|4|1|0|gap_not_observable,first_cause_at_startup|1"),
                         QStringLiteral("1|4|1|0|gap_not_observable,first_cause_at_startup|1"),
                         QStringLiteral("2|4|1|0|gap_not_observable,rank_divergence|1"),
                         QStringLiteral("3|4|1|0|gap_not_observable|1")}));
        QCOMPARE(run(QStringLiteral("input_path LIKE '%/ddp' AND rank = 2"),
                     QStringLiteral("worst_class, worst_severity")),
                 QStringList{QStringLiteral("rank_divergence|warning")});
        // frag: gapscope's allocator_fragmentation on the allocator's counters
        QCOMPARE(run(QStringLiteral("path LIKE '%/frag/telemetry_sink'"),
                     QStringLiteral("worst_class, worst_severity")),
                 QStringList{QStringLiteral("allocator_fragmentation|warning")});
        // upstream's parity vectors: their findings, the worst one first
        QCOMPARE(run(QStringLiteral("path LIKE '%/parity/mixed.jsonl'"),
                     QStringLiteral("samples, peak_gap_bytes, finding_count, worst_class, worst_severity, "
                                    "worst_confidence")),
                 QStringList{QStringLiteral("300|17080342103|2|transient_spike|critical|0.85")});
        QCOMPARE(run(QStringLiteral("path LIKE '%/parity/phasespike.jsonl'"),
                     QStringLiteral("worst_class, worst_phase")),
                 QStringList{QStringLiteral("transient_spike|train / step")});
        QCOMPARE(run(QStringLiteral("input_kind = 'OOM bundle'"),
                     QStringLiteral("oom_count, session_id IS NOT NULL")),
                 QStringList{QStringLiteral("1|1")});
        QCOMPARE(
            run(QStringLiteral("input_kind = 'PyTorch snapshot'"), QStringLiteral("samples, worst_class")),
            QStringList{QStringLiteral("0|allocator_fragmentation")});
        QCOMPARE(run(QStringLiteral("input_kind = 'memory-budget log'"),
                     QStringLiteral("samples > 0, worst_class IS NOT NULL")),
                 QStringList{QStringLiteral("1|1")});
    }

    // The groups of upstream's kinds and their counts are what upstream's rules give over the
    // same tree (expected.py): the same fingerprint ids, hits, sessions, first and last seen.
    void recurringIssuesAreUpstreams()
    {
        QFile file(kData + QStringLiteral("/expected.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QStringList expected;
        for (const QJsonValue& value : QJsonDocument::fromJson(file.readAll()).array()) {
            const QJsonObject issue = value.toObject();
            expected << QStringLiteral("%1|%2|%3|%4|%5|%6|%7")
                            .arg(issue.value(QStringLiteral("fingerprint")).toString(),
                                 issue.value(QStringLiteral("kind")).toString(),
                                 issue.value(QStringLiteral("severity")).toString())
                            .arg(issue.value(QStringLiteral("hit_count")).toInteger())
                            .arg(issue.value(QStringLiteral("session_count")).toInteger())
                            .arg(issue.value(QStringLiteral("first_seen_ns")).toInteger())
                            .arg(issue.value(QStringLiteral("last_seen_ns")).toInteger());
        }
        expected.sort();
        QCOMPARE(expected.size(), 6);
        QCOMPARE(rowsOf(m_database.database(),
                        QStringLiteral(
                            "SELECT fingerprint, kind, severity, hit_count, session_count, first_seen_ns, "
                            "last_seen_ns FROM recurring_issues WHERE kind != 'gapscope_notice' "
                            "ORDER BY fingerprint")),
                 expected);
        // the tracker's "High fragmentation" warnings recur in three runs
        QCOMPARE(rowsOf(m_database.database(),
                        QStringLiteral(
                            "SELECT class, run_count, hit_count FROM recurring_issues WHERE kind = 'alert' "
                            "ORDER BY run_count DESC")),
                 (QStringList{QStringLiteral("high_fragmentation|3|68"),
                              QStringLiteral("large allocation detected: <num> mb|2|2")}));
    }

    // gapscope's notices are groups of their own kind, one hit per run.
    void noticeGroups()
    {
        QCOMPARE(rowsOf(m_database.database(),
                        QStringLiteral(
                            "SELECT class, severity, run_count, hit_count, substr(fingerprint, 1, 9) FROM "
                            "recurring_issues WHERE kind = 'gapscope_notice' ORDER BY class")),
                 (QStringList{QStringLiteral("below_ratio_gate|info|1|1|gapscope:"),
                              QStringLiteral("first_cause_at_startup|info|2|2|gapscope:"),
                              QStringLiteral("gap_not_observable|warning|5|5|gapscope:"),
                              QStringLiteral("rank_divergence|warning|1|1|gapscope:")}));
    }

    // Shards written by the command line and merged hold what one index holds, row for row.
    void shardsMergedEqualOneIndex()
    {
        QStringList parts;
        for (int i = 0; i < 3; ++i) {
            const QString part = m_dir.filePath(QStringLiteral("part-%1.sqlite").arg(i));
            const GapscopeRun run =
                runGapscope({QStringLiteral("index"), m_tree, QStringLiteral("--shard"),
                             QStringLiteral("%1/3").arg(i), QStringLiteral("--output"), part});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            parts << part;
        }
        const QString merged = m_dir.filePath(QStringLiteral("merged.sqlite"));
        const GapscopeRun run = runGapscope(QStringList{QStringLiteral("index"), QStringLiteral("--merge")} +
                                            parts + QStringList{QStringLiteral("--output"), merged});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        FleetDatabase mergedDatabase;
        QString error;
        QVERIFY2(mergedDatabase.open(merged, &error), qPrintable(error));
        const QStringList one = contentOf(m_database.database());
        QVERIFY(one.size() > 40);
        QCOMPARE(contentOf(mergedDatabase.database()), one);
    }

    void commandLineRefusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no output") << QStringList{QStringLiteral("index"), QStringLiteral("x")} << 2
                                   << "--output needs a database file";
        QTest::newRow("bad shard") << QStringList{QStringLiteral("index"),   QStringLiteral("x"),
                                                  QStringLiteral("--shard"), QStringLiteral("3/3"),
                                                  QStringLiteral("-o"),      QStringLiteral("y")}
                                   << 2 << "--shard needs I/N with 0 <= I < N, got '3/3'";
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("index"), QStringLiteral("--size"), QStringLiteral("1")} << 2
            << "unknown option --size for index";
        QTest::newRow("help") << QStringList{QStringLiteral("index"), QStringLiteral("--help")} << 0 << "";
    }
    void commandLineRefusals()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const GapscopeRun run = runGapscope(args);
        QCOMPARE(run.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
        if (exitCode == 0)
            QVERIFY(run.out.contains("--shard"));
    }

    // Incremental: nothing changed reads nothing; a touched and a replaced input are read again
    // (their rows replaced), a deleted one is marked vanished and leaves the recurring issues,
    // and comes back when it is there again. Runs last: it changes the tree.
    void incremental()
    {
        const QSqlDatabase db = m_database.database();
        const QStringList before = contentOf(db);
        FleetIndexSummary again;
        QString error;
        QVERIFY2(indexFleet({{m_tree}, m_output, std::nullopt, 2}, &again, &error), qPrintable(error));
        QCOMPARE(again.read, 0);
        QCOMPARE(again.unchanged, 10);
        QCOMPARE(contentOf(db), before);

        // touched: the same bytes, a newer time
        const QString segment = m_tree + QStringLiteral("/frag/telemetry_sink/segment-000001.jsonl");
        QFile touched(segment);
        QVERIFY(touched.open(QIODevice::ReadWrite));
        QVERIFY(touched.setFileTime(QDateTime::currentDateTimeUtc().addSecs(60),
                                    QFileDevice::FileModificationTime));
        touched.close();
        // replaced: the truth run cut to its first 150 records
        const QString truth = m_tree + QStringLiteral("/single/truth/telemetry_sink/segment-000001.jsonl");
        QFile truthFile(truth);
        QVERIFY(truthFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = truthFile.readAll().split('\n');
        truthFile.close();
        QVERIFY(truthFile.open(QIODevice::WriteOnly | QIODevice::Truncate));
        truthFile.write(lines.mid(0, 150).join('\n') + '\n');
        truthFile.close();
        // deleted
        const QString spike = m_tree + QStringLiteral("/parity/phasespike.jsonl");
        const QString kept = m_dir.filePath(QStringLiteral("phasespike.jsonl"));
        QVERIFY(QFile::rename(spike, kept));

        FleetIndexSummary changed;
        QVERIFY2(indexFleet({{m_tree}, m_output, std::nullopt, 2}, &changed, &error), qPrintable(error));
        QCOMPARE(changed.read, 2);
        QCOMPARE(changed.unchanged, 7);
        QCOMPARE(changed.vanished, 1);
        QCOMPARE(
            valueOf(db, QStringLiteral("SELECT COUNT(*) FROM runs WHERE path LIKE '%/frag/telemetry_sink'"))
                .toInt(),
            1);
        QVERIFY(valueOf(db, QStringLiteral(
                                "SELECT samples FROM runs WHERE path LIKE '%/single/truth/telemetry_sink'"))
                    .toInt() < 93);
        QCOMPARE(
            rowsOf(db, QStringLiteral(
                           "SELECT vanished, run_count FROM inputs WHERE path LIKE '%/phasespike.jsonl'")),
            QStringList{QStringLiteral("1|1")});
        QCOMPARE(valueOf(db, QStringLiteral("SELECT vanished FROM runs WHERE path LIKE '%/phasespike.jsonl'"))
                     .toInt(),
                 1);
        QCOMPARE(
            valueOf(db, QStringLiteral(
                            "SELECT COUNT(*) FROM recurring_issues WHERE dimensions LIKE '%train / step%'"))
                .toInt(),
            0);

        // back again: read (its time is new), present again
        QVERIFY(QFile::rename(kept, spike));
        FleetIndexSummary back;
        QVERIFY2(indexFleet({{m_tree}, m_output, std::nullopt, 2}, &back, &error), qPrintable(error));
        QCOMPARE(back.vanished, 0);
        QCOMPARE(valueOf(db, QStringLiteral("SELECT vanished FROM runs WHERE path LIKE '%/phasespike.jsonl'"))
                     .toInt(),
                 0);
        QCOMPARE(
            valueOf(db, QStringLiteral(
                            "SELECT COUNT(*) FROM recurring_issues WHERE dimensions LIKE '%train / step%'"))
                .toInt(),
            1);
    }

    // A reindex recognises only what changed: a tree where nothing changed is taken as the last
    // walk left it (no folder or file recognised again), an input added two levels down is found
    // with its folders recognised again and their siblings not, and the walk's memory then is
    // the one an index from nothing leaves.
    void reindexRecognisesOnlyWhatChanged()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tree = dir.filePath(QStringLiteral("tree"));
        QVERIFY(copyTree(kData + QStringLiteral("/tree"), tree));
        const QString output = dir.filePath(QStringLiteral("fleet.sqlite"));
        QString error;
        FleetIndexSummary first;
        QVERIFY2(indexFleet({{tree}, output, std::nullopt, 2}, &first, &error), qPrintable(error));
        QVERIFY(first.recognised > 5);
        FleetIndexSummary again;
        QVERIFY2(indexFleet({{tree}, output, std::nullopt, 2}, &again, &error), qPrintable(error));
        QCOMPARE(again.recognised, 0);
        QCOMPARE(again.read, 0);
        QCOMPARE(again.unchanged, 10);

        QVERIFY(QDir(tree).mkpath(QStringLiteral("single/later")));
        QVERIFY(QFile::copy(kData + QStringLiteral("/tree/budget/wedge_info_only.text"),
                            tree + QStringLiteral("/single/later/wedge.text")));
        FleetIndexSummary added;
        QVERIFY2(indexFleet({{tree}, output, std::nullopt, 2}, &added, &error), qPrintable(error));
        QCOMPARE(added.found, 11);
        QCOMPARE(added.read, 1);
        QCOMPARE(added.unchanged, 10);
        QVERIFY2(added.recognised > 0 && added.recognised < first.recognised,
                 qPrintable(QString::number(added.recognised)));

        const QString fresh = dir.filePath(QStringLiteral("fresh.sqlite"));
        FleetIndexSummary fromNothing;
        QVERIFY2(indexFleet({{tree}, fresh, std::nullopt, 2}, &fromNothing, &error), qPrintable(error));
        FleetDatabase reindexed;
        FleetDatabase freshIndex;
        QVERIFY(reindexed.open(output, &error));
        QVERIFY(freshIndex.open(fresh, &error));
        const QString walked =
            QStringLiteral("SELECT path, size, mtime_ns, skipped FROM walked ORDER BY path");
        QVERIFY(rowsOf(reindexed.database(), walked).size() > 5);
        QCOMPARE(rowsOf(reindexed.database(), walked), rowsOf(freshIndex.database(), walked));
        QCOMPARE(contentOf(reindexed.database()), contentOf(freshIndex.database()));
    }

    // An index killed in the middle leaves a whole database: every input written has all its
    // runs and their issues; the next index goes on from it and ends where one uninterrupted
    // index ends.
    void killedIndexLeavesAWholeDatabase()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tree = dir.filePath(QStringLiteral("tree"));
        for (int copy = 0; copy < 12; ++copy)
            QVERIFY(copyTree(kData + QStringLiteral("/tree"), tree + QStringLiteral("/copy%1").arg(copy)));
        const QString killed = dir.filePath(QStringLiteral("killed.sqlite"));
        QProcess process;
        process.start(QStringLiteral(GAPSCOPE_BINARY),
                      {QStringLiteral("index"), tree, QStringLiteral("--output"), killed,
                       QStringLiteral("--threads"), QStringLiteral("1")});
        QVERIFY(process.waitForStarted());
        // killed once some inputs are written and before all are
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(killed + QStringLiteral("-wal")).size() > 64 * 1024 ||
                                     process.state() == QProcess::NotRunning,
                                 60000);
        if (process.state() == QProcess::NotRunning)
            QSKIP("the index ended before it could be killed (a machine this fast needs a larger tree)");
        process.kill();
        QVERIFY(process.waitForFinished());
        {
            FleetDatabase database;
            QString error;
            QVERIFY2(database.open(killed, &error), qPrintable(error));
            const QSqlDatabase db = database.database();
            QCOMPARE(valueOf(db, QStringLiteral("PRAGMA integrity_check")).toString(), QStringLiteral("ok"));
            const int written = valueOf(db, QStringLiteral("SELECT COUNT(*) FROM inputs")).toInt();
            QVERIFY2(written > 0 && written < 120, qPrintable(QString::number(written)));
            QCOMPARE(valueOf(db, QStringLiteral(
                                     "SELECT COUNT(*) FROM inputs i WHERE run_count != (SELECT COUNT(*) "
                                     "FROM runs r WHERE r.input_path = i.path)"))
                         .toInt(),
                     0);
        }
        FleetIndexSummary summary;
        QString error;
        QVERIFY2(indexFleet({{tree}, killed, std::nullopt, 2}, &summary, &error), qPrintable(error));
        QVERIFY(summary.unchanged > 0);
        const QString whole = dir.filePath(QStringLiteral("whole.sqlite"));
        QVERIFY2(indexFleet({{tree}, whole, std::nullopt, 2}, &summary, &error), qPrintable(error));
        FleetDatabase resumed;
        FleetDatabase uninterrupted;
        QVERIFY(resumed.open(killed, &error));
        QVERIFY(uninterrupted.open(whole, &error));
        QCOMPARE(contentOf(resumed.database()), contentOf(uninterrupted.database()));
    }

    void refusesOtherDatabases()
    {
        const QString other = m_dir.filePath(QStringLiteral("other.sqlite"));
        {
            FleetDatabase database;
            QString error;
            QVERIFY(database.open(other, &error));
            QSqlQuery query(database.database());
            QVERIFY(query.exec(QStringLiteral("UPDATE meta SET value = '99' WHERE key = 'schema_version'")));
        }
        FleetDatabase database;
        QString error;
        QVERIFY(!database.open(other, &error));
        QVERIFY2(error.contains(QStringLiteral("schema version 99")), qPrintable(error));
        const QString text = m_dir.filePath(QStringLiteral("text.sqlite"));
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a database, only some text that is long enough to be looked at\n");
        file.close();
        QVERIFY(!database.open(text, &error));
        QVERIFY2(error.startsWith(text), qPrintable(error));
    }

private:
    QTemporaryDir m_dir;
    QString m_tree;
    QString m_output;
    FleetDatabase m_database;
};

QTEST_GUILESS_MAIN(TestFleetIndex)
#include "tst_fleetindex.moc"
