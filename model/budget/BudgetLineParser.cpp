#include "model/budget/BudgetLineFields.h"

#include "model/base/Rfc3339.h"
#include "model/read/JsonParserPool.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

// BudgetLineParser: a line of any form, detected per line. The JSON forms (tracing JSON,
// snapshot JSON lines) are read here; the text form in BudgetTextLine.cpp.

namespace gapscope {

using namespace detail::budget;

namespace {

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

// Calls visit(key, value) for each member of object that holds a scalar, in order.
template <typename Visit> error_code forEachScalarMember(od::object object, Visit&& visit)
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
            visit(key, std::move(*value));
    }
    return simdjson::SUCCESS;
}

// The scalar members of object into fields, their keys after prefix.
error_code collectObject(od::object object, FieldList& fields, std::string_view prefix)
{
    return forEachScalarMember(object, [&](std::string_view key, FieldValue value) {
        setField(fields,
                 canonicalKey(prefix.empty() ? std::string(key) : std::string(prefix) + std::string(key)),
                 std::move(value));
    });
}

// {"headroom_bytes": 1} -> "headroom_bytes=1", as the text form spells it.
error_code renderDetail(od::object object, std::string& text)
{
    return forEachScalarMember(object, [&text](std::string_view key, const FieldValue& value) {
        if (!text.empty())
            text += ' ';
        text.append(key).append("=").append(value.null ? std::string_view("null") : value.text);
    });
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

} // namespace gapscope
