// The main window with a PyTorch memory snapshot: opening the .pickle (in the background as File >
// Open does, and at once as a screenshot does) shows the snapshot page in front with the file's
// totals; the window names no page (its load path is the same for every kind of document). Its
// export actions write the snapshot's reports, the bytes `gapscope export` writes.

#include "app/DocumentTab.h"
#include "app/ExportActions.h"
#include "app/Gui.h"
#include "app/MainWindow.h"
#include "app/cli/ExportCommand.h"
#include "app/pages/SnapshotPage.h"
#include "model/snapshot/SnapshotLoader.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/chart/ChartImage.h"
#include "widgets/common/SummaryView.h"
#include "widgets/snapshot/SegmentMapView.h"

#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 60000;

QString snapshotPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/") + name;
}

SnapshotPage* snapshotPage(const MainWindow& window)
{
    return window.currentTab()->page<SnapshotPage>();
}

// The window shown at 1200x800 with the snapshot opened as File > Open does, analysed.
bool openShown(MainWindow& window, const QString& name)
{
    window.resize(1200, 800);
    window.show();
    window.openPath(snapshotPath(name));
    return QTest::qWaitFor(
        [&] { return !window.isBusy() && snapshotPage(window) && snapshotPage(window)->hasResult(); },
        kLoadTimeoutMs);
}

} // namespace

class TestMainWindowSnapshot : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_snapshot")); }
    void cleanupTestCase() { test::removeOwnSettings(); }

    void opensASnapshot_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("segments");
        QTest::newRow("snapshot.pickle") << QStringLiteral("snapshot.pickle") << 74;
        QTest::newRow("pair/snapshot.pickle.gz") << QStringLiteral("pair/snapshot.pickle.gz") << 78;
    }

    void opensASnapshot()
    {
        QFETCH(QString, name);
        QFETCH(int, segments);
        MainWindow window;
        QVERIFY(openShown(window, name));
        QVERIFY(window.loadFailureText().isEmpty());
        SnapshotPage* page = snapshotPage(window);
        QCOMPARE(front(window).documentPage(), static_cast<DocumentPage*>(page));
        QCOMPARE(window.currentTab()->currentWidget(), page);
        QVERIFY(page->isVisible());
        QVERIFY(page->isSummaryShown()); // a document opened in the window opens on its summary
        QCOMPARE(page->summary().totals.segmentCount, segments);
        QCOMPARE(int(page->segmentMap()->layout().rows.size()), segments);
        QVERIFY2(window.windowTitle().contains(QFileInfo(name).fileName()), qPrintable(window.windowTitle()));
        QVERIFY(!front(window).tracePage()->hasDocument());

        // a trace opens in a tab of its own, on its trace page; the snapshot's tab keeps it
        window.openPath(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl"));
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis() != nullptr; },
                                kLoadTimeoutMs));
        QCOMPARE(window.tabs()->count(), 2);
        QCOMPARE(front(window).documentPage(), static_cast<DocumentPage*>(front(window).tracePage()));
        QVERIFY(!snapshotPage(window)->hasDocument());
        QVERIFY(page->hasDocument());
        QVERIFY(!page->isVisible());
    }

    void showsASnapshotNowAndInAScreenshot()
    {
        MainWindow window;
        QString error;
        QVERIFY2(window.showTraceNow(snapshotPath(QStringLiteral("snapshot.pickle")), &error),
                 qPrintable(error));
        QCOMPARE(front(window).documentPage(), static_cast<DocumentPage*>(snapshotPage(window)));
        QVERIFY(!snapshotPage(window)->isSummaryShown()); // screenshots show the map
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("snapshot.png"));
        QCOMPARE(
            renderScreenshot(snapshotPath(QStringLiteral("snapshot.pickle")), out, QSize(1000, 700), &error),
            0);
        QCOMPARE(QImage(out).size(), QSize(1000, 700));
    }

    // File > Export Report..., Save Chart As... and Copy Finding as Markdown on the snapshot page:
    // what the page shows (SnapshotPage::pageExport) written as `gapscope export` writes it
    // (renderSnapshotExport; tst_export checks the binary writes the same bytes).
    void exportsTheSnapshotShown_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("findings");
        QTest::newRow("snapshot.pickle") << QStringLiteral("snapshot.pickle") << 0;
        QTest::newRow("layouts/fragmented.pickle") << QStringLiteral("layouts/fragmented.pickle") << 1;
    }

    void exportsTheSnapshotShown()
    {
        QFETCH(QString, name);
        QFETCH(int, findings);
        MainWindow window;
        QVERIFY(openShown(window, name));
        ExportActions* actions = window.exportActions();
        actions->updateEnabled();
        QVERIFY(actions->exportReportAction()->isEnabled());
        QVERIFY(actions->saveChartAction()->isEnabled());
        const SnapshotReportInput input = snapshotReportInput(loadSnapshotFile(snapshotPath(name)).data);
        QTemporaryDir dir;
        for (ExportFormat format :
             {ExportFormat::Json, ExportFormat::Markdown, ExportFormat::Html, ExportFormat::Csv,
              ExportFormat::FindingsCsv, ExportFormat::Png, ExportFormat::Svg}) {
            const QString file = dir.filePath(QStringLiteral("report.") + exportFormatName(format));
            QString error;
            QVERIFY2(actions->writeReport(file, format, kDefaultChartSize, false, &error), qPrintable(error));
            QFile written(file);
            QVERIFY(written.open(QIODevice::ReadOnly));
            QVERIFY2(written.readAll() == renderSnapshotExport(input, format, kDefaultChartSize).data,
                     qPrintable(exportFormatName(format)));
        }
        // the segment map on screen, whole, at its size
        QWidget* map = snapshotPage(window)->segmentMap();
        const QString png = dir.filePath(QStringLiteral("map.png"));
        QString error;
        QVERIFY2(actions->writeChart(png, ExportFormat::Png, false, &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), map->size());
        // the finding selected on opening is the one copied
        QCOMPARE(actions->copyFindingAction()->isEnabled(), findings > 0);
        if (findings > 0) {
            const QString copied = actions->selectedFindingMarkdown();
            QVERIFY2(copied.startsWith(QLatin1String("### 1. Allocator fragmentation (warning")),
                     qPrintable(copied));
            QVERIFY(copied.contains(QLatin1String("**What to try**")));
        }
    }

    // What cannot be read is refused with its reason, as before.
    void refusesAHostilePickle()
    {
        MainWindow window;
        QString error;
        QVERIFY(
            !window.showTraceNow(snapshotPath(QStringLiteral("hostile/reduce-os-system-p4.pickle")), &error));
        QVERIFY2(error.contains(QStringLiteral("names Python code")), qPrintable(error));
    }
};

QTEST_MAIN(TestMainWindowSnapshot)
#include "tst_mainwindow_snapshot.moc"
