#include "model/store/EventStore.h"

#include <QTest>

using namespace gapscope;

class TestEventStore : public QObject
{
    Q_OBJECT
private slots:
    void poolIdZeroIsEmpty()
    {
        StringPool pool;
        QCOMPARE(pool.size(), size_t(1));
        QCOMPARE(pool.intern(""), 0u);
        QVERIFY(pool.at(0).empty());
    }

    void poolInternsOnce()
    {
        StringPool pool;
        const uint32_t a = pool.intern("alpha");
        const uint32_t b = pool.intern("beta");
        QVERIFY(a != 0 && b != 0 && a != b);
        QCOMPARE(pool.intern(std::string("alpha")), a);
        QCOMPARE(pool.size(), size_t(3));
        QCOMPARE(QString::fromStdString(pool.at(b)), QStringLiteral("beta"));
    }

    // The pool allocates at its first string; an empty one, a copy and a moved-from one behave
    // as pools with "" alone, and a copy indexes its own strings.
    void poolCopiesAndMoves()
    {
        StringPool empty;
        StringPool emptyCopy(empty);
        QCOMPARE(emptyCopy.size(), size_t(1));
        QVERIFY(emptyCopy.at(0).empty());
        QCOMPARE(emptyCopy.internRecent("", 0), 0u);

        StringPool pool;
        const uint32_t alpha = pool.internRecent("alpha", 0);
        StringPool copy(pool);
        QCOMPARE(copy.intern("alpha"), alpha);
        QCOMPARE(copy.internRecent("alpha", 0), alpha);
        const uint32_t beta = copy.intern("beta");
        QCOMPARE(copy.size(), size_t(3));
        QCOMPARE(pool.size(), size_t(2));    // the original does not see the copy's strings
        QCOMPARE(pool.intern("beta"), beta); // the same next id, interned on its own

        StringPool moved(std::move(copy));
        QCOMPARE(moved.at(beta), std::string("beta"));
        QCOMPARE(copy.size(), size_t(1)); // NOLINT(bugprone-use-after-move): a valid empty pool
        QVERIFY(copy.at(0).empty());
        QCOMPARE(copy.intern("gamma"), 1u);
        copy = moved;
        QCOMPARE(copy.intern("beta"), beta);
        QCOMPARE(copy.size(), size_t(3));
    }

    // The index holds views into the storage: they must survive growth.
    void poolViewsStayValidWhileGrowing()
    {
        StringPool pool;
        std::vector<uint32_t> ids;
        for (int i = 0; i < 20000; ++i)
            ids.push_back(pool.intern("string-number-" + std::to_string(i)));
        for (int i = 0; i < 20000; i += 997) {
            const std::string s = "string-number-" + std::to_string(i);
            QCOMPARE(pool.intern(s), ids[size_t(i)]);
            QCOMPARE(pool.at(ids[size_t(i)]), s);
        }
        QCOMPARE(pool.size(), size_t(20001));
    }

    void eventTypes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("type");
        QTest::newRow("sample") << "sample" << int(EventType::Sample);
        QTest::newRow("allocation") << "allocation" << int(EventType::Allocation);
        QTest::newRow("deallocation") << "deallocation" << int(EventType::Deallocation);
        QTest::newRow("peak") << "peak" << int(EventType::Peak);
        QTest::newRow("warning") << "warning" << int(EventType::Warning);
        QTest::newRow("critical") << "critical" << int(EventType::Critical);
        QTest::newRow("error") << "error" << int(EventType::Error);
        QTest::newRow("start") << "start" << int(EventType::Start);
        QTest::newRow("stop") << "stop" << int(EventType::Stop);
        QTest::newRow("collector_degraded") << "collector_degraded" << int(EventType::CollectorDegraded);
        QTest::newRow("collector_recovered") << "collector_recovered" << int(EventType::CollectorRecovered);
        QTest::newRow("phase_enter") << "phase_enter" << int(EventType::PhaseEnter);
        QTest::newRow("phase_exit") << "phase_exit" << int(EventType::PhaseExit);
        QTest::newRow("collective") << "collective" << int(EventType::Collective);
    }
    void eventTypes()
    {
        QFETCH(QString, name);
        QFETCH(int, type);
        const std::string text = name.toStdString();
        QCOMPARE(int(eventTypeFromString(text)), type);
        QCOMPARE(std::string(toString(EventType(type))), text);
    }

    void unknownEventTypeIsOther()
    {
        QVERIFY(eventTypeFromString("custom_marker") == EventType::Other);
        QVERIFY(eventTypeFromString("Sample") == EventType::Other); // callers pass trimmed lower case
        QVERIFY(std::string(toString(EventType::Other)) == std::string("other"));
    }

    void memoryBytesCountsColumnsAndStrings()
    {
        EventStore store;
        const size_t empty = store.memoryBytes();
        for (int i = 0; i < 1000; ++i) {
            store.timestampNs.push_back(i);
            store.allocated.push_back(i);
            store.reserved.push_back(i);
            store.active.push_back(kNullInt);
            store.inactive.push_back(kNullInt);
            store.change.push_back(0);
            store.used.push_back(i);
            store.free.push_back(kNullInt);
            store.total.push_back(kNullInt);
            store.type.push_back(EventType::Sample);
            store.typeName.push_back(store.strings.intern("sample"));
            store.source.push_back(0);
            store.context.push_back(0);
            store.metadata.push_back(0);
        }
        QCOMPARE(store.size(), size_t(1000));
        const size_t columns = store.memoryBytes();
        // nine int64 columns alone take 72 bytes a row
        QVERIFY(columns >= empty + 1000 * (9 * sizeof(int64_t) + 4 * sizeof(uint32_t) + 1));
        store.strings.intern(std::string(10000, 'x'));
        QVERIFY(store.memoryBytes() >= columns + 10000);
        store.origins.emplace(3u, EventOrigin{std::string("scope:1"), 42});
        QVERIFY(store.memoryBytes() > columns + 10000);
    }

    // shrinkToFit copies a column only when it would give back more than a little: a load
    // reserves its columns from an estimate and should not pay a copy for 2 % of spare rows.
    void shrinkToFitLeavesSmallSpareRoom_data()
    {
        QTest::addColumn<int>("reserved");
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("shrinks");
        QTest::newRow("2 % spare") << 10200 << 10000 << false;
        QTest::newRow("exact") << 10000 << 10000 << false;
        QTest::newRow("half spare") << 20000 << 10000 << true;
        QTest::newRow("10 % spare") << 11000 << 10000 << true;
    }
    void shrinkToFitLeavesSmallSpareRoom()
    {
        QFETCH(int, reserved);
        QFETCH(int, rows);
        QFETCH(bool, shrinks);
        EventStore store;
        store.reserveRows(size_t(reserved));
        for (int i = 0; i < rows; ++i) {
            store.timestampNs.push_back(i);
            store.used.push_back(i);
        }
        store.shrinkToFit();
        QCOMPARE(store.timestampNs.capacity(), size_t(shrinks ? rows : reserved));
        QCOMPARE(store.used.capacity(), size_t(shrinks ? rows : reserved));
        QCOMPARE(store.timestampNs.size(), size_t(rows));
    }

    // clearRows empties the store for the next window of a load, capacity kept.
    void clearRowsKeepsCapacity()
    {
        EventStore store;
        store.reserveRows(5000);
        store.keepRowsUnpacked();
        for (int i = 0; i < 3000; ++i) {
            store.timestampNs.push_back(i);
            store.source.push_back(uint32_t(i % 3));
        }
        store.sources.push_back(EventSource{});
        const uint32_t id = store.strings.intern("sample");
        QVERIFY(id != 0);
        store.clearRows();
        QCOMPARE(store.size(), size_t(0));
        QVERIFY(store.source.empty());
        QVERIFY(store.sources.empty());
        QCOMPARE(store.strings.size(), size_t(1));
        QCOMPARE(store.timestampNs.capacity(), size_t(5000));
        store.source.push_back(2);
        QCOMPARE(store.source[0], 2u);
        store.packRows();
        QCOMPARE(store.source.toVector(), std::vector<uint32_t>{2});
    }
};

QTEST_GUILESS_MAIN(TestEventStore)
#include "tst_eventstore.moc"
