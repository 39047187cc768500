#include "model/text/Text.h"

#include "analysis/GapAnalysis.h"
#include "analysis/Units.h"

#include <QCoreApplication>

namespace gapscope {

namespace {

// Characters XML 1.0 does not allow in a document (C0 controls other than tab and line
// breaks; the noncharacters U+FFFE and U+FFFF), and DEL: a report must stay parseable.
bool isDroppedControl(QChar c)
{
    const char16_t u = c.unicode();
    return (u < 0x20 && u != u'\t' && u != u'\n' && u != u'\r') || u == 0x7f || u == 0xfffe || u == 0xffff;
}

} // namespace

QString qs(std::string_view utf8)
{
    return QString::fromUtf8(utf8.data(), qsizetype(utf8.size()));
}

QString englishPlural(QString text, qint64 n)
{
    return text.replace(QStringLiteral("(s)"), n == 1 ? QString() : QStringLiteral("s"));
}

QString bytesText(double bytes)
{
    return qs(formatBytes(bytes));
}

QString bytesText(int64_t bytes)
{
    if (bytes == kNullInt)
        return QCoreApplication::translate("gapscope", "n/a");
    return bytesText(double(bytes));
}

QString bytesPerSecondText(double bytesPerSecond)
{
    return qs(formatBytesPerSecond(bytesPerSecond));
}

QString signedBytesText(double bytes)
{
    return bytes > 0 ? QLatin1Char('+') + bytesText(bytes) : bytesText(bytes);
}

QString percentText(double ratio, int decimals)
{
    return QStringLiteral("%1 %").arg(ratio * 100.0, 0, 'f', decimals);
}

QString shareText(double part, double whole)
{
    return whole > 0 ? percentText(part / whole) : QStringLiteral("—");
}

QString secondsText(double seconds)
{
    return QStringLiteral("%1 s").arg(seconds, 0, 'f', 3);
}

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
