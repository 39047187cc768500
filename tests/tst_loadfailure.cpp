// A failed open explains itself in the window until dismissed (issue 17 item 5): what was
// tried, what the file looks like and which formats are accepted, budget logs included.

#include "app/MainWindow.h"
#include "model/document/Document.h"
#include "model/document/LoadFailure.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/common/LoadFailureBanner.h"

#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        return {};
    return path;
}

bool waitLoaded(MainWindow& window)
{
    return QTest::qWaitFor([&] { return !window.isBusy(); }, 30000);
}

} // namespace

class TestLoadFailure : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_loadfailure")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void explanation_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("looksLike");
        QTest::addColumn<QString>("tried");
        QTest::newRow("text") << QByteArray("hello world\nsecond line\n")
                              << QStringLiteral("24 bytes of text; its first line is “hello world”")
                              << QStringLiteral("not a budget log");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("an empty file")
                               << QStringLiteral("stormlog trace reader");
        QTest::newRow("binary") << QByteArray("\x89PNG\r\n\x1a\n\0\0", 10)
                                << QStringLiteral("10 bytes of binary data (not text)")
                                << QStringLiteral("not a budget log");
        QTest::newRow("one byte") << QByteArray("x")
                                  << QStringLiteral("1 byte of text; its first line is “x”")
                                  << QStringLiteral("not a budget log");
        QTest::newRow("long line") << QByteArray(200, 'a')
                                   << QStringLiteral("200 bytes of text; its first line is “") +
                                          QString(80, QLatin1Char('a')) + QStringLiteral("…”")
                                   << QStringLiteral("not a budget log");
    }

    void explanation()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, looksLike);
        QFETCH(QString, tried);
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("notes.txt"), content);
        QVERIFY(!path.isEmpty());
        const DocumentOutcome outcome = loadDocument(path);
        QVERIFY(!outcome.ok());
        const LoadFailureExplanation e = explainLoadFailure(path, outcome.failure());
        QCOMPARE(e.path, path);
        QCOMPARE(e.title, QStringLiteral("notes.txt could not be opened"));
        QVERIFY2(!e.reason.startsWith(path), qPrintable(e.reason)); // the path is said once
        QVERIFY(!e.reason.isEmpty());
        QCOMPARE(e.looksLike, looksLike);
        QVERIFY2(e.tried.contains(tried), qPrintable(e.tried));
        QVERIFY(e.accepted.contains(QStringLiteral("memory-budget logs")));
        QVERIFY(e.accepted.contains(QStringLiteral("stormlog traces")));
        QVERIFY(e.accepted.contains(QStringLiteral(".jsonl")));
    }

    void folderAndMissingFile()
    {
        QTemporaryDir dir;
        QVERIFY(!writeFile(dir, QStringLiteral("a.txt"), "x").isEmpty());
        LoadFailureExplanation e = explainLoadFailure(dir.path(), loadDocument(dir.path()).failure());
        QCOMPARE(e.looksLike, QStringLiteral("a folder holding a.txt"));
        QVERIFY2(e.tried.contains(QStringLiteral("manifest.json")), qPrintable(e.tried));
        e = explainLoadFailure(dir.filePath(QStringLiteral("gone.jsonl")), QStringLiteral("no such file"));
        QVERIFY(e.looksLike.contains(QStringLiteral("no such file")));
    }

    // The message the loader gives for a text file names budget logs too (the CLI prints it).
    void loaderReasonMentionsBudgetLogs()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("notes.txt"), "hello world\n");
        const QString failure = loadDocument(path).failure();
        QVERIFY2(failure.contains(QStringLiteral("memory-budget log")), qPrintable(failure));
    }

    void windowShowsItUntilDismissed()
    {
        QTemporaryDir dir;
        const QString bad = writeFile(dir, QStringLiteral("notes.txt"), "hello world\nsecond line\n");
        MainWindow window;
        window.show();
        QVERIFY(window.loadFailureText().isEmpty());
        window.openPath(bad);
        QVERIFY(waitLoaded(window));
        QString text = window.loadFailureText();
        QVERIFY2(text.contains(QStringLiteral("notes.txt could not be opened")), qPrintable(text));
        QVERIFY(text.contains(bad));
        QVERIFY(text.contains(QStringLiteral("hello world")));
        QVERIFY(text.contains(QStringLiteral("memory-budget log")));
        QVERIFY(text.contains(QStringLiteral("gapscope opens")));
        QVERIFY(window.loadFailureBanner()->isVisible());
        // the status bar line goes; the message stays
        window.statusBar()->clearMessage();
        QTest::qWait(50);
        QCOMPARE(window.loadFailureText(), text);
        QTest::mouseClick(window.loadFailureBanner()->dismissButton(), Qt::LeftButton);
        QVERIFY(window.loadFailureText().isEmpty());
        QVERIFY(!window.loadFailureBanner()->isVisible());
    }

    void shownOverAnOpenTraceAndClearedByTheNextOpen()
    {
        const QString good = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/spikes.jsonl");
        QTemporaryDir dir;
        const QString bad = writeFile(dir, QStringLiteral("empty.jsonl"), QByteArray());
        MainWindow window;
        window.show();
        window.openPath(good);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, 30000));
        window.openPath(bad);
        QVERIFY(waitLoaded(window));
        QVERIFY(window.loadFailureText().contains(QStringLiteral("an empty file")));
        QVERIFY(front(window).analysis()); // the trace shown stays
        // Esc on the message hides it too
        window.loadFailureBanner()->dismissButton()->setFocus();
        QTest::keyClick(window.loadFailureBanner(), Qt::Key_Escape);
        QVERIFY(window.loadFailureText().isEmpty());
        window.openPath(bad);
        QVERIFY(waitLoaded(window));
        QVERIFY(!window.loadFailureText().isEmpty());
        window.openPath(good);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy(); }, 30000));
        QVERIFY(window.loadFailureText().isEmpty());
        // a path that does not exist is explained as well
        window.openPath(dir.filePath(QStringLiteral("gone.jsonl")));
        QVERIFY(window.loadFailureText().contains(QStringLiteral("no such file")));
    }
};

QTEST_MAIN(TestLoadFailure)
#include "tst_loadfailure.moc"
