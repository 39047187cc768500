// Markdown fields read back (model/text/Text.h markdownEscape): what a Markdown renderer shows
// of an escaped field is the field's text, exactly. The renderer is Qt's own (QTextDocument,
// md4c with GitHub's dialect: tables, strikethrough, autolinks), in a paragraph and in a table
// cell, on prose and code from gapscope's own reports and on hostile names.
#include "model/text/Text.h"

#include <QTest>
#include <QTextDocument>

using namespace gapscope;

namespace {

// What a reader sees: the field with line breaks and tabs as spaces (markdownEscape makes one
// line of it) and bidirectional controls written out.
QString shown(QString text)
{
    text.replace(QLatin1Char('\n'), QLatin1Char(' ')).replace(QLatin1Char('\r'), QLatin1Char(' '));
    return text.replace(QLatin1Char('\t'), QLatin1Char(' '));
}

QString rendered(const QString& markdown)
{
    QTextDocument document;
    document.setMarkdown(markdown, QTextDocument::MarkdownDialectGitHub);
    return document.toPlainText();
}

} // namespace

class TestMarkdownText : public QObject
{
    Q_OBJECT
private slots:
    void readsBack_data()
    {
        QTest::addColumn<QString>("text");
        const QStringList texts{
            QStringLiteral("host7"),
            QStringLiteral("<script>alert(1)</script>"),
            QStringLiteral("*a* _b_ `c` **d** __e__ ~~f~~ ~g~"),
            QStringLiteral("[x](http://e) ![i](y.png) <http://a.b> www.example.com"),
            QStringLiteral("# h"),
            QStringLiteral("1. first"),
            QStringLiteral("2) second"),
            QStringLiteral("- item"),
            QStringLiteral("+ item"),
            QStringLiteral("---"),
            QStringLiteral("==="),
            QStringLiteral("> quote"),
            QStringLiteral("5.13 GiB at +13.800 s"),
            QStringLiteral("C:\\x \\* \\\\"),
            QStringLiteral("&lt;b&gt; &#60; &#x3C; AT&T &amp"),
            QStringLiteral("12.378 s"),
            QStringLiteral("Call torch.cuda.memory_stats() now."),
            QStringLiteral("(e.g. PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512)"),
            QStringLiteral("--set gap_ratio_threshold=0.01"),
            QStringLiteral("$TESTDATA/fixtures/frag.jsonl (JSON lines)"),
            QStringLiteral("torch.cuda.memory_stats()['inactive_split_bytes.all.current']"),
            QStringLiteral("a `b|c` d x`_y_` x_ _y snake_case_name"),
            QStringLiteral(
                "Measure the stranded cache: torch.cuda.memory_stats()['inactive_split_bytes.all.current'] "
                "and torch.cuda.memory_snapshot() list the segments and the free blocks inside them."),
            QStringLiteral(
                "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the caching allocator grows "
                "segments in place."),
            QStringLiteral("train / step (phase_scope), 6513270e-269e-0d37-f2a7-4de452e6b438"),
            QStringLiteral("a\n# b\r\n- c\td"),
            QStringLiteral("|a|b|"),
            QStringLiteral("`` ` ``"),
        };
        for (const QString& text : texts)
            QTest::newRow(qPrintable(text.left(40))) << text;
    }
    void readsBack()
    {
        QFETCH(QString, text);
        const QString field = markdownEscape(text);
        QCOMPARE(rendered(field), shown(text));
        // a table cell: the pipe ends a cell even in a code span, so it must not end this one
        const QString table = QStringLiteral("| a | b |\n|---|---|\n| ") + field + QStringLiteral(" | x |\n");
        const QString cells = rendered(table);
        QVERIFY2(cells.contains(shown(text).trimmed()), qPrintable(cells));
        QVERIFY2(cells.trimmed().endsWith(QLatin1String("x")), qPrintable(cells));
    }
};

QTEST_MAIN(TestMarkdownText)
#include "tst_markdowntext.moc"
