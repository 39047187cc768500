// The main window with a distributed job: the three layouts (a folder of per-rank sinks,
// several per-rank files, one file holding every rank) open on the job page; a rank opens on
// the trace page with the job page's cursor moved to the rank's own clock; View > Job Overview
// returns.

#include "app/MainWindow.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/items/RankTableModel.h"
#include "model/job/JobData.h"
#include "widgets/job/JobHeatmapView.h"

#include <QAction>
#include <QCoreApplication>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString distributed(const QString& name)
{
    return QString(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog/distributed/") + name;
}

bool jobPageShown(const MainWindow& window)
{
    return !window.isBusy() && window.jobPage()->job() && window.jobPage()->isVisible();
}

} // namespace

class TestMainWindowJob : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("gapscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow_job"));
        QSettings().clear();
    }

    void layoutsOpenAsJob_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("worldSize");
        QTest::addColumn<int>("presentRanks");
        QTest::newRow("job folder of sinks")
            << QStringList{distributed(QStringLiteral("firstcause-job"))} << int(JobMode::Job) << 4 << 4;
        QTest::newRow("8-rank folder")
            << QStringList{distributed(QStringLiteral("skew-job"))} << int(JobMode::Job) << 8 << 8;
        QTest::newRow("several files, rank 3 missing")
            << QStringList{distributed(QStringLiteral("missing-files/rank0.jsonl")),
                           distributed(QStringLiteral("missing-files/rank1.jsonl")),
                           distributed(QStringLiteral("missing-files/rank2.jsonl"))}
            << int(JobMode::Job) << 4 << 3;
        QTest::newRow("one file, every rank")
            << QStringList{distributed(QStringLiteral("collective-merged.jsonl"))} << int(JobMode::Session)
            << 3 << 3;
    }

    void layoutsOpenAsJob()
    {
        QFETCH(QStringList, paths);
        QFETCH(int, mode);
        QFETCH(int, worldSize);
        QFETCH(int, presentRanks);
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openPaths(paths);
        QVERIFY(QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs));
        const auto job = window.jobPage()->job();
        QCOMPARE(int(job->mode), mode);
        QCOMPARE(job->worldSize, int64_t(worldSize));
        QCOMPARE(int(job->ranks.size()), worldSize);
        int present = 0;
        for (const JobRank& rank : job->ranks)
            present += rank.present ? 1 : 0;
        QCOMPARE(present, presentRanks);
        QCOMPARE(window.jobPage()->rankModel()->rowCount(), worldSize);
        // the cross-rank analyses arrive from the background and fill the findings
        QVERIFY(QTest::qWaitFor([&] { return window.jobPage()->findingsView()->model()->rowCount() > 0; },
                                kLoadTimeoutMs));
        QVERIFY(!window.jobOverviewAction()->isEnabled()); // the overview is what is shown
    }

    void rankOpensOnTracePageAndBack()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openPaths({distributed(QStringLiteral("skew-job"))});
        QVERIFY(QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs));
        QVERIFY(QTest::qWaitFor([&] { return window.jobPage()->findingsView()->model()->rowCount() > 0; },
                                kLoadTimeoutMs));
        const auto job = window.jobPage()->job();
        const qint64 aligned = (job->firstTimestampNs + job->lastTimestampNs) / 2;
        window.jobPage()->viewState()->setCursor(aligned);

        emit window.jobPage()->rankActivated(5);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && window.tracePage()->isVisible(); },
                                kLoadTimeoutMs));
        QVERIFY(window.analysis());
        QCOMPARE(window.analysis()->rank, int64_t(5));
        // the cursor is where the job page had it, on rank 5's own clock
        const qint64 cursor = window.tracePage()->viewState()->cursorNs();
        QVERIFY2(std::llabs(cursor - aligned) <= 60'000'000'000LL,
                 qPrintable(QStringLiteral("cursor %1, aligned %2").arg(cursor).arg(aligned)));

        QVERIFY(window.jobOverviewAction()->isEnabled());
        window.jobOverviewAction()->trigger();
        QVERIFY(window.jobPage()->isVisible());
        QCOMPARE(window.jobPage()->job(), job);
    }

    void singleRankFileStaysOnTracePage()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPaths(
            {QString(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog/parity/mixed.jsonl")});
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && window.analysis(); }, kLoadTimeoutMs));
        QVERIFY(window.tracePage()->isVisible());
        QVERIFY(!window.jobPage()->job());
        QVERIFY(!window.jobOverviewAction()->isEnabled());
    }

    void closeClearsJob()
    {
        MainWindow window;
        window.show();
        window.openPaths({distributed(QStringLiteral("firstcause-job"))});
        QVERIFY(QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs));
        window.closeTrace();
        QVERIFY(window.isWelcomeShown());
        QVERIFY(!window.jobPage()->job());
        QVERIFY(!window.jobOverviewAction()->isEnabled());
    }
};

QTEST_MAIN(TestMainWindowJob)
#include "tst_mainwindow_job.moc"
