#include "model/report/JsonWriter.h"

#include "model/text/JsonEscape.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace gapscope {

QByteArray pythonFloatRepr(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    if (value == 0)
        return std::signbit(value) ? "-0.0" : "0.0";

    // Shortest round-trip digits in scientific form: [-]d[.ddd]e[+-]XX
    char sci[64];
    auto [end, ec] = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific);
    Q_UNUSED(ec);
    *end = '\0';
    const char* p = sci;
    const bool negative = *p == '-';
    if (negative)
        ++p;
    std::string digits;
    for (; *p && *p != 'e'; ++p)
        if (*p != '.')
            digits.push_back(*p);
    const int exponent = std::atoi(p + 1); // value = d.ddd x 10^exponent
    const int decpt = exponent + 1;        // Python's position of the decimal point

    std::string out = negative ? "-" : "";
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out += "0.";
            out.append(size_t(-decpt), '0');
            out += digits;
        } else if (size_t(decpt) >= digits.size()) {
            out += digits;
            out.append(size_t(decpt) - digits.size(), '0');
            out += ".0";
        } else {
            out += digits.substr(0, size_t(decpt));
            out += '.';
            out += digits.substr(size_t(decpt));
        }
    } else {
        out += digits[0];
        if (digits.size() > 1) {
            out += '.';
            out += digits.substr(1);
        }
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        out += exp;
    }
    return QByteArray::fromStdString(out);
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
    if (!level.empty)
        m_out += ',';
    level.empty = false;
    newline();
    writeString(name);
    m_out += ": ";
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
    m_out += '\n';
    m_out.append(qsizetype(m_stack.size()) * m_indent, ' ');
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
    const QByteArray utf8 = s.toUtf8();
    return value(std::string_view(utf8.constData(), size_t(utf8.size())));
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
    m_out += std::isfinite(v) ? pythonFloatRepr(v) : QByteArray("null");
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
