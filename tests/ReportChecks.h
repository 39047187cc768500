#pragma once
// Checks of written reports shared by tst_reportwriters and the report writers' fuzz target:
// each returns what is wrong with a text (empty when nothing is), so a test and a fuzzer can
// both say it in their own way.

#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QXmlStreamReader>

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
    QXmlStreamReader xml(html);
    int elements = 0;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement)
            ++elements;
    }
    if (xml.hasError())
        return QStringLiteral("not well-formed, line %1: %2").arg(xml.lineNumber()).arg(xml.errorString());
    if (elements <= minElements)
        return QStringLiteral("only %1 elements").arg(elements);
    if (html.contains(QLatin1String("<script"), Qt::CaseInsensitive))
        return QStringLiteral("holds a script");
    if (html.contains(QLatin1String("http://"), Qt::CaseInsensitive) ||
        html.contains(QLatin1String("https://"), Qt::CaseInsensitive))
        return QStringLiteral("holds a URL");
    if (!html.contains(QLatin1String("prefers-color-scheme: dark")))
        return QStringLiteral("no dark style");
    return {};
}

// The Markdown report: no raw '<' or '&' (markup and entities only come escaped), and the
// rows of each table have as many unescaped '|' as its header.
inline QString markdownProblem(const QString& md)
{
    static const QRegularExpression rawMarkup(QStringLiteral("(?<!\\\\)[<&]"));
    static const QRegularExpression cellBorder(QStringLiteral("(?<!\\\\)\\|"));
    const QRegularExpressionMatch raw = rawMarkup.match(md);
    if (raw.hasMatch())
        return QStringLiteral("unescaped '%1' at %2")
            .arg(raw.captured(), QString::number(raw.capturedStart()));
    qsizetype cells = -1;
    int lineNumber = 0;
    for (const QString& line : md.split(QLatin1Char('\n'))) {
        ++lineNumber;
        if (!line.startsWith(QLatin1Char('|'))) {
            cells = -1; // a table ends at the first line that is not a row
            continue;
        }
        const qsizetype borders = line.count(cellBorder);
        if (cells < 0)
            cells = borders;
        else if (borders != cells)
            return QStringLiteral("line %1 has %2 cell borders, its table %3: %4")
                .arg(lineNumber)
                .arg(borders)
                .arg(cells)
                .arg(line.left(200));
    }
    return {};
}

} // namespace gapscope::checks
