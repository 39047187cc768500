#pragma once
// Compact JSON text helpers: the store keeps event metadata as compact JSON, whether it came
// from a JSON trace or from a CSV cell holding a Python dict repr ({'backend': 'cuda'}).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gapscope {

// Appends s (UTF-8) as a JSON string literal with the minimal escapes, so equal strings
// always give equal text whatever escapes their source used.
void appendJsonString(std::string& out, std::string_view utf8);

// True when token is a JSON number (-?int frac? exp?).
bool isJsonNumber(std::string_view token);

// What a JSON number token is worth in an integer field. Writers that go through floating
// point (pandas writes an integer column holding one empty cell as floats, "86180352.0")
// spell integers as floats; such a token is read as the integer it is while that is exact:
// no fractional digit other than 0 and a magnitude below 2^53, above which a double no longer
// holds every integer. Decided on the text, so a fraction that a double would round away
// ("4503599627370496.4") is still a fraction.
enum class IntegralNumber
{
    Exact,    // *value is set
    Fraction, // a digit after the point is not 0
    TooLarge, // |value| >= 2^53
    NotANumber,
};
IntegralNumber integralNumber(std::string_view token, int64_t* value);

// Converts a Python literal as repr() prints it (dict, list, tuple, str, bytes, int, float,
// True/False/None) or a JSON value to compact JSON text: no whitespace, keys in their
// order, strings re-escaped by appendJsonString. Non-string dict keys become strings as
// json.dumps does; nan/inf become null. nullopt with *error set when the text is neither.
std::optional<std::string> pythonLiteralToJson(std::string_view text, std::string* error = nullptr);

} // namespace gapscope
