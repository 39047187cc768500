#pragma once
// Internal to the budget-log reader: what the three line forms share. A line's fields, from
// the text form's key=value pairs or a JSON line's members, are gathered into one FieldList
// and interpreted by one function (interpretFields), so that every form reads a tick alike.
// The text form (BudgetTextLine.cpp) and the JSON forms (BudgetLineParser.cpp) use it.

#include "model/budget/BudgetLoader.h"
#include "model/text/CharClass.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gapscope::detail::budget {

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

struct FieldValue
{
    std::string text;
    bool quoted = false; // a string (quoted in text, a JSON string)
    bool null = false;   // JSON null
};
using FieldList = std::vector<std::pair<std::string, FieldValue>>;

enum class Get
{
    Missing,
    Ok,
    Bad
};

std::string_view trim(std::string_view s);
// s, cut to 40 characters with "..." when longer, for a message.
std::string shortened(std::string_view s);
bool isBudgetTarget(std::string_view target);
// Integers as logged: plain digits, or a JSON/float spelling of a whole number.
bool parseInteger(std::string_view text, int64_t& value);
bool parseReal(std::string_view text, double& value);
// Removes ANSI escape sequences (CSI "ESC [ ... final" and two-byte escapes).
std::string_view stripAnsi(std::string_view line, std::string& buffer);

// jemalloc fields come as je_x, jemalloc_x or jemalloc.x (x with or without _bytes).
std::string canonicalKey(std::string_view key);
// The last occurrence of a key wins, as in a map.
void setField(FieldList& fields, std::string key, FieldValue value);
const FieldValue* findField(const FieldList& fields, std::string_view key);
Get getInteger(const FieldList& fields, std::string_view key, int64_t& value);
// "key is not <expected> ('value')".
std::string badValue(std::string_view key, const FieldList& fields, std::string_view expected);
// A cache's fields (nameKey names it) into cache; false with error saying why not.
bool readCache(const FieldList& fields, std::string_view nameKey, ParsedBudgetCache& cache,
               std::string& error);
std::string textOf(const FieldList& fields, std::string_view key);
void malformed(ParsedBudgetLine& out, std::string reason);
// What the fields of a budget line say, whatever form they came in.
void interpretFields(const FieldList& fields, ParsedBudgetLine& out);

// A line of the text form (tracing's fmt layer); ansiBuffer and fields are scratch.
ParsedBudgetLine parseTextLine(std::string_view rawLine, std::string& ansiBuffer, FieldList& fields);

} // namespace gapscope::detail::budget
