#include "model/trace/PyLiteral.h"

#include <QTest>

using namespace gapscope;

class TestPyLiteral : public QObject
{
    Q_OBJECT
private slots:
    void converts_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("json");
        QTest::newRow("empty dict") << "{}"
                                    << "{}";
        QTest::newRow("python dict") << "{'backend': 'cuda', 'x': None, 'ok': True, 'path': ['a', 'b']}"
                                     << R"({"backend":"cuda","x":null,"ok":true,"path":["a","b"]})";
        QTest::newRow("json text") << R"({"a": [1, 2.5, -3e-05], "b": false, "c": null})"
                                   << R"({"a":[1,2.5,-3e-05],"b":false,"c":null})";
        QTest::newRow("nested and tuple") << "{'s': {'t': (1, 2)}, 'e': []}"
                                          << R"({"s":{"t":[1,2]},"e":[]})";
        QTest::newRow("escapes") << "{'q': 'it\\'s \"x\"\\n', 'u': '\\u00e9\\x41'}"
                                 << "{\"q\":\"it's \\\"x\\\"\\n\",\"u\":\"\xc3\xa9"
                                    "A\"}";
        QTest::newRow("double-quoted python string") << R"({"k": "a'b"})"
                                                     << R"({"k":"a'b"})";
        QTest::newRow("non-string keys as json.dumps") << "{1: 'a', True: 'b', None: 'c'}"
                                                       << R"({"1":"a","true":"b","null":"c"})";
        QTest::newRow("nan and inf become null") << "[nan, inf, -inf]"
                                                 << "[null,null,null]";
        QTest::newRow("trailing commas") << "{'a': [1, 2,],}"
                                         << R"({"a":[1,2]})";
        QTest::newRow("json surrogate pair") << R"("\ud83d\ude00")"
                                             << "\"\xf0\x9f\x98\x80\"";
        QTest::newRow("bytes repr") << "b'ab'"
                                    << R"("ab")";
        QTest::newRow("phase scope as upstream writes it")
            << "{'phase_scope': {'action': 'enter', 'name': 'warmup', 'path': ['warmup'], 'depth': 1, "
               "'parent_scope_id': None, 'thread_id': 139723376164928, 'sequence': 1}}"
            << R"({"phase_scope":{"action":"enter","name":"warmup","path":["warmup"],"depth":1,)"
               R"("parent_scope_id":null,"thread_id":139723376164928,"sequence":1}})";
    }
    void converts()
    {
        QFETCH(QString, input);
        QFETCH(QString, json);
        std::string error;
        const auto converted = pythonLiteralToJson(input.toStdString(), &error);
        QVERIFY2(converted.has_value(), error.c_str());
        QCOMPARE(QString::fromStdString(*converted), json);
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("reason");
        QTest::newRow("unterminated string") << "{'a': 'b}"
                                             << "unterminated string";
        QTest::newRow("missing colon") << "{'a' 1}"
                                       << "expected ':' in dict";
        QTest::newRow("bare word") << "{'a': cuda}"
                                   << "unexpected token 'cuda'";
        QTest::newRow("trailing text") << "{} x"
                                       << "unexpected text after the value";
        QTest::newRow("empty") << ""
                               << "unexpected end of text";
        QTest::newRow("hex int is not a literal repr prints") << "[0x10]"
                                                              << "unexpected token '0x10'";
        QTest::newRow("unclosed list") << "[1, 2"
                                       << "expected ',' or ']'";
    }
    void rejects()
    {
        QFETCH(QString, input);
        QFETCH(QString, reason);
        std::string error;
        QVERIFY(!pythonLiteralToJson(input.toStdString(), &error).has_value());
        QVERIFY2(QString::fromStdString(error).startsWith(reason), error.c_str());
    }

    void deepNestingIsRefused()
    {
        const std::string deep = std::string(2000, '[') + std::string(2000, ']');
        std::string error;
        QVERIFY(!pythonLiteralToJson(deep, &error).has_value());
        QVERIFY(error.find("nesting too deep") != std::string::npos);
    }

    void jsonStringEscaping()
    {
        std::string out;
        appendJsonString(out, std::string_view("a\"b\\c\x01\t", 7));
        QCOMPARE(QString::fromStdString(out), QStringLiteral("\"a\\\"b\\\\c\\u0001\\t\""));
        QVERIFY(isJsonNumber("-0.5e+3"));
        QVERIFY(!isJsonNumber("01"));
        QVERIFY(!isJsonNumber("1."));
        QVERIFY(!isJsonNumber("+1"));
    }
};

QTEST_GUILESS_MAIN(TestPyLiteral)
#include "tst_pyliteral.moc"
