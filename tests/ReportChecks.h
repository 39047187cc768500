#pragma once
// Checks of written reports shared by tst_reportwriters and the report writers' fuzz target:
// each returns what is wrong with a text (empty when nothing is), so a test and a fuzzer can
// both say it in their own way.

#include <QList>
#include <QString>
#include <QStringList>
#include <QXmlStreamReader>

#include <algorithm>

namespace gapscope::checks {

// Parses RFC 4180 text into records of fields (records end with CRLF).
inline QList<QStringList> parseCsv(const QString& text)
{
    QList<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
        } else if (c == QLatin1Char('\r') && i + 1 < text.size() && text[i + 1] == QLatin1Char('\n')) {
            record << field;
            field.clear();
            records << record;
            record.clear();
            ++i;
        } else {
            field += c;
        }
    }
    return records;
}

// The HTML report: well-formed XML with at least minElements elements, no script, no URL
// that would reach out, light and dark styles.
inline QString htmlProblem(const QString& html, int minElements = 20)
{
    // One reader for every call of a thread: the fuzz target checks an HTML report per
    // execution, and making a reader (its buffers and tables) was a sixth of the check.
    thread_local QXmlStreamReader xml;
    xml.clear();
    xml.addData(html);
    int elements = 0;
    bool script = false;
    // A "<script" of the text: an element, or raw inside a comment, a CDATA section, a
    // processing instruction or the DTD (where an HTML parser may end them sooner than XML
    // does). Text elsewhere and attribute values cannot hold a raw '<' in a well-formed
    // document. Looking at those few tokens saves searching the whole text.
    const auto holdsScript = [](QStringView text) {
        return text.contains(QLatin1String("<script"), Qt::CaseInsensitive);
    };
    while (!xml.atEnd()) {
        switch (xml.readNext()) {
        case QXmlStreamReader::StartElement:
            ++elements;
            script |= xml.name().compare(QLatin1String("script"), Qt::CaseInsensitive) == 0;
            break;
        case QXmlStreamReader::Characters:
            script |= xml.isCDATA() && holdsScript(xml.text());
            break;
        case QXmlStreamReader::Comment:
        case QXmlStreamReader::DTD:
            script |= holdsScript(xml.text());
            break;
        case QXmlStreamReader::ProcessingInstruction:
            script |= holdsScript(xml.processingInstructionData());
            break;
        default:
            break;
        }
    }
    if (xml.hasError())
        return QStringLiteral("not well-formed, line %1: %2").arg(xml.lineNumber()).arg(xml.errorString());
    if (elements <= minElements)
        return QStringLiteral("only %1 elements").arg(elements);
    if (script)
        return QStringLiteral("holds a script");
    // Every "http://" or "https://" in any case holds "://": one exact search settles the
    // usual report without one, instead of two searches that fold the case of every character.
    if (html.contains(QLatin1String("://")) &&
        (html.contains(QLatin1String("http://"), Qt::CaseInsensitive) ||
         html.contains(QLatin1String("https://"), Qt::CaseInsensitive)))
        return QStringLiteral("holds a URL");
    if (!html.contains(QLatin1String("prefers-color-scheme: dark")))
        return QStringLiteral("no dark style");
    return {};
}

// The Markdown report: no raw '<' or '&' (markup and entities only come escaped, after an odd
// number of backslashes: in "\\&" the backslash is escaped and the '&' is raw), and the rows
// of each table (lines starting with '|') have as many unescaped '|' as the first row of their
// table. One pass over the text, without regular expressions: the report writers' fuzz target
// checks every Markdown text it makes.
inline QString markdownProblem(const QString& md)
{
    qsizetype cells = -1;  // cell borders of the current table's first row; -1 outside a table
    qsizetype borders = 0; // unescaped '|' of the current line
    qsizetype lineStart = 0;
    int lineNumber = 1;
    const auto endLine = [&](qsizetype end) -> QString {
        const bool row = lineStart < md.size() && md[lineStart] == QLatin1Char('|');
        if (!row) {
            cells = -1; // a table ends at the first line that is not a row
        } else if (cells < 0) {
            cells = borders;
        } else if (borders != cells) {
            return QStringLiteral("line %1 has %2 cell borders, its table %3: %4")
                .arg(lineNumber)
                .arg(borders)
                .arg(cells)
                .arg(md.mid(lineStart, std::min<qsizetype>(end - lineStart, 200)));
        }
        return {};
    };
    qsizetype backslashes = 0; // right before md[i]
    for (qsizetype i = 0; i < md.size(); ++i) {
        const QChar c = md[i];
        const bool escaped = backslashes % 2 == 1;
        backslashes = c == QLatin1Char('\\') ? backslashes + 1 : 0;
        if ((c == QLatin1Char('<') || c == QLatin1Char('&')) && !escaped)
            return QStringLiteral("unescaped '%1' at %2").arg(c).arg(i);
        if (c == QLatin1Char('|') && !escaped) {
            ++borders;
        } else if (c == QLatin1Char('\n')) {
            if (const QString problem = endLine(i); !problem.isEmpty())
                return problem;
            ++lineNumber;
            lineStart = i + 1;
            borders = 0;
        }
    }
    return endLine(md.size());
}

} // namespace gapscope::checks
