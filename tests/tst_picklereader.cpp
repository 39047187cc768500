// The restricted pickle reader (model/snapshot/PickleReader, issue 34): every value Python's own
// pickler writes at protocols 0 to 5 reads back as Python reads it (tests/data/snapshot/values.jsonl,
// written by make_pickles.py, holds the pickles and Python's repr of each); what names or calls
// code is refused at its opcode, before anything is built from it; a cut, malformed or hostile
// input is an error with its byte offset, within the limits, never a crash or a hang.

#include "model/snapshot/PickleReader.h"
#include "tests/SnapshotFixtures.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <atomic>

using namespace gapscope;

namespace {

const QString& kData = test::kSnapshotData;

QByteArray readData(const QString& relative)
{
    return test::readSnapshotData(relative);
}

std::string_view view(const QByteArray& bytes)
{
    return test::bytesView(bytes);
}

// "80 04 ..." (blanks ignored) as bytes
QByteArray hexBytes(const char* hex)
{
    return QByteArray::fromHex(QByteArray(hex).replace(' ', ""));
}

QString reasonOf(const PickleReadOutcome& outcome)
{
    return QString::fromStdString(outcome.error.reason);
}

} // namespace

class TestPickleReader : public QObject
{
    Q_OBJECT
private slots:
    // Every value of values.jsonl at every protocol: the repr of what was read is Python's; where
    // Python writes code opcodes (bytes before protocol 3, sets before 4, bytearray before 5) the
    // reader refuses the first of them, where pickletools says it is.
    void pythonValues_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("repr");
        QTest::addColumn<QString>("refusedOpcode");
        QTest::addColumn<qint64>("refusedOffset");
        const QList<QByteArray> lines = readData(QStringLiteral("values.jsonl")).split('\n');
        for (const QByteArray& line : lines) {
            if (line.isEmpty())
                continue;
            const QJsonObject row = QJsonDocument::fromJson(line).object();
            const QJsonObject refused = row.value(QStringLiteral("refused")).toObject();
            const QString name = QStringLiteral("%1, protocol %2")
                                     .arg(row.value(QStringLiteral("expr")).toString().left(60))
                                     .arg(row.value(QStringLiteral("protocol")).toInt());
            QTest::newRow(qPrintable(name))
                << QByteArray::fromHex(row.value(QStringLiteral("hex")).toString().toLatin1())
                << row.value(QStringLiteral("repr")).toString()
                << refused.value(QStringLiteral("opcode")).toString()
                << qint64(refused.value(QStringLiteral("offset")).toInteger(-1));
        }
        QVERIFY(lines.size() > 300);
    }
    void pythonValues()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, repr);
        QFETCH(QString, refusedOpcode);
        QFETCH(qint64, refusedOffset);
        const PickleReadOutcome read = readPickle(view(pickle));
        if (!refusedOpcode.isEmpty()) {
            QVERIFY(!read.arena);
            QCOMPARE(read.error.offset, refusedOffset);
            QVERIFY2(reasonOf(read).startsWith(QStringLiteral("opcode %1 (").arg(refusedOpcode)),
                     qPrintable(reasonOf(read)));
            QVERIFY2(reasonOf(read).contains(QStringLiteral("refused")), qPrintable(reasonOf(read)));
            return;
        }
        QVERIFY2(read.arena, qPrintable(reasonOf(read)));
        QCOMPARE(read.stopOffset, qint64(pickle.size()));
        QCOMPARE(QString::fromStdString(read.arena->reprText(read.arena->root(), size_t(1) << 20, 100)),
                 repr);
    }

    // What the memo shares is one node: [x] * 3 is three ids of one tuple, and a list appended to
    // itself holds itself (Python's l = []; l.append(l)) without the reader or reprText looping.
    void memoSharesNodes()
    {
        // [('shared', 1.25)] * 3, protocol 4
        const QByteArray shared =
            hexBytes("80 04 95 1a 00 00 00 00 00 00 00 5d 94 28 8c 06 73 68 61 72 65 64 94 47 3f "
                     "f4 00 00 00 00 00 00 86 94 68 02 68 02 65 2e");
        const PickleReadOutcome read = readPickle(view(shared));
        QVERIFY2(read.arena, qPrintable(reasonOf(read)));
        const PickleArena& arena = *read.arena;
        const auto items = arena.items(arena.root());
        QCOMPARE(items.size(), size_t(3));
        QCOMPARE(items[0], items[1]);
        QCOMPARE(items[1], items[2]);
        QCOMPARE(arena.kind(items[0]), PickleKind::Tuple);

        // EMPTY_LIST MEMOIZE DUP APPEND STOP: l = []; l.append(l)
        const QByteArray selfList = hexBytes("80 04 5d 94 32 61 2e");
        const PickleReadOutcome cyclic = readPickle(view(selfList));
        QVERIFY2(cyclic.arena, qPrintable(reasonOf(cyclic)));
        const PickleArena::Id root = cyclic.arena->root();
        QCOMPARE(cyclic.arena->items(root).size(), size_t(1));
        QCOMPARE(cyclic.arena->items(root)[0], root);
        QCOMPARE(QString::fromStdString(cyclic.arena->reprText(root, 40, 3)), QStringLiteral("[[[...]]]"));
        QCOMPARE(QString::fromStdString(cyclic.arena->reprText(root, 5, 1000)), QStringLiteral("[[[[[..."));
    }

    // Ints of any size: int64 kept exactly, beyond it the digits; uint64 for addresses up to 2^64 - 1.
    void integers_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<bool>("fitsInt64");
        QTest::addColumn<qint64>("int64");
        QTest::addColumn<bool>("fitsUint64");
        QTest::addColumn<quint64>("uint64");
        QTest::addColumn<QString>("digits");
        // LONG1 of n bytes, little-endian two's complement, protocol 2
        QTest::newRow("2**63 - 1") << hexBytes("80 02 8a 08 ff ff ff ff ff ff ff 7f 2e") << true
                                   << qint64(9223372036854775807LL) << true << quint64(9223372036854775807ULL)
                                   << "9223372036854775807";
        QTest::newRow("-2**63") << hexBytes("80 02 8a 08 00 00 00 00 00 00 00 80 2e") << true
                                << qint64(std::numeric_limits<qint64>::min()) << false << quint64(0)
                                << "-9223372036854775808";
        QTest::newRow("2**64 - 1") << hexBytes("80 02 8a 09 ff ff ff ff ff ff ff ff 00 2e") << false
                                   << qint64(0) << true << quint64(18446744073709551615ULL)
                                   << "18446744073709551615";
        QTest::newRow("2**64") << hexBytes("80 02 8a 09 00 00 00 00 00 00 00 00 01 2e") << false << qint64(0)
                               << false << quint64(0) << "18446744073709551616";
        QTest::newRow("-1 in 9 bytes") << hexBytes("80 02 8a 09 ff ff ff ff ff ff ff ff ff 2e") << true
                                       << qint64(-1) << false << quint64(0) << "-1";
        QTest::newRow("0 in no bytes")
            << hexBytes("80 02 8a 00 2e") << true << qint64(0) << true << quint64(0) << "0";
        // protocol 0's LONG text, decimal beyond int64
        QTest::newRow("LONG 10**30") << QByteArray("L1000000000000000000000000000000L\n.") << false
                                     << qint64(0) << false << quint64(0) << "1000000000000000000000000000000";
        QTest::newRow("INT -5") << QByteArray("I-5\n.") << true << qint64(-5) << false << quint64(0) << "-5";
    }
    void integers()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(bool, fitsInt64);
        QFETCH(qint64, int64);
        QFETCH(bool, fitsUint64);
        QFETCH(quint64, uint64);
        QFETCH(QString, digits);
        const PickleReadOutcome read = readPickle(view(pickle));
        QVERIFY2(read.arena, qPrintable(reasonOf(read)));
        const PickleArena& arena = *read.arena;
        const PickleArena::Id root = arena.root();
        QCOMPARE(arena.asInt64(root).has_value(), fitsInt64);
        if (fitsInt64)
            QCOMPARE(qint64(*arena.asInt64(root)), int64);
        QCOMPARE(arena.asUint64(root).has_value(), fitsUint64);
        if (fitsUint64)
            QCOMPARE(quint64(*arena.asUint64(root)), uint64);
        QCOMPARE(QString::fromStdString(arena.bigIntText(root)), digits);
    }

    // Every opcode that names or calls code, alone after PROTO: refused at its offset, by name.
    void codeOpcodes_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("opcode");
        const std::pair<const char*, const char*> opcodes[] = {
            {"GLOBAL", "63"},    {"STACK_GLOBAL", "93"}, {"REDUCE", "52"},
            {"BUILD", "62"},     {"INST", "69"},         {"OBJ", "6f"},
            {"NEWOBJ", "81"},    {"NEWOBJ_EX", "92"},    {"EXT1", "82"},
            {"EXT2", "83"},      {"EXT4", "84"},         {"PERSID", "50"},
            {"BINPERSID", "51"}, {"NEXT_BUFFER", "97"},  {"READONLY_BUFFER", "98"},
        };
        for (const auto& [name, hex] : opcodes)
            QTest::newRow(name) << hexBytes((QByteArray("80 05 4e ") + hex + " 2e").constData())
                                << QString(name);
    }
    void codeOpcodes()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, opcode);
        const PickleReadOutcome read = readPickle(view(pickle));
        QVERIFY(!read.arena);
        QCOMPARE(read.error.offset, qint64(3));
        QVERIFY2(reasonOf(read).startsWith(QStringLiteral("opcode %1 (0x").arg(opcode)),
                 qPrintable(reasonOf(read)));
        QVERIFY2(reasonOf(read).contains(QStringLiteral("at byte 3")), qPrintable(reasonOf(read)));
        QVERIFY2(reasonOf(read).contains(QStringLiteral("nothing in a file is run")),
                 qPrintable(reasonOf(read)));
    }

    // The hostile files of make_pickles.py and inputs made here: each refused with its reason
    // and offset, nothing run (the REDUCE would have touched the marker).
    void refused_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("reason"); // what the reason starts with
        QTest::addColumn<qint64>("offset");
        const auto file = [](const char* name) { return readData(QStringLiteral("hostile/%1").arg(name)); };
        QTest::newRow("REDUCE of os.system, protocol 4")
            << file("reduce-os-system-p4.pickle")
            << "opcode STACK_GLOBAL (0x93) at byte 28 names Python code (posix.system): refused"
            << qint64(28);
        QTest::newRow("REDUCE of os.system, protocol 2")
            << file("reduce-os-system-p2.pickle")
            << "opcode GLOBAL (0x63) at byte 2 names Python code (posix.system)" << qint64(2);
        QTest::newRow("protocol 0 text with GLOBAL")
            << file("global-p0.pickle") << "opcode GLOBAL (0x63) at byte 0 names Python code (posix.system)"
            << qint64(0);
        QTest::newRow("a list 200 000 deep")
            << file("deep-list.pickle") << "APPEND at byte 401001: values nested deeper than 1000"
            << qint64(401001);
        QTest::newRow("200 000 MARKs")
            << file("deep-marks.pickle") << "MARK at byte 1002: more than 1000 MARKs open" << qint64(1002);
        QTest::newRow("BINGET of a memo never set")
            << file("binget-unset.pickle") << "BINGET at byte 11 fetches memo 5, which was never set"
            << qint64(11);
        QTest::newRow("BINUNICODE8 of 2^62 bytes")
            << file("huge-length.pickle")
            << "BINUNICODE8 at byte 2 needs 4611686018427387904 more bytes, 4 are left" << qint64(2);
        QTest::newRow("BINBYTES of 4 GiB")
            << hexBytes("80 04 42 ff ff ff ff 61 2e")
            << "BINBYTES at byte 2 needs 4294967295 more bytes, 2 are left" << qint64(2);
        QTest::newRow("LONG4 of a negative length")
            << hexBytes("80 04 8b ff ff ff ff 2e") << "LONG4 at byte 2: a negative length (-1)" << qint64(2);
        QTest::newRow("FRAME past the end")
            << hexBytes("80 04 95 00 00 00 00 00 00 01 00 4e 2e")
            << "FRAME at byte 2 announces 281474976710656 bytes, 2 are left" << qint64(2);
        QTest::newRow("LONG_BINPUT far away, then a LONG_BINGET beside it")
            << hexBytes("80 04 4e 72 ff ff ff ff 6a fe ff ff ff 2e")
            << "LONG_BINGET at byte 8 fetches memo 4294967294, which was never set" << qint64(8);
        QTest::newRow("protocol 6") << hexBytes("80 06 4e 2e") << "pickle protocol 6 (PROTO at byte 0)"
                                    << qint64(0);
        QTest::newRow("STRING") << QByteArray("S'abc'\n.") << "STRING at byte 0: protocol 0's quoted str"
                                << qint64(0);
        QTest::newRow("not a pickle")
            << QByteArray("{\"a\": 1}") << "byte 0x7b at byte 0 is not a pickle opcode" << qint64(0);
        QTest::newRow("empty") << QByteArray() << "an empty file, not a pickle" << qint64(0);
        QTest::newRow("no STOP") << hexBytes("80 04 4e")
                                 << "the pickle ends at byte 3 without its STOP opcode" << qint64(3);
        QTest::newRow("APPEND on an empty stack")
            << hexBytes("80 04 61 2e") << "APPEND at byte 2 needs 2 value(s) on the stack, there are 0"
            << qint64(2);
        QTest::newRow("APPEND to a dict")
            << hexBytes("80 04 7d 4e 61 2e") << "APPEND at byte 4 adds to a dict, not a list" << qint64(4);
        QTest::newRow("SETITEMS to a list") << hexBytes("80 04 5d 28 4e 4e 75 2e")
                                            << "SETITEMS at byte 6 adds to a list, not a dict" << qint64(6);
        QTest::newRow("DICT of an odd count")
            << hexBytes("80 04 28 4e 64 2e") << "DICT at byte 4: an odd number of values (1)" << qint64(4);
        QTest::newRow("APPENDS without a MARK")
            << hexBytes("80 04 5d 4e 65 2e") << "APPENDS at byte 4 needs a MARK before it" << qint64(4);
        QTest::newRow("APPENDS with nothing under its MARK")
            << hexBytes("80 04 28 4e 65 2e") << "APPENDS at byte 4: no list under the MARK" << qint64(4);
        QTest::newRow("STOP above a MARK")
            << hexBytes("80 04 4e 28 2e")
            << "STOP at byte 4 needs 1 value(s) on the stack above the last MARK" << qint64(4);
        QTest::newRow("invalid UTF-8")
            << hexBytes("80 04 8c 02 c3 28 2e")
            << "SHORT_BINUNICODE at byte 2: a str of 2 bytes that is not valid UTF-8" << qint64(2);
        QTest::newRow("a UTF-8 surrogate")
            << hexBytes("80 04 8c 03 ed a0 80 2e")
            << "SHORT_BINUNICODE at byte 2: a str of 3 bytes that is not valid UTF-8" << qint64(2);
        QTest::newRow("INT of no number")
            << QByteArray("I12x\n.") << "INT at byte 0: '12x' is not an integer" << qint64(0);
        QTest::newRow("INT without its line end")
            << QByteArray("I12") << "INT at byte 0: its text argument has no line end" << qint64(0);
        QTest::newRow("FLOAT of no number")
            << QByteArray("Fabc\n.") << "FLOAT at byte 0: 'abc' is not a float" << qint64(0);
        QTest::newRow("UNICODE with a short escape")
            << QByteArray("V\\u12\n.") << "UNICODE at byte 0: a \\u escape without 4 hex digits" << qint64(0);
        QTest::newRow("PUT of a negative index")
            << QByteArray("Np-1\n.") << "PUT at byte 1: '-1' is not a memo index" << qint64(1);
    }
    void refused()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, reason);
        QFETCH(qint64, offset);
        const QString marker = QStringLiteral("/tmp/gapscope-hostile-pickle-was-run");
        QFile::remove(marker);
        const PickleReadOutcome read = readPickle(view(pickle));
        QVERIFY(!read.arena);
        QVERIFY2(reasonOf(read).startsWith(reason), qPrintable(reasonOf(read)));
        QCOMPARE(read.error.offset, offset);
        QVERIFY(!QFile::exists(marker));
    }

    // Every cut of a real-shaped pickle (each 37th length, the last bytes one by one) is an error
    // saying where, never a value: the reader does not stop early on a byte that looks like STOP.
    void everyCutIsAnError()
    {
        const QByteArray whole = readData(QStringLiteral("layouts/small-p4.pickle"));
        QVERIFY(readPickle(view(whole)).arena);
        for (qsizetype length = 0; length < whole.size(); length += length + 64 < whole.size() ? 37 : 1) {
            const PickleReadOutcome read = readPickle(view(whole).substr(0, size_t(length)));
            QVERIFY2(!read.arena, qPrintable(QString::number(length)));
            QVERIFY2(read.error.offset <= length, qPrintable(reasonOf(read)));
            QVERIFY2(!read.error.reason.empty(), qPrintable(QString::number(length)));
        }
    }

    // Bytes after STOP are not read (Python's pickle.load leaves them too); stopOffset says where
    // the pickle ended. The memo's holes (BINPUT 3 with nothing at 0-2) are fine, MEMOIZE counts
    // what was set (Python's len(memo)).
    void stopAndMemo()
    {
        const QByteArray trailing = hexBytes("80 04 4e 2e 00 ff");
        const PickleReadOutcome read = readPickle(view(trailing));
        QVERIFY(read.arena);
        QCOMPARE(read.stopOffset, qint64(4));

        // NONE BINPUT 3, NEWTRUE MEMOIZE (index 1: one entry set), BINGET 1 BINGET 3 TUPLE2
        const QByteArray memo = hexBytes("80 04 4e 71 03 30 88 94 30 68 01 68 03 86 2e");
        const PickleReadOutcome tuple = readPickle(view(memo));
        QVERIFY2(tuple.arena, qPrintable(reasonOf(tuple)));
        QCOMPARE(QString::fromStdString(tuple.arena->reprText(tuple.arena->root())),
                 QStringLiteral("(True, None)"));
    }

    // The limits are the reader's and can be lowered: values, container items, memo entries, depth.
    void limits_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<int>("which"); // 0 values, 1 children, 2 memo, 3 depth
        QTest::addColumn<QString>("reason");
        const QByteArray list = hexBytes("80 04 5d 94 28 4b 01 4b 02 4b 03 4b 04 65 2e"); // [1, 2, 3, 4]
        QTest::newRow("values") << list << 0 << "BININT1 at byte 9: more than 3 values";
        QTest::newRow("children") << list << 1 << "APPENDS at byte 13: a container of more than 3 items";
        QTest::newRow("memo") << hexBytes("80 04 4e 94 4e 94 4e 94 2e") << 2
                              << "MEMOIZE at byte 7: more than 2 memo entries";
        QTest::newRow("depth") << hexBytes("80 04 5d 5d 5d 61 61 2e") << 3
                               << "APPEND at byte 6: values nested deeper than 2";
    }
    void limits()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(int, which);
        QFETCH(QString, reason);
        QVERIFY(readPickle(view(pickle)).arena);
        PickleLimits limits;
        switch (which) {
        case 0:
            limits.maxValues = 3;
            break;
        case 1:
            limits.maxChildren = 3;
            break;
        case 2:
            limits.maxMemo = 2;
            break;
        default:
            limits.maxDepth = 2;
            break;
        }
        const PickleReadOutcome read = readPickle(view(pickle), limits);
        QVERIFY(!read.arena);
        QCOMPARE(reasonOf(read), reason);
    }

    // A list appended to between others moves to the end with twice the room: the child ids stay
    // in proportion to the items (a hostile alternation cannot make them quadratic).
    void alternatingAppendsStayLinear()
    {
        // a = [], b = [] (memo 0, 1); then 20 000 times: BINGET 0, NONE, APPEND, BINGET 1, NONE, APPEND
        QByteArray pickle = hexBytes("80 04 5d 94 5d 94 30 30");
        for (int i = 0; i < 20000; ++i)
            pickle += hexBytes("68 00 4e 61 30 68 01 4e 61 30");
        pickle += hexBytes("68 00 68 01 86 2e");
        const PickleReadOutcome read = readPickle(view(pickle));
        QVERIFY2(read.arena, qPrintable(reasonOf(read)));
        const auto pair = read.arena->items(read.arena->root());
        QCOMPARE(read.arena->items(pair[0]).size(), size_t(20000));
        QCOMPARE(read.arena->items(pair[1]).size(), size_t(20000));
        QVERIFY2(read.arena->childCount() < 6 * 40000, qPrintable(QString::number(read.arena->childCount())));
    }

    void cancel()
    {
        const QByteArray whole = readData(QStringLiteral("snapshot.pickle"));
        std::atomic<bool> cancelled{true};
        LoadControl control;
        control.cancel = &cancelled;
        qint64 reported = 0;
        control.progress = [&](qint64 done, qint64) { reported = done; };
        const PickleReadOutcome read = readPickle(view(whole), {}, &control);
        QVERIFY(read.cancelled);
        QVERIFY(!read.arena);
        cancelled = false;
        const PickleReadOutcome all = readPickle(view(whole), {}, &control);
        QVERIFY(all.arena);
        QCOMPARE(reported, qint64(whole.size()));
    }
};

QTEST_GUILESS_MAIN(TestPickleReader)
#include "tst_picklereader.moc"
