#include "model/text/Text.h"

#include "analysis/GapAnalysis.h"
#include "analysis/Units.h"

#include <QCoreApplication>
#include <QLocale>
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

QString countText(uint64_t n)
{
    return QLocale::c().toString(qulonglong(n));
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

namespace {

bool isWordChar(QChar c)
{
    return c.isLetterOrNumber();
}

// A character with no meaning to Markdown here, or whose meaning the escaping below removes
// elsewhere: kept as it is. What CommonMark and GitHub's tables give a meaning to anywhere in
// a line: \ ` * [ ] < > | ~ (escaped always); _ only at a word's edge (snake_case inside a
// word opens no emphasis); & only where it starts an entity ("&lt;", "&#60;").
bool startsEntity(QStringView text, qsizetype at)
{
    qsizetype i = at + 1;
    if (i < text.size() && text[i] == QLatin1Char('#'))
        ++i;
    const qsizetype nameBegin = i;
    while (i < text.size() && i - nameBegin <= 32 && text[i].isLetterOrNumber() && text[i].unicode() < 0x80)
        ++i;
    return i > nameBegin && i < text.size() && text[i] == QLatin1Char(';');
}

// text: one word, or the punctuation around a code span. atFieldStart: the field's first word,
// which begins a line where the field does: there "#", "-", "+", "1." or "1)" followed by a
// space (the word's end), and a word of only "-" or "=" (a rule, a setext underline), would
// begin a block, and their mark is escaped.
void appendEscapedRun(QString& out, QStringView text, bool atFieldStart)
{
    qsizetype listMark = -1;
    if (atFieldStart && !text.isEmpty()) {
        const QChar c = text.front();
        const auto all = [text](QChar mark) {
            return std::all_of(text.begin(), text.end(), [mark](QChar x) { return x == mark; });
        };
        if (c == QLatin1Char('#')) {
            qsizetype n = 0;
            while (n < text.size() && text[n] == QLatin1Char('#'))
                ++n;
            listMark = n == text.size() && n <= 6 ? 0 : -1;
        } else if ((c == QLatin1Char('-') || c == QLatin1Char('+')) && text.size() == 1) {
            listMark = 0;
        } else if ((c == QLatin1Char('-') || c == QLatin1Char('=')) && all(c)) {
            listMark = 0;
        } else if (c.isDigit() && c.unicode() < 0x80) {
            qsizetype n = 0;
            while (n < text.size() && text[n].isDigit() && text[n].unicode() < 0x80)
                ++n;
            if (n + 1 == text.size() && n <= 9 &&
                (text[n] == QLatin1Char('.') || text[n] == QLatin1Char(')')))
                listMark = n;
        }
    }
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        bool escape = i == listMark;
        switch (c.unicode()) {
        case u'\\':
        case u'`':
        case u'*':
        case u'[':
        case u']':
        case u'<':
        case u'>':
        case u'|':
        case u'~':
            escape = true;
            break;
        case u'_':
            escape = !(i > 0 && isWordChar(text[i - 1]) && i + 1 < text.size() && isWordChar(text[i + 1]));
            break;
        case u'&':
            escape = startsEntity(text, i);
            break;
        default:
            break;
        }
        if (escape)
            out += QLatin1Char('\\');
        out += c;
    }
}

// A word that names code (an identifier, a call, a setting, an option, a path, a file):
// written as a code span, as a person writing Markdown would, instead of escaped until it is
// unreadable ("torch\.cuda\.memory\_stats\(\)"). Inside a code span nothing is escaped, so a
// word with a backtick (it would end the span) or a pipe (it would end a table cell even
// there) is never one.
bool namesCode(QStringView word)
{
    if (word.size() < 3)
        return false;
    const QChar lead = word.front();
    if (!lead.isLetter() && lead != QLatin1Char('/') && lead != QLatin1Char('$') &&
        lead != QLatin1Char('~') && lead != QLatin1Char('.') && lead != QLatin1Char('-'))
        return false;
    for (QChar c : word)
        if (c == QLatin1Char('`') || c == QLatin1Char('|') || c == QLatin1Char('\\') || c.unicode() < 0x20)
            return false;
    if (word.startsWith(QLatin1String("--")))
        return word.size() > 2 && word[2].isLetter(); // a command-line option
    if (word.front() == QLatin1Char('-'))
        return false;
    // snake_case, an environment variable, a key=value setting
    for (qsizetype i = 1; i + 1 < word.size(); ++i)
        if ((word[i] == QLatin1Char('_') || word[i] == QLatin1Char('=')) && isWordChar(word[i - 1]) &&
            isWordChar(word[i + 1]))
            return true;
    // a call: name(...)
    if (const qsizetype open = word.indexOf(QLatin1Char('('));
        open > 0 && isWordChar(word[open - 1]) && word.indexOf(QLatin1Char(')'), open) > open)
        return true;
    if (word.contains(QLatin1String("::")))
        return true;
    // a path: /abs, $VAR/x, ~/x, ./x, or a/b.ext
    const qsizetype slash = word.indexOf(QLatin1Char('/'));
    if (slash >= 0) {
        if (slash == 0 || word.front() == QLatin1Char('$') || word.front() == QLatin1Char('~') ||
            word.front() == QLatin1Char('.'))
            return word.size() > 1;
        const QStringView last = word.mid(word.lastIndexOf(QLatin1Char('/')) + 1);
        const qsizetype dot = last.lastIndexOf(QLatin1Char('.'));
        return dot > 0 && dot + 1 < last.size() && last[dot + 1].isLetter();
    }
    // a dotted name: torch.cuda, manifest.json (every part two characters or more, so "e.g"
    // and "5.13" stay prose)
    if (!word.contains(QLatin1Char('.')))
        return false;
    qsizetype partBegin = 0;
    for (qsizetype i = 0; i <= word.size(); ++i) {
        if (i < word.size() && word[i] != QLatin1Char('.'))
            continue;
        const QStringView part = word.mid(partBegin, i - partBegin);
        if (part.size() < 2 || !part.front().isLetter())
            return false;
        for (QChar c : part)
            if (!isWordChar(c) && c != QLatin1Char('_'))
                return false;
        partBegin = i + 1;
    }
    return true;
}

// Punctuation around a word that belongs to the sentence, not to the code: "(see x.json)." is
// "(", "x.json", ")."; a call keeps its own parentheses.
void trimProse(QStringView word, qsizetype& begin, qsizetype& end)
{
    const auto isOpen = [](QChar c) {
        return c == QLatin1Char('(') || c == QLatin1Char('"') || c == QLatin1Char('\'');
    };
    while (begin < end && isOpen(word[begin]))
        ++begin;
    while (end > begin) {
        const QChar c = word[end - 1];
        if (c == QLatin1Char('.') || c == QLatin1Char(',') || c == QLatin1Char(';') ||
            c == QLatin1Char(':') || c == QLatin1Char('!') || c == QLatin1Char('?') ||
            c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            --end;
        } else if (c == QLatin1Char(')') && word.mid(begin, end - begin).count(QLatin1Char(')')) >
                                                word.mid(begin, end - begin).count(QLatin1Char('('))) {
            --end;
        } else {
            break;
        }
    }
}

} // namespace

void appendMarkdownEscaped(QString& out, QStringView text)
{
    // one line: a line break or tab would start a new block or table row
    QString flat;
    flat.reserve(text.size());
    for (QChar c : text) {
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QLatin1Char('\t'))
            flat += QLatin1Char(' ');
        else if (isBidiControl(c.unicode()))
            flat += bidiMarker(c);
        else if (!isDroppedControl(c))
            flat += c;
    }
    const QStringView view(flat);
    bool firstWord = true; // only the first word can begin a block
    qsizetype i = 0;
    while (i < view.size()) {
        if (view[i] == QLatin1Char(' ')) {
            out += QLatin1Char(' ');
            ++i;
            continue;
        }
        qsizetype end = i;
        while (end < view.size() && view[end] != QLatin1Char(' '))
            ++end;
        const QStringView word = view.mid(i, end - i);
        qsizetype codeBegin = 0, codeEnd = word.size();
        trimProse(word, codeBegin, codeEnd);
        if (codeEnd > codeBegin && namesCode(word.mid(codeBegin, codeEnd - codeBegin))) {
            appendEscapedRun(out, word.first(codeBegin), firstWord);
            out += QLatin1Char('`');
            out += word.mid(codeBegin, codeEnd - codeBegin);
            out += QLatin1Char('`');
            appendEscapedRun(out, word.sliced(codeEnd), false);
        } else {
            appendEscapedRun(out, word, firstWord);
        }
        firstWord = false;
        i = end;
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
