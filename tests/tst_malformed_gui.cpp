// Malformed input in the desktop app: the window stays responsive, loads the valid rest
// and lists every problem in the problems panel (docs/robustness.md).

#include "app/MainWindow.h"
#include "model/items/ProblemsModel.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/common/ProblemsPanel.h"

#include <QFile>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(content);
    return path;
}

QList<qint64> panelLines(MainWindow& window)
{
    QList<qint64> lines;
    for (const LoadProblem& problem : window.problemsPanel()->problemsModel()->problems())
        lines << problem.line;
    return lines;
}

// Counts event-loop turns while waiting: a frozen window would count none.
struct Heartbeat
{
    QTimer timer;
    int beats = 0;
    Heartbeat()
    {
        QObject::connect(&timer, &QTimer::timeout, [this] { ++beats; });
        timer.start(10);
    }
};

} // namespace

class TestMalformedGui : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_malformed_gui")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void traceWithRejectedRecords()
    {
        // The parity fixture with a garbage line, a negative counter and a cut last line.
        QFile source(QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/parity/phasespike.jsonl");
        QVERIFY(source.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = source.readAll().trimmed().split('\n');
        lines.insert(3, "not json at all");
        QByteArray negative = lines[6];
        const qsizetype at = negative.indexOf("\"allocator_allocated_bytes\": ");
        QVERIFY(at > 0);
        negative.insert(at + 29, '-');
        lines[6] = negative;
        const QByteArray text = lines.join('\n') + "\n{\"schema_version\": 3, \"sess";
        QTemporaryDir dir;
        const QString path = writeFile(dir.filePath("crashed.jsonl"), text);

        MainWindow window;
        window.show();
        Heartbeat heartbeat;
        window.openPath(path);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis() != nullptr; },
                                kLoadTimeoutMs));
        QVERIFY(heartbeat.beats > 0);
        QVERIFY(front(window).trace());
        QCOMPARE(front(window).trace()->problems.errorCount(), qint64(2));
        QCOMPARE(front(window).trace()->problems.warningCount(), qint64(1));
        const qint64 lastLine = lines.size() + 1;
        QCOMPARE(panelLines(window), (QList<qint64>{4, 7, lastLine}));
        QVERIFY(window.problemsPanel()->isVisible());
        QVERIFY2(window.problemsButtonText().startsWith(QStringLiteral("2 rejected")),
                 qPrintable(window.problemsButtonText()));
    }

    void budgetWithMalformedLines()
    {
        QByteArray text;
        for (int second = 0; second < 20; second += 5)
            text += "2026-11-30T09:00:" + QByteArray::number(second).rightJustified(2, '0') +
                    "Z  INFO memory_budget::budget: tick target_bytes=1000 rss_bytes=900 verdict=\"hold\"\n";
        text += "2026-11-30T09:00:20Z  INFO memory_budget::budget: tick target_bytes=1000 rss_bytes=-1\n";
        text += "2026-11-30T09:00:25Z  INFO memory_budget::budget: tick target_bytes=1000 rss_bytes=NaN\n";
        QTemporaryDir dir;
        const QString path = writeFile(dir.filePath("budget.log"), text);

        MainWindow window;
        window.show();
        Heartbeat heartbeat;
        window.openPath(path);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).budgetAnalysis() != nullptr; },
                                kLoadTimeoutMs));
        QVERIFY(heartbeat.beats > 0);
        QVERIFY(front(window).isBudgetShown());
        QCOMPARE(front(window).budgetData()->ticks.size(), size_t(4));
        QCOMPARE(panelLines(window), (QList<qint64>{5, 6}));
        QVERIFY(window.problemsPanel()->isVisible());
    }

    void fifoIsRefusedAndTheWindowStaysUsable()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("pipe.jsonl");
        QVERIFY(mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        MainWindow window;
        window.show();
        window.openPath(path);
        QVERIFY(QTest::qWaitFor([&] { return !window.isLoading(); }, 10000));
        QVERIFY(!front(window).trace());
        QVERIFY2(window.statusBar()->currentMessage().contains("not a regular file"),
                 qPrintable(window.statusBar()->currentMessage()));
    }
};

QTEST_MAIN(TestMalformedGui)
#include "tst_malformed_gui.moc"
