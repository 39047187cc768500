#include "model/report/TextEscape.h"

namespace gapscope {

namespace {

bool isDroppedControl(QChar c)
{
    const char16_t u = c.unicode();
    return (u < 0x20 && u != u'\t' && u != u'\n' && u != u'\r') || u == 0x7f;
}

} // namespace

QString htmlEscape(const QString& text)
{
    QString out;
    out.reserve(text.size() + text.size() / 8);
    for (QChar c : text) {
        switch (c.unicode()) {
        case u'&':
            out += QLatin1String("&amp;");
            break;
        case u'<':
            out += QLatin1String("&lt;");
            break;
        case u'>':
            out += QLatin1String("&gt;");
            break;
        case u'"':
            out += QLatin1String("&quot;");
            break;
        case u'\'':
            out += QLatin1String("&#39;");
            break;
        default:
            // XML 1.0 forbids most control characters; a report must stay parseable.
            if (!isDroppedControl(c))
                out += c;
        }
    }
    return out;
}

QString markdownEscape(const QString& text)
{
    static const QString kMeta = QStringLiteral("\\`*_{}[]<>()#+-.!|~=&");
    QString out;
    out.reserve(text.size() + text.size() / 4);
    for (QChar c : text) {
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QLatin1Char('\t')) {
            out += QLatin1Char(' ');
            continue;
        }
        if (isDroppedControl(c))
            continue;
        if (kMeta.contains(c))
            out += QLatin1Char('\\');
        out += c;
    }
    return out;
}

QString csvField(const QString& text)
{
    QString value = text;
    if (!value.isEmpty()) {
        const QChar first = value.front();
        // Spreadsheets evaluate these as formulas (OWASP "CSV injection").
        if (first == QLatin1Char('=') || first == QLatin1Char('+') || first == QLatin1Char('-') ||
            first == QLatin1Char('@') || first == QLatin1Char('\t') || first == QLatin1Char('\r'))
            value.prepend(QLatin1Char('\''));
    }
    const bool quote = value.contains(QLatin1Char(',')) || value.contains(QLatin1Char('"')) ||
                       value.contains(QLatin1Char('\n')) || value.contains(QLatin1Char('\r')) ||
                       value.startsWith(QLatin1Char('\''));
    if (!quote)
        return value;
    value.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + value + QLatin1Char('"');
}

} // namespace gapscope
