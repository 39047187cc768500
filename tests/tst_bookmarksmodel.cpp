// BookmarksModel: kept in time order, names editable, Next/Previous, and the settings round
// trip keyed by the canonical path (a symbolic link and the file share their bookmarks).
#include "model/items/BookmarksModel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace gapscope;

class TestBookmarksModel : public QObject
{
    Q_OBJECT

private slots:
    void keepsTimeOrderAndNames()
    {
        BookmarksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &BookmarksModel::bookmarksChanged);
        model.setOriginNs(1'000'000'000);
        QCOMPARE(model.addBookmark(3'000'000'000, QStringLiteral("late")), 0);
        QCOMPARE(model.addBookmark(1'500'000'000), 0); // earlier: first row, a default name
        QCOMPARE(model.addBookmark(3'000'000'000, QStringLiteral("  same time  ")), 2); // after "late"
        QCOMPARE(changed.count(), 3);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, BookmarksModel::NameColumn).data().toString(), QStringLiteral("Bookmark 2"));
        QCOMPARE(model.index(2, BookmarksModel::NameColumn).data().toString(), QStringLiteral("same time"));
        QCOMPARE(model.index(0, BookmarksModel::TimeColumn).data().toString(), QStringLiteral("0.500 s"));
        QCOMPARE(model.index(1, BookmarksModel::TimeColumn).data(BookmarksModel::TimeNsRole).toLongLong(),
                 qint64(3'000'000'000));

        // the name is editable, the time is not; an empty name is refused
        QVERIFY(model.flags(model.index(0, BookmarksModel::NameColumn)).testFlag(Qt::ItemIsEditable));
        QVERIFY(!model.flags(model.index(0, BookmarksModel::TimeColumn)).testFlag(Qt::ItemIsEditable));
        QVERIFY(model.setData(model.index(0, BookmarksModel::NameColumn), QStringLiteral("warm-up")));
        QVERIFY(!model.setData(model.index(0, BookmarksModel::NameColumn), QStringLiteral("   ")));
        QVERIFY(!model.setData(model.index(0, BookmarksModel::TimeColumn), QStringLiteral("x")));
        QCOMPARE(model.bookmarks().front().name, QStringLiteral("warm-up"));
        QCOMPARE(changed.count(), 4);

        model.removeBookmark(1);
        model.removeBookmark(7); // no such row: nothing
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.bookmarks().back().name, QStringLiteral("same time"));
        QCOMPARE(changed.count(), 5);

        model.setBookmarks({{5, QStringLiteral("b")}, {2, QStringLiteral("a")}});
        QCOMPARE(model.bookmarks(),
                 (std::vector<Bookmark>{{2, QStringLiteral("a")}, {5, QStringLiteral("b")}}));
    }

    // issue 32, item 8: a stored bookmark may hold any int64 (settings are a file the user
    // can edit); its offset from the origin is taken without wrapping.
    void timeAtTheInt64Edges_data()
    {
        QTest::addColumn<qint64>("originNs");
        QTest::addColumn<qint64>("timeNs");
        QTest::addColumn<QString>("shown");
        constexpr qint64 lo = std::numeric_limits<qint64>::min();
        constexpr qint64 hi = std::numeric_limits<qint64>::max();
        QTest::newRow("INT64_MIN after a 2026 origin")
            << qint64(1'796'000'000'000'000'000) << lo << QStringLiteral("-11019372036.855 s");
        QTest::newRow("INT64_MAX before a negative origin")
            << qint64(-1'000'000'000) << hi << QStringLiteral("9223372037.855 s");
        QTest::newRow("origin INT64_MIN, bookmark INT64_MAX")
            << lo << hi << QStringLiteral("18446744073.710 s");
    }
    void timeAtTheInt64Edges()
    {
        QFETCH(qint64, originNs);
        QFETCH(qint64, timeNs);
        QFETCH(QString, shown);
        BookmarksModel model;
        model.setOriginNs(originNs);
        model.setBookmarks({{timeNs, QStringLiteral("edge")}});
        QCOMPARE(model.index(0, BookmarksModel::TimeColumn).data().toString(), shown);
    }

    void nextAndPrevious_data()
    {
        QTest::addColumn<qint64>("cursor");
        QTest::addColumn<qint64>("next");     // -1: none
        QTest::addColumn<qint64>("previous"); // -1: none
        // bookmarks at 10, 20, 20, 30
        QTest::newRow("before all") << qint64(0) << qint64(10) << qint64(-1);
        QTest::newRow("on the first") << qint64(10) << qint64(20) << qint64(-1);
        QTest::newRow("between") << qint64(15) << qint64(20) << qint64(10);
        QTest::newRow("on two at once") << qint64(20) << qint64(30) << qint64(10);
        QTest::newRow("on the last") << qint64(30) << qint64(-1) << qint64(20);
        QTest::newRow("after all") << qint64(99) << qint64(-1) << qint64(30);
    }

    void nextAndPrevious()
    {
        QFETCH(qint64, cursor);
        QFETCH(qint64, next);
        QFETCH(qint64, previous);
        BookmarksModel model;
        model.setBookmarks({{20, QStringLiteral("b")},
                            {10, QStringLiteral("a")},
                            {30, QStringLiteral("d")},
                            {20, QStringLiteral("c")}});
        QCOMPARE(model.timeAfter(cursor).value_or(-1), next);
        QCOMPARE(model.timeBefore(cursor).value_or(-1), previous);
    }

    void settingsRoundTripByCanonicalPath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("run.jsonl"));
        QFile touch(file);
        QVERIFY(touch.open(QIODevice::WriteOnly));
        touch.close();
        const QString link = dir.filePath(QStringLiteral("link.jsonl"));
        QVERIFY(QFile::link(file, link));
        const QString other = dir.filePath(QStringLiteral("other.jsonl"));

        QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
        const std::vector<Bookmark> marks{
            {1'796'000'000'123'456'789, QStringLiteral("spike / \"quoted\" = x")},
            {1'796'000'000'900'000'000, QStringLiteral("ünïcode ⚑")}};
        BookmarksModel::save(settings, file, marks);
        settings.sync();
        QCOMPARE(BookmarksModel::load(settings, file), marks);
        QCOMPARE(BookmarksModel::load(settings, link), marks); // the same file
        QCOMPARE(BookmarksModel::settingsKey(link), BookmarksModel::settingsKey(file));
        QVERIFY(BookmarksModel::load(settings, other).empty());

        // read back by a new settings object: int64 times exact (not through a double)
        QSettings reread(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
        QCOMPARE(BookmarksModel::load(reread, file), marks);

        // no bookmarks left: the entry goes
        BookmarksModel::save(settings, file, {});
        QVERIFY(!settings.contains(BookmarksModel::settingsKey(file) + QStringLiteral("/list")));
        QVERIFY(BookmarksModel::load(settings, file).empty());
    }

    void unreadableEntriesAreSkipped()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
        const QString path = dir.filePath(QStringLiteral("t.jsonl"));
        const QString key = BookmarksModel::settingsKey(path) + QStringLiteral("/list");
        settings.setValue(key, QStringLiteral("[{\"time_ns\":\"12\",\"name\":\"ok\"},{\"time_ns\":\"x\"},3,"
                                              "{\"name\":\"no time\"}]"));
        QCOMPARE(BookmarksModel::load(settings, path), (std::vector<Bookmark>{{12, QStringLiteral("ok")}}));
        settings.setValue(key, QStringLiteral("not json"));
        QVERIFY(BookmarksModel::load(settings, path).empty());
    }
};

QTEST_GUILESS_MAIN(TestBookmarksModel)
#include "tst_bookmarksmodel.moc"
