// The main window's live features: a running sink is followed as soon as it opens, new lines
// reach the chart, pausing keeps the data, Pin to Latest keeps the newest samples in view, and
// Compare With opens the compare window with the open trace as A.
#include "app/CompareWith.h"
#include "app/LiveFollow.h"
#include "app/MainWindow.h"
#include "model/work/TraceFollower.h"
#include "tests/WindowAccess.h"
#include "widgets/trace/CompareWindow.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kTimeoutMs = 20000;

QList<QByteArray> fixtureLines(const QString& name)
{
    QFile file(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name);
    QList<QByteArray> lines;
    if (file.open(QIODevice::ReadOnly)) {
        while (!file.atEnd())
            lines << file.readLine();
    }
    return lines;
}

void append(const QString& path, const QList<QByteArray>& lines, qsizetype from, qsizetype to)
{
    QFile file(path);
    if (!file.open(QIODevice::Append))
        return;
    for (qsizetype i = from; i < to; ++i)
        file.write(lines[i]);
}

void writeManifest(const QString& dir, const QString& status)
{
    const QJsonObject root{
        {QStringLiteral("format"), QStringLiteral("stormlog.append_only_telemetry_sink")},
        {QStringLiteral("sessions"),
         QJsonArray{QJsonObject{
             {QStringLiteral("session_id"), QStringLiteral("6513270e-269e-0d37-f2a7-4de452e6b438")},
             {QStringLiteral("status"), status}}}},
        {QStringLiteral("segments"),
         QJsonArray{QJsonObject{{QStringLiteral("filename"), QStringLiteral("segment-000001.jsonl")}}}}};
    QFile file(QDir(dir).filePath(QStringLiteral("manifest.json")));
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(QJsonDocument(root).toJson());
}

bool waitLoaded(MainWindow& window)
{
    return QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis() != nullptr; },
                           kTimeoutMs);
}

} // namespace

class TestLiveFollow : public QObject
{
    Q_OBJECT

private slots:
    void runningSinkIsFollowed()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("phasespike.jsonl"));
        QTemporaryDir dir;
        const QString segment = QDir(dir.path()).filePath(QStringLiteral("segment-000001.jsonl"));
        append(segment, lines, 0, 100);
        writeManifest(dir.path(), QStringLiteral("running"));

        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(dir.path());
        QVERIFY(waitLoaded(window));
        LiveFollow* live = window.liveFollow();
        QVERIFY(live->isLive());
        QVERIFY(live->followAction()->isChecked());
        QCOMPARE(live->liveLabel()->text(), QStringLiteral("● Live"));
        QVERIFY(live->liveLabel()->isVisible());

        append(segment, lines, 100, 200);
        QTRY_COMPARE_WITH_TIMEOUT(front(window).trace()->store.size(), size_t(200), kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(front(window).analysis()->trace->store.size(), size_t(200), kTimeoutMs);
        QCOMPARE(front(window).chart()->analysis(), front(window).analysis());

        // pause: the data stays, nothing more is read
        live->followAction()->trigger();
        QVERIFY(!live->isLive());
        QCOMPARE(live->liveLabel()->text(), QStringLiteral("Paused"));
        append(segment, lines, 200, 250);
        QTest::qWait(3 * TraceFollower::kPollIntervalMs);
        QCOMPARE(front(window).trace()->store.size(), size_t(200));

        // resume with Pin to Latest: the cursor goes to the newest event
        live->pinAction()->setChecked(true);
        live->followAction()->trigger();
        QVERIFY(live->isLive());
        QTRY_COMPARE_WITH_TIMEOUT(front(window).analysis()->trace->store.size(), size_t(250), kTimeoutMs);
        const auto& result = *front(window).analysis();
        const qint64 latest = result.trace->store.timestampNs[result.partition.end - 1];
        QTRY_VERIFY_WITH_TIMEOUT(front(window).scrubber()->cursorTime() >=
                                     result.trace->store.timestampNs[result.usableRows.back()],
                                 kTimeoutMs);
        QVERIFY(front(window).chart()->visibleEndNs() >= latest - 1);

        // thresholds changed while following apply to the next live analysis
        GapThresholds stricter = window.thresholds();
        QVERIFY(stricter.set("gap_spike_zscore", 3.5));
        window.setThresholds(stricter);
        append(segment, lines, 250, 260);
        QTRY_COMPARE_WITH_TIMEOUT(front(window).analysis()->trace->store.size(), size_t(260), kTimeoutMs);
        QVERIFY(front(window).analysis()->request.thresholds.spikeZScore == 3.5);
        window.setThresholds(GapThresholds{});

        // the run completes: the manifest says so and the session list follows
        append(segment, lines, 260, lines.size());
        writeManifest(dir.path(), QStringLiteral("completed"));
        QTRY_COMPARE_WITH_TIMEOUT(front(window).analysis()->trace->store.size(), size_t(lines.size()),
                                  kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(front(window).trace()->sessions[0].status == SessionStatus::Completed,
                                 kTimeoutMs);
        QCOMPARE(front(window).analysis()->findings.size(), size_t(1)); // the spike of the full run

        // the Live field sits in the status bar
        QCOMPARE(live->liveLabel()->parentWidget(), static_cast<QWidget*>(window.statusBar()));
        if (const QByteArray png = qgetenv("GAPSCOPE_LIVE_PNG"); !png.isEmpty())
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png)));

        window.closeTrace();
        QVERIFY(!live->isLive());
        QVERIFY(!live->liveLabel()->isVisible());
    }

    void completedFileIsNotFollowedUntilAsked()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("drift.jsonl"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.jsonl"));
        append(path, lines, 0, 150);
        MainWindow window;
        window.openPath(path);
        QVERIFY(waitLoaded(window));
        LiveFollow* live = window.liveFollow();
        QVERIFY(!live->isLive());
        QVERIFY(live->liveLabel()->text().isEmpty());
        live->followAction()->trigger();
        QVERIFY(live->isLive());
        append(path, lines, 150, lines.size());
        QTRY_COMPARE_WITH_TIMEOUT(front(window).analysis()->trace->store.size(), size_t(lines.size()),
                                  kTimeoutMs);
        // opening another trace stops following the first
        window.openPath(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/mixed.jsonl"));
        QVERIFY(QTest::qWaitFor(
            [&] {
                return front(window).trace() &&
                       front(window).trace()->path.endsWith(QStringLiteral("mixed.jsonl"));
            },
            kTimeoutMs));
        QVERIFY(!live->isLive());
    }

    void compareWithOpensTheCompareWindow()
    {
        MainWindow window;
        window.openPath(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl"));
        QVERIFY(waitLoaded(window));
        window.compareWith()->compareWith(
            QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/mixed.jsonl"));
        CompareWindow* compare = window.findChild<CompareWindow*>();
        QVERIFY(compare);
        QVERIFY(compare->isWindow());
        compare->waitForIdle();
        QVERIFY(compare->comparison());
        QCOMPARE(compare->comparison()->a.result->trace, front(window).trace());
        QCOMPARE(compare->comparison()->count(FindingChange::New), size_t(1));
        QCOMPARE(compare->comparison()->count(FindingChange::Changed), size_t(1));
        compare->close();
    }
};

QTEST_MAIN(TestLiveFollow)
#include "tst_livefollow.moc"
