#include "model/text/Text.h"

#include "analysis/GapAnalysis.h"
#include "analysis/Units.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <span>
#include <string>

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

namespace {

// Calls piece(text) for the pieces of pattern with each "%k" (k = 1 .. count) replaced by
// argument k - 1: the literal text between them is found with find() (memchr), not compared a
// character at a time.
template <typename Piece>
void forEachPiece(std::string_view pattern, std::span<const std::string_view> arguments, Piece&& piece)
{
    size_t from = 0;
    for (size_t at = pattern.find('%'); at != std::string_view::npos; at = pattern.find('%', at + 1)) {
        if (at + 1 == pattern.size())
            break;
        const auto k = static_cast<size_t>(pattern[at + 1] - '1'); // wraps below '1'
        if (k >= arguments.size())
            continue;
        piece(pattern.substr(from, at - from));
        piece(arguments[k]);
        from = at + 2;
        at = from - 1;
    }
    piece(pattern.substr(from));
}

QString withArguments(std::string_view pattern, std::span<const std::string_view> arguments)
{
    size_t size = 0;
    forEachPiece(pattern, arguments, [&size](std::string_view piece) { size += piece.size(); });
    char stack[256];
    std::string heap;
    char* const out = size <= sizeof stack ? stack : (heap.resize(size), heap.data());
    char* end = out;
    forEachPiece(pattern, arguments,
                 [&end](std::string_view piece) { end = std::copy(piece.begin(), piece.end(), end); });
    return QString::fromUtf8(out, qsizetype(end - out));
}

// Room for any qint64 in decimal: -9223372036854775808.
using DecimalDigits = std::array<char, 20>;

std::string_view decimal(DecimalDigits& digits, qint64 n)
{
    const char* const end = std::to_chars(digits.data(), digits.data() + digits.size(), n).ptr;
    return std::string_view(digits.data(), size_t(end - digits.data()));
}

} // namespace

void appendDecimal(QString& out, qint64 n)
{
    DecimalDigits digits;
    const std::string_view text = decimal(digits, n);
    out += QLatin1StringView(text.data(), qsizetype(text.size()));
}

QString withTexts(std::string_view pattern, std::initializer_list<std::string_view> texts)
{
    return withArguments(pattern, std::span(texts.begin(), texts.size()));
}

QString withNumbers(std::string_view pattern, std::initializer_list<qint64> numbers)
{
    constexpr size_t kMost = 9;
    std::array<DecimalDigits, kMost> digits;
    std::array<std::string_view, kMost> texts;
    const size_t count = std::min(numbers.size(), kMost);
    for (size_t i = 0; i < count; ++i)
        texts[i] = decimal(digits[i], numbers.begin()[i]);
    return withArguments(pattern, std::span(texts.data(), count));
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

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kNsPerMinute = 60 * kNsPerSecond;
constexpr int64_t kNsPerHour = 60 * kNsPerMinute;

// Decimals (0..9) of seconds needed so that multiples of resolutionNs print exactly.
int secondDecimals(int64_t resolutionNs)
{
    int decimals = 0;
    int64_t unit = kNsPerSecond;
    while (decimals < 9 && resolutionNs % unit != 0) {
        unit /= 10;
        ++decimals;
    }
    return decimals;
}

// ns (non-negative, below a minute or the seconds part of a longer time) as "12.500".
QString secondsDigits(int64_t ns, int decimals)
{
    QString text = QString::number(ns / kNsPerSecond);
    if (decimals > 0) {
        int64_t fraction = ns % kNsPerSecond;
        for (int i = decimals; i < 9; ++i)
            fraction /= 10;
        text += QLatin1Char('.') + QString::number(fraction).rightJustified(decimals, QLatin1Char('0'));
    }
    return text;
}

} // namespace

QString durationText(int64_t ns, int64_t resolutionNs)
{
    const int decimals = secondDecimals(std::max<int64_t>(resolutionNs, 1));
    int64_t unit = 1;
    for (int i = decimals; i < 9; ++i)
        unit *= 10;
    const bool negative = ns < 0;
    // magnitude: INT64_MIN has no positive counterpart, saturate it by one ns
    int64_t magnitude =
        negative ? (ns == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -ns)
                 : ns;
    if (magnitude <= std::numeric_limits<int64_t>::max() - unit / 2)
        magnitude = (magnitude + unit / 2) / unit * unit;
    QString text;
    if (magnitude < kNsPerMinute) {
        text = secondsDigits(magnitude, decimals) + QStringLiteral(" s");
    } else {
        const int64_t hours = magnitude / kNsPerHour;
        const int64_t minutes = magnitude % kNsPerHour / kNsPerMinute;
        const int64_t rest = magnitude % kNsPerMinute;
        QStringList parts;
        if (hours > 0)
            parts << QStringLiteral("%1 h").arg(hours);
        if (minutes > 0)
            parts << QStringLiteral("%1 min").arg(minutes);
        if (rest > 0)
            parts << secondsDigits(rest, decimals) + QStringLiteral(" s");
        text = parts.join(QLatin1Char(' '));
    }
    return negative && magnitude != 0 ? QStringLiteral("-") + text : text;
}

QString relativeTimeText(int64_t relativeNs, int64_t resolutionNs)
{
    const QString text = durationText(relativeNs, resolutionNs);
    return text.startsWith(QLatin1Char('-')) ? text : QLatin1Char('+') + text;
}

int64_t timeResolutionNs(int64_t spanNs, int64_t steps)
{
    if (spanNs <= 0)
        return kMillisecondNs; // one instant: nothing to tell apart
    const int64_t finest = spanNs / std::max<int64_t>(steps, 1);
    int64_t resolution = 1;
    while (resolution < kNsPerSecond && resolution * 10 <= finest)
        resolution *= 10;
    return resolution;
}

QString confidenceText(double confidence)
{
    return percentText(confidence, 1);
}

bool isBidiControl(char32_t c)
{
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

namespace {

// A bidirectional control as visible text: "[U+202E]".
QString bidiMarker(QChar c)
{
    return QStringLiteral("[U+%1]").arg(
        QString::number(c.unicode(), 16).toUpper().rightJustified(4, QLatin1Char('0')));
}

} // namespace

void appendHtmlEscaped(QString& out, QStringView text)
{
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
            // XML 1.0 forbids most control characters; a report must stay parseable. A
            // bidirectional control would reorder what follows it: written out instead.
            if (isBidiControl(c.unicode()))
                out += bidiMarker(c);
            else if (!isDroppedControl(c))
                out += c;
        }
    }
}

QString htmlEscape(const QString& text)
{
    QString out;
    out.reserve(text.size() + text.size() / 8);
    appendHtmlEscaped(out, text);
    return out;
}

void appendMarkdownEscaped(QString& out, QStringView text)
{
    static const QString kMeta = QStringLiteral("\\`*_{}[]<>()#+-.!|~=&");
    for (QChar c : text) {
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QLatin1Char('\t')) {
            out += QLatin1Char(' ');
            continue;
        }
        if (isDroppedControl(c))
            continue;
        if (isBidiControl(c.unicode())) {
            appendMarkdownEscaped(out, bidiMarker(c));
            continue;
        }
        if (kMeta.contains(c))
            out += QLatin1Char('\\');
        out += c;
    }
}

QString markdownEscape(const QString& text)
{
    QString out;
    out.reserve(text.size() + text.size() / 4);
    appendMarkdownEscaped(out, text);
    return out;
}

QString shownText(QStringView text, qsizetype maxChars)
{
    qsizetype cut = text.size();
    if (maxChars >= 0 && text.size() > maxChars) {
        cut = maxChars;
        if (cut > 0 && text[cut - 1].isHighSurrogate())
            --cut;
    }
    QString out;
    out.reserve(cut + 32);
    for (qsizetype i = 0; i < cut; ++i) {
        const QChar c = text[i];
        if (isBidiControl(c.unicode()))
            out += bidiMarker(c);
        else
            out += c;
    }
    if (cut < text.size())
        out += withNumbers(" \u2026 (%1 more characters)", {qint64(text.size() - cut)});
    return out;
}

QString csvField(const QString& text)
{
    QString value;
    value.reserve(text.size());
    for (QChar c : text) { // a bidirectional control would reorder the cell as shown
        if (isBidiControl(c.unicode()))
            value += bidiMarker(c);
        else
            value += c;
    }
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
