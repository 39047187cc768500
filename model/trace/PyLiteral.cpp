#include "model/trace/PyLiteral.h"

#include "model/text/JsonEscape.h"

#include <algorithm>
#include <cstdint>

namespace gapscope {

void appendJsonString(std::string& out, std::string_view utf8)
{
    appendJsonStringTo(out, utf8);
}

bool isJsonNumber(std::string_view token)
{
    size_t i = 0;
    auto isDigit = [&](size_t at) { return at < token.size() && token[at] >= '0' && token[at] <= '9'; };
    if (i < token.size() && token[i] == '-')
        ++i;
    if (!isDigit(i))
        return false;
    if (token[i] == '0') {
        ++i;
    } else {
        while (isDigit(i))
            ++i;
    }
    if (i < token.size() && token[i] == '.') {
        ++i;
        if (!isDigit(i))
            return false;
        while (isDigit(i))
            ++i;
    }
    if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
        ++i;
        if (i < token.size() && (token[i] == '+' || token[i] == '-'))
            ++i;
        if (!isDigit(i))
            return false;
        while (isDigit(i))
            ++i;
    }
    return i == token.size();
}

IntegralNumber integralNumber(std::string_view token, int64_t* value)
{
    if (!isJsonNumber(token))
        return IntegralNumber::NotANumber;
    const bool negative = token.front() == '-';
    if (negative)
        token.remove_prefix(1);
    const size_t exponentAt = token.find_first_of("eE");
    const std::string_view mantissa = token.substr(0, exponentAt);
    // The exponent, clamped far beyond any digit count a line may hold (isJsonNumber checked
    // its syntax).
    int64_t exponent = 0;
    if (exponentAt != std::string_view::npos) {
        std::string_view digits = token.substr(exponentAt + 1);
        const bool negativeExponent = digits.front() == '-';
        if (digits.front() == '-' || digits.front() == '+')
            digits.remove_prefix(1);
        for (char c : digits)
            exponent = std::min<int64_t>(exponent * 10 + (c - '0'), int64_t(1) << 40);
        if (negativeExponent)
            exponent = -exponent;
    }
    const size_t point = mantissa.find('.');
    const std::string_view whole = mantissa.substr(0, point);
    const std::string_view fraction =
        point == std::string_view::npos ? std::string_view() : mantissa.substr(point + 1);
    // The digits whole + fraction with the decimal point after `pointAt` of them.
    const auto digitCount = static_cast<int64_t>(whole.size() + fraction.size());
    const int64_t pointAt = static_cast<int64_t>(whole.size()) + exponent;
    auto digit = [&](int64_t i) {
        const auto at = static_cast<size_t>(i);
        return at < whole.size() ? whole[at] : fraction[at - whole.size()];
    };
    for (int64_t i = std::max<int64_t>(pointAt, 0); i < digitCount; ++i) {
        if (digit(i) != '0')
            return IntegralNumber::Fraction;
    }
    constexpr uint64_t kExactLimit = uint64_t(1) << 53;
    uint64_t magnitude = 0;
    for (int64_t i = 0; i < pointAt; ++i) {
        if (i >= digitCount && magnitude == 0)
            break; // zero, whatever the exponent
        magnitude = magnitude * 10 + static_cast<uint64_t>(i < digitCount ? digit(i) - '0' : 0);
        if (magnitude >= kExactLimit)
            return IntegralNumber::TooLarge;
    }
    *value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return IntegralNumber::Exact;
}

namespace {

// Recursive descent over the subset of Python literal syntax that repr() produces, plus
// JSON's spellings (true/false/null, \/ and \uXXXX surrogate pairs).
class PyLiteralConverter
{
public:
    explicit PyLiteralConverter(std::string_view text) : m_text(text) {}

    bool convert(std::string& out)
    {
        if (!value(out, 0))
            return false;
        skipSpace();
        if (m_pos != m_text.size())
            return fail("unexpected text after the value");
        return true;
    }

    const std::string& error() const { return m_error; }

private:
    static constexpr int kMaxDepth = 256;

    bool fail(const std::string& why)
    {
        if (m_error.empty())
            m_error = why + " at offset " + std::to_string(m_pos);
        return false;
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                         m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }

    bool peek(char c)
    {
        skipSpace();
        return m_pos < m_text.size() && m_text[m_pos] == c;
    }

    bool value(std::string& out, int depth)
    {
        if (depth > kMaxDepth)
            return fail("nesting too deep");
        skipSpace();
        if (m_pos >= m_text.size())
            return fail("unexpected end of text");
        const char c = m_text[m_pos];
        if (c == '{')
            return dict(out, depth);
        if (c == '[' || c == '(')
            return sequence(out, depth, c == '[' ? ']' : ')');
        if (isStringStart())
            return string(out);
        return scalar(out);
    }

    bool isStringStart() const
    {
        size_t at = m_pos;
        while (at < m_text.size() && at < m_pos + 2 &&
               std::string_view("bBrRuU").find(m_text[at]) != std::string_view::npos)
            ++at;
        return at < m_text.size() && (m_text[at] == '\'' || m_text[at] == '"');
    }

    bool dict(std::string& out, int depth)
    {
        ++m_pos; // {
        out += '{';
        bool first = true;
        while (true) {
            if (peek('}')) {
                ++m_pos;
                break;
            }
            if (!first) {
                if (!peek(','))
                    return fail("expected ',' or '}' in dict");
                ++m_pos;
                if (peek('}')) {
                    ++m_pos;
                    break;
                }
            }
            first = false;
            if (!first && out.back() != '{')
                out += ',';
            if (!key(out))
                return false;
            if (!peek(':'))
                return fail("expected ':' in dict");
            ++m_pos;
            out += ':';
            if (!value(out, depth + 1))
                return false;
        }
        out += '}';
        return true;
    }

    // json.dumps turns scalar keys into strings: True -> "true", None -> "null", 1 -> "1".
    bool key(std::string& out)
    {
        skipSpace();
        if (isStringStart())
            return string(out);
        std::string scalarText;
        if (m_pos < m_text.size() && (m_text[m_pos] == '{' || m_text[m_pos] == '[' || m_text[m_pos] == '('))
            return fail("unsupported dict key");
        if (!scalar(scalarText))
            return false;
        appendJsonString(out, scalarText);
        return true;
    }

    bool sequence(std::string& out, int depth, char close)
    {
        ++m_pos;
        out += '[';
        bool first = true;
        while (true) {
            if (peek(close)) {
                ++m_pos;
                break;
            }
            if (!first) {
                if (!peek(','))
                    return fail(std::string("expected ',' or '") + close + "'");
                ++m_pos;
                if (peek(close)) {
                    ++m_pos;
                    break;
                }
                out += ',';
            }
            first = false;
            if (!value(out, depth + 1))
                return false;
        }
        out += ']';
        return true;
    }

    static void appendUtf8(std::string& out, uint32_t cp)
    {
        if (cp >= 0xd800 && cp < 0xe000)
            cp = 0xfffd; // a lone surrogate ('\udc80') has no UTF-8 form: the replacement character
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    bool hexDigits(size_t count, uint32_t& cp)
    {
        if (m_pos + count > m_text.size())
            return fail("truncated escape");
        cp = 0;
        for (size_t i = 0; i < count; ++i) {
            const char h = m_text[m_pos++];
            cp <<= 4;
            if (h >= '0' && h <= '9')
                cp |= static_cast<uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f')
                cp |= static_cast<uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                cp |= static_cast<uint32_t>(h - 'A' + 10);
            else
                return fail("invalid hex digit in escape");
        }
        return true;
    }

    bool string(std::string& out)
    {
        bool raw = false;
        while (m_text[m_pos] != '\'' && m_text[m_pos] != '"') {
            if (m_text[m_pos] == 'r' || m_text[m_pos] == 'R')
                raw = true;
            ++m_pos;
        }
        const char quote = m_text[m_pos++];
        std::string decoded;
        while (true) {
            if (m_pos >= m_text.size())
                return fail("unterminated string");
            const char c = m_text[m_pos++];
            if (c == quote)
                break;
            if (c != '\\' || raw) {
                decoded += c;
                continue;
            }
            if (m_pos >= m_text.size())
                return fail("unterminated string");
            const char e = m_text[m_pos++];
            uint32_t cp = 0;
            switch (e) {
            case '\\':
                decoded += '\\';
                break;
            case '\'':
                decoded += '\'';
                break;
            case '"':
                decoded += '"';
                break;
            case '/':
                decoded += '/';
                break;
            case 'a':
                decoded += '\a';
                break;
            case 'b':
                decoded += '\b';
                break;
            case 'f':
                decoded += '\f';
                break;
            case 'n':
                decoded += '\n';
                break;
            case 'r':
                decoded += '\r';
                break;
            case 't':
                decoded += '\t';
                break;
            case 'v':
                decoded += '\v';
                break;
            case '\n':
                break; // line continuation
            case 'x':
                if (!hexDigits(2, cp))
                    return false;
                appendUtf8(decoded, cp);
                break;
            case 'u':
                if (!hexDigits(4, cp))
                    return false;
                if (cp >= 0xd800 && cp < 0xdc00 && m_pos + 1 < m_text.size() && m_text[m_pos] == '\\' &&
                    m_text[m_pos + 1] == 'u') {
                    m_pos += 2;
                    uint32_t low = 0;
                    if (!hexDigits(4, low))
                        return false;
                    if (low >= 0xdc00 && low < 0xe000)
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    else
                        return fail("invalid surrogate pair");
                }
                appendUtf8(decoded, cp);
                break;
            case 'U':
                if (!hexDigits(8, cp))
                    return false;
                if (cp > 0x10ffff)
                    return fail("escape beyond Unicode");
                appendUtf8(decoded, cp);
                break;
            default:
                if (e >= '0' && e <= '7') { // octal, up to three digits
                    cp = static_cast<uint32_t>(e - '0');
                    for (int i = 0;
                         i < 2 && m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '7'; ++i)
                        cp = cp * 8 + static_cast<uint32_t>(m_text[m_pos++] - '0');
                    appendUtf8(decoded, cp);
                } else { // Python keeps unknown escapes verbatim
                    decoded += '\\';
                    decoded += e;
                }
            }
        }
        appendJsonString(out, decoded);
        return true;
    }

    bool scalar(std::string& out)
    {
        const size_t start = m_pos;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == ',' || c == ':' || c == '}' || c == ']' || c == ')' || c == ' ' || c == '\t' ||
                c == '\n' || c == '\r')
                break;
            ++m_pos;
        }
        const std::string_view token = m_text.substr(start, m_pos - start);
        if (token.empty())
            return fail("expected a value");
        if (token == "True" || token == "true") {
            out += "true";
        } else if (token == "False" || token == "false") {
            out += "false";
        } else if (token == "None" || token == "null") {
            out += "null";
        } else if (token == "nan" || token == "inf" || token == "-inf" || token == "NaN" ||
                   token == "Infinity" || token == "-Infinity") {
            out += "null"; // JSON has no spelling for these
        } else if (isJsonNumber(token)) {
            out += token;
        } else {
            m_pos = start;
            return fail("unexpected token '" + std::string(token.substr(0, 32)) + "'");
        }
        return true;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};

} // namespace

std::optional<std::string> pythonLiteralToJson(std::string_view text, std::string* error)
{
    PyLiteralConverter converter(text);
    std::string out;
    out.reserve(text.size());
    if (!converter.convert(out)) {
        if (error)
            *error = converter.error();
        return std::nullopt;
    }
    return out;
}

} // namespace gapscope
