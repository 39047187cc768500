// Folders of real captures opened in the window (issue 30 item 5, tests/data/fixtures/
// real-gpu/folders): single/ (two runs of rank 0) opens as two documents, one tab each, named
// by the run ("stock — rank 0", "truth — rank 0"), on the trace page; frag/ (one run) opens as
// that run's chart, not a one-rank job; a sink's manifest.json opens its sink; a rank of a job
// is titled by job id and rank; Compare With takes a run folder. With GAPSCOPE_SHOTS_DIR set, the window of
// each is saved there.
#include "app/CompareWith.h"
#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/trace/CompareWindow.h"

#include <QAction>

#include <QDir>
#include <QSettings>
#include <QTabWidget>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 60000;

QString real(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/folders/") + name;
}

// Every load and analysis done, and no document left to open.
bool waitIdle(MainWindow& window)
{
    return QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs);
}

void saveShot(MainWindow& window, const QString& name)
{
    const QString dir = qEnvironmentVariable("GAPSCOPE_SHOTS_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    window.grab().save(QDir(dir).filePath(name + QStringLiteral(".png")));
}

} // namespace

class TestMainWindowRuns : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_runs")); }
    void cleanupTestCase() { test::removeOwnSettings(); }
    void init() { QSettings().clear(); }

    void aFolderOfTwoRunsOpensTwoTabs()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openPath(real(QStringLiteral("single")));
        QVERIFY(waitIdle(window));
        QTabWidget* tabs = window.tabs();
        QCOMPARE(tabs->count(), 2);
        QCOMPARE(tabs->tabText(0), QStringLiteral("stock — rank 0"));
        QCOMPARE(tabs->tabText(1), QStringLiteral("truth — rank 0"));
        QCOMPARE(tabs->tabToolTip(0), real(QStringLiteral("single/stock/telemetry_sink")));
        QCOMPARE(tabs->tabToolTip(1), real(QStringLiteral("single/truth/telemetry_sink")));
        // the last opened in front, on its chart (a trace page, not a job page)
        QCOMPARE(window.windowTitle(), QStringLiteral("truth — rank 0 — gapscope"));
        QCOMPARE(window.currentTab()->currentWidget(), window.currentTab()->tracePage());
        QCOMPARE(front(window).trace()->path, real(QStringLiteral("single/truth/telemetry_sink")));
        saveShot(window, QStringLiteral("single_truth_tab"));
        tabs->setCurrentIndex(0);
        QVERIFY(waitIdle(window));
        QCOMPARE(window.windowTitle(), QStringLiteral("stock — rank 0 — gapscope"));
        QCOMPARE(front(window).trace()->path, real(QStringLiteral("single/stock/telemetry_sink")));
        QCOMPARE(window.currentTab()->currentWidget(), window.currentTab()->tracePage());
        saveShot(window, QStringLiteral("single_stock_tab"));
    }

    void oneRunOpensAsThatRun_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("trace"); // the path of the trace shown
        QTest::addColumn<QString>("title");
        QTest::newRow("a folder of one run")
            << QStringLiteral("frag") << QStringLiteral("frag/telemetry_sink")
            << QStringLiteral("frag — rank 0 — gapscope");
        QTest::newRow("a sink's manifest.json")
            << QStringLiteral("single/truth/telemetry_sink/manifest.json")
            << QStringLiteral("single/truth/telemetry_sink") << QStringLiteral("truth — rank 0 — gapscope");
    }

    void oneRunOpensAsThatRun()
    {
        QFETCH(QString, path);
        QFETCH(QString, trace);
        QFETCH(QString, title);
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openPath(real(path));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.tabs()->count(), 1);
        QCOMPARE(front(window).trace()->path, real(trace));
        QCOMPARE(window.currentTab()->currentWidget(), window.currentTab()->tracePage());
        QVERIFY(!window.currentTab()->jobPage()->hasDocument());
        QCOMPARE(window.windowTitle(), title);
        saveShot(window, QStringLiteral("one_run_") + QString(QTest::currentDataTag())
                                                          .replace(QLatin1Char(' '), QLatin1Char('_'))
                                                          .remove(QLatin1Char('\'')));
    }

    // (d) Compare With takes a folder: a run folder holding one sink is read as that sink
    void compareWithAFolder()
    {
        MainWindow window;
        window.openPath(real(QStringLiteral("single/stock/telemetry_sink")));
        QVERIFY(waitIdle(window));
        QVERIFY(window.compareWith()->folderAction()->isEnabled());
        window.compareWith()->compareWith(real(QStringLiteral("single/truth")));
        CompareWindow* compare = window.findChild<CompareWindow*>();
        QVERIFY(compare);
        compare->waitForIdle();
        QVERIFY(compare->comparison());
        QCOMPARE(compare->comparison()->a.result->trace, front(window).trace());
        QCOMPARE(compare->comparison()->b.result->trace->path,
                 real(QStringLiteral("single/truth/telemetry_sink")));
        compare->close();
    }

    // a job is named by its id; a rank opened from it by job id and rank
    void aJobAndItsRankAreNamed()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY2(window.showJobNow({real(QStringLiteral("ddp"))}, &error), qPrintable(error));
        QCOMPARE(window.windowTitle(), QStringLiteral("gapscope-real-ddp — 4 ranks — gapscope"));
        window.openRank(2);
        QVERIFY(waitIdle(window));
        QCOMPARE(window.windowTitle(), QStringLiteral("gapscope-real-ddp rank 2 — gapscope"));
    }
};

QTEST_MAIN(TestMainWindowRuns)
#include "tst_mainwindow_runs.moc"
