#pragma once
// The one JSON string escaper, for every buffer the model writes JSON into: the report
// writer's QByteArray and the event store's std::string metadata. Header-only so each caller
// gets it inlined into its own buffer type.

#include <cstddef>
#include <string_view>

namespace gapscope {

// Appends utf8 to out as a JSON string literal with the minimal escapes: '"', '\\' and the
// control characters below 0x20 (\n \r \t \b \f by name, the rest as \u00XX in lower-case
// hex). Everything else, UTF-8 included, passes through, so equal strings always give equal
// text whatever escapes their source used. Buffer needs append(const char*, size) and
// operator+=(char).
template <typename Buffer> void appendJsonStringTo(Buffer& out, std::string_view utf8)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    // Runs of characters that need no escape are appended at once: metadata and reports are
    // mostly those.
    size_t plain = 0;
    for (size_t i = 0; i < utf8.size(); ++i) {
        const auto byte = static_cast<unsigned char>(utf8[i]);
        if (byte >= 0x20 && byte != '"' && byte != '\\')
            continue;
        out.append(utf8.data() + plain, decltype(out.size())(i - plain));
        plain = i + 1;
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
    out.append(utf8.data() + plain, decltype(out.size())(utf8.size() - plain));
    out += '"';
}

} // namespace gapscope
