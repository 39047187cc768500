#include "model/budget/BudgetLineFields.h"

#include "analysis/Int64Math.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gapscope::detail::budget {

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

// A logged number without its blanks and a leading '+' (from_chars takes neither).
static std::string_view numberText(std::string_view text)
{
    text = trim(text);
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    return text;
}

// Integers as logged: plain digits, or a JSON/float spelling of a whole number.
bool parseInteger(std::string_view text, int64_t& value)
{
    text = numberText(text);
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
    text = numberText(text);
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

} // namespace gapscope::detail::budget
