// The text helpers: UTF-8 conversion, English plurals, bytes, shares and seconds as the GUI and
// the reports print them, and the escaping of trace-provided text for HTML, Markdown and CSV
// (formula neutralisation).
#include "model/text/Text.h"

#include "analysis/GapAnalysis.h"

#include <QTest>

#include <limits>

#include <string>

using namespace gapscope;

class TestText : public QObject
{
    Q_OBJECT

private slots:
    void utf8()
    {
        QCOMPARE(qs(std::string_view("gr\xc3\xb6\xc3\x9f"
                                     "e")),
                 QStringLiteral("größe"));
        QCOMPARE(qs(std::string("host7")), QStringLiteral("host7"));
        QCOMPARE(qs(std::string_view("a\0b", 3)).size(), 3); // the view's length, not up to a NUL
        QVERIFY(qs(std::string_view()).isEmpty());
    }

    void numbers_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QList<qint64>>("numbers");
        QTest::addColumn<QString>("expected");
        QTest::newRow("two") << QStringLiteral("row has %1 cells, the header has %2") << QList<qint64>{3, 20}
                             << QStringLiteral("row has 3 cells, the header has 20");
        QTest::newRow("reordered") << QStringLiteral("%2 before %1") << QList<qint64>{1, 2}
                                   << QStringLiteral("2 before 1");
        QTest::newRow("extremes") << QStringLiteral("%1..%2") << QList<qint64>{INT64_MIN, INT64_MAX}
                                  << QStringLiteral("-9223372036854775808..9223372036854775807");
        QTest::newRow("no such number")
            << QStringLiteral("%1 of %3, 100%") << QList<qint64>{7} << QStringLiteral("7 of %3, 100%");
        QTest::newRow("percent at the end") << QStringLiteral("%") << QList<qint64>{1} << QStringLiteral("%");
        QTest::newRow("utf-8") << QStringLiteral("größe %1") << QList<qint64>{0} << QStringLiteral("größe 0");
        QTest::newRow("longer than the stack buffer")
            << QString(300, QLatin1Char('x')) + QStringLiteral(" %1") << QList<qint64>{-5}
            << QString(300, QLatin1Char('x')) + QStringLiteral(" -5");
    }

    // withNumbers writes what QString::arg writes, for the patterns it takes.
    void numbers()
    {
        QFETCH(QString, pattern);
        QFETCH(QList<qint64>, numbers);
        QFETCH(QString, expected);
        const QByteArray utf8 = pattern.toUtf8();
        const std::string_view view(utf8.constData(), size_t(utf8.size()));
        QString result;
        if (numbers.size() == 1)
            result = withNumbers(view, {numbers[0]});
        else
            result = withNumbers(view, {numbers[0], numbers[1]});
        QCOMPARE(result, expected);
        if (!pattern.contains(QStringLiteral("%3")) && pattern != QStringLiteral("%")) {
            QString viaArg = pattern;
            for (qint64 n : numbers)
                viaArg = viaArg.arg(n);
            QCOMPARE(result, viaArg);
        }
    }

    void decimal_data()
    {
        QTest::addColumn<qint64>("n");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << qint64(0) << QStringLiteral("line:0");
        QTest::newRow("negative") << qint64(-42) << QStringLiteral("line:-42");
        QTest::newRow("smallest") << qint64(INT64_MIN) << QStringLiteral("line:-9223372036854775808");
        QTest::newRow("largest") << qint64(INT64_MAX) << QStringLiteral("line:9223372036854775807");
    }

    // appendDecimal appends what QString::number gives.
    void decimal()
    {
        QFETCH(qint64, n);
        QFETCH(QString, expected);
        QString out = QStringLiteral("line:");
        appendDecimal(out, n);
        QCOMPARE(out, expected);
        QCOMPARE(out, QStringLiteral("line:") + QString::number(n));
    }

    void texts_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        QTest::addColumn<QString>("expected");
        QTest::newRow("key") << QStringLiteral("unknown key '%1' ignored") << QStringLiteral("colour")
                             << QString() << QStringLiteral("unknown key 'colour' ignored");
        QTest::newRow("utf-8 text") << QStringLiteral("%1 = %2") << QStringLiteral("größe")
                                    << QStringLiteral("€") << QStringLiteral("größe = €");
        QTest::newRow("twice") << QStringLiteral("%1 and %1") << QStringLiteral("a") << QString()
                               << QStringLiteral("a and a");
        QTest::newRow("a text holding %2 is not read again")
            << QStringLiteral("%1 then %2") << QStringLiteral("%2") << QStringLiteral("x")
            << QStringLiteral("%2 then x");
        QTest::newRow("empty text") << QStringLiteral("[%1]") << QString() << QString()
                                    << QStringLiteral("[]");
        QTest::newRow("longer than the stack buffer")
            << QStringLiteral("<%1>") << QString(400, QLatin1Char('y')) << QString()
            << QStringLiteral("<") + QString(400, QLatin1Char('y')) + QStringLiteral(">");
    }

    void texts()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, first);
        QFETCH(QString, second);
        QFETCH(QString, expected);
        const QByteArray p = pattern.toUtf8(), a = first.toUtf8(), b = second.toUtf8();
        auto view = [](const QByteArray& bytes) {
            return std::string_view(bytes.constData(), size_t(bytes.size()));
        };
        QCOMPARE(withTexts(view(p), {view(a), view(b)}), expected);
    }

    void plural_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<QString>("expected");
        QTest::newRow("none") << QStringLiteral("0 finding(s)") << qint64(0) << QStringLiteral("0 findings");
        QTest::newRow("one") << QStringLiteral("1 finding(s)") << qint64(1) << QStringLiteral("1 finding");
        QTest::newRow("many") << QStringLiteral("7 tick(s) not logged") << qint64(7)
                              << QStringLiteral("7 ticks not logged");
        QTest::newRow("every marker")
            << QStringLiteral("1 row(s), 1 col(s)") << qint64(1) << QStringLiteral("1 row, 1 col");
        QTest::newRow("no marker") << QStringLiteral("sessions") << qint64(1) << QStringLiteral("sessions");
    }

    void plural()
    {
        QFETCH(QString, text);
        QFETCH(qint64, n);
        QFETCH(QString, expected);
        QCOMPARE(englishPlural(text, n), expected);
    }

    void bytes_data()
    {
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("plain");
        QTest::addColumn<QString>("signedText");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0 B") << QStringLiteral("0 B");
        QTest::newRow("bytes") << 512.0 << QStringLiteral("512 B") << QStringLiteral("+512 B");
        QTest::newRow("mebibytes") << 12.0 * 1024 * 1024 << QStringLiteral("12.00 MiB")
                                   << QStringLiteral("+12.00 MiB");
        QTest::newRow("negative") << -3.0 * 1024 * 1024 << QStringLiteral("-3.00 MiB")
                                  << QStringLiteral("-3.00 MiB");
        QTest::newRow("gibibytes") << 3.25 * 1024 * 1024 * 1024 << QStringLiteral("3.25 GiB")
                                   << QStringLiteral("+3.25 GiB");
    }

    void bytes()
    {
        QFETCH(double, bytes);
        QFETCH(QString, plain);
        QFETCH(QString, signedText);
        QCOMPARE(bytesText(bytes), plain);
        QCOMPARE(signedBytesText(bytes), signedText);
        QCOMPARE(bytesPerSecondText(bytes), plain + QStringLiteral("/s"));
        // the same count from an integer column
        QCOMPARE(bytesText(int64_t(bytes)), plain);
        QCOMPARE(bytesText(qint64(bytes)), plain);
    }

    void bytesNotRecorded()
    {
        QCOMPARE(bytesText(kNullInt), QStringLiteral("n/a"));
        QCOMPARE(bytesText(kNullInt + 1), QStringLiteral("-8.00 EiB")); // a value, however odd
        QCOMPARE(bytesText(0), QStringLiteral("0 B"));
    }

    void percent_data()
    {
        QTest::addColumn<double>("ratio");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << 0.0 << 1 << QStringLiteral("0.0 %");
        QTest::newRow("share") << 0.3124 << 1 << QStringLiteral("31.2 %");
        QTest::newRow("two decimals") << 0.3124 << 2 << QStringLiteral("31.24 %");
        QTest::newRow("whole") << 1.0 << 1 << QStringLiteral("100.0 %");
        QTest::newRow("over") << 1.5 << 0 << QStringLiteral("150 %");
    }

    void percent()
    {
        QFETCH(double, ratio);
        QFETCH(int, decimals);
        QFETCH(QString, expected);
        QCOMPARE(percentText(ratio, decimals), expected);
    }

    void share_data()
    {
        QTest::addColumn<double>("part");
        QTest::addColumn<double>("whole");
        QTest::addColumn<QString>("expected");
        QTest::newRow("quarter") << 256.0 << 1024.0 << QStringLiteral("25.0 %");
        QTest::newRow("all") << 7.0 << 7.0 << QStringLiteral("100.0 %");
        QTest::newRow("of nothing") << 5.0 << 0.0 << QStringLiteral("—");
        QTest::newRow("of negative") << 5.0 << -1.0 << QStringLiteral("—");
    }

    void share()
    {
        QFETCH(double, part);
        QFETCH(double, whole);
        QFETCH(QString, expected);
        QCOMPARE(shareText(part, whole), expected);
    }

    void seconds_data()
    {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0.000 s");
        QTest::newRow("milliseconds") << 1.5 << QStringLiteral("1.500 s");
        QTest::newRow("rounded") << 0.0123456 << QStringLiteral("0.012 s");
        QTest::newRow("minutes stay seconds") << 125.25 << QStringLiteral("125.250 s");
    }

    void seconds()
    {
        QFETCH(double, seconds);
        QFETCH(QString, expected);
        QCOMPARE(secondsText(seconds), expected);
    }

    // One time formatter (issue 17 item 10): units follow the value, decimals the resolution.
    void duration_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<qint64>("resolution");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("relative");
        constexpr qint64 ms = 1'000'000;
        constexpr qint64 s = 1000 * ms;
        QTest::newRow("tooltip of a 30 s view") << 12'500'000'000LL << 10 * ms << "12.50 s"
                                                << "+12.50 s";
        QTest::newRow("not to the nanosecond") << 12'500'000'123LL << ms << "12.500 s"
                                               << "+12.500 s";
        QTest::newRow("rounded") << 12'499'600'000LL << ms << "12.500 s"
                                 << "+12.500 s";
        QTest::newRow("zero") << 0LL << ms << "0.000 s"
                              << "+0.000 s";
        QTest::newRow("negative") << -250 * ms << ms << "0.250 s"
                                  << "-0.250 s";
        QTest::newRow("8-hour trace at 1 s") << 29'750'010 * ms << s << "8 h 15 min 50 s"
                                             << "+8 h 15 min 50 s";
        QTest::newRow("8-hour trace at 1 ms") << 29'750'010 * ms << ms << "8 h 15 min 50.010 s"
                                              << "+8 h 15 min 50.010 s";
        QTest::newRow("whole hours") << 3600 * s << s << "1 h"
                                     << "+1 h";
        QTest::newRow("minutes") << 125'500 * ms << ms << "2 min 5.500 s"
                                 << "+2 min 5.500 s";
        QTest::newRow("step of 250 ms") << 60'250 * ms << 250 * ms << "1 min 0.25 s"
                                        << "+1 min 0.25 s";
        QTest::newRow("microseconds") << 50'000LL << 1000LL << "0.000050 s"
                                      << "+0.000050 s";
        QTest::newRow("rounds up a minute") << 59'999'600'000LL << ms << "1 min"
                                            << "+1 min";
        QTest::newRow("int64 bottom") << std::numeric_limits<qint64>::min() << s << "2562047 h 47 min 16 s"
                                      << "-2562047 h 47 min 16 s";
    }

    void duration()
    {
        QFETCH(qint64, ns);
        QFETCH(qint64, resolution);
        QFETCH(QString, expected);
        QFETCH(QString, relative);
        if (ns < 0)
            expected = QLatin1Char('-') + expected;
        QCOMPARE(durationText(ns, resolution), expected);
        QCOMPARE(relativeTimeText(ns, resolution), relative);
    }

    void resolution_data()
    {
        QTest::addColumn<qint64>("span");
        QTest::addColumn<qint64>("steps");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("30 s table") << 30'000'000'000LL << 10'000LL << 1'000'000LL;
        QTest::newRow("8 h table") << 28'800'000'000'000LL << 10'000LL << 1'000'000'000LL;
        QTest::newRow("30 s over 800 px") << 30'000'000'000LL << 800LL << 10'000'000LL;
        QTest::newRow("5 ms over 800 px") << 5'000'000LL << 800LL << 1'000LL;
        QTest::newRow("tiny") << 3LL << 800LL << 1LL;
        QTest::newRow("one instant") << 0LL << 10'000LL << 1'000'000LL;
        QTest::newRow("days stay at a second") << 864'000'000'000'000LL << 10'000LL << 1'000'000'000LL;
    }

    void resolution()
    {
        QFETCH(qint64, span);
        QFETCH(qint64, steps);
        QFETCH(qint64, expected);
        QCOMPARE(timeResolutionNs(span, steps), expected);
    }

    void confidence()
    {
        // one format wherever a person reads it
        QCOMPARE(confidenceText(1.0), QStringLiteral("100.0 %"));
        QCOMPARE(confidenceText(0.8734), QStringLiteral("87.3 %"));
        QCOMPARE(confidenceText(0.0), QStringLiteral("0.0 %"));
    }

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
        // not allowed in XML 1.0 (fuzz_report_writers made a report no XML parser reads)
        QTest::newRow("noncharacters dropped")
            << (QStringLiteral("a") + QChar(0xffff) + QStringLiteral("b") + QChar(0xfffe))
            << QStringLiteral("ab");
        QTest::newRow("empty") << QString() << QString();
        // issue 32, item 9: a bidirectional control would reorder what follows it
        QTest::newRow("right-to-left override")
            << QStringLiteral("report\u202Etxt.exe") << QStringLiteral("report[U+202E]txt.exe");
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
                                  << QStringLiteral("\\<script\\>alert(1)\\</script\\>");
        QTest::newRow("emphasis and code")
            << QStringLiteral("*a* _b_ `c`") << QStringLiteral("\\*a\\* \\_b\\_ \\`c\\`");
        QTest::newRow("link") << QStringLiteral("[x](http://e)") << QStringLiteral("\\[x\\](http://e)");
        QTest::newRow("table cell") << QStringLiteral("a|b") << QStringLiteral("a\\|b");
        QTest::newRow("heading") << QStringLiteral("# h") << QStringLiteral("\\# h");
        QTest::newRow("not a heading") << QStringLiteral("#5 of 9") << QStringLiteral("#5 of 9");
        QTest::newRow("ordered list") << QStringLiteral("1. first") << QStringLiteral("1\\. first");
        QTest::newRow("bullet") << QStringLiteral("- item") << QStringLiteral("\\- item");
        QTest::newRow("rule") << QStringLiteral("---") << QStringLiteral("\\---");
        QTest::newRow("a number is not a list") << QStringLiteral("5.13 GiB") << QStringLiteral("5.13 GiB");
        QTest::newRow("line breaks cannot start a block")
            << QStringLiteral("a\n# b\r\n- c") << QStringLiteral("a # b  - c");
        QTest::newRow("backslash") << QStringLiteral("C:\\x") << QStringLiteral("C:\\\\x");
        QTest::newRow("formula") << QStringLiteral("=cmd|' /C calc'!A0")
                                 << QStringLiteral("=cmd\\|' /C calc'!A0");
        // an entity would be decoded by the renderer: "&lt;b&gt;" must show as typed, not as <b>
        QTest::newRow("entities") << QStringLiteral("&lt;b&gt; &#60; AT&T")
                                  << QStringLiteral("\\&lt;b\\&gt; \\&#60; AT&T");
        QTest::newRow("right-to-left isolate")
            << QStringLiteral("a\u2067b") << QStringLiteral("a\\[U+2067\\]b");
        // issue 31, item 8: prose reads as prose, code as code
        QTest::newRow("duration") << QStringLiteral("12.378 s") << QStringLiteral("12.378 s");
        QTest::newRow("prose") << QStringLiteral("e.g. a z-score of 2.5 at 238.67 MiB/s.")
                               << QStringLiteral("e.g. a z-score of 2.5 at 238.67 MiB/s.");
        QTest::newRow("call") << QStringLiteral("Call torch.cuda.memory_stats() now.")
                              << QStringLiteral("Call `torch.cuda.memory_stats()` now.");
        QTest::newRow("setting in parentheses")
            << QStringLiteral("(e.g. PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512)")
            << QStringLiteral("(e.g. `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512`)");
        QTest::newRow("identifier") << QStringLiteral("device_used_bytes")
                                    << QStringLiteral("`device_used_bytes`");
        QTest::newRow("option and setting") << QStringLiteral("--set gap_ratio_threshold=0.01")
                                            << QStringLiteral("`--set` `gap_ratio_threshold=0.01`");
        QTest::newRow("path") << QStringLiteral("$TESTDATA/fixtures/frag.jsonl (JSON lines)")
                              << QStringLiteral("`$TESTDATA/fixtures/frag.jsonl` (JSON lines)");
        QTest::newRow("file name") << QStringLiteral("read manifest.json, then")
                                   << QStringLiteral("read `manifest.json`, then");
        QTest::newRow("subscript")
            << QStringLiteral("torch.cuda.memory_stats()['inactive_split_bytes.all.current']")
            << QStringLiteral("`torch.cuda.memory_stats()['inactive_split_bytes.all.current']`");
        QTest::newRow("a pipe is never code")
            << QStringLiteral("a `b|c` d") << QStringLiteral("a \\`b\\|c\\` d");
        QTest::newRow("a backtick is never code")
            << QStringLiteral("x`_y_`") << QStringLiteral("x\\`\\_y\\_\\`");
        QTest::newRow("edge underscore") << QStringLiteral("x_ _y") << QStringLiteral("x\\_ \\_y");
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
        QTest::newRow("right-to-left override")
            << QStringLiteral("r\u202Etxt.exe") << QStringLiteral("r[U+202E]txt.exe");
    }

    void csv()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(csvField(input), expected);
    }

    // issue 32, items 3, 4 and 9: names as they are shown and written to row-oriented exports
    void shown_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("maxChars");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << QStringLiteral("train/step") << 256 << QStringLiteral("train/step");
        QTest::newRow("right-to-left override (a .exe spoof)")
            << QStringLiteral("report\u202Etxt.exe") << 256 << QStringLiteral("report[U+202E]txt.exe");
        QTest::newRow("every bidi control")
            << QStringLiteral("\u061C\u200E\u200F\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069") << 256
            << QStringLiteral("[U+061C][U+200E][U+200F][U+202A][U+202B][U+202C][U+202D][U+2066][U+2067]"
                              "[U+2068][U+2069]");
        QTest::newRow("zero-width joiner is no control")
            << QStringLiteral("a\u200Db") << 256 << QStringLiteral("a\u200Db");
        QTest::newRow("at the limit") << QString(8, QLatin1Char('x')) << 8 << QString(8, QLatin1Char('x'));
        QTest::newRow("one over") << QString(9, QLatin1Char('x')) << 8
                                  << QString(8, QLatin1Char('x')) +
                                         QStringLiteral(" \u2026 (1 more characters)");
        QTest::newRow("a 1 MB name") << QString(1 << 20, QLatin1Char('p')) << 256
                                     << QString(256, QLatin1Char('p')) +
                                            QStringLiteral(" \u2026 (1048320 more characters)");
        // the cut never splits a surrogate pair (U+1F600 is two UTF-16 units)
        QTest::newRow("surrogate pair at the cut")
            << QStringLiteral("abc\U0001F600d") << 4 << QStringLiteral("abc \u2026 (3 more characters)");
    }
    void shown()
    {
        QFETCH(QString, input);
        QFETCH(int, maxChars);
        QFETCH(QString, expected);
        QCOMPARE(shownText(input, maxChars), expected);
    }
};

QTEST_APPLESS_MAIN(TestText)
#include "tst_text.moc"
