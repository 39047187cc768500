// The Dask route of the fleet index (scripts/gapscope-dask-index): a LocalCluster of two worker
// processes, one thread each, indexes the real-capture tree (tests/data/fleet/tree) shard by shard
// and merges the parts; the database holds what one local `gapscope index` holds, row for row.
// Skipped only where Dask distributed cannot be imported (scripts/install-deps.sh installs it).

#include "model/fleet/FleetDatabase.h"
#include "model/fleet/FleetIndex.h"
#include "tests/FleetChecks.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

class TestFleetDask : public QObject
{
    Q_OBJECT

private slots:
    void localClusterEqualsLocalIndex()
    {
        const QString python = QStringLiteral(GAPSCOPE_PYTHON3);
        QProcess probe;
        probe.start(python, {QStringLiteral("-c"), QStringLiteral("import dask.distributed")});
        if (!probe.waitForFinished(60000) || probe.exitStatus() != QProcess::NormalExit ||
            probe.exitCode() != 0)
            QSKIP(
                "Dask distributed is not importable (scripts/install-deps.sh installs python3-distributed)");

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString from = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fleet/tree");
        const QString tree = dir.filePath(QStringLiteral("tree"));
        QVERIFY(copyTree(from, tree));

        const QString local = dir.filePath(QStringLiteral("local.sqlite"));
        FleetIndexSummary summary;
        QString error;
        QVERIFY2(indexFleet({{tree}, local, std::nullopt, 2}, &summary, &error), qPrintable(error));

        const QString distributed = dir.filePath(QStringLiteral("dask.sqlite"));
        QProcess driver;
        driver.setProcessChannelMode(QProcess::MergedChannels);
        driver.start(python,
                     {QStringLiteral(GAPSCOPE_SOURCE_DIR "/scripts/gapscope-dask-index"), tree,
                      QStringLiteral("--output"), distributed, QStringLiteral("--local-workers"),
                      QStringLiteral("2"), QStringLiteral("--gapscope"), QStringLiteral(GAPSCOPE_BINARY)});
        QVERIFY(driver.waitForFinished(240000));
        const QByteArray said = driver.readAll();
        QVERIFY2(driver.exitStatus() == QProcess::NormalExit && driver.exitCode() == 0, said.constData());
        QVERIFY2(said.contains("2 worker(s)"), said.constData());

        FleetDatabase one;
        FleetDatabase merged;
        QVERIFY2(one.open(local, &error), qPrintable(error));
        QVERIFY2(merged.open(distributed, &error), qPrintable(error));
        const QStringList expected = contentOf(one.database());
        QVERIFY(expected.size() > 40);
        QCOMPARE(contentOf(merged.database()), expected);
    }
};

QTEST_GUILESS_MAIN(TestFleetDask)
#include "tst_fleetdask.moc"
