#include "model/trace/EventRecordParser.h"

#include "model/trace/PyLiteral.h"
#include "model/trace/RecordFields.h"

#include <bit>
#include <cstring>
#include <limits>

// EventRecordParser::parseFlatLine: the fast path of JSON lines, a flat record read without
// simdjson. It must give exactly what parse() gives for the same text, or nothing
// (tst_jsonfastpath and fuzz_jsonfastpath compare the two).

namespace gapscope::detail {

namespace {

// A reader of flat JSON records that gives up (returns false) on anything it does not
// handle exactly as simdjson would; see EventRecordParser::parseFlatLine.
class FlatScanner
{
public:
    explicit FlatScanner(std::string_view text) : m_p(text.data()), m_end(text.data() + text.size()) {}

    bool atEnd() const { return m_p == m_end; }
    bool peek(char c) const { return m_p < m_end && *m_p == c; }
    bool peekDigit() const { return m_p < m_end && *m_p >= '0' && *m_p <= '9'; }
    bool take(char c)
    {
        if (!peek(c))
            return false;
        ++m_p;
        return true;
    }
    [[gnu::always_inline]] void skipSpace()
    {
        if (m_p<m_end&& static_cast<unsigned char>(*m_p)> ' ')
            return; // the usual case: no space here
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }
    // The text of a string whose opening quote was taken: no escapes, no control characters,
    // UTF-8 checked where a byte is not ASCII.
    bool string(std::string_view& out)
    {
        const char* start = m_p;
        bool ascii = true;
        // Eight bytes at a time up to the first that needs a look: '"', '\\', a control
        // character or a byte of a multi-byte character.
        while (m_p + 8 <= m_end) {
            uint64_t word;
            std::memcpy(&word, m_p, 8);
            const uint64_t special = hasByte(word, '"') | hasByte(word, '\\') | hasByteBelow(word, 0x20) |
                                     (word & 0x8080808080808080ull);
            if (special == 0) {
                m_p += 8;
                continue;
            }
            // The lowest flagged byte (little-endian: the first in memory).
            m_p += static_cast<size_t>(std::countr_zero(special)) / 8;
            break;
        }
        for (;; ++m_p) {
            if (m_p == m_end)
                return false;
            const auto c = static_cast<unsigned char>(*m_p);
            if (c == '"')
                break;
            if (c == '\\' || c < 0x20)
                return false;
            ascii &= c < 0x80;
        }
        out = std::string_view(start, static_cast<size_t>(m_p - start));
        ++m_p;
        return ascii || simdjson::validate_utf8(out.data(), out.size());
    }
    // A key equal to `name` followed by its closing quote, taken when it matches.
    bool takeKey(std::string_view name)
    {
        if (static_cast<size_t>(m_end - m_p) <= name.size() || m_p[name.size()] != '"' ||
            !sameBytes(m_p, name.data(), name.size()))
            return false;
        m_p += name.size() + 1;
        return true;
    }
    // A scalar value: an integer that fits int64_t (JSON integer syntax: no leading zeros,
    // no fraction, no exponent), a string, null, true or false. Text is the value as written.
    bool scalar(Scalar& out, std::string_view& text)
    {
        const char* start = m_p;
        if (m_p == m_end)
            return false;
        switch (*m_p) {
        case '"':
            ++m_p;
            out.kind = Scalar::Kind::String;
            if (!string(out.s))
                return false;
            break;
        case 'n':
            out.kind = Scalar::Kind::Null;
            if (!word("null"))
                return false;
            break;
        case 't':
            out.kind = Scalar::Kind::Bool;
            out.i = 1;
            if (!word("true"))
                return false;
            break;
        case 'f':
            out.kind = Scalar::Kind::Bool;
            out.i = 0;
            if (!word("false"))
                return false;
            break;
        default:
            if (!integer(out.i))
                return false;
            out.kind = Scalar::Kind::Int;
            break;
        }
        text = std::string_view(start, static_cast<size_t>(m_p - start));
        return true;
    }

    // Any JSON value, appended to out as writeCanonicalJson writes it (compact, strings
    // re-escaped, numbers as written): objects and arrays to `depth` levels, strings without
    // escapes, numbers of JSON syntax. False for anything else (nothing is then decided).
    bool canonicalValue(std::string& out, int depth)
    {
        if (m_p == m_end || depth > kMaxFlatDepth)
            return false;
        const char open = *m_p;
        if (open == '{' || open == '[') {
            const char close = open == '{' ? '}' : ']';
            ++m_p;
            out += open;
            skipSpace();
            for (bool first = true; !take(close); first = false) {
                if (!first) {
                    if (!take(','))
                        return false;
                    skipSpace();
                    out += ',';
                }
                if (open == '{') {
                    std::string_view key;
                    if (!take('"') || !string(key))
                        return false;
                    appendPlainString(out, key);
                    out += ':';
                    skipSpace();
                    if (!take(':'))
                        return false;
                    skipSpace();
                }
                if (!canonicalValue(out, depth + 1))
                    return false;
                skipSpace();
            }
            out += close;
            return true;
        }
        if (open == '"') {
            ++m_p;
            std::string_view text;
            if (!string(text))
                return false;
            appendPlainString(out, text);
            return true;
        }
        const char* start = m_p;
        if (open == 't' || open == 'f' || open == 'n') {
            if (!word(open == 't' ? "true" : open == 'f' ? "false" : "null"))
                return false;
        } else {
            while (m_p < m_end && isNumberChar(*m_p))
                ++m_p;
            if (!isJsonNumber(std::string_view(start, static_cast<size_t>(m_p - start))))
                return false;
        }
        out.append(start, static_cast<size_t>(m_p - start));
        return true;
    }
    // An integer that fits int64_t (see scalar()).
    bool int64(int64_t& out) { return integer(out); }
    // A string that string() took: no escapes, no control characters, so appendJsonString
    // would write it as it is between quotes.
    static void appendPlainString(std::string& out, std::string_view text)
    {
        out += '"';
        out += text;
        out += '"';
    }
    // Whether the text at the cursor is `previous` followed by a delimiter of the value (',' or
    // '}' after optional spaces); taken when it is.
    bool takeRepeat(std::string_view previous)
    {
        if (previous.empty() || static_cast<size_t>(m_end - m_p) < previous.size() ||
            std::memcmp(m_p, previous.data(), previous.size()) != 0)
            return false;
        const char* after = m_p + previous.size();
        while (after < m_end && (*after == ' ' || *after == '\t' || *after == '\n' || *after == '\r'))
            ++after;
        if (after == m_end || (*after != ',' && *after != '}'))
            return false;
        m_p += previous.size();
        return true;
    }
    const char* position() const { return m_p; }

private:
    // Nesting the fast path reads; deeper values (up to kMaxJsonDepth) are left to simdjson.
    static constexpr int kMaxFlatDepth = 32;
    static bool isNumberChar(char c)
    {
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    }
    // memcmp(a, b, n) == 0 for the short keys, inline: words of eight bytes, the last one
    // overlapping the one before (a call to memcmp per key was 9 % of the parse).
    static bool sameBytes(const char* a, const char* b, size_t n)
    {
        if (n < 8) {
            if (n < 4)
                return std::memcmp(a, b, n) == 0;
            uint32_t x[2], y[2];
            std::memcpy(&x[0], a, 4);
            std::memcpy(&x[1], a + n - 4, 4);
            std::memcpy(&y[0], b, 4);
            std::memcpy(&y[1], b + n - 4, 4);
            return x[0] == y[0] && x[1] == y[1];
        }
        for (size_t at = 0;; at += 8) {
            if (at + 8 > n)
                at = n - 8;
            uint64_t x, y;
            std::memcpy(&x, a + at, 8);
            std::memcpy(&y, b + at, 8);
            if (x != y)
                return false;
            if (at + 8 == n)
                return true;
        }
    }
    // A word whose bytes equal to c (or below n) have their high bit set; other bytes clear.
    // Exact (no false positives) as long as the bytes tested are ASCII, which the caller
    // checks separately through the 0x80 bits.
    static uint64_t hasByte(uint64_t word, char c)
    {
        const uint64_t x = word ^ (0x0101010101010101ull * static_cast<unsigned char>(c));
        return hasByteBelow(x, 1);
    }
    static uint64_t hasByteBelow(uint64_t word, unsigned n)
    {
        return (word - 0x0101010101010101ull * n) & ~word & 0x8080808080808080ull;
    }
    // Whether the eight bytes at p are all digits, and their value.
    static bool eightDigits(const char* p, uint32_t& out)
    {
        uint64_t word;
        std::memcpy(&word, p, 8);
        if (((word & 0xF0F0F0F0F0F0F0F0ull) |
             (((word + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
            return false;
        word -= 0x3030303030303030ull;
        word = word * 10 + (word >> 8);
        word = (((word & 0x000000FF000000FFull) * 0x000F424000000064ull) +
                (((word >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >>
               32;
        out = static_cast<uint32_t>(word);
        return true;
    }

    bool word(std::string_view w)
    {
        if (static_cast<size_t>(m_end - m_p) < w.size() || std::memcmp(m_p, w.data(), w.size()) != 0)
            return false;
        m_p += w.size();
        return m_p == m_end || !isWordChar(*m_p);
    }
    static bool isWordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'; }
    bool integer(int64_t& out)
    {
        const bool negative = m_p < m_end && *m_p == '-';
        if (negative)
            ++m_p;
        const char* digits = m_p;
        uint64_t value = 0;
        uint32_t eight = 0;
        // at most three rounds: more than 19 digits are given up below
        while (m_p + 8 <= m_end && m_p - digits < 24 && eightDigits(m_p, eight)) {
            value = value * 100000000 + eight;
            m_p += 8;
        }
        while (m_p < m_end && static_cast<unsigned char>(*m_p - '0') <= 9) {
            value = value * 10 + static_cast<uint64_t>(*m_p - '0');
            ++m_p;
        }
        // 19 digits fit in uint64_t; beyond int64_t's range parse() says what it is
        const auto count = m_p - digits;
        if (count == 0 || count > 19 || (count > 1 && *digits == '0') ||
            value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return false;
        if (m_p < m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E'))
            return false;
        out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
        return true;
    }

    const char* m_p;
    const char* m_end;
};

} // namespace

namespace {

// The metadata object at in, written to metadata as writeMetadata writes it (with the keys it
// picks out into record), or false (nothing decided: parse() reads the line).
bool readFlatMetadata(FlatScanner& in, RecordFields& record, std::string& metadata)
{
    metadata.clear();
    metadata.reserve(256); // once: a record's metadata, grown 15, 30, 60... bytes, was 5 allocations
    if (!in.take('{'))
        return false;
    metadata += '{';
    in.skipSpace();
    for (bool first = true; !in.take('}'); first = false) {
        if (!first) {
            if (!in.take(','))
                return false;
            in.skipSpace();
            metadata += ',';
        }
        std::string_view key;
        if (!in.take('"') || !in.string(key))
            return false;
        in.skipSpace();
        if (!in.take(':'))
            return false;
        in.skipSpace();
        FlatScanner::appendPlainString(metadata, key);
        metadata += ':';
        if (in.take('"')) {
            std::string_view value;
            if (!in.string(value))
                return false;
            FlatScanner::appendPlainString(metadata, value);
            if (key == "backend")
                record.backend.assign(value);
            else if (key == "origin_phase_scope_id")
                record.origin.phaseScopeId = std::string(value);
        } else if (key == "origin_thread_id" && (in.peek('-') || in.peekDigit())) {
            // parse() takes an int64 here and writes it back; other numbers are left to it
            int64_t thread = 0;
            if (!in.int64(thread))
                return false;
            metadata += std::to_string(thread);
            record.origin.threadId = thread;
        } else if (!in.canonicalValue(metadata, 1)) {
            return false;
        }
        in.skipSpace();
    }
    metadata += '}';
    return true;
}

} // namespace

std::optional<EventRecordParser::Outcome>
EventRecordParser::parseFlatLine(std::string_view text, const RecordLocation& where, EventChunk& chunk)
{
    RecordFields& record = *m_record;
    record.clear();
    m_metadata.clear();
    FlatScanner in(text);
    if (!in.take('{'))
        return std::nullopt;
    in.skipSpace();
    if (in.peek('}'))
        return std::nullopt; // nothing to gain; parse() says what is missing
    for (size_t position = 0;; ++position) {
        if (!in.take('"'))
            return std::nullopt;
        // The key at this position of the last line first, as parse() does.
        std::optional<Field> known;
        if (position < m_keyOrder.size() && m_keyOrder[position] < kFieldCount &&
            in.takeKey(nameOf(static_cast<Field>(m_keyOrder[position])))) {
            known = static_cast<Field>(m_keyOrder[position]);
        } else {
            std::string_view key;
            if (!in.string(key))
                return std::nullopt;
            known = findField(key);
            if (!known)
                return std::nullopt; // unknown keys are reported by parse()
            rememberKeyAt(m_keyOrder, position, known);
        }
        in.skipSpace();
        if (!in.take(':'))
            return std::nullopt;
        in.skipSpace();
        if (*known == Field::Metadata) {
            if (record.metadataSeen)
                return std::nullopt;
            record.metadataSeen = true;
            if (in.takeRepeat(m_lastMetadata.raw)) {
                // The same text as the last record's metadata (a writer repeats it on most
                // lines): the same canonical text and picked-out keys.
                m_metadata = m_lastMetadata.canonical;
                record.backend = m_lastMetadata.backend;
                record.origin = m_lastMetadata.origin;
            } else if (in.peek('{')) {
                const char* rawStart = in.position();
                if (!readFlatMetadata(in, record, m_metadata))
                    return std::nullopt;
                m_lastMetadata.raw.assign(rawStart, static_cast<size_t>(in.position() - rawStart));
                m_lastMetadata.canonical = m_metadata;
                m_lastMetadata.backend = record.backend;
                m_lastMetadata.origin = record.origin;
            } else {
                Scalar value;
                std::string_view valueText;
                if (!in.scalar(value, valueText) || value.kind != Scalar::Kind::Null)
                    return std::nullopt; // parse() rejects a metadata that is not an object
            }
        } else {
            Scalar& slot = record.slot(*known);
            if (slot.kind != Scalar::Kind::Absent)
                return std::nullopt; // duplicate keys are reported by parse()
            std::string_view valueText;
            if (!in.scalar(slot, valueText))
                return std::nullopt;
        }
        in.skipSpace();
        if (in.take('}'))
            break;
        if (!in.take(','))
            return std::nullopt;
        in.skipSpace();
    }
    in.skipSpace();
    if (!in.atEnd())
        return std::nullopt; // parse() warns about text after the object
    ++chunk.recordsRead;
    return finish(record, where, chunk);
}

} // namespace gapscope::detail
