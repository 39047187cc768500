// Escaping of trace-provided text for HTML, Markdown and CSV (formula neutralisation).
#include "model/report/TextEscape.h"

#include <QTest>

using namespace gapscope;

class TestTextEscape : public QObject
{
    Q_OBJECT

private slots:
    void html_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << QStringLiteral("train / step") << QStringLiteral("train / step");
        QTest::newRow("script") << QStringLiteral("<script>alert(1)</script>")
                                << QStringLiteral("&lt;script&gt;alert(1)&lt;/script&gt;");
        QTest::newRow("attribute breakout")
            << QStringLiteral("\" onload='x'") << QStringLiteral("&quot; onload=&#39;x&#39;");
        QTest::newRow("ampersand first") << QStringLiteral("&lt;") << QStringLiteral("&amp;lt;");
        QTest::newRow("control characters dropped") << QStringLiteral("a\x01"
                                                                      "b\tc\nd")
                                                    << QStringLiteral("ab\tc\nd");
        QTest::newRow("non-ascii kept") << QStringLiteral("größe ✓") << QStringLiteral("größe ✓");
        QTest::newRow("empty") << QString() << QString();
    }

    void html()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(htmlEscape(input), expected);
    }

    void markdown_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << QStringLiteral("host7") << QStringLiteral("host7");
        QTest::newRow("html tag") << QStringLiteral("<script>alert(1)</script>")
                                  << QStringLiteral("\\<script\\>alert\\(1\\)\\</script\\>");
        QTest::newRow("emphasis and code")
            << QStringLiteral("*a* _b_ `c`") << QStringLiteral("\\*a\\* \\_b\\_ \\`c\\`");
        QTest::newRow("link") << QStringLiteral("[x](http://e)") << QStringLiteral("\\[x\\]\\(http://e\\)");
        QTest::newRow("table cell") << QStringLiteral("a|b") << QStringLiteral("a\\|b");
        QTest::newRow("heading") << QStringLiteral("# h") << QStringLiteral("\\# h");
        QTest::newRow("line breaks cannot start a block")
            << QStringLiteral("a\n# b\r\n- c") << QStringLiteral("a \\# b  \\- c");
        QTest::newRow("backslash") << QStringLiteral("C:\\x") << QStringLiteral("C:\\\\x");
        QTest::newRow("formula") << QStringLiteral("=cmd|' /C calc'!A0")
                                 << QStringLiteral("\\=cmd\\|' /C calc'\\!A0");
        // an entity would be decoded by the renderer: "&lt;b&gt;" must show as typed, not as <b>
        QTest::newRow("entities") << QStringLiteral("&lt;b&gt; &#60; AT&T")
                                  << QStringLiteral("\\&lt;b\\&gt; \\&\\#60; AT\\&T");
    }

    void markdown()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(markdownEscape(input), expected);
    }

    void csv_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << QStringLiteral("gpu-node-7") << QStringLiteral("gpu-node-7");
        QTest::newRow("empty") << QString() << QString();
        QTest::newRow("comma") << QStringLiteral("a,b") << QStringLiteral("\"a,b\"");
        QTest::newRow("quote") << QStringLiteral("say \"hi\"") << QStringLiteral("\"say \"\"hi\"\"\"");
        QTest::newRow("newline") << QStringLiteral("a\nb") << QStringLiteral("\"a\nb\"");
        QTest::newRow("equals") << QStringLiteral("=cmd|' /C calc'!A0")
                                << QStringLiteral("\"'=cmd|' /C calc'!A0\"");
        QTest::newRow("plus") << QStringLiteral("+1+1") << QStringLiteral("\"'+1+1\"");
        QTest::newRow("minus") << QStringLiteral("-2+3") << QStringLiteral("\"'-2+3\"");
        QTest::newRow("at") << QStringLiteral("@SUM(A1)") << QStringLiteral("\"'@SUM(A1)\"");
        QTest::newRow("tab") << QStringLiteral("\t=1") << QStringLiteral("\"'\t=1\"");
        QTest::newRow("carriage return") << QStringLiteral("\r=1") << QStringLiteral("\"'\r=1\"");
        QTest::newRow("formula with quote") << QStringLiteral("=\"x\"") << QStringLiteral("\"'=\"\"x\"\"\"");
        QTest::newRow("equals inside is harmless") << QStringLiteral("a=b") << QStringLiteral("a=b");
    }

    void csv()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(csvField(input), expected);
    }
};

QTEST_APPLESS_MAIN(TestTextEscape)
#include "tst_textescape.moc"
