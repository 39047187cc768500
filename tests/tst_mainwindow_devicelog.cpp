// File > Attach Device Log...: the trace shown is analysed again with nvidia-smi's device used
// (the real H200 run: the stock trace's gap is 0 until the log is attached), the report says
// so, a log that cannot be used leaves the analysis as it was, and another trace drops it.
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"

#include <QAction>
#include <QSettings>
#include <QStatusBar>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kTimeoutMs = 30000;

QString fixture(const char* name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/devicelog/") + QLatin1String(name);
}

bool waitFor(MainWindow& window, const std::function<bool(const AnalysisResult&)>& done)
{
    return QTest::qWaitFor(
        [&] {
            const auto result = front(window).analysis();
            return !window.isBusy() && result && done(*result);
        },
        kTimeoutMs);
}

int64_t peakGap(const AnalysisResult& result)
{
    int64_t peak = 0;
    for (uint32_t row : result.usableRows)
        peak = std::max(peak, result.trace->store.gapAt(row));
    return peak;
}

} // namespace

class TestMainWindowDeviceLog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_devicelog")); }
    void cleanupTestCase() { test::removeOwnSettings(); }
    void init() { QSettings().clear(); }

    void attachReanalyses()
    {
        MainWindow window;
        QVERIFY(!front(window).attachDeviceLogAction()->isEnabled()); // nothing to attach it to
        window.openPath(fixture("single-stock-cut.jsonl"));
        QVERIFY(waitFor(window, [](const AnalysisResult&) { return true; }));
        QVERIFY(front(window).attachDeviceLogAction()->isEnabled());
        const auto stock = front(window).analysis();
        QVERIFY(!stock->deviceUsedSource);
        QCOMPARE(peakGap(*stock), int64_t(0)); // device used = max(allocated, reserved)

        QVERIFY(window.attachDeviceLog(fixture("single-nvidia-smi.csv"), QStringLiteral("UTC")));
        QVERIFY(waitFor(window, [](const AnalysisResult& r) { return r.deviceUsedSource != nullptr; }));
        const auto joined = front(window).analysis();
        QCOMPARE(joined->deviceUsedSource->timeZone, QStringLiteral("UTC"));
        QCOMPARE(joined->deviceUsedSource->matchedSamples, qint64(joined->usableRows.size()));
        QCOMPARE(joined->usableRows.size(), stock->usableRows.size());
        // the page keeps its trace; the result's trace carries the log's device used
        QCOMPARE(joined->loadedTrace, stock->trace);
        QVERIFY(peakGap(*joined) > (int64_t(1) << 30)); // the run's buffers outside the allocator
        QVERIFY(front(window).tracePage()->attachedDeviceLog().has_value());
        QVERIFY2(window.statusBar()->currentMessage().contains(
                     QStringLiteral("device used from single-nvidia-smi.csv")),
                 qPrintable(window.statusBar()->currentMessage()));
        // Markdown escapes punctuation: compared without the backslashes
        const QString markdown = reportMarkdown(buildReportContent(*joined, false)).remove(QLatin1Char('\\'));
        QVERIFY2(markdown.contains(QStringLiteral("single-nvidia-smi.csv")), qPrintable(markdown.left(2000)));

        // a new threshold re-analyses with the log still attached
        GapThresholds lower;
        lower.gapRatio = 0.01;
        front(window).tracePage()->setThresholds(lower);
        QVERIFY(
            waitFor(window, [](const AnalysisResult& r) { return r.request.thresholds.gapRatio == 0.01; }));
        QVERIFY(front(window).analysis()->deviceUsedSource != nullptr);
        QVERIFY(!front(window).analysis()->findings.empty());
    }

    void unusableLogKeepsTheAnalysis_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("zone");
        QTest::addColumn<QString>("message");
        QTest::newRow("pid not in the log") << fixture("pair-nvidia-smi-apps.csv") << QString()
                                            << QStringLiteral("pid 472 is not in the per-process log");
        QTest::newRow("bad zone") << fixture("single-nvidia-smi.csv") << QStringLiteral("Nowhere/Land")
                                  << QStringLiteral("unknown time zone 'Nowhere/Land'");
        QTest::newRow("not a log") << fixture("single-stock-cut.jsonl") << QString()
                                   << QStringLiteral("not an nvidia-smi CSV log");
    }

    void unusableLogKeepsTheAnalysis()
    {
        QFETCH(QString, path);
        QFETCH(QString, zone);
        QFETCH(QString, message);
        MainWindow window;
        window.openPath(fixture("single-stock-cut.jsonl"));
        QVERIFY(waitFor(window, [](const AnalysisResult&) { return true; }));
        const auto before = front(window).analysis();
        window.attachDeviceLog(path, zone);
        // the log is read when attached; the join (pid) fails in the analysis
        QVERIFY(QTest::qWaitFor([&] { return window.statusBar()->currentMessage().contains(message); },
                                kTimeoutMs));
        QVERIFY(!window.isBusy());
        QCOMPARE(front(window).analysis(), before);
    }

    void anotherTraceDropsTheLog()
    {
        MainWindow window;
        window.openPath(fixture("single-stock-cut.jsonl"));
        QVERIFY(waitFor(window, [](const AnalysisResult&) { return true; }));
        QVERIFY(window.attachDeviceLog(fixture("single-nvidia-smi.csv"), QStringLiteral("UTC")));
        QVERIFY(waitFor(window, [](const AnalysisResult& r) { return r.deviceUsedSource != nullptr; }));
        window.openPath(fixture("pair-cut.jsonl"));
        QVERIFY(waitFor(window, [](const AnalysisResult& r) {
            return r.trace->path.endsWith(QLatin1String("pair-cut.jsonl"));
        }));
        QVERIFY(!front(window).analysis()->deviceUsedSource);
    }
};

QTEST_MAIN(TestMainWindowDeviceLog)
#include "tst_mainwindow_devicelog.moc"
