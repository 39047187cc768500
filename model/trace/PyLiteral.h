#pragma once
// Compact JSON text helpers: the store keeps event metadata as compact JSON, whether it came
// from a JSON trace or from a CSV cell holding a Python dict repr ({'backend': 'cuda'}).

#include <optional>
#include <string>
#include <string_view>

namespace gapscope {

// Appends s (UTF-8) as a JSON string literal with the minimal escapes, so equal strings
// always give equal text whatever escapes their source used.
void appendJsonString(std::string& out, std::string_view utf8);

// True when token is a JSON number (-?int frac? exp?).
bool isJsonNumber(std::string_view token);

// Converts a Python literal as repr() prints it (dict, list, tuple, str, bytes, int, float,
// True/False/None) or a JSON value to compact JSON text: no whitespace, keys in their
// order, strings re-escaped by appendJsonString. Non-string dict keys become strings as
// json.dumps does; nan/inf become null. nullopt with *error set when the text is neither.
std::optional<std::string> pythonLiteralToJson(std::string_view text, std::string* error = nullptr);

} // namespace gapscope
