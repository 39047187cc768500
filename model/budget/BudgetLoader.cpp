#include "model/budget/BudgetLoader.h"

#include "model/read/JsonParserPool.h"
#include "model/read/WindowedReader.h"
#include "model/text/CharClass.h"

#include "analysis/Int64Math.h"

#include <QFile>
#include <QFileInfo>

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace gapscope {

namespace {

// ------------------------------------------------------------------ small text helpers

// The scanners test characters against tables (model/text/CharClass.h says why).
constexpr CharClass kIdentStart =
    charClass([](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; });
constexpr CharClass kIdentChar = charClass([](char c) { return kIdentStart(c) || kAsciiDigit(c); });
// a field key: jemalloc.allocated_bytes
constexpr CharClass kKeyChar = charClass([](char c) { return kIdentChar(c) || c == '.'; });
// what ends a plain run in a header token, and in a quoted string
constexpr CharClass kHeaderStop =
    charClass([](char c) { return kAsciiSpace(c) || c == '"' || c == '{' || c == '}'; });
constexpr CharClass kQuotedStop = charClass([](char c) { return c == '"' || c == '\\'; });

std::string_view trim(std::string_view s)
{
    return trimmedBy(s, kAsciiSpace);
}

std::string shortened(std::string_view s)
{
    constexpr size_t kMax = 40;
    return s.size() <= kMax ? std::string(s) : std::string(s.substr(0, kMax)) + "...";
}

bool isBudgetTarget(std::string_view target)
{
    return target == "memory_budget" || target.starts_with("memory_budget::");
}

// Integers as logged: plain digits, or a JSON/float spelling of a whole number.
bool parseInteger(std::string_view text, int64_t& value)
{
    text = trim(text);
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    if (text.empty())
        return false;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec == std::errc() && ptr == end)
        return true;
    double real = 0;
    auto [rptr, rec] = std::from_chars(text.data(), end, real);
    if (rec != std::errc() || rptr != end || !std::isfinite(real) || real != std::floor(real) ||
        std::fabs(real) >= 9.2e18)
        return false;
    value = static_cast<int64_t>(real);
    return true;
}

bool parseReal(std::string_view text, double& value)
{
    text = trim(text);
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    if (text.empty())
        return false;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && ptr == end && std::isfinite(value);
}

// Removes ANSI escape sequences (CSI "ESC [ ... final" and two-byte escapes).
std::string_view stripAnsi(std::string_view line, std::string& buffer)
{
    if (line.find('\x1b') == std::string_view::npos)
        return line;
    buffer.clear();
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] != '\x1b') {
            buffer.push_back(line[i]);
            continue;
        }
        if (i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !(line[i] >= 0x40 && line[i] <= 0x7e))
                ++i;
        } else {
            ++i; // ESC plus one character
        }
    }
    return buffer;
}

// ------------------------------------------------------------------ fields, any form

struct FieldValue
{
    std::string text;
    bool quoted = false; // a string (quoted in text, a JSON string)
    bool null = false;   // JSON null
};
using FieldList = std::vector<std::pair<std::string, FieldValue>>;

// jemalloc fields come as je_x, jemalloc_x or jemalloc.x (x with or without _bytes).
std::string canonicalKey(std::string_view key)
{
    for (std::string_view prefix :
         {std::string_view("je_"), std::string_view("jemalloc_"), std::string_view("jemalloc.")}) {
        if (key.starts_with(prefix) && key.size() > prefix.size()) {
            std::string rest(key.substr(prefix.size()));
            if (!rest.ends_with("_bytes"))
                rest += "_bytes";
            return "jemalloc." + rest;
        }
    }
    return std::string(key);
}

// Keys are compared a line's worth of fields times the 20-odd names looked up: most differ in
// length or in their first or last letter, which settles them without a call to memcmp.
bool sameKey(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && (a.empty() || (a.front() == b.front() && a.back() == b.back() && a == b));
}

void setField(FieldList& fields, std::string key, FieldValue value)
{
    for (auto& [k, v] : fields)
        if (sameKey(k, key)) {
            v = std::move(value); // the last occurrence wins, as in a map
            return;
        }
    fields.emplace_back(std::move(key), std::move(value));
}

const FieldValue* findField(const FieldList& fields, std::string_view key)
{
    for (const auto& [k, v] : fields)
        if (sameKey(k, key))
            return &v;
    return nullptr;
}

enum class Get
{
    Missing,
    Ok,
    Bad
};

Get getInteger(const FieldList& fields, std::string_view key, int64_t& value)
{
    const FieldValue* field = findField(fields, key);
    if (!field || field->null)
        return Get::Missing;
    return parseInteger(field->text, value) ? Get::Ok : Get::Bad;
}

std::string badValue(std::string_view key, const FieldList& fields, std::string_view expected)
{
    const FieldValue* field = findField(fields, key);
    return std::string(key) + " is not " + std::string(expected) + " ('" +
           shortened(field ? field->text : "") + "')";
}

// hit_rate: 0.93, Some(0.93), None, null.
bool parseHitRate(const FieldValue& field, std::optional<double>& hitRate)
{
    if (field.null) {
        hitRate.reset();
        return true;
    }
    std::string_view text = trim(field.text);
    if (text.empty() || text == "None" || text == "none" || text == "null") {
        hitRate.reset();
        return true;
    }
    if (text.starts_with("Some(") && text.ends_with(")"))
        text = text.substr(5, text.size() - 6);
    double value = 0;
    if (!parseReal(text, value))
        return false;
    hitRate = value;
    return true;
}

// Reads one cache from its fields (a per-cache line, or an element of "caches").
bool readCache(const FieldList& fields, std::string_view nameKey, ParsedBudgetCache& cache,
               std::string& error)
{
    const FieldValue* name = findField(fields, nameKey);
    cache.name = name ? name->text : std::string();
    struct IntField
    {
        std::string_view key;
        int64_t* value;
        bool required;
    };
    bool haveDelta = false;
    for (auto [key, value, required] :
         std::array<IntField, 3>{{{"current_bytes", &cache.currentBytes, true},
                                  {"previous_max_bytes", &cache.previousMaxBytes, false},
                                  {"new_max_bytes", &cache.newMaxBytes, false}}}) {
        const Get got = getInteger(fields, key, *value);
        if (got == Get::Bad || (got == Get::Missing && required)) {
            error =
                "cache '" + cache.name + "': " +
                (got == Get::Bad ? badValue(key, fields, "an integer") : std::string(key) + " is missing");
            return false;
        }
        if (got == Get::Ok && *value < 0) {
            error = "cache '" + cache.name + "': " + std::string(key) + " is negative (" +
                    std::to_string(*value) + ")";
            return false;
        }
    }
    switch (getInteger(fields, "delta_bytes", cache.deltaBytes)) {
    case Get::Bad:
        error = "cache '" + cache.name + "': " + badValue("delta_bytes", fields, "an integer");
        return false;
    case Get::Ok:
        haveDelta = true;
        break;
    case Get::Missing:
        break;
    }
    if (!haveDelta) {
        const std::optional<int64_t> delta = checkedSub(cache.newMaxBytes, cache.previousMaxBytes);
        if (!delta) {
            error = "cache '" + cache.name + "': new_max_bytes - previous_max_bytes does not fit 64 bits";
            return false;
        }
        cache.deltaBytes = *delta;
    }
    if (const FieldValue* hit = findField(fields, "hit_rate"); hit && !parseHitRate(*hit, cache.hitRate)) {
        error = "cache '" + cache.name + "': " + badValue("hit_rate", fields, "a number, Some(x) or None");
        return false;
    }
    return true;
}

std::string textOf(const FieldList& fields, std::string_view key)
{
    const FieldValue* field = findField(fields, key);
    return field && !field->null ? field->text : std::string();
}

void malformed(ParsedBudgetLine& out, std::string reason)
{
    out.kind = BudgetLineKind::Malformed;
    out.reason = std::move(reason);
}

// Classifies a line by its field names (never by its message) and converts the values.
void interpretFields(const FieldList& fields, ParsedBudgetLine& out)
{
    const bool hasRss = findField(fields, "rss_bytes") != nullptr;
    const bool hasTarget = findField(fields, "target_bytes") != nullptr;
    if (hasRss || hasTarget) {
        if (!hasRss || !hasTarget) {
            malformed(out, std::string("tick without ") + (hasRss ? "target_bytes" : "rss_bytes"));
            return;
        }
        struct IntField
        {
            std::string_view key;
            int64_t* value;
        };
        const std::array<IntField, 11> ints{{
            {"target_bytes", &out.targetBytes},
            {"rss_bytes", &out.rssBytes},
            {"effective_target_bytes", &out.effectiveTargetBytes},
            {"rss_sysinfo_bytes", &out.rssSysinfoBytes},
            {"lease_bytes_active", &out.leaseBytesActive},
            {"jemalloc.allocated_bytes", &out.jeAllocatedBytes},
            {"jemalloc.active_bytes", &out.jeActiveBytes},
            {"jemalloc.metadata_bytes", &out.jeMetadataBytes},
            {"jemalloc.resident_bytes", &out.jeResidentBytes},
            {"jemalloc.mapped_bytes", &out.jeMappedBytes},
            {"jemalloc.retained_bytes", &out.jeRetainedBytes},
        }};
        bool haveEffective = false;
        bool haveSysinfo = false;
        for (const auto& [key, value] : ints) {
            const Get got = getInteger(fields, key, *value);
            if (got == Get::Bad) {
                malformed(out, "tick: " + badValue(key, fields, "an integer"));
                return;
            }
            if (got == Get::Ok && *value < 0) {
                malformed(out, "tick: " + std::string(key) + " is negative (" + std::to_string(*value) + ")");
                return;
            }
            if (got == Get::Missing && (key == "target_bytes" || key == "rss_bytes")) {
                malformed(out, "tick: " + std::string(key) + " is null");
                return;
            }
            haveEffective |= key == "effective_target_bytes" && got == Get::Ok;
            haveSysinfo |= key == "rss_sysinfo_bytes" && got == Get::Ok;
        }
        // Older crate versions log neither; the documented meaning gives their values.
        if (!haveEffective) {
            const std::optional<int64_t> effective = checkedSub(out.targetBytes, out.leaseBytesActive);
            if (!effective) {
                malformed(out, "tick: target_bytes - lease_bytes_active does not fit 64 bits");
                return;
            }
            out.effectiveTargetBytes = std::max<int64_t>(*effective, 0);
        }
        if (!haveSysinfo)
            out.rssSysinfoBytes = out.rssBytes;
        out.verdict = textOf(fields, "verdict");
        out.verdictDetail = textOf(fields, "verdict_detail");
        if (getInteger(fields, "verdict_streak", out.verdictStreak) == Get::Bad) {
            malformed(out, "tick: " + badValue("verdict_streak", fields, "an integer"));
            return;
        }
        if (const FieldValue* previous = findField(fields, "previous_verdict_label");
            previous && !previous->null)
            out.previousVerdictLabel = previous->text;
        if (getInteger(fields, "previous_verdict_streak", out.previousVerdictStreak) == Get::Bad) {
            malformed(out, "tick: " + badValue("previous_verdict_streak", fields, "an integer"));
            return;
        }
        out.kind = BudgetLineKind::Tick;
        return;
    }
    if (findField(fields, "previous_verdict") && findField(fields, "new_verdict")) {
        out.previousVerdict = textOf(fields, "previous_verdict");
        out.newVerdict = textOf(fields, "new_verdict");
        if (getInteger(fields, "previous_verdict_streak", out.previousVerdictStreak) == Get::Bad) {
            malformed(out, "verdict run ended: " + badValue("previous_verdict_streak", fields, "an integer"));
            return;
        }
        out.kind = BudgetLineKind::RunEnded;
        return;
    }
    if (findField(fields, "current_bytes")) {
        const bool hasCaps = findField(fields, "previous_max_bytes") || findField(fields, "new_max_bytes") ||
                             findField(fields, "delta_bytes") || findField(fields, "hit_rate");
        std::string_view nameKey;
        bool reporter = false;
        if (findField(fields, "reporter")) {
            nameKey = "reporter";
            reporter = true;
        } else if (findField(fields, "cache")) {
            nameKey = "cache";
        } else if (findField(fields, "name")) {
            nameKey = "name";
            reporter = !hasCaps;
        } else {
            malformed(out, "current_bytes without cache=, reporter= or name=");
            return;
        }
        if (reporter) {
            ParsedBudgetReporter row;
            row.name = textOf(fields, nameKey);
            const Get got = getInteger(fields, "current_bytes", row.currentBytes);
            if (got != Get::Ok || row.currentBytes < 0) {
                malformed(out, "reporter '" + row.name +
                                   "': " + badValue("current_bytes", fields, "a non-negative integer"));
                return;
            }
            out.reporters.push_back(std::move(row));
            out.kind = BudgetLineKind::Reporter;
            return;
        }
        ParsedBudgetCache cache;
        std::string error;
        if (!readCache(fields, nameKey, cache, error)) {
            malformed(out, std::move(error));
            return;
        }
        out.caches.push_back(std::move(cache));
        out.kind = BudgetLineKind::Cache;
        return;
    }
    out.kind = BudgetLineKind::Skipped; // another message of the budget crate
}

// ------------------------------------------------------------------ text form

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

// ------------------------------------------------------------------ JSON forms

namespace od = simdjson::ondemand;
using od::json_type;
using simdjson::error_code;

// The JSON forms are read with simdjson's error codes, not its exceptions: a line of broken
// JSON is common (other tools' output, a cut line) and a thrown exception costs much more
// than the parse of a line.

// A scalar JSON value as a field; *field stays empty for objects and arrays.
error_code scalarField(od::value value, std::optional<FieldValue>& field)
{
    field.reset();
    json_type type = json_type::null;
    if (const error_code error = value.type().get(type))
        return error;
    switch (type) {
    case json_type::string: {
        std::string_view text;
        if (const error_code error = value.get_string().get(text))
            return error;
        field = FieldValue{std::string(text), true, false};
        break;
    }
    case json_type::number:
    case json_type::boolean:
        field = FieldValue{std::string(trim(value.raw_json_token())), false, false};
        break;
    case json_type::null:
        field = FieldValue{std::string(), false, true};
        break;
    case json_type::object:
    case json_type::array:
        break;
    }
    return simdjson::SUCCESS;
}

// The scalar members of object into fields, their keys after prefix.
error_code collectObject(od::object object, FieldList& fields, std::string_view prefix)
{
    std::optional<FieldValue> value;
    for (auto member : object) {
        od::field field;
        std::string_view key;
        if (const error_code error = std::move(member).get(field))
            return error;
        if (const error_code error = field.unescaped_key().get(key))
            return error;
        if (const error_code error = scalarField(field.value(), value))
            return error;
        if (value)
            setField(fields,
                     canonicalKey(prefix.empty() ? std::string(key) : std::string(prefix) + std::string(key)),
                     std::move(*value));
    }
    return simdjson::SUCCESS;
}

// {"headroom_bytes": 1} -> "headroom_bytes=1", as the text form spells it.
error_code renderDetail(od::object object, std::string& text)
{
    std::optional<FieldValue> value;
    for (auto member : object) {
        od::field field;
        std::string_view key;
        if (const error_code error = std::move(member).get(field))
            return error;
        if (const error_code error = field.unescaped_key().get(key))
            return error;
        if (const error_code error = scalarField(field.value(), value))
            return error;
        if (!value)
            continue;
        if (!text.empty())
            text += ' ';
        text.append(key).append("=").append(value->null ? std::string_view("null") : value->text);
    }
    return simdjson::SUCCESS;
}

} // namespace

struct BudgetLineParser::Impl
{
    PooledJsonParser json;
    std::string padded;
    std::string ansiBuffer;
    FieldList textFields;

    ParsedBudgetLine parseJson(std::string_view line);

private:
    // What the members of a line's object say, gathered before any is interpreted.
    struct Members
    {
        FieldList top;
        FieldList eventFields;
        bool hasEventFields = false;
        std::optional<std::string> target;
        std::vector<ParsedBudgetCache> caches;
        std::vector<ParsedBudgetReporter> reporters;
        std::string cacheError;
        FieldList entryFields; // scratch for one element of "caches" or "reporters"

        // Empty again for the next line; the field lists keep their capacity (a tick line has
        // 20-odd fields, and growing a list to them anew was 5 reallocations per line).
        void clear()
        {
            top.clear();
            eventFields.clear();
            hasEventFields = false;
            target.reset();
            caches.clear();
            reporters.clear();
            cacheError.clear();
        }
    };
    Members members;
    // Both fill members.
    error_code readMembers(od::object object);
    error_code readEntries(od::array array, bool isCaches);
};

// The elements of "caches" or "reporters"; the first bad one is members.cacheError.
error_code BudgetLineParser::Impl::readEntries(od::array array, bool isCaches)
{
    for (auto element : array) {
        od::object entry;
        if (const error_code error = element.get_object().get(entry))
            return error;
        FieldList& fields = members.entryFields;
        fields.clear();
        if (const error_code error = collectObject(entry, fields, ""))
            return error;
        if (isCaches) {
            ParsedBudgetCache cache;
            if (!readCache(fields, "name", cache, members.cacheError))
                return simdjson::SUCCESS;
            members.caches.push_back(std::move(cache));
        } else {
            ParsedBudgetReporter reporter;
            reporter.name = textOf(fields, "name");
            if (getInteger(fields, "current_bytes", reporter.currentBytes) != Get::Ok ||
                reporter.currentBytes < 0) {
                members.cacheError = "reporter '" + reporter.name +
                                     "': " + badValue("current_bytes", fields, "a non-negative integer");
                return simdjson::SUCCESS;
            }
            members.reporters.push_back(std::move(reporter));
        }
    }
    return simdjson::SUCCESS;
}

error_code BudgetLineParser::Impl::readMembers(od::object object)
{
    std::optional<FieldValue> scalar;
    for (auto member : object) {
        od::field field;
        std::string_view key;
        json_type type = json_type::null;
        if (const error_code error = std::move(member).get(field))
            return error;
        if (const error_code error = field.unescaped_key().get(key))
            return error;
        od::value value = field.value();
        if (const error_code error = value.type().get(type))
            return error;
        error_code error = simdjson::SUCCESS;
        od::object inner;
        od::array list;
        if (key == "fields" && type == json_type::object) {
            members.hasEventFields = true;
            if (!(error = value.get_object().get(inner)))
                error = collectObject(inner, members.eventFields, "");
        } else if (key == "jemalloc" && type == json_type::object) {
            if (!(error = value.get_object().get(inner)))
                error = collectObject(inner, members.top, "jemalloc.");
        } else if (key == "verdict_detail" && type == json_type::object) {
            std::string detail;
            if (!(error = value.get_object().get(inner)))
                error = renderDetail(inner, detail);
            setField(members.top, "verdict_detail", FieldValue{std::move(detail), true, false});
        } else if ((key == "caches" || key == "reporters") && type == json_type::array) {
            if (!(error = value.get_array().get(list)))
                error = readEntries(list, key == "caches");
            if (!error && !members.cacheError.empty())
                return simdjson::SUCCESS;
        } else if (key == "target" && type == json_type::string) {
            std::string_view target;
            error = value.get_string().get(target);
            members.target = std::string(target);
        } else if (error = scalarField(value, scalar); !error && scalar) {
            setField(members.top, canonicalKey(key), std::move(*scalar));
        } else if (!error && (key == "rss_bytes" || key == "target_bytes")) {
            // keeps the line a (malformed) snapshot instead of another tool's JSON
            setField(members.top, std::string(key),
                     FieldValue{type == json_type::object ? "an object" : "an array", false, false});
        }
        if (error)
            return error;
    }
    return simdjson::SUCCESS;
}

ParsedBudgetLine BudgetLineParser::Impl::parseJson(std::string_view line)
{
    ParsedBudgetLine out;
    padded.assign(line);
    padded.append(simdjson::SIMDJSON_PADDING, '\0');
    od::document document;
    od::object object;
    members.clear();
    error_code error = json->iterate(padded.data(), line.size(), padded.size()).get(document);
    if (!error)
        error = document.get_object().get(object);
    if (!error)
        error = readMembers(object);
    if (error) {
        // Whether a line we cannot parse was meant as a budget line decides Error vs. skipped.
        if (line.find("memory_budget") != std::string_view::npos ||
            line.find("\"rss_bytes\"") != std::string_view::npos)
            malformed(out, std::string("invalid JSON: ") + simdjson::error_message(error));
        out.form = BudgetLogForm::TracingJson;
        return out;
    }
    const FieldList& top = members.top;
    if (members.target) {
        out.form = BudgetLogForm::TracingJson;
        if (!isBudgetTarget(*members.target))
            return out;
        out.target = *members.target;
    } else if (findField(top, "rss_bytes")) {
        out.form = BudgetLogForm::SnapshotJsonLines;
    } else {
        out.form = BudgetLogForm::TracingJson;
        return out; // some other JSON (another tool's log)
    }
    if (!members.cacheError.empty()) {
        malformed(out, std::move(members.cacheError));
        return out;
    }
    if (const FieldValue* level = findField(top, "level"))
        out.level = budgetLogLevelFromString(level->text).value_or(BudgetLogLevel::Unknown);
    const FieldValue* timestamp = findField(top, "timestamp");
    std::optional<int64_t> ns;
    if (timestamp && !timestamp->null)
        ns = parseRfc3339Ns(timestamp->text);
    if (!ns) {
        malformed(out, timestamp ? "timestamp is not RFC 3339 ('" + shortened(timestamp->text) + "')"
                                 : std::string("no timestamp"));
        return out;
    }
    out.timestampNs = *ns;
    interpretFields(members.hasEventFields ? members.eventFields : top, out);
    if (out.form == BudgetLogForm::SnapshotJsonLines) {
        if (out.kind == BudgetLineKind::Skipped)
            malformed(out, "snapshot without the tick fields");
        if (out.kind != BudgetLineKind::Tick && out.kind != BudgetLineKind::Malformed)
            malformed(out, "snapshot line is not a tick");
        if (out.kind == BudgetLineKind::Tick) {
            out.caches = std::move(members.caches);
            out.reporters = std::move(members.reporters);
        }
    }
    return out;
}

BudgetLineParser::BudgetLineParser() : m_impl(std::make_unique<Impl>()) {}
BudgetLineParser::~BudgetLineParser() = default;

ParsedBudgetLine BudgetLineParser::parse(std::string_view line)
{
    const std::string_view content = trim(line);
    if (content.starts_with('{'))
        return m_impl->parseJson(content);
    return parseTextLine(line, m_impl->ansiBuffer, m_impl->textFields);
}

// ------------------------------------------------------------------ RFC 3339

std::optional<int64_t> parseRfc3339Ns(std::string_view s)
{
    const auto digits = [&](size_t pos, size_t count, int& value) {
        if (pos + count > s.size())
            return false;
        value = 0;
        for (size_t i = pos; i < pos + count; ++i) {
            if (!kAsciiDigit(s[i]))
                return false;
            value = value * 10 + (s[i] - '0');
        }
        return true;
    };
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(5, 2, month) || s[7] != '-' ||
        !digits(8, 2, day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(11, 2, hour) ||
        s[13] != ':' || !digits(14, 2, minute) || s[16] != ':' || !digits(17, 2, second))
        return std::nullopt;
    static constexpr std::array<int, 12> kDaysInMonth{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month < 1 || month > 12 || day < 1 ||
        day > kDaysInMonth[static_cast<size_t>(month - 1)] + (month == 2 && leap ? 1 : 0) || hour > 23 ||
        minute > 59 || second > 60)
        return std::nullopt;
    size_t pos = 19;
    int64_t fraction = 0;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        size_t count = 0;
        while (pos < s.size() && kAsciiDigit(s[pos])) {
            if (++count > 9)
                return std::nullopt;
            fraction = fraction * 10 + (s[pos] - '0');
            ++pos;
        }
        if (count == 0)
            return std::nullopt;
        for (size_t i = count; i < 9; ++i)
            fraction *= 10;
    }
    int64_t offsetSeconds = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int offsetHours = 0, offsetMinutes = 0;
        if (!digits(pos + 1, 2, offsetHours) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
            !digits(pos + 4, 2, offsetMinutes) || offsetHours > 23 || offsetMinutes > 59)
            return std::nullopt;
        offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (s[pos] == '-' ? -1 : 1);
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != s.size())
        return std::nullopt;
    // days from civil (proleptic Gregorian), Howard Hinnant's algorithm
    const int y = year - (month <= 2 ? 1 : 0);
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int mp = (month + 9) % 12;
    const int doy = (153 * mp + 2) / 5 + day - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const int64_t days = static_cast<int64_t>(era) * 146097 + doe - 719468;
    // Years up to 9999 keep the seconds far inside int64; their nanoseconds reach only from
    // 1677 to 2262: beyond, nullopt.
    const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
    const std::optional<int64_t> ns = checkedMul(seconds, 1'000'000'000);
    return ns ? checkedAdd(*ns, fraction) : std::nullopt;
}

// ------------------------------------------------------------------ assembling

namespace detail {

// The lines of one range of the file, assembled on their own: ticks, names and tick
// indices local to the chunk. A per-cache or per-reporter line whose target has no tick
// line earlier in the chunk is kept pending: the merge gives it the last tick of its target
// in the chunks before, or reports it, at its place among the chunk's problems.
struct BudgetChunk
{
    struct Pending
    {
        qint64 line = 0;
        BudgetLogForm form = BudgetLogForm::Text;
        std::string target;
        bool isCache = true;
        ParsedBudgetCache cache;
        ParsedBudgetReporter reporter;
        size_t problemsBefore = 0; // of `problems`: where its error would go
        const std::string& name() const { return isCache ? cache.name : reporter.name; }
    };

    explicit BudgetChunk(QString path) : path(std::move(path)) {}

    void add(ParsedBudgetLine&& line, qint64 lineNumber);
    void addProblem(LoadProblem::Level level, qint64 lineNumber, QString reason)
    {
        if (problems.size() < ProblemLog::kMaxKept)
            problems.push_back(LoadProblem{level, path, lineNumber, -1, std::move(reason)});
        else
            ++(level == LoadProblem::Level::Error ? droppedErrors : droppedWarnings);
    }

    QString path;
    BudgetTicks ticks;
    std::vector<qint64> nameFirstLine{0}; // line where each local name was first used
    std::vector<LoadProblem> problems;    // the first ProblemLog::kMaxKept, in file order
    qint64 droppedErrors = 0;             // problems after those
    qint64 droppedWarnings = 0;
    std::vector<Pending> pending;
    std::unordered_map<std::string, uint32_t> lastTickOfTarget;
    qint64 linesRead = 0;
    qint64 linesUsed = 0;
    qint64 linesSkipped = 0;
    qint64 firstUsedLine = 0; // 0 = none
    BudgetLogForm firstUsedForm = BudgetLogForm::Text;
    std::optional<LoadProblem> cutLastLine; // the last line of the file, ignored
};

void BudgetChunk::add(ParsedBudgetLine&& line, qint64 lineNumber)
{
    BudgetTicks& t = ticks;
    ++linesRead;
    const auto useForm = [&] {
        ++linesUsed;
        if (firstUsedLine == 0) {
            firstUsedLine = lineNumber;
            firstUsedForm = line.form;
        }
    };
    switch (line.kind) {
    case BudgetLineKind::Skipped:
        ++linesSkipped;
        return;
    case BudgetLineKind::Malformed:
        addProblem(LoadProblem::Level::Error, lineNumber, QString::fromStdString(line.reason));
        return;
    case BudgetLineKind::Tick: {
        useForm();
        const auto tick = static_cast<uint32_t>(t.size());
        t.timestampNs.push_back(line.timestampNs);
        t.targetBytes.push_back(line.targetBytes);
        t.effectiveTargetBytes.push_back(line.effectiveTargetBytes);
        t.rssBytes.push_back(line.rssBytes);
        t.rssSysinfoBytes.push_back(line.rssSysinfoBytes);
        t.leaseBytesActive.push_back(line.leaseBytesActive);
        t.jeAllocatedBytes.push_back(line.jeAllocatedBytes);
        t.jeActiveBytes.push_back(line.jeActiveBytes);
        t.jeMetadataBytes.push_back(line.jeMetadataBytes);
        t.jeResidentBytes.push_back(line.jeResidentBytes);
        t.jeMappedBytes.push_back(line.jeMappedBytes);
        t.jeRetainedBytes.push_back(line.jeRetainedBytes);
        t.verdictLabel.push_back(t.names.intern(line.verdict));
        t.verdictDetail.push_back(t.names.intern(line.verdictDetail));
        t.verdictStreak.push_back(line.verdictStreak);
        t.previousVerdictLabel.push_back(
            line.previousVerdictLabel ? t.names.intern(*line.previousVerdictLabel) : kEmptyName);
        t.previousVerdictStreak.push_back(line.previousVerdictLabel ? line.previousVerdictStreak : 0);
        t.level.push_back(line.level);
        t.sourceLine.push_back(lineNumber);
        for (auto& cache : line.caches)
            t.caches.push_back({tick, t.names.intern(cache.name), cache.currentBytes, cache.previousMaxBytes,
                                cache.newMaxBytes, cache.deltaBytes, cache.hitRate});
        for (auto& reporter : line.reporters)
            t.reporters.push_back({tick, t.names.intern(reporter.name), reporter.currentBytes});
        lastTickOfTarget[line.target] = tick;
        break;
    }
    case BudgetLineKind::Cache:
    case BudgetLineKind::Reporter: {
        const bool isCache = line.kind == BudgetLineKind::Cache;
        auto owner = lastTickOfTarget.find(line.target);
        if (owner == lastTickOfTarget.end()) {
            Pending row;
            row.line = lineNumber;
            row.form = line.form;
            row.target = std::move(line.target);
            row.isCache = isCache;
            if (isCache)
                row.cache = std::move(line.caches.front());
            else
                row.reporter = std::move(line.reporters.front());
            row.problemsBefore = problems.size();
            pending.push_back(std::move(row));
            return;
        }
        useForm();
        if (isCache) {
            const auto& cache = line.caches.front();
            t.caches.push_back({owner->second, t.names.intern(cache.name), cache.currentBytes,
                                cache.previousMaxBytes, cache.newMaxBytes, cache.deltaBytes, cache.hitRate});
        } else {
            t.reporters.push_back({owner->second, t.names.intern(line.reporters.front().name),
                                   line.reporters.front().currentBytes});
        }
        break;
    }
    case BudgetLineKind::RunEnded:
        useForm();
        t.runEnds.push_back({line.timestampNs, t.names.intern(line.previousVerdict),
                             line.previousVerdictStreak, t.names.intern(line.newVerdict), lineNumber});
        break;
    }
    nameFirstLine.resize(t.names.size(), lineNumber);
}

} // namespace detail

BudgetLogAssembler::BudgetLogAssembler(QString path) : m_data(std::make_shared<BudgetData>())
{
    m_data->path = std::move(path);
}

BudgetLogAssembler::~BudgetLogAssembler() = default;

void BudgetLogAssembler::add(ParsedBudgetLine&& line, qint64 lineNumber)
{
    if (!m_staged)
        m_staged = std::make_unique<detail::BudgetChunk>(m_data->path);
    m_staged->add(std::move(line), lineNumber);
}

void BudgetLogAssembler::countBlankLine()
{
    if (!m_staged)
        m_staged = std::make_unique<detail::BudgetChunk>(m_data->path);
    ++m_staged->linesRead;
}

void BudgetLogAssembler::flushStaged()
{
    if (!m_staged)
        return;
    std::unique_ptr<detail::BudgetChunk> staged = std::move(m_staged);
    append(std::move(*staged));
}

namespace {

template <typename T> void appendColumn(std::vector<T>& to, const std::vector<T>& from)
{
    to.insert(to.end(), from.begin(), from.end());
}

// Room for `more` elements after the end of v, grown geometrically: reserving exactly size + more
// for every merged range copied the whole column each time, quadratic in the ranges (two threads
// cut a window into four times the ranges of one: 2.4 times the CPU on a 64 MB snapshot log).
template <typename T> void reserveMore(std::vector<T>& v, size_t more)
{
    if (v.size() + more > v.capacity())
        v.reserve(std::max(v.size() + more, v.capacity() * 2));
}

void appendNames(std::vector<uint32_t>& to, const std::vector<uint32_t>& from,
                 const std::vector<uint32_t>& remap)
{
    reserveMore(to, from.size());
    for (uint32_t id : from)
        to.push_back(remap[id]);
}

} // namespace

void BudgetLogAssembler::append(detail::BudgetChunk&& chunk)
{
    flushStaged(); // lines added before come first
    BudgetData& d = *m_data;
    BudgetTicks& t = d.ticks;
    const BudgetTicks& c = chunk.ticks;
    const auto offset = static_cast<uint32_t>(t.size());

    // Pending rows belong to the last tick of their target before this chunk, if any.
    std::vector<int64_t> owner(chunk.pending.size(), -1);
    for (size_t i = 0; i < chunk.pending.size(); ++i)
        if (auto it = m_lastTickOfTarget.find(chunk.pending[i].target); it != m_lastTickOfTarget.end())
            owner[i] = it->second;

    // Names interned in the order of their first use in the file, as one pass would.
    std::vector<uint32_t> remap(c.names.size(), kEmptyName);
    std::vector<uint32_t> pendingName(chunk.pending.size(), kEmptyName);
    size_t next = 0;
    const auto internPendingBefore = [&](qint64 line) {
        for (; next < chunk.pending.size() && chunk.pending[next].line < line; ++next)
            if (owner[next] >= 0)
                pendingName[next] = t.names.intern(chunk.pending[next].name());
    };
    for (uint32_t id = 1; id < c.names.size(); ++id) {
        internPendingBefore(chunk.nameFirstLine[id]);
        remap[id] = t.names.intern(c.names.text(id));
    }
    internPendingBefore(std::numeric_limits<qint64>::max());

    // Usage and form.
    qint64 resolved = 0;
    qint64 firstResolvedLine = 0;
    BudgetLogForm firstResolvedForm = BudgetLogForm::Text;
    for (size_t i = 0; i < chunk.pending.size(); ++i) {
        if (owner[i] < 0)
            continue;
        if (resolved++ == 0) {
            firstResolvedLine = chunk.pending[i].line;
            firstResolvedForm = chunk.pending[i].form;
        }
    }
    d.linesRead += chunk.linesRead;
    d.linesSkipped += chunk.linesSkipped;
    d.linesUsed += chunk.linesUsed + resolved;
    if (!m_formKnown && (chunk.firstUsedLine > 0 || resolved > 0)) {
        const bool pendingFirst =
            resolved > 0 && (chunk.firstUsedLine == 0 || firstResolvedLine < chunk.firstUsedLine);
        d.form = pendingFirst ? firstResolvedForm : chunk.firstUsedForm;
        m_formKnown = true;
    }

    // Rows of earlier ticks first: each tick's rows stay in file order (the sort by tick
    // in finish is stable).
    for (size_t i = 0; i < chunk.pending.size(); ++i) {
        if (owner[i] < 0)
            continue;
        const auto tick = static_cast<uint32_t>(owner[i]);
        const auto& row = chunk.pending[i];
        if (row.isCache)
            t.caches.push_back({tick, pendingName[i], row.cache.currentBytes, row.cache.previousMaxBytes,
                                row.cache.newMaxBytes, row.cache.deltaBytes, row.cache.hitRate});
        else
            t.reporters.push_back({tick, pendingName[i], row.reporter.currentBytes});
    }

    for (auto [to, from] : {std::pair{&t.timestampNs, &c.timestampNs},
                            {&t.targetBytes, &c.targetBytes},
                            {&t.effectiveTargetBytes, &c.effectiveTargetBytes},
                            {&t.rssBytes, &c.rssBytes},
                            {&t.rssSysinfoBytes, &c.rssSysinfoBytes},
                            {&t.leaseBytesActive, &c.leaseBytesActive},
                            {&t.jeAllocatedBytes, &c.jeAllocatedBytes},
                            {&t.jeActiveBytes, &c.jeActiveBytes},
                            {&t.jeMetadataBytes, &c.jeMetadataBytes},
                            {&t.jeResidentBytes, &c.jeResidentBytes},
                            {&t.jeMappedBytes, &c.jeMappedBytes},
                            {&t.jeRetainedBytes, &c.jeRetainedBytes},
                            {&t.verdictStreak, &c.verdictStreak},
                            {&t.previousVerdictStreak, &c.previousVerdictStreak},
                            {&t.sourceLine, &c.sourceLine}})
        appendColumn(*to, *from);
    appendColumn(t.level, c.level);
    appendNames(t.verdictLabel, c.verdictLabel, remap);
    appendNames(t.verdictDetail, c.verdictDetail, remap);
    appendNames(t.previousVerdictLabel, c.previousVerdictLabel, remap);
    reserveMore(t.caches, c.caches.size());
    for (const auto& row : c.caches)
        t.caches.push_back({row.tick + offset, remap[row.name], row.currentBytes, row.previousMaxBytes,
                            row.newMaxBytes, row.deltaBytes, row.hitRate});
    reserveMore(t.reporters, c.reporters.size());
    for (const auto& row : c.reporters)
        t.reporters.push_back({row.tick + offset, remap[row.name], row.currentBytes});
    for (const auto& end : c.runEnds)
        t.runEnds.push_back({end.timestampNs, remap[end.previousLabel], end.previousStreak,
                             remap[end.newLabel], end.sourceLine});

    // Problems in file order, the pending rows without a tick among them.
    size_t problem = 0;
    for (size_t i = 0; i < chunk.pending.size(); ++i) {
        const auto& row = chunk.pending[i];
        for (; problem < row.problemsBefore; ++problem)
            d.problems.add(std::move(chunk.problems[problem]));
        if (owner[i] >= 0)
            continue;
        d.problems.addError(d.path, row.line,
                            QStringLiteral("%1 '%2' before any tick line of target %3")
                                .arg(row.isCache ? QStringLiteral("per-cache line of cache")
                                                 : QStringLiteral("per-reporter line of reporter"),
                                     QString::fromStdString(row.name()), QString::fromStdString(row.target)));
    }
    for (; problem < chunk.problems.size(); ++problem)
        d.problems.add(std::move(chunk.problems[problem]));
    for (qint64 i = 0; i < chunk.droppedErrors; ++i)
        d.problems.add(
            LoadProblem{LoadProblem::Level::Error, {}, 0, -1, {}}); // counted only: the log is full
    for (qint64 i = 0; i < chunk.droppedWarnings; ++i)
        d.problems.add(LoadProblem{LoadProblem::Level::Warning, {}, 0, -1, {}});

    for (const auto& [target, tick] : chunk.lastTickOfTarget)
        m_lastTickOfTarget[target] = tick + offset;
}

namespace {

template <typename T> void permute(std::vector<T>& column, const std::vector<uint32_t>& order)
{
    std::vector<T> sorted;
    sorted.reserve(column.size());
    for (uint32_t i : order)
        sorted.push_back(column[i]);
    column = std::move(sorted);
}

void sortTicksByTime(BudgetTicks& t)
{
    std::vector<uint32_t> order(t.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return t.timestampNs[a] < t.timestampNs[b]; });
    std::vector<uint32_t> newIndex(t.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        newIndex[order[i]] = i;
    for (auto* column :
         {&t.timestampNs, &t.targetBytes, &t.effectiveTargetBytes, &t.rssBytes, &t.rssSysinfoBytes,
          &t.leaseBytesActive, &t.jeAllocatedBytes, &t.jeActiveBytes, &t.jeMetadataBytes, &t.jeResidentBytes,
          &t.jeMappedBytes, &t.jeRetainedBytes, &t.verdictStreak, &t.previousVerdictStreak, &t.sourceLine})
        permute(*column, order);
    for (auto* column : {&t.verdictLabel, &t.verdictDetail, &t.previousVerdictLabel})
        permute(*column, order);
    permute(t.level, order);
    for (auto& row : t.caches)
        row.tick = newIndex[row.tick];
    for (auto& row : t.reporters)
        row.tick = newIndex[row.tick];
}

} // namespace

std::shared_ptr<BudgetData> BudgetLogAssembler::finish()
{
    flushStaged();
    BudgetData& d = *m_data;
    BudgetTicks& t = d.ticks;
    if (!std::is_sorted(t.timestampNs.begin(), t.timestampNs.end())) {
        d.problems.addWarning(d.path, 0,
                              QStringLiteral("ticks are not in timestamp order; sorted by timestamp"));
        sortTicksByTime(t);
    }
    std::stable_sort(t.caches.begin(), t.caches.end(),
                     [](const BudgetCacheRow& a, const BudgetCacheRow& b) { return a.tick < b.tick; });
    std::stable_sort(t.reporters.begin(), t.reporters.end(),
                     [](const BudgetReporterRow& a, const BudgetReporterRow& b) { return a.tick < b.tick; });
    const auto byTime = [](const BudgetVerdictRunEnd& a, const BudgetVerdictRunEnd& b) {
        return a.timestampNs < b.timestampNs;
    };
    std::stable_sort(t.runEnds.begin(), t.runEnds.end(), byTime);

    // The text and tracing-JSON forms announce a change with its own line; snapshot lines
    // carry it on the tick. Fill in each side from the other so all forms read the same.
    for (const auto& end : t.runEnds) {
        auto first = std::lower_bound(t.timestampNs.begin(), t.timestampNs.end(), end.timestampNs);
        for (auto it = first; it != t.timestampNs.end() && *it == end.timestampNs; ++it) {
            const auto i = static_cast<size_t>(it - t.timestampNs.begin());
            if (t.verdictLabel[i] == end.newLabel && t.previousVerdictLabel[i] == kEmptyName) {
                t.previousVerdictLabel[i] = end.previousLabel;
                t.previousVerdictStreak[i] = end.previousStreak;
                break;
            }
        }
    }
    std::vector<BudgetVerdictRunEnd> derived;
    for (size_t i = 0; i < t.size(); ++i) {
        if (t.previousVerdictLabel[i] == kEmptyName)
            continue;
        auto first = std::lower_bound(t.runEnds.begin(), t.runEnds.end(),
                                      BudgetVerdictRunEnd{t.timestampNs[i]}, byTime);
        bool logged = false;
        for (auto it = first; it != t.runEnds.end() && it->timestampNs == t.timestampNs[i]; ++it)
            logged |= it->newLabel == t.verdictLabel[i] && it->previousLabel == t.previousVerdictLabel[i];
        if (!logged)
            derived.push_back({t.timestampNs[i], t.previousVerdictLabel[i], t.previousVerdictStreak[i],
                               t.verdictLabel[i], 0});
    }
    if (!derived.empty()) {
        t.runEnds.insert(t.runEnds.end(), derived.begin(), derived.end());
        std::stable_sort(t.runEnds.begin(), t.runEnds.end(), byTime);
    }
    d.tickPeriodNs = budgetTickPeriodNs(t);
    d.gaps = findTickGaps(t, d.tickPeriodNs);
    m_lastTickOfTarget.clear();
    return std::move(m_data);
}

// ------------------------------------------------------------------ files

namespace {

QString tooLongReason(size_t bytes, size_t maxLineBytes)
{
    const QString limit = maxLineBytes % (size_t(1) << 20) == 0
                              ? QStringLiteral("%1 MB").arg(maxLineBytes >> 20)
                              : QStringLiteral("%1 bytes").arg(maxLineBytes);
    return QStringLiteral("line of %1 bytes is longer than the %2 a line may have").arg(bytes).arg(limit);
}

// One line of the file (without its '\n') into the chunk. lastWithoutNewline: the file ends
// inside this line, so a live writer may be mid-line; if it cannot be used it is a warning,
// as for JSON lines traces. tooLongBytes > 0: the line was longer than a line may be (its
// text is not given).
void handleBudgetLine(std::string_view line, qint64 lineNumber, bool lastWithoutNewline, size_t tooLongBytes,
                      size_t maxLineBytes, BudgetLineParser& parser, detail::BudgetChunk& chunk)
{
    if (tooLongBytes == 0 && line.size() > maxLineBytes)
        tooLongBytes = line.size();
    if (lineNumber == 1 && line.starts_with("\xEF\xBB\xBF"))
        line.remove_prefix(3);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    ParsedBudgetLine parsed;
    if (tooLongBytes > 0) {
        parsed.kind = BudgetLineKind::Malformed;
        parsed.reason = tooLongReason(tooLongBytes, maxLineBytes).toStdString();
    } else if (trim(line).empty()) {
        ++chunk.linesRead;
        return;
    } else {
        parsed = parser.parse(line);
    }
    if (lastWithoutNewline &&
        (parsed.kind == BudgetLineKind::Malformed || parsed.kind == BudgetLineKind::Skipped)) {
        ++chunk.linesRead; // read, neither used nor skipped: the warning tells
        chunk.cutLastLine = LoadProblem{
            LoadProblem::Level::Warning, chunk.path, lineNumber, -1,
            QStringLiteral("truncated last line ignored (no newline; a live writer may be mid-line)%1")
                .arg(parsed.reason.empty() ? QString()
                                           : QStringLiteral(": ") + QString::fromStdString(parsed.reason))};
        return;
    }
    // A text line cut inside a value still reads (rss_bytes=29 of rss_bytes=2917...) and
    // would show a number the program never had: ignore it, as a JSON lines trace does.
    // (A JSON object cannot be cut and still parse, so those forms keep their last line.)
    if (lastWithoutNewline && parsed.form == BudgetLogForm::Text) {
        ++chunk.linesRead; // read, neither used nor skipped: the warning tells
        chunk.cutLastLine =
            LoadProblem{LoadProblem::Level::Warning, chunk.path, lineNumber, -1,
                        QStringLiteral("truncated last line ignored (no newline; a live writer "
                                       "may have cut its last value)")};
        return;
    }
    chunk.add(std::move(parsed), lineNumber);
}

// The whole lines of one range into its chunk. False when cancelled.
bool parseBudgetRange(const WindowRange& range, size_t maxLineBytes, BudgetLineParser& parser,
                      detail::BudgetChunk& chunk)
{
    const char* data = range.data;
    size_t pos = range.begin;
    qint64 lineNumber = range.firstLine;
    while (pos < range.end) {
        if (!range.proceed(pos))
            return false;
        const void* found = std::memchr(data + pos, '\n', range.end - pos);
        const size_t lineEnd =
            found ? static_cast<size_t>(static_cast<const char*>(found) - data) : range.end;
        // Ranges hold whole lines: only the last line of the file may lack its '\n'.
        handleBudgetLine(std::string_view(data + pos, lineEnd - pos), lineNumber, !found && range.endsFile, 0,
                         maxLineBytes, parser, chunk);
        pos = found ? lineEnd + 1 : range.end;
        ++lineNumber;
    }
    return true;
}

} // namespace

namespace {

// A file or bytes (see readWindowed) read as a budget log.
BudgetLoadOutcome loadBudgetInput(const WindowedInput& input, const LoadControl& control,
                                  const BudgetLoadTuning& tuning)
{
    BudgetLoadOutcome outcome;
    const QString& path = input.name;
    // A line longer than maxLineBytes is not collected (a tick line is about 1 KB; a crashed
    // writer can leave hundreds of MB without a newline): it is counted and reported.
    const size_t maxLineBytes = std::max<size_t>(tuning.maxLineBytes, 1);
    BudgetLogAssembler assembler(path);
    std::optional<LoadProblem> cutLastLine;
    std::vector<std::unique_ptr<BudgetLineParser>> parsers;
    std::vector<detail::BudgetChunk> chunks;
    BudgetLineParser mainParser; // for lines too long for a window

    WindowedForm form;
    form.threads = control.threads;
    form.windowBytesPerThread = tuning.windowBytesPerThread;
    form.maxLineBytes = maxLineBytes;
    form.numberLinesFirst = true; // a line's number is part of what it parses into
    form.progress = control.progress;
    form.cancel = control.cancel;
    form.prepare = [&](size_t slotCount) {
        parsers.resize(slotCount); // made by the first range of their slot: bytes use one
        for (size_t i = 0; i < slotCount; ++i)
            chunks.emplace_back(path);
    };
    form.parse = [&](const WindowRange& range, qint64*) {
        std::unique_ptr<BudgetLineParser>& parser = parsers[range.slot];
        if (!parser)
            parser = std::make_unique<BudgetLineParser>();
        return parseBudgetRange(range, maxLineBytes, *parser, chunks[range.slot]);
    };
    const auto take = [&](detail::BudgetChunk& chunk) {
        if (chunk.cutLastLine)
            cutLastLine = std::move(chunk.cutLastLine);
        assembler.append(std::move(chunk));
    };
    form.merge = [&](const WindowMerge& merge) {
        if (merge.complete)
            take(chunks[merge.slot]);
        chunks[merge.slot] = detail::BudgetChunk(path);
    };
    form.longLine = [&](size_t, qint64 lineNumber, qint64 bytes, bool endsFile) {
        detail::BudgetChunk chunk(path);
        handleBudgetLine({}, lineNumber, endsFile, static_cast<size_t>(bytes), maxLineBytes, mainParser,
                         chunk);
        take(chunk);
    };
    const WindowedReadResult read = readWindowed(std::vector<WindowedInput>{input}, form);
    if (!read.error.isEmpty()) {
        outcome.fatalError = path + QStringLiteral(": ") + read.error;
        return outcome;
    }
    outcome.cancelled = read.cancelled;

    std::shared_ptr<BudgetData> data = assembler.finish();
    if (cutLastLine)
        data->problems.add(std::move(*cutLastLine));
    if (data->ticks.empty() && !outcome.cancelled) {
        QString detail = QStringLiteral("no memory-budget tick found (%1 lines read, %2 skipped, %3 errors)")
                             .arg(data->linesRead)
                             .arg(data->linesSkipped)
                             .arg(data->problems.errorCount());
        if (!data->problems.kept().empty())
            detail += QStringLiteral("; first problem: ") + data->problems.kept().front().toString();
        outcome.fatalError = path + QStringLiteral(": ") + detail;
        return outcome;
    }
    outcome.data = std::move(data);
    return outcome;
}

} // namespace

BudgetLoadOutcome loadBudgetLog(const QString& path, const LoadControl& control,
                                const BudgetLoadTuning& tuning)
{
    // Opening a FIFO, socket or device could block forever or never end: refuse it.
    if (const QFileInfo info(path); info.exists() && !info.isDir() && !info.isFile()) {
        BudgetLoadOutcome outcome;
        outcome.fatalError =
            path + QStringLiteral(": not a regular file (a FIFO, socket or device); refused");
        return outcome;
    }
    return loadBudgetInput(WindowedInput{path, std::nullopt}, control, tuning);
}

BudgetLoadOutcome loadBudgetBytes(std::string_view bytes, const QString& name, const LoadControl& control,
                                  const BudgetLoadTuning& tuning)
{
    return loadBudgetInput(WindowedInput{name, bytes}, control, tuning);
}

std::optional<BudgetLogForm> detectBudgetLogForm(std::string_view bytes)
{
    BudgetLineParser parser;
    size_t start = 0;
    constexpr int kMaxLines = 200;
    for (int lines = 0; lines < kMaxLines && start < bytes.size(); ++lines) {
        size_t end = bytes.find('\n', start);
        if (end == std::string_view::npos)
            end = bytes.size(); // possibly cut: a cut line simply fails to parse
        std::string_view line = bytes.substr(start, end - start);
        start = end + 1;
        if (line.starts_with("\xEF\xBB\xBF"))
            line.remove_prefix(3);
        if (trim(line).empty())
            continue;
        const ParsedBudgetLine parsed = parser.parse(line);
        if (parsed.kind != BudgetLineKind::Skipped && parsed.kind != BudgetLineKind::Malformed)
            return parsed.form;
    }
    return std::nullopt;
}

bool looksLikeBudgetLog(const QByteArray& head)
{
    return detectBudgetLogForm(std::string_view(head.constData(), static_cast<size_t>(head.size())))
        .has_value();
}

} // namespace gapscope
