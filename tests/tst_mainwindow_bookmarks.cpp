// Bookmarks and the range measurement in the main window: Ctrl+B bookmarks the cursor (the
// Bookmarks dock opens to name it), the chart and the timeline draw it, F4 / Shift+F4 step
// through the bookmarks, they are saved per file and come back when it is opened again, and
// the Markdown and HTML reports list them (the JSON report stays the CLI's). A measured span
// is in the status bar until Escape clears it.
#include "app/ExportActions.h"
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/items/BookmarksModel.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QAction>
#include <QChartView>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

QString drift()
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl");
}

QAction* action(MainWindow& window, const char* name)
{
    return window.findChild<QAction*>(QLatin1String(name));
}

QString readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

constexpr qint64 kStart = 1796000000000000000; // drift.jsonl's start event

} // namespace

class TestMainWindowBookmarks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_bookmarks")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void init() { QSettings().clear(); }

    void bookmarkAtCursorStepSaveRestore()
    {
        QTemporaryDir dir;
        {
            MainWindow window;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QString error;
            QVERIFY2(window.showTraceNow(drift(), &error), qPrintable(error));
            TracePage* page = front(window).tracePage();
            BookmarksModel* model = page->bookmarksModel();
            QCOMPARE(model->rowCount(), 0);
            auto* dock = window.findChild<QDockWidget*>(QStringLiteral("bookmarksDock"));
            QVERIFY(dock && !dock->isVisible());
            QAction* add = action(window, "addBookmarkAction");
            QAction* next = action(window, "nextBookmarkAction");
            QAction* previous = action(window, "previousBookmarkAction");
            QVERIFY(add && next && previous);
            QCOMPARE(add->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_B));
            QVERIFY(add->isEnabled());
            QVERIFY(!next->isEnabled()); // none yet

            const qint64 t1 = kStart + 5'000'000'000;
            const qint64 t2 = kStart + 20'000'000'000;
            page->setCursorTime(t2);
            add->trigger();
            page->setCursorTime(t1);
            add->trigger();
            QCOMPARE(model->rowCount(), 2);
            QVERIFY(dock->isVisible()); // opened to name it
            QCOMPARE(model->bookmarks().front().timeNs, t1);
            QCOMPARE(model->bookmarks().back().timeNs, t2);
            QVERIFY(model->setData(model->index(1, BookmarksModel::NameColumn),
                                   QStringLiteral("drift steepens")));
            // drawn by the chart's and the timeline's views
            QCOMPARE(front(window).scrubber()->bookmarks(), model->bookmarks());
            QVERIFY(next->isEnabled() && previous->isEnabled());

            // F4 / Shift+F4 go from bookmark to bookmark
            QCOMPARE(next->shortcut(), QKeySequence(Qt::Key_F4));
            page->setCursorTime(kStart);
            next->trigger();
            QCOMPARE(page->viewState()->cursorNs(), t1);
            next->trigger();
            QCOMPARE(page->viewState()->cursorNs(), t2);
            next->trigger(); // none after the last: stays
            QCOMPARE(page->viewState()->cursorNs(), t2);
            previous->trigger();
            QCOMPARE(page->viewState()->cursorNs(), t1);

            // selecting one in the list moves the cursor to it, into view
            page->viewState()->zoomTo(kStart + 25'000'000'000, kStart + 29'000'000'000);
            page->bookmarksView()->setCurrentIndex(model->index(1, BookmarksModel::TimeColumn));
            QCOMPARE(page->viewState()->cursorNs(), t2);
            QVERIFY(front(window).chart()->visibleBeginNs() <= t2 &&
                    t2 <= front(window).chart()->visibleEndNs());

            // the reports list them: Markdown and HTML; the JSON report is the CLI's
            const QString md = dir.filePath(QStringLiteral("r.md"));
            const QString html = dir.filePath(QStringLiteral("r.html"));
            const QString json = dir.filePath(QStringLiteral("r.json"));
            QVERIFY2(window.exportActions()->writeReport(md, ExportFormat::Markdown, QSize(800, 400), true,
                                                         &error),
                     qPrintable(error));
            QVERIFY(
                window.exportActions()->writeReport(html, ExportFormat::Html, QSize(800, 400), true, &error));
            QVERIFY(
                window.exportActions()->writeReport(json, ExportFormat::Json, QSize(800, 400), true, &error));
            const QString mdText = readAll(md);
            // times from the report's origin (the first event), Markdown-escaped like the rest
            QVERIFY2(mdText.contains(QStringLiteral("## Bookmarks\n\n- +5.000 s: Bookmark 2\n"
                                                    "- +20.000 s: drift steepens\n")),
                     qPrintable(mdText.mid(mdText.indexOf(QStringLiteral("## Bookmarks")), 120)));
            const QString htmlText = readAll(html);
            QVERIFY(htmlText.contains(QStringLiteral("<h2>Bookmarks</h2>")));
            QVERIFY(htmlText.contains(QStringLiteral("<li><strong>+20.000 s</strong> drift steepens</li>")));
            QVERIFY(!readAll(json).contains(QStringLiteral("ookmark")));

            // removing one through the list
            page->bookmarksView()->setCurrentIndex(model->index(0, BookmarksModel::NameColumn));
            QAction* remove = page->bookmarksView()->actions().value(0);
            QVERIFY(remove);
            remove->trigger();
            QCOMPARE(model->rowCount(), 1);
        }
        // saved: the file opened again (a new window: a new start) has its bookmark back
        MainWindow window;
        window.show();
        QString error;
        QVERIFY(window.showTraceNow(drift(), &error));
        const std::vector<Bookmark> restored = front(window).tracePage()->bookmarksModel()->bookmarks();
        QCOMPARE(restored.size(), size_t(1));
        QCOMPARE(restored.front().name, QStringLiteral("drift steepens"));
        QCOMPARE(restored.front().timeNs, kStart + 20'000'000'000);
        QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("bookmarksDock"))->isVisible());
        // closing the file does not forget them
        window.closeTrace();
        QCOMPARE(BookmarksModel::load(QSettings(), drift()).size(), size_t(1));
    }

    void measurementInTheStatusBar()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY(window.showTraceNow(drift(), &error));
        // Alt+drag over 0.1 .. 0.4 s of the chart
        GapChartView* chart = front(window).chart();
        chart->measureRange(kStart + 100'000'000, kStart + 400'000'000);
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Δt 0.300 s · 4 samples · Δgap +152.85 MiB")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("slope +477.51 MiB/s (least squares)")),
                 qPrintable(message));
        // stays (no timeout), and Escape on the chart clears it
        QTest::qWait(50);
        QCOMPARE(window.statusBar()->currentMessage(), message);
        QVERIFY(!window.isAnalysing()); // nothing was re-analysed
        auto* canvas = chart->findChild<QChartView*>();
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Escape);
        QVERIFY(!chart->measuredSpan());
        QVERIFY(window.statusBar()->currentMessage().isEmpty());
    }

    // The window as README shows it (docs/screenshots/measure.png when GAPSCOPE_SCREENSHOT_DIR
    // is set): bookmarks on the chart and the timeline, a measured span over the drift before
    // the largest spike. The picture holds the bookmark flags and the measurement's label.
    void screenshotWithBookmarksAndMeasurement()
    {
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        QString error;
        QVERIFY(window.showTraceNow(
            QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/mixed.jsonl"), &error));
        BookmarksModel* model = front(window).tracePage()->bookmarksModel();
        model->addBookmark(kStart + 8'000'000'000, QStringLiteral("eval starts"));
        model->addBookmark(kStart + 27'400'000'000, QStringLiteral("OOM warning"));
        front(window).chart()->measureRange(kStart + 12'000'000'000, kStart + 24'000'000'000);
        window.findChild<QDockWidget*>(QStringLiteral("bookmarksDock"))->show();
        const QSize size(1400, 820);
        window.resize(size);
        window.show();
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(window.palette().color(QPalette::Window));
        window.render(&image);
        if (const QByteArray dir = qgetenv("GAPSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(image.save(QString::fromLocal8Bit(dir) + QStringLiteral("/measure.png")));

        // the flags: pixels of the bookmark colour in the chart, left of its middle and near the
        // OOM warning on the right
        const QRect chart(front(window).chart()->mapTo(&window, QPoint(0, 0)), front(window).chart()->size());
        const QColor flag = bookmarkColor(chartColors(front(window).chart()->palette()));
        int left = 0, right = 0;
        for (int y = chart.top(); y < chart.bottom(); ++y)
            for (int x = chart.left(); x < chart.right(); ++x)
                if (QColor(image.pixel(x, y)) == flag)
                    ++(x < chart.center().x() ? left : right);
        QVERIFY2(left > 20 && right > 20, qPrintable(QStringLiteral("%1 %2").arg(left).arg(right)));
        QVERIFY(window.statusBar()->currentMessage().startsWith(QStringLiteral("Δt 12.0 s")));
    }
};

QTEST_MAIN(TestMainWindowBookmarks)
#include "tst_mainwindow_bookmarks.moc"
