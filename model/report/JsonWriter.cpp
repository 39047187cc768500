#include "model/report/JsonWriter.h"

#include "model/text/JsonEscape.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gapscope {

namespace {

// The longest repr: a sign, "0.000" and 17 digits, or 17 digits with a point and "e-308".
constexpr size_t kFloatReprChars = 32;

// pythonFloatRepr's text of a finite value, written at out; returns its end.
char* writePythonFloatRepr(char* out, double value)
{
    if (value == 0) {
        const std::string_view zero = std::signbit(value) ? "-0.0" : "0.0";
        return std::copy(zero.begin(), zero.end(), out);
    }
    // Shortest round-trip digits in scientific form: [-]d[.ddd]e[+-]XX
    char sci[kFloatReprChars];
    const char* const sciEnd = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific).ptr;
    const char* p = sci;
    if (*p == '-')
        *out++ = *p++;
    char digitBuffer[20];
    size_t count = 0;
    for (; p != sciEnd && *p != 'e'; ++p)
        if (*p != '.')
            digitBuffer[count++] = *p;
    const std::string_view digits(digitBuffer, count);
    int exponent = 0; // value = d.ddd x 10^exponent
    std::from_chars(p + 1 + (p[1] == '+'), sciEnd, exponent);
    const int decpt = exponent + 1; // Python's position of the decimal point

    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out = std::copy_n("0.", 2, out);
            out = std::fill_n(out, -decpt, '0');
            return std::copy(digits.begin(), digits.end(), out);
        }
        if (size_t(decpt) >= digits.size()) {
            out = std::copy(digits.begin(), digits.end(), out);
            out = std::fill_n(out, size_t(decpt) - digits.size(), '0');
            return std::copy_n(".0", 2, out);
        }
        out = std::copy(digits.begin(), digits.begin() + decpt, out);
        *out++ = '.';
        return std::copy(digits.begin() + decpt, digits.end(), out);
    }
    *out++ = digits[0];
    if (digits.size() > 1) {
        *out++ = '.';
        out = std::copy(digits.begin() + 1, digits.end(), out);
    }
    *out++ = 'e';
    *out++ = exponent < 0 ? '-' : '+';
    const int magnitude = std::abs(exponent);
    if (magnitude < 10)
        *out++ = '0';
    return std::to_chars(out, out + 4, magnitude).ptr;
}

// A line break and the spaces of the deepest indent one append writes; deeper ones take two.
constexpr size_t kBreakSpaces = 64;
constexpr auto kBreak = [] {
    std::array<char, 1 + kBreakSpaces> text{};
    text[0] = '\n';
    for (size_t i = 1; i < text.size(); ++i)
        text[i] = ' ';
    return text;
}();

} // namespace

QByteArray pythonFloatRepr(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    char text[kFloatReprChars];
    return QByteArray(text, writePythonFloatRepr(text, value) - text);
}

JsonWriter& JsonWriter::beginObject()
{
    beforeValue();
    m_out += '{';
    m_stack.push_back({true, true});
    return *this;
}

JsonWriter& JsonWriter::endObject()
{
    const bool empty = m_stack.back().empty;
    m_stack.pop_back();
    if (!empty)
        newline();
    m_out += '}';
    return *this;
}

JsonWriter& JsonWriter::beginArray()
{
    beforeValue();
    m_out += '[';
    m_stack.push_back({false, true});
    return *this;
}

JsonWriter& JsonWriter::endArray()
{
    const bool empty = m_stack.back().empty;
    m_stack.pop_back();
    if (!empty)
        newline();
    m_out += ']';
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name)
{
    Level& level = m_stack.back();
    const bool comma = !level.empty;
    level.empty = false;
    const size_t spaces = m_indent > 0 ? m_stack.size() * size_t(m_indent) : 0;
    // A key is text of ours, short and plain: its comma, line break, indent, quotes and ": " go
    // in one append (most of a report is keys, and each append is a call into Qt).
    char text[1 + 1 + kBreakSpaces + 64 + 4];
    if (spaces <= kBreakSpaces && name.size() <= 64 &&
        std::none_of(name.begin(), name.end(), isJsonEscaped)) {
        char* out = text;
        if (comma)
            *out++ = ',';
        if (m_indent > 0)
            out = std::copy_n(kBreak.begin(), 1 + spaces, out);
        *out++ = '"';
        out = std::copy(name.begin(), name.end(), out);
        out = std::copy_n("\": ", 3, out);
        m_out.append(text, out - text);
    } else {
        if (comma)
            m_out += ',';
        newline();
        writeString(name);
        m_out += ": ";
    }
    m_afterKey = true;
    return *this;
}

void JsonWriter::beforeValue()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_stack.empty())
        return;
    Level& level = m_stack.back();
    if (!level.empty)
        m_out += ',';
    level.empty = false;
    newline();
}

void JsonWriter::newline()
{
    if (m_indent <= 0)
        return;
    const size_t spaces = m_stack.size() * size_t(m_indent);
    if (spaces <= kBreakSpaces) {
        m_out.append(kBreak.data(), qsizetype(1 + spaces));
        return;
    }
    m_out += '\n';
    m_out.append(qsizetype(spaces), ' ');
}

void JsonWriter::writeString(std::string_view s)
{
    appendJsonStringTo(m_out, s);
}

JsonWriter& JsonWriter::value(std::string_view s)
{
    beforeValue();
    writeString(s);
    return *this;
}

JsonWriter& JsonWriter::value(const QString& s)
{
    beforeValue();
    // Encoded straight into the output, quotes included; only text that needs an escape (rare
    // in a report) is encoded again through the escaper.
    const qsizetype start = m_out.size();
    m_out.resize(start + 2 + m_utf8.requiredSpace(s.size()));
    char* const text = m_out.data() + start + 1;
    m_utf8.resetState();
    char* const end = m_utf8.appendToBuffer(text, s);
    // A lone surrogate is U+FFFD here but '?' in QString::toUtf8, which the other report
    // forms write: such text goes the way of toUtf8.
    if (!m_utf8.hasError() && std::none_of(text, end, isJsonEscaped)) {
        text[-1] = '"';
        *end = '"';
        m_out.truncate(end + 1 - m_out.data());
        return *this;
    }
    m_out.truncate(start);
    const QByteArray utf8 = s.toUtf8();
    writeString(std::string_view(utf8.constData(), size_t(utf8.size())));
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v)
{
    beforeValue();
    appendNumber(v);
    return *this;
}

JsonWriter& JsonWriter::value(uint64_t v)
{
    beforeValue();
    appendNumber(v);
    return *this;
}

JsonWriter& JsonWriter::value(double v)
{
    beforeValue();
    // JSON has no NaN or Infinity (Python's json module writes them anyway, and no strict
    // parser reads them back): a value that is not a number is null.
    if (!std::isfinite(v)) {
        m_out += "null";
        return *this;
    }
    char text[kFloatReprChars];
    m_out.append(text, writePythonFloatRepr(text, v) - text);
    return *this;
}

JsonWriter& JsonWriter::value(bool v)
{
    beforeValue();
    m_out += v ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null()
{
    beforeValue();
    m_out += "null";
    return *this;
}

JsonWriter& JsonWriter::rawNumber(const QByteArray& text)
{
    beforeValue();
    m_out += text;
    return *this;
}

QByteArray JsonWriter::take()
{
    QByteArray out = std::move(m_out);
    m_out.clear();
    return out;
}

} // namespace gapscope
