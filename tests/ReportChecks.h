#pragma once
// Checks of written reports shared by tst_reportwriters and the report writers' fuzz target:
// each returns what is wrong with a text (empty when nothing is), so a test and a fuzzer can
// both say it in their own way.

#include <QList>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cctype>
#include <vector>

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

// What the HTML check needs of an XML text: whether it is well-formed, how many elements it
// has, and whether a script hides in it (an element, or "<script" raw in a comment, a CDATA
// section, a processing instruction or the DTD, where an HTML parser may end them sooner than
// XML does; text and attribute values cannot hold a raw '<' in a well-formed document).
//
// One pass over the text. QXmlStreamReader answered the same before, but tokenizing each
// report was most of the report writers' fuzz target's time on HTML reports (docs/robustness.md);
// tst_reportwriters' htmlCheck gives every row, well-formed or not, to both and expects the
// same verdict. The rules are XML 1.0's for a document without an internal DTD subset: one
// root element, matching end tags, quoted and unique attributes, no '<' in attribute values,
// the five predefined entities and character references only, no "]]>" in text, no "--" in
// comments, only XML characters (surrogates in pairs, no U+FFFE or U+FFFF, no control
// characters but tab and line breaks). Stricter than XML where the writers never go: names
// are ASCII, and a DTD with an internal subset is refused.
struct XmlShape
{
    QString error;      // empty when well-formed
    qsizetype line = 0; // of the error
    int elements = 0;
    bool script = false;
};

inline XmlShape scanXml(QStringView text)
{
    XmlShape shape;
    const qsizetype n = text.size();
    qsizetype i = 0;
    const auto at = [&](qsizetype k) -> char16_t { return k < n ? text[k].unicode() : u'\0'; };
    const auto startsAt = [&](qsizetype k, QLatin1StringView word) {
        return text.sliced(std::min(k, n)).startsWith(word);
    };
    const auto fail = [&](qsizetype where, const char* why) {
        shape.error = QString::fromLatin1(why);
        shape.line = 1 + text.first(std::min(where, n)).count(QLatin1Char('\n'));
        return shape;
    };
    const auto isSpace = [](char16_t c) { return c == u' ' || c == u'\t' || c == u'\n' || c == u'\r'; };
    const auto isNameStart = [](char16_t c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || c == u'_' || c == u':';
    };
    const auto isNameChar = [&](char16_t c) {
        return isNameStart(c) || (c >= u'0' && c <= u'9') || c == u'-' || c == u'.';
    };
    // The length of the XML character at k (2 for a surrogate pair), 0 when it is none.
    const auto xmlCharLength = [&](qsizetype k) -> int {
        const char16_t c = at(k);
        if (c == u'\t' || c == u'\n' || c == u'\r' || (c >= 0x20 && c < 0xD800) ||
            (c >= 0xE000 && c <= 0xFFFD))
            return 1;
        if (c >= 0xD800 && c < 0xDC00 && at(k + 1) >= 0xDC00 && at(k + 1) < 0xE000)
            return 2;
        return 0;
    };
    const auto holdsScript = [](QStringView raw) {
        return raw.contains(QLatin1StringView("<script"), Qt::CaseInsensitive);
    };
    // The body of a section the XML parser does not parse (comment, CDATA section, DOCTYPE,
    // processing instruction) that the opener at `opener` starts at `from`: up to the next
    // `close`, every character an XML character, a "<script" in it counted. Its end, or -1
    // with shape.error set.
    const auto rawBody = [&](qsizetype opener, qsizetype from, QLatin1StringView close,
                             const char* unterminated) -> qsizetype {
        const qsizetype end = text.indexOf(close, from);
        if (end < 0) {
            fail(opener, unterminated);
            return -1;
        }
        for (qsizetype k = from; k < end;) {
            const int length = xmlCharLength(k);
            if (length == 0) {
                fail(k, "not an XML character");
                return -1;
            }
            k += length;
        }
        shape.script |= holdsScript(text.sliced(from, end - from));
        return end;
    };
    const auto name = [&](qsizetype from) {
        qsizetype end = from;
        if (isNameStart(at(end)))
            while (isNameChar(at(++end))) {
            }
        return text.sliced(from, end - from);
    };
    // A reference at k ('&'): its length, or 0 when it is not one XML allows here.
    const auto reference = [&](qsizetype k) -> qsizetype {
        const qsizetype semicolon = text.indexOf(QLatin1Char(';'), k);
        if (semicolon < 0)
            return 0;
        const QStringView body = text.sliced(k + 1, semicolon - k - 1);
        if (body.startsWith(QLatin1Char('#'))) {
            const bool hex = body.startsWith(QLatin1StringView("#x"));
            const QStringView digits = body.sliced(hex ? 2 : 1);
            bool ok = !digits.isEmpty() && digits.size() <= 8;
            for (QChar d : digits)
                ok = ok && d.unicode() < 0x80 &&
                     (hex ? std::isxdigit(d.unicode()) : std::isdigit(d.unicode()));
            if (!ok)
                return 0;
            const uint value = digits.toUInt(&ok, hex ? 16 : 10);
            const bool isChar = value == 0x9 || value == 0xA || value == 0xD ||
                                (value >= 0x20 && value < 0xD800) || (value >= 0xE000 && value <= 0xFFFD) ||
                                (value >= 0x10000 && value <= 0x10FFFF);
            return ok && isChar ? semicolon - k + 1 : 0;
        }
        for (const char* entity : {"lt", "gt", "amp", "apos", "quot"})
            if (body == QLatin1StringView(entity))
                return semicolon - k + 1;
        return 0;
    };

    std::vector<QStringView> open; // the elements open, innermost last
    bool rootSeen = false, doctypeSeen = false;
    while (i < n) {
        const char16_t c = at(i);
        if (c == u'<') {
            if (startsAt(i, QLatin1StringView("<!--"))) {
                const qsizetype end = rawBody(i, i + 4, QLatin1StringView("-->"), "unterminated comment");
                if (end < 0)
                    return shape;
                const QStringView body = text.sliced(i + 4, end - i - 4);
                if (body.contains(QLatin1StringView("--")) || body.endsWith(QLatin1Char('-')))
                    return fail(i, "'--' inside a comment");
                i = end + 3;
            } else if (startsAt(i, QLatin1StringView("<![CDATA["))) {
                if (open.empty())
                    return fail(i, "CDATA section outside the root element");
                const qsizetype end =
                    rawBody(i, i + 9, QLatin1StringView("]]>"), "unterminated CDATA section");
                if (end < 0)
                    return shape;
                i = end + 3;
            } else if (startsAt(i, QLatin1StringView("<!DOCTYPE"))) {
                if (rootSeen || doctypeSeen)
                    return fail(i, "DOCTYPE after the root element or twice");
                doctypeSeen = true;
                const qsizetype end = rawBody(i, i + 9, QLatin1StringView(">"), "unterminated DOCTYPE");
                if (end < 0)
                    return shape;
                const QStringView body = text.sliced(i + 9, end - i - 9);
                if (body.contains(QLatin1Char('[')) || body.contains(QLatin1Char('<')))
                    return fail(i, "DOCTYPE with an internal subset");
                if (!body.isEmpty() && !isSpace(body.front().unicode()))
                    return fail(i, "no space after DOCTYPE");
                i = end + 1;
            } else if (startsAt(i, QLatin1StringView("<?"))) {
                const QStringView target = name(i + 2);
                if (target.isEmpty())
                    return fail(i, "processing instruction without a target");
                if (target.compare(QLatin1StringView("xml"), Qt::CaseInsensitive) == 0 && i != 0)
                    return fail(i, "XML declaration not at the start");
                const qsizetype after = i + 2 + target.size();
                const qsizetype end =
                    rawBody(i, after, QLatin1StringView("?>"), "unterminated processing instruction");
                if (end < 0)
                    return shape;
                if (after < end && !isSpace(at(after)))
                    return fail(after, "no space after the processing instruction's target");
                i = end + 2;
            } else if (at(i + 1) == u'/') {
                const QStringView closing = name(i + 2);
                qsizetype k = i + 2 + closing.size();
                while (isSpace(at(k)))
                    ++k;
                if (closing.isEmpty() || at(k) != u'>')
                    return fail(i, "malformed end tag");
                if (open.empty() || open.back() != closing)
                    return fail(i, "end tag does not match the open element");
                open.pop_back();
                i = k + 1;
            } else {
                if (rootSeen && open.empty())
                    return fail(i, "a second root element");
                const QStringView element = name(i + 1);
                if (element.isEmpty())
                    return fail(i, "'<' not followed by a name");
                ++shape.elements;
                shape.script |= element.compare(QLatin1StringView("script"), Qt::CaseInsensitive) == 0;
                qsizetype k = i + 1 + element.size();
                std::vector<QStringView> attributes;
                bool empty = false;
                for (;;) {
                    const qsizetype spaceFrom = k;
                    while (isSpace(at(k)))
                        ++k;
                    if (at(k) == u'>') {
                        ++k;
                        break;
                    }
                    if (at(k) == u'/' && at(k + 1) == u'>') {
                        empty = true;
                        k += 2;
                        break;
                    }
                    const QStringView attribute = name(k);
                    if (attribute.isEmpty() || k == spaceFrom)
                        return fail(k, "malformed start tag");
                    if (std::find(attributes.begin(), attributes.end(), attribute) != attributes.end())
                        return fail(k, "attribute given twice");
                    attributes.push_back(attribute);
                    k += attribute.size();
                    while (isSpace(at(k)))
                        ++k;
                    if (at(k) != u'=')
                        return fail(k, "attribute without a value");
                    ++k;
                    while (isSpace(at(k)))
                        ++k;
                    const char16_t quote = at(k);
                    if (quote != u'"' && quote != u'\'')
                        return fail(k, "attribute value without quotes");
                    ++k;
                    while (k < n && at(k) != quote) {
                        if (at(k) == u'<')
                            return fail(k, "'<' in an attribute value");
                        if (at(k) == u'&') {
                            const qsizetype length = reference(k);
                            if (length == 0)
                                return fail(k, "'&' that is no reference");
                            k += length;
                            continue;
                        }
                        const int length = xmlCharLength(k);
                        if (length == 0)
                            return fail(k, "not an XML character");
                        k += length;
                    }
                    if (k >= n)
                        return fail(i, "unterminated attribute value");
                    ++k;
                }
                rootSeen = true;
                if (!empty)
                    open.push_back(element);
                i = k;
            }
            continue;
        }
        if (open.empty()) {
            if (!isSpace(c))
                return fail(i, "text outside the root element");
            ++i;
            continue;
        }
        if (c == u'&') {
            const qsizetype length = reference(i);
            if (length == 0)
                return fail(i, "'&' that is no reference");
            i += length;
            continue;
        }
        if (c == u']' && startsAt(i, QLatin1StringView("]]>")))
            return fail(i, "']]>' in text");
        const int length = xmlCharLength(i);
        if (length == 0)
            return fail(i, "not an XML character");
        i += length;
    }
    if (!rootSeen)
        return fail(n, "no root element");
    if (!open.empty())
        return fail(n, "an element is not closed");
    return shape;
}

// The HTML report: well-formed XML with at least minElements elements, no script, no URL
// that would reach out, light and dark styles.
inline QString htmlProblem(const QString& html, int minElements = 20)
{
    const XmlShape xml = scanXml(html);
    if (!xml.error.isEmpty())
        return QStringLiteral("not well-formed, line %1: %2").arg(xml.line).arg(xml.error);
    if (xml.elements <= minElements)
        return QStringLiteral("only %1 elements").arg(xml.elements);
    if (xml.script)
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

// The Markdown report: no raw '<' and no raw '&' that starts an entity ("&lt;", "&#60;") outside
// code spans (markup and entities only come escaped, after an odd number of backslashes: in
// "\\&" the backslash is escaped and the '&' is raw; inside a code span both are literal text),
// every code span closed on its line, and the rows of each table (lines starting with '|') have
// as many unescaped '|' as the first row of their table (a '|' splits a cell even inside a code
// span). One pass over the text, without regular expressions: the report writers' fuzz target
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
    const auto startsEntity = [&md](qsizetype at) {
        qsizetype i = at + 1;
        if (i < md.size() && md[i] == QLatin1Char('#'))
            ++i;
        const qsizetype name = i;
        while (i < md.size() && md[i].isLetterOrNumber() && md[i].unicode() < 0x80)
            ++i;
        return i > name && i < md.size() && md[i] == QLatin1Char(';');
    };
    qsizetype backslashes = 0; // right before md[i]
    qsizetype codeSpan = -1;   // where the open code span began; -1 outside one
    for (qsizetype i = 0; i < md.size(); ++i) {
        const QChar c = md[i];
        const bool escaped = codeSpan < 0 && backslashes % 2 == 1;
        backslashes = codeSpan < 0 && c == QLatin1Char('\\') ? backslashes + 1 : 0;
        if (c == QLatin1Char('`') && !escaped) {
            codeSpan = codeSpan < 0 ? i : -1;
            continue;
        }
        if (codeSpan < 0 && !escaped && (c == QLatin1Char('<') || (c == QLatin1Char('&') && startsEntity(i))))
            return QStringLiteral("unescaped '%1' at %2").arg(c).arg(i);
        if (c == QLatin1Char('|') && !escaped) {
            ++borders;
        } else if (c == QLatin1Char('\n')) {
            if (codeSpan >= 0)
                return QStringLiteral("code span at %1 not closed on its line").arg(codeSpan);
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
