#include "model/trace/EventRecordParser.h"

#include "model/read/JsonText.h"
#include "model/trace/PyLiteral.h"
#include "model/trace/RecordFields.h"

#include <array>

namespace gapscope::detail {

using simdjson::error_code;
namespace od = simdjson::ondemand;

namespace {

// A raw token without the blanks simdjson counts into it up to the next token.
std::string_view trimmedToken(std::string_view token)
{
    while (!token.empty() &&
           (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' || token.back() == '\r'))
        token.remove_suffix(1);
    return token;
}

// Writes object as compact canonical JSON, each field's value by writeValue(key, value, out).
template <typename WriteValue>
error_code writeObject(od::object& object, std::string& out, WriteValue&& writeValue)
{
    out += '{';
    bool first = true;
    for (auto fieldResult : object) {
        od::field field;
        if (auto error = std::move(fieldResult).get(field))
            return error;
        std::string_view key;
        if (auto error = field.unescaped_key().get(key))
            return error;
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, key);
        out += ':';
        if (auto error = writeValue(key, field.value(), out))
            return error;
    }
    out += '}';
    return simdjson::SUCCESS;
}

// Writes the metadata object canonically while picking out the keys the loader needs.
error_code writeMetadata(od::value& value, std::string& out, std::string& backend, EventOrigin& origin)
{
    od::object object;
    if (auto error = value.get_object().get(object))
        return error;
    return writeObject(
        object, out, [&](std::string_view key, od::value& child, std::string& text) -> error_code {
            od::json_type type;
            if (auto error = child.type().get(type))
                return error;
            if ((key == "backend" || key == "origin_phase_scope_id") && type == od::json_type::string) {
                std::string_view string;
                if (auto error = child.get_string().get(string))
                    return error;
                appendJsonString(text, string);
                if (key == "backend")
                    backend.assign(string);
                else
                    origin.phaseScopeId = std::string(string);
                return simdjson::SUCCESS;
            }
            if (key == "origin_thread_id" && type == od::json_type::number) {
                int64_t thread = 0;
                if (child.get_int64().get(thread) == simdjson::SUCCESS) {
                    text += std::to_string(thread);
                    origin.threadId = thread;
                    return simdjson::SUCCESS;
                }
            }
            return writeCanonicalJson(child, text, 1);
        });
}

} // namespace

error_code readScalar(od::value& value, Scalar& out)
{
    od::json_type type;
    if (auto error = value.type().get(type))
        return error;
    out = Scalar{};
    switch (type) {
    case od::json_type::null: {
        bool isNull = false;
        out.kind = (value.is_null().get(isNull) == simdjson::SUCCESS && isNull) ? Scalar::Kind::Null
                                                                                : Scalar::Kind::Invalid;
        break;
    }
    case od::json_type::boolean: {
        bool b = false;
        out.kind = value.get_bool().get(b) == simdjson::SUCCESS ? Scalar::Kind::Bool : Scalar::Kind::Invalid;
        out.i = b ? 1 : 0;
        break;
    }
    case od::json_type::number: {
        // Nearly every number is an int64: try that first (one scan of the digits); get_int64
        // leaves the value unread when it fails, so the general path below still sees it.
        if (value.get_int64().get(out.i) == simdjson::SUCCESS) {
            out.kind = Scalar::Kind::Int;
            break;
        }
        od::number_type numberType;
        if (value.get_number_type().get(numberType) != simdjson::SUCCESS) {
            out.kind = Scalar::Kind::Invalid;
        } else if (numberType == od::number_type::floating_point_number) {
            // the token as written: an integer field reads an integral one (integralNumber)
            out.s = trimmedToken(value.raw_json_token());
            out.kind = value.get_double().get(out.d) == simdjson::SUCCESS ? Scalar::Kind::Float
                                                                          : Scalar::Kind::Invalid;
        } else {
            out.kind =
                value.get_int64().get(out.i) == simdjson::SUCCESS ? Scalar::Kind::Int : Scalar::Kind::Invalid;
        }
        break;
    }
    case od::json_type::string:
        out.kind =
            value.get_string().get(out.s) == simdjson::SUCCESS ? Scalar::Kind::String : Scalar::Kind::Invalid;
        break;
    case od::json_type::object:
        out.kind = Scalar::Kind::Object; // left unconsumed: the iteration skips it
        break;
    case od::json_type::array:
        out.kind = Scalar::Kind::Array;
        break;
    }
    return simdjson::SUCCESS;
}

error_code writeCanonicalJson(od::value value, std::string& out, int depth)
{
    if (depth > kMaxJsonDepth)
        return simdjson::DEPTH_ERROR;
    od::json_type type;
    if (auto error = value.type().get(type))
        return error;
    switch (type) {
    case od::json_type::object: {
        od::object object;
        if (auto error = value.get_object().get(object))
            return error;
        return writeObject(object, out, [depth](std::string_view, od::value& child, std::string& text) {
            return writeCanonicalJson(child, text, depth + 1);
        });
    }
    case od::json_type::array: {
        od::array array;
        if (auto error = value.get_array().get(array))
            return error;
        out += '[';
        bool first = true;
        for (auto elementResult : array) {
            od::value element;
            if (auto error = std::move(elementResult).get(element))
                return error;
            if (!first)
                out += ',';
            first = false;
            if (auto error = writeCanonicalJson(element, out, depth + 1))
                return error;
        }
        out += ']';
        return simdjson::SUCCESS;
    }
    case od::json_type::string: {
        std::string_view text;
        if (auto error = value.get_string().get(text))
            return error;
        appendJsonString(out, text);
        return simdjson::SUCCESS;
    }
    case od::json_type::number: {
        const std::string_view token = trimmedJson(value.raw_json_token());
        if (!isJsonNumber(token))
            return simdjson::NUMBER_ERROR;
        out += token;
        return simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
        bool b = false;
        if (auto error = value.get_bool().get(b))
            return error;
        out += b ? "true" : "false";
        return simdjson::SUCCESS;
    }
    case od::json_type::null: {
        bool isNull = false;
        if (auto error = value.is_null().get(isNull))
            return error;
        if (!isNull)
            return simdjson::N_ATOM_ERROR;
        out += "null";
        return simdjson::SUCCESS;
    }
    }
    return simdjson::INCORRECT_TYPE;
}

const QString& invalidJsonMessage(error_code error)
{
    // error_message() is defined for the codes below NUM_ERROR_CODES only.
    static const std::array<QString, simdjson::NUM_ERROR_CODES> messages = [] {
        std::array<QString, simdjson::NUM_ERROR_CODES> made;
        for (size_t code = 0; code < made.size(); ++code)
            made[code] = QStringLiteral("invalid JSON: %1")
                             .arg(QString::fromUtf8(simdjson::error_message(static_cast<error_code>(code))));
        return made;
    }();
    static const QString unknown = QStringLiteral("invalid JSON");
    const auto code = static_cast<size_t>(error);
    return code < messages.size() ? messages[code] : unknown;
}

EventRecordParser::EventRecordParser(QString file)
    : m_file(std::move(file)), m_record(std::make_unique<RecordFields>())
{
}

EventRecordParser::~EventRecordParser() = default;

EventRecordParser::Outcome EventRecordParser::parse(od::object object, const RecordLocation& where,
                                                    EventChunk& chunk)
{
    ++chunk.recordsRead;
    RecordFields& record = *m_record;
    record.clear();
    auto& unknownKeys = record.unknownKeys;
    auto& duplicateKeys = record.duplicateKeys;
    auto& reject = record.reject;
    auto& backend = record.backend;
    auto& origin = record.origin;
    bool& metadataSeen = record.metadataSeen;
    m_metadata.clear();

    auto syntax = [this](error_code error) {
        m_syntaxError = error;
        return Outcome::SyntaxError;
    };

    size_t position = 0;
    for (auto fieldResult : object) {
        od::field field;
        if (auto error = std::move(fieldResult).get(field))
            return syntax(error);
        // A writer puts the keys in the same order on every line: the key at this position
        // last time is compared in place first, without unescaping the key or looking it up.
        std::optional<Field> known;
        std::string_view key;
        if (position < m_keyOrder.size() && m_keyOrder[position] < kFieldCount &&
            field.key().unsafe_is_equal(nameOf(static_cast<Field>(m_keyOrder[position])))) {
            known = static_cast<Field>(m_keyOrder[position]);
            key = nameOf(*known);
        } else {
            if (auto error = field.unescaped_key().get(key))
                return syntax(error);
            known = findField(key);
            rememberKeyAt(m_keyOrder, position, known);
        }
        ++position;
        if (!known) {
            unknownKeys.emplace_back(key);
            // The unread value is skipped by the iteration, but one nested deeper than metadata
            // may be is refused as metadata is: one depth rule for every field and form.
            od::json_type type;
            if (auto error = field.value().type().get(type))
                return syntax(error);
            if (type == od::json_type::object || type == od::json_type::array) {
                std::string_view raw;
                error_code error = simdjson::SUCCESS;
                if (type == od::json_type::object) {
                    od::object inner;
                    error = field.value().get_object().get(inner);
                    if (!error)
                        error = inner.raw_json().get(raw);
                } else {
                    od::array inner;
                    error = field.value().get_array().get(inner);
                    if (!error)
                        error = inner.raw_json().get(raw);
                }
                if (error)
                    return syntax(error);
                if (jsonNestingDepth(raw) > kMaxJsonDepth && reject.empty())
                    reject = "field '" + unknownKeys.back() +
                             "': " + simdjson::error_message(simdjson::DEPTH_ERROR);
            }
            continue;
        }
        od::value& value = field.value();
        if (*known == Field::Metadata) {
            od::json_type type;
            if (auto error = value.type().get(type))
                return syntax(error);
            m_metadata.clear();
            backend.clear();
            origin = EventOrigin{};
            if (metadataSeen)
                duplicateKeys.emplace_back(key);
            metadataSeen = true;
            if (type == od::json_type::object) {
                if (auto error = writeMetadata(value, m_metadata, backend, origin)) {
                    if (error == simdjson::NUMBER_ERROR || error == simdjson::DEPTH_ERROR ||
                        error == simdjson::N_ATOM_ERROR) {
                        if (reject.empty())
                            reject = std::string("field 'metadata': ") + simdjson::error_message(error);
                        continue;
                    }
                    return syntax(error);
                }
            } else if (type != od::json_type::null && reject.empty()) {
                Scalar scalar;
                if (auto error = readScalar(value, scalar))
                    return syntax(error);
                reject = std::string("field 'metadata': expected an object, got ") + kindName(scalar.kind);
            }
            continue;
        }
        Scalar& slot = record.slot(*known);
        if (slot.kind != Scalar::Kind::Absent)
            duplicateKeys.emplace_back(key);
        if (auto error = readScalar(value, slot))
            return syntax(error);
    }

    return finish(record, where, chunk);
}

} // namespace gapscope::detail
