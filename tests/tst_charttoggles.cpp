// The chart's series toggles are remembered per kind of trace (issue 17 item 2): a CPU capture
// switches the counters on for itself, and that neither leaks into the next GPU trace nor is
// saved for one, so after a restart a GPU trace opens on the gap.
//
// GAPSCOPE_ITEM2_SCREENSHOT=FILE.png saves the window showing the sample after a CPU capture
// (docs/screenshots/issue17/item2-*.png were made this way).

#include "app/Gui.h"
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace gapscope;

namespace {

QString cpuCapture()
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/real/cpu_sink");
}

QString gpuTrace()
{
    // the bundled sample
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/phasespike.jsonl");
}

QAction* overlayAction(const MainWindow& window, ChartOverlay overlay)
{
    for (const auto& [o, action] : front(window).tracePage()->overlayActions())
        if (o == overlay)
            return action;
    return nullptr;
}

bool counterOverlaysOn(const MainWindow& window)
{
    return front(window).chart()->isOverlayVisible(ChartOverlay::Allocated) ||
           front(window).chart()->isOverlayVisible(ChartOverlay::Reserved) ||
           front(window).chart()->isOverlayVisible(ChartOverlay::DeviceUsed);
}

bool show(MainWindow& window, const QString& path)
{
    QString error;
    const bool ok = window.showTraceNow(path, &error);
    if (!ok)
        qWarning("%s", qPrintable(error));
    return ok;
}

} // namespace

class TestChartToggles : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_charttoggles")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void init() { QSettings().clear(); }

    void cpuCaptureDoesNotLeakIntoGpuTrace()
    {
        MainWindow window;
        window.resize(kDefaultScreenshotSize);
        QVERIFY(show(window, cpuCapture()));
        // nothing else to draw for a capture without a device total
        QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(overlayAction(window, ChartOverlay::Reserved)->isChecked());
        QVERIFY(show(window, gpuTrace()));
        if (const QByteArray out = qgetenv("GAPSCOPE_ITEM2_SCREENSHOT"); !out.isEmpty()) {
            window.show();
            for (int i = 0; i < 3; ++i)
                QCoreApplication::processEvents();
            QVERIFY(window.grab().toImage().save(QString::fromLocal8Bit(out)));
        }
        QVERIFY2(!counterOverlaysOn(window), "the CPU capture's counters stayed on for the GPU trace");
        QVERIFY(!overlayAction(window, ChartOverlay::Allocated)->isChecked());
        QVERIFY(front(window).chart()->drawnPoints(ChartLine::Allocated).isEmpty());
        QVERIFY(!front(window).chart()->drawnPoints(ChartLine::Gap).isEmpty());
        // and back: the capture shows its counters again
        QVERIFY(show(window, cpuCapture()));
        QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::DeviceUsed));
    }

    void togglesRememberedPerKind()
    {
        MainWindow window;
        QVERIFY(show(window, gpuTrace()));
        overlayAction(window, ChartOverlay::Reserved)->setChecked(true);
        overlayAction(window, ChartOverlay::ThresholdBand)->setChecked(false);
        QVERIFY(show(window, cpuCapture()));
        overlayAction(window, ChartOverlay::Allocated)->setChecked(false);
        QVERIFY(!front(window).chart()->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(show(window, gpuTrace()));
        QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::Reserved));
        QVERIFY(!front(window).chart()->isOverlayVisible(ChartOverlay::ThresholdBand));
        QVERIFY(!front(window).chart()->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(show(window, cpuCapture()));
        QVERIFY(!front(window).chart()->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::Reserved));
        QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::DeviceUsed));
    }

    void restartOpensGpuTraceOnTheGap()
    {
        {
            MainWindow window;
            window.restoreSettings();
            QVERIFY(show(window, cpuCapture()));
            QVERIFY(counterOverlaysOn(window));
            window.saveSettings();
        }
        {
            MainWindow window;
            window.restoreSettings();
            QVERIFY(show(window, gpuTrace()));
            QVERIFY2(!counterOverlaysOn(window), "the CPU capture's counters were saved for GPU traces");
            // a GPU trace's own choice is kept across the restart
            overlayAction(window, ChartOverlay::Regression)->setChecked(false);
            window.saveSettings();
        }
        {
            MainWindow window;
            window.restoreSettings();
            QVERIFY(show(window, gpuTrace()));
            QVERIFY(!front(window).chart()->isOverlayVisible(ChartOverlay::Regression));
            QVERIFY(show(window, cpuCapture()));
            QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::Allocated));
            QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::Regression));
        }
    }

    void settingsOfOlderVersionsDoNotSquashTheGap()
    {
        // gapscope before this fix saved one set for every trace: a CPU capture's counters
        QSettings settings;
        for (const char* key : {"allocated", "reserved", "device_used"})
            settings.setValue(QStringLiteral("chart/overlay/") + QLatin1String(key), true);
        settings.sync();
        MainWindow window;
        window.restoreSettings();
        QVERIFY(show(window, gpuTrace()));
        QVERIFY(!counterOverlaysOn(window));
    }
};

QTEST_MAIN(TestChartToggles)
#include "tst_charttoggles.moc"
