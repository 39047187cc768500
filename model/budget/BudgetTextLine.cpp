#include "model/budget/BudgetLineFields.h"

#include "model/base/Rfc3339.h"

#include <algorithm>
#include <charconv>

// The text form: tracing's fmt layer ("2026-11-30T09:00:00.123Z  INFO memory_budget: tick
// target_bytes=... verdict=..."), a line at a time.

namespace gapscope::detail::budget {

namespace {

// End of a header token: whitespace outside braces and quotes ends it.
size_t headerTokenEnd(std::string_view line, size_t pos)
{
    int depth = 0;
    bool quoted = false;
    const char* p = line.data() + pos;
    const char* const end = line.data() + line.size();
    for (; p < end; ++p) {
        const char c = *p;
        if (quoted) {
            if (!kQuotedStop(c))
                continue;
            if (c == '"')
                quoted = false;
            else if (p + 1 < end)
                ++p; // the escaped character
        } else if (!kHeaderStop(c)) {
            continue;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}') {
            depth = std::max(depth - 1, 0);
        } else if (depth == 0) {
            break; // whitespace
        }
    }
    return static_cast<size_t>(p - line.data());
}

// "path::to::target:" -> "path::to::target"; empty when the token is not a target.
std::string_view targetOfToken(std::string_view token)
{
    if (token.size() < 2 || token.back() != ':')
        return {};
    const std::string_view body = token.substr(0, token.size() - 1);
    size_t i = 0;
    while (true) {
        if (i >= body.size() || !kIdentStart(body[i]))
            return {};
        while (i < body.size() && kIdentChar(body[i]))
            ++i;
        if (i == body.size())
            return body;
        if (body.substr(i, 2) != "::")
            return {};
        i += 2;
    }
}

// Rust string Debug escapes: \" \\ \n \r \t \0 \' \u{XXXX}.
bool readQuoted(std::string_view line, size_t& pos, std::string& out)
{
    ++pos; // opening quote
    while (pos < line.size()) {
        const size_t stop = skipUntil(line, pos, kQuotedStop);
        out.append(line.substr(pos, stop - pos));
        if (stop == line.size())
            return false;
        pos = stop + 1;
        if (line[stop] == '"')
            return true;
        if (pos >= line.size())
            return false;
        const char e = line[pos++];
        switch (e) {
        case 'n':
            out.push_back('\n');
            break;
        case 'r':
            out.push_back('\r');
            break;
        case 't':
            out.push_back('\t');
            break;
        case '0':
            out.push_back('\0');
            break;
        case 'u': {
            const size_t close = line.find('}', pos);
            uint32_t code = 0;
            if (pos >= line.size() || line[pos] != '{' || close == std::string_view::npos)
                return false;
            auto [ptr, ec] = std::from_chars(line.data() + pos + 1, line.data() + close, code, 16);
            if (ec != std::errc() || ptr != line.data() + close || code > 0x10FFFF)
                return false;
            pos = close + 1;
            // UTF-8 encode
            if (code < 0x80) {
                out.push_back(static_cast<char>(code));
            } else if (code < 0x800) {
                out.push_back(static_cast<char>(0xC0 | (code >> 6)));
                out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
            } else if (code < 0x10000) {
                out.push_back(static_cast<char>(0xE0 | (code >> 12)));
                out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
                out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
            } else {
                out.push_back(static_cast<char>(0xF0 | (code >> 18)));
                out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
                out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
                out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
            }
            break;
        }
        default:
            out.push_back(e); // \" \\ \' and anything unknown: the character itself
        }
    }
    return false;
}

// fields: the parser's list, reused line after line (its capacity kept).

} // namespace

ParsedBudgetLine parseTextLine(std::string_view rawLine, std::string& ansiBuffer, FieldList& fields)
{
    ParsedBudgetLine out;
    out.form = BudgetLogForm::Text;
    const std::string_view line = stripAnsi(rawLine, ansiBuffer);
    // Header: [time] [LEVEL] [thread name] [thread id] [span{..}:...] target: message fields
    std::optional<int64_t> timestamp;
    size_t pos = 0;
    size_t fieldsStart = std::string_view::npos;
    constexpr int kMaxHeaderTokens = 16;
    for (int tokenIndex = 0; tokenIndex < kMaxHeaderTokens; ++tokenIndex) {
        pos = skipWhile(line, pos, kAsciiSpace);
        if (pos >= line.size())
            break;
        const size_t end = headerTokenEnd(line, pos);
        const std::string_view token = line.substr(pos, end - pos);
        pos = end;
        if (tokenIndex == 0 && (timestamp = parseRfc3339Ns(token)))
            continue;
        if (out.level == BudgetLogLevel::Unknown) {
            if (auto level = budgetLogLevelFromString(token)) {
                out.level = *level;
                continue;
            }
        }
        if (const std::string_view target = targetOfToken(token); !target.empty()) {
            if (isBudgetTarget(target)) {
                out.target = std::string(target);
                fieldsStart = pos;
                break;
            }
            if (target.find("::") != std::string_view::npos)
                return out; // another crate's target
            continue;       // a span without fields, or a target we cannot tell from one
        }
        const size_t equals = token.find('=');
        if (equals != std::string_view::npos && equals < token.find('{'))
            return out; // fields already, and no target before them
    }
    if (fieldsStart == std::string_view::npos)
        return out;
    if (!timestamp) {
        malformed(out, "no RFC 3339 timestamp at the start of the line");
        return out;
    }
    out.timestampNs = *timestamp;

    fields.clear();
    pos = fieldsStart;
    while (pos < line.size()) {
        pos = skipWhile(line, pos, kAsciiSpace);
        if (pos >= line.size())
            break;
        const size_t keyEnd = skipWhile(line, pos, kKeyChar);
        if (keyEnd == pos || keyEnd >= line.size() || line[keyEnd] != '=' || !kIdentStart(line[pos])) {
            // a word of the message
            if (line[pos] == '"') {
                std::string ignored;
                if (!readQuoted(line, pos, ignored))
                    pos = line.size();
            } else {
                pos = skipUntil(line, pos, kAsciiSpace);
            }
            continue;
        }
        const std::string_view key = line.substr(pos, keyEnd - pos);
        pos = keyEnd + 1;
        FieldValue value;
        if (pos < line.size() && line[pos] == '"') {
            value.quoted = true;
            if (!readQuoted(line, pos, value.text)) {
                malformed(out, "unterminated quoted value of " + std::string(key));
                return out;
            }
        } else {
            const size_t start = pos;
            pos = skipUntil(line, pos, kAsciiSpace);
            value.text = std::string(line.substr(start, pos - start));
        }
        setField(fields, canonicalKey(key), std::move(value));
    }
    interpretFields(fields, out);
    return out;
}

} // namespace gapscope::detail::budget
