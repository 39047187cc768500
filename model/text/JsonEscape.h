#pragma once
// The one JSON string escaper, for every buffer the model writes JSON into: the report
// writer's QByteArray and the event store's std::string metadata. Header-only so each caller
// gets it inlined into its own buffer type.

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace gapscope {

// The bytes appendJsonStringTo escapes: '"', '\\' and the controls below 0x20.
inline constexpr auto kJsonEscaped = [] {
    std::array<bool, 256> escaped{};
    for (size_t c = 0; c < 0x20; ++c)
        escaped[c] = true;
    escaped['"'] = escaped['\\'] = true;
    return escaped;
}();

// Whether appendJsonStringTo escapes c. A lambda, not a function: as the predicate of a library
// algorithm it is inlined there, where a function pointer made a call per character (and, in
// the fuzz build, a coverage counter per call).
inline constexpr auto isJsonEscaped = [](char c) { return kJsonEscaped[static_cast<unsigned char>(c)]; };

// Appends utf8 to out as a JSON string literal with the minimal escapes: '"', '\\' and the
// control characters below 0x20 (\n \r \t \b \f by name, the rest as \u00XX in lower-case
// hex). Everything else, UTF-8 included, passes through, so equal strings always give equal
// text whatever escapes their source used. Buffer needs append(const char*, size) and
// operator+=(char).
template <typename Buffer> void appendJsonStringTo(Buffer& out, std::string_view utf8)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    const char* plain = utf8.data();
    const char* const end = plain + utf8.size();
    for (;;) {
        // The run of characters that need no escape (metadata and reports are mostly those),
        // appended at once. std::find_if walks it: in the fuzz build a library loop is left out
        // of the coverage instrumentation (fuzz/coverage-ignorelist.txt), where a loop here
        // made a comparison callback per character of every key and value a report writes.
        const char* const next = std::find_if(plain, end, isJsonEscaped);
        out.append(plain, decltype(out.size())(next - plain));
        if (next == end)
            break;
        plain = next + 1;
        const auto byte = static_cast<unsigned char>(*next);
        char escape = 0;
        switch (byte) {
        case '"':
            escape = '"';
            break;
        case '\\':
            escape = '\\';
            break;
        case '\n':
            escape = 'n';
            break;
        case '\r':
            escape = 'r';
            break;
        case '\t':
            escape = 't';
            break;
        case '\b':
            escape = 'b';
            break;
        case '\f':
            escape = 'f';
            break;
        default:
            break;
        }
        if (escape) {
            const char pair[2] = {'\\', escape};
            out.append(pair, 2);
        } else {
            const char unicode[6] = {'\\', 'u', '0', '0', kHex[byte >> 4], kHex[byte & 0xf]};
            out.append(unicode, 6);
        }
    }
    out += '"';
}

} // namespace gapscope
