#include "model/report/JsonWriter.h"
#include "model/trace/PyLiteral.h"

#include <QTest>

// No raw string literals here: moc 6.4 does not read them and would skip the class.

#include <cstdint>
#include <limits>

using namespace gapscope;

class TestJsonWriter : public QObject
{
    Q_OBJECT
private slots:
    void escapesStrings_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("empty") << QByteArray("") << QByteArray("\"\"");
        QTest::newRow("plain") << QByteArray("train / step") << QByteArray("\"train / step\"");
        QTest::newRow("quote and backslash") << QByteArray("a\"b\\c") << QByteArray("\"a\\\"b\\\\c\"");
        QTest::newRow("named controls") << QByteArray("\n\r\t\b\f") << QByteArray("\"\\n\\r\\t\\b\\f\"");
        QTest::newRow("other controls, NUL among them")
            << QByteArray("x\x01y\x00z\x1f", 6) << QByteArray("\"x\\u0001y\\u0000z\\u001f\"");
        QTest::newRow("escape first and last") << QByteArray("\"mid\"") << QByteArray("\"\\\"mid\\\"\"");
        QTest::newRow("UTF-8 passes through") << QByteArray("r\xC3\xA9sum\xC3\xA9 \xE2\x86\x92")
                                              << QByteArray("\"r\xC3\xA9sum\xC3\xA9 \xE2\x86\x92\"");
        QTest::newRow("DEL and space pass through") << QByteArray("\x7f \x20") << QByteArray("\"\x7f  \"");
        QTest::newRow("escapes back to back") << QByteArray("\\\\\n\"") << QByteArray("\"\\\\\\\\\\n\\\"\"");
    }

    void escapesStrings()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, json);
        JsonWriter writer(0);
        writer.value(std::string_view(text.constData(), size_t(text.size())));
        QCOMPARE(writer.data(), json);
        // The event store's metadata goes through the same escaper: equal text either way.
        std::string metadata = "prefix:";
        appendJsonString(metadata, std::string_view(text.constData(), size_t(text.size())));
        QCOMPARE(QByteArray::fromStdString(metadata), "prefix:" + json);
    }

    void writesIntegersExactly_data()
    {
        QTest::addColumn<qint64>("signedValue");
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("zero") << qint64(0) << QByteArray("0");
        QTest::newRow("negative") << qint64(-42) << QByteArray("-42");
        QTest::newRow("int64 max") << std::numeric_limits<qint64>::max() << QByteArray("9223372036854775807");
        QTest::newRow("int64 min") << std::numeric_limits<qint64>::min()
                                   << QByteArray("-9223372036854775808");
    }

    void writesIntegersExactly()
    {
        QFETCH(qint64, signedValue);
        QFETCH(QByteArray, json);
        JsonWriter writer(0);
        writer.value(int64_t(signedValue));
        QCOMPARE(writer.data(), json);
    }

    void writesUint64Max()
    {
        JsonWriter writer(0);
        writer.value(std::numeric_limits<uint64_t>::max());
        QCOMPARE(writer.data(), QByteArray("18446744073709551615"));
    }

    // Python's repr() of each value, as Python 3 prints it.
    void writesFloatsAsPythonRepr_data()
    {
        QTest::addColumn<double>("number");
        QTest::addColumn<QByteArray>("repr");
        QTest::newRow("zero") << 0.0 << QByteArray("0.0");
        QTest::newRow("negative zero") << -0.0 << QByteArray("-0.0");
        QTest::newRow("one") << 1.0 << QByteArray("1.0");
        QTest::newRow("tenth") << 0.1 << QByteArray("0.1");
        QTest::newRow("negative") << -2.5 << QByteArray("-2.5");
        QTest::newRow("fraction") << 123.456 << QByteArray("123.456");
        QTest::newRow("1e15 positional") << 1e15 << QByteArray("1000000000000000.0");
        QTest::newRow("largest positional") << 9999999999999998.0 << QByteArray("9999999999999998.0");
        QTest::newRow("1e16 exponent") << 1e16 << QByteArray("1e+16");
        QTest::newRow("17 digits") << 12345678901234567.0 << QByteArray("1.2345678901234568e+16");
        QTest::newRow("1e-4 positional") << 1e-4 << QByteArray("0.0001");
        QTest::newRow("1e-5 exponent") << 1e-5 << QByteArray("1e-05");
        QTest::newRow("two-digit exponent") << 1.5e-7 << QByteArray("1.5e-07");
        QTest::newRow("three-digit exponent") << -1e-300 << QByteArray("-1e-300");
        QTest::newRow("smallest subnormal") << 5e-324 << QByteArray("5e-324");
        QTest::newRow("largest") << 1.7976931348623157e308 << QByteArray("1.7976931348623157e+308");
    }

    void writesFloatsAsPythonRepr()
    {
        QFETCH(double, number);
        QFETCH(QByteArray, repr);
        QCOMPARE(pythonFloatRepr(number), repr);
        JsonWriter writer(0);
        writer.value(number);
        QCOMPARE(writer.data(), repr);
    }

    void writesNonFiniteFloats()
    {
        QCOMPARE(pythonFloatRepr(std::numeric_limits<double>::quiet_NaN()), QByteArray("NaN"));
        QCOMPARE(pythonFloatRepr(std::numeric_limits<double>::infinity()), QByteArray("Infinity"));
        QCOMPARE(pythonFloatRepr(-std::numeric_limits<double>::infinity()), QByteArray("-Infinity"));
        // no strict parser reads those back: the writer's value is null
        JsonWriter writer(0);
        writer.beginArray()
            .value(std::numeric_limits<double>::quiet_NaN())
            .value(-std::numeric_limits<double>::infinity())
            .endArray();
        QCOMPARE(writer.data(), QByteArray("[null,null]"));
    }

    // A QString value is the JSON of its UTF-8, as QString::toUtf8 gives it (a lone surrogate
    // included), escaped as a byte string value would be.
    void writesQStringsAsTheirUtf8_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("plain") << QStringLiteral("rank0.jsonl");
        QTest::newRow("escapes") << QStringLiteral("a\"b\\c\nd\x01");
        QTest::newRow("non-ASCII") << QString::fromUtf8("r\xC3\xA9sum\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80");
        QTest::newRow("non-ASCII and an escape") << QString::fromUtf8("\xC3\xA9\"\xE2\x86\x92");
        QTest::newRow("lone high surrogate") << QString(QChar(0xD800)) + QStringLiteral("x");
        QTest::newRow("lone low surrogate") << QStringLiteral("x") + QString(QChar(0xDC00));
        QTest::newRow("high surrogate last") << QStringLiteral("x") + QString(QChar(0xD83D));
        QTest::newRow("low before high")
            << QString(QChar(0xDE00)) + QString(QChar(0xD83D)) + QStringLiteral("y");
        QTest::newRow("long") << QString(5000, QChar(0x4E2D));
    }

    void writesQStringsAsTheirUtf8()
    {
        QFETCH(QString, text);
        const QByteArray utf8 = text.toUtf8();
        JsonWriter bytes(2);
        bytes.beginArray().value(std::string_view(utf8.constData(), size_t(utf8.size()))).endArray();
        JsonWriter qstring(2);
        qstring.beginArray().value(text).endArray();
        QCOMPARE(qstring.data(), bytes.data());
    }

    // Keys at any depth: up to the depth one append covers and beyond it, plain and escaped.
    void writesKeysAtAnyDepth_data()
    {
        QTest::addColumn<int>("indent");
        QTest::addColumn<int>("depth");
        QTest::addColumn<QByteArray>("key");
        for (const int indent : {0, 2, 4})
            for (const int depth : {1, 31, 32, 33, 40})
                for (const char* key : {"rank", "a\"b", ""})
                    QTest::addRow("indent %d, depth %d, key %s", indent, depth, key)
                        << indent << depth << QByteArray(key);
        QTest::newRow("long key") << 2 << 3 << QByteArray(100, 'k');
    }

    void writesKeysAtAnyDepth()
    {
        QFETCH(int, indent);
        QFETCH(int, depth);
        QFETCH(QByteArray, key);
        JsonWriter writer(indent);
        QByteArray expected;
        const auto lineBreak = [&](int level) {
            if (indent > 0)
                expected += '\n' + QByteArray(level * indent, ' ');
        };
        QByteArray quoted = key;
        quoted.replace("\"", "\\\"");
        for (int level = 0; level < depth; ++level) {
            writer.beginObject();
            if (level > 0)
                expected += ": ";
            expected += '{';
            writer.key(std::string_view(key.constData(), size_t(key.size())));
            lineBreak(level + 1);
            expected += '"' + quoted + '"';
        }
        writer.value(1);
        expected += ": 1";
        // a second key in the innermost object: its comma goes before the break
        writer.key("z").value(2);
        expected += ',';
        lineBreak(depth);
        expected += "\"z\": 2";
        for (int level = depth; level > 0; --level) {
            writer.endObject();
            lineBreak(level - 1);
            expected += '}';
        }
        QCOMPARE(writer.data(), expected);
    }

    void indentsNestedContainers_data()
    {
        QTest::addColumn<int>("indent");
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("indent 2")
            << 2 << QByteArray("{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": {},\n  \"c\": []\n}");
        QTest::newRow("indent 4")
            << 4
            << QByteArray(
                   "{\n    \"a\": [\n        1,\n        \"x\"\n    ],\n    \"b\": {},\n    \"c\": []\n}");
        QTest::newRow("compact") << 0 << QByteArray("{\"a\": [1,\"x\"],\"b\": {},\"c\": []}");
    }

    void indentsNestedContainers()
    {
        QFETCH(int, indent);
        QFETCH(QByteArray, json);
        JsonWriter writer(indent);
        writer.beginObject();
        writer.key("a").beginArray().value(1).value("x").endArray();
        writer.key("b").beginObject().endObject();
        writer.key("c").beginArray().endArray();
        writer.endObject();
        QCOMPARE(writer.data(), json);
    }
};

QTEST_GUILESS_MAIN(TestJsonWriter)
#include "tst_jsonwriter.moc"
