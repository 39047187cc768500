// The main window with a fleet index: opening the .sqlite (File > Open's path, in the background)
// shows the fleet page in front; a double-click on a run opens that run in a tab of its own while
// the fleet's tab keeps the fleet; the window names no page (the page asks through
// DocumentPage::openPathRequested).
#include "app/DocumentTab.h"
#include "app/ExportActions.h"
#include "app/MainWindow.h"
#include "app/pages/FleetPage.h"
#include "model/items/FleetRunsModel.h"
#include "tests/FleetFixture.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"

#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 60000;

FleetPage* fleetPage(const MainWindow& window)
{
    return window.currentTab()->page<FleetPage>();
}

} // namespace

class TestMainWindowFleet : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;

private slots:
    void initTestCase()
    {
        test::useOwnSettings(QStringLiteral("tst_mainwindow_fleet"));
        m_db = m_dir.filePath(QStringLiteral("fleet.sqlite"));
        const QString error = test::indexTestFleet(m_db);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    void cleanupTestCase() { test::removeOwnSettings(); }

    void opensAFleetAndARunOfIt()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openPath(m_db);
        QVERIFY(QTest::qWaitFor(
            [&] { return !window.isBusy() && fleetPage(window) && fleetPage(window)->hasDocument(); },
            kLoadTimeoutMs));
        QVERIFY(window.loadFailureText().isEmpty());
        FleetPage* page = fleetPage(window);
        QCOMPARE(front(window).documentPage(), static_cast<DocumentPage*>(page));
        QVERIFY(page->isVisible());
        QCOMPARE(page->runsModel()->rowCount(), 12);
        QVERIFY2(window.windowTitle().contains(QStringLiteral("fleet.sqlite")),
                 qPrintable(window.windowTitle()));

        // Export Report... writes what the page writes (the runs as CSV), never over the database
        const PageExport exported = page->pageExport();
        QCOMPARE(exported.documents.size(), size_t(3));
        QVERIFY(window.exportActions()->exportReportAction()->isEnabled());
        QString error;
        QVERIFY(!window.exportActions()->writePageDocument(m_db, exported.documents[0], true, &error));
        QVERIFY2(!error.isEmpty(), "the database itself is refused");
        const QString csv = m_dir.filePath(QStringLiteral("runs.csv"));
        QVERIFY2(window.exportActions()->writePageDocument(csv, exported.documents[0], false, &error),
                 qPrintable(error));
        QFile written(csv);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), exported.documents[0].bytes());
        // Save Chart As...: the scatter as an image
        const QString png = m_dir.filePath(QStringLiteral("scatter.png"));
        QVERIFY2(window.exportActions()->writeChart(png, ExportFormat::Png, false, &error),
                 qPrintable(error));
        QVERIFY(!QImage(png).isNull());

        // the run of a trace file: a double-click opens it in a tab of its own
        const int row = [&] {
            for (int r = 0; r < page->runsModel()->rowCount(); ++r)
                if (page->runsModel()
                        ->index(r, 0)
                        .data(FleetRunsModel::PathRole)
                        .toString()
                        .endsWith(QStringLiteral("parity/mixed.jsonl")))
                    return r;
            return -1;
        }();
        QVERIFY(row >= 0);
        emit page->runsView()->doubleClicked(page->runsModel()->index(row, 0));
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis() != nullptr; },
                                kLoadTimeoutMs));
        QCOMPARE(window.tabs()->count(), 2);
        QVERIFY(front(window).tracePage()->hasDocument());
        QCOMPARE(QFileInfo(front(window).tracePage()->documentPath()).fileName(),
                 QStringLiteral("mixed.jsonl"));
        QVERIFY(page->hasDocument()); // the fleet's tab keeps the fleet
    }
};

QTEST_MAIN(TestMainWindowFleet)
#include "tst_mainwindow_fleet.moc"
