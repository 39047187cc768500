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
