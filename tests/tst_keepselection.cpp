// The finding looked at and the cursor survive another result of the same document (issue 17
// item 11): Reset Window Analysis, a threshold change, and the double-click that resets the
// zoom (whose first click used to move the cursor).

#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/items/FindingsModel.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/trace/GapChartView.h"

#include <QGraphicsView>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace gapscope;

namespace {

QString parityPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name;
}

QString selectedClass(const MainWindow& window)
{
    return front(window).findingsView()->currentIndex().data(FindingsModel::ClassificationKeyRole).toString();
}

qint64 cursorOf(const MainWindow& window)
{
    return front(window).tracePage()->viewState()->cursorNs();
}

// Waits for a result other than before.
bool waitNewResult(const MainWindow& window, const std::shared_ptr<const AnalysisResult>& before)
{
    return QTest::qWaitFor(
        [&] { return !window.isBusy() && front(window).analysis() && front(window).analysis() != before; },
        30000);
}

// A time between two samples of the run, away from every finding's evidence.
qint64 quietTime(const AnalysisResult& result)
{
    const auto& t = result.trace->store.timestampNs;
    return t[result.partition.begin] + (t[result.partition.end - 1] - t[result.partition.begin]) / 3 + 1;
}

} // namespace

class TestKeepSelection : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_keepselection")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void thresholdChangeKeepsSelectionAndCursor()
    {
        MainWindow window;
        window.show();
        QString error;
        QVERIFY2(window.showTraceNow(parityPath(QStringLiteral("mixed.jsonl")), &error), qPrintable(error));
        QCOMPARE(front(window).findingsModel()->rowCount(), 2);
        front(window).selectFinding(1);
        QCOMPARE(selectedClass(window), QStringLiteral("persistent_drift"));
        const qint64 cursor = quietTime(*front(window).analysis());
        front(window).setCursorTime(cursor);

        const auto before = front(window).analysis();
        GapThresholds thresholds = window.thresholds();
        thresholds.fragmentation += 0.05; // changes neither finding
        window.setThresholds(thresholds);
        QVERIFY(waitNewResult(window, before));
        QCOMPARE(front(window).findingsModel()->rowCount(), 2);
        QCOMPARE(selectedClass(window), QStringLiteral("persistent_drift"));
        QCOMPARE(cursorOf(window), cursor);
        QCOMPARE(front(window).chart()->cursorTime(), cursor);
    }

    void resetWindowAnalysisKeepsSelectionAndCursor()
    {
        MainWindow window;
        window.show();
        QString error;
        QVERIFY2(window.showTraceNow(parityPath(QStringLiteral("mixed.jsonl")), &error), qPrintable(error));
        const auto full = front(window).analysis();
        const auto& t = full->trace->store.timestampNs;
        const qint64 begin = t[full->partition.begin];
        const qint64 end = t[full->partition.end - 1];
        // a window of the whole run but its first sample: both findings again
        front(window).analyseWindow(begin + 1, end);
        QVERIFY(waitNewResult(window, full));
        QVERIFY(window.isWindowAnalysis());
        int drift = -1;
        for (int row = 0; row < front(window).findingsModel()->rowCount(); ++row)
            if (front(window)
                    .findingsModel()
                    ->index(row, 0)
                    .data(FindingsModel::ClassificationKeyRole)
                    .toString() == QLatin1String("persistent_drift"))
                drift = row;
        QVERIFY(drift >= 0);
        front(window).selectFinding(drift);
        const qint64 cursor = quietTime(*front(window).analysis());
        front(window).setCursorTime(cursor);
        const auto windowed = front(window).analysis();
        front(window).resetWindowAnalysis();
        QVERIFY(waitNewResult(window, windowed));
        QVERIFY(!window.isWindowAnalysis());
        QCOMPARE(selectedClass(window), QStringLiteral("persistent_drift"));
        QCOMPARE(cursorOf(window), cursor);
    }

    void doubleClickResetKeepsTheCursor()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY2(window.showTraceNow(parityPath(QStringLiteral("mixed.jsonl")), &error), qPrintable(error));
        front(window).selectFinding(1);
        const qint64 cursor = cursorOf(window);
        QCOMPARE(cursor, front(window).analysis()->findings[1].evidenceTimestampNs);
        // zoomed in, so that the reset has something to do
        const auto& t = front(window).analysis()->trace->store.timestampNs;
        const qint64 begin = t[front(window).analysis()->partition.begin];
        const qint64 end = t[front(window).analysis()->partition.end - 1];
        front(window).tracePage()->viewState()->zoomTo(begin + (end - begin) / 4, end - (end - begin) / 4);
        QTRY_COMPARE(front(window).chart()->visibleBeginNs(), begin + (end - begin) / 4);

        auto* canvas = front(window).chart()->findChild<QGraphicsView*>();
        QVERIFY(canvas);
        QWidget* viewport = canvas->viewport();
        const QPoint at(viewport->width() / 3, viewport->height() / 2);
        // what a double-click is: press, release, double-click, release
        QTest::mouseClick(viewport, Qt::LeftButton, {}, at);
        QVERIFY(cursorOf(window) != cursor); // the first click moved it, as a click does
        QTest::mouseDClick(viewport, Qt::LeftButton, {}, at);
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, at);
        QTRY_COMPARE(front(window).chart()->visibleBeginNs(), begin); // the zoom was reset
        QCOMPARE(cursorOf(window), cursor);
        QCOMPARE(front(window).chart()->cursorTime(), cursor);
        QCOMPARE(selectedClass(window), QStringLiteral("persistent_drift"));
    }
};

QTEST_MAIN(TestKeepSelection)
#include "tst_keepselection.moc"
