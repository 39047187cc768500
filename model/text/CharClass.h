#pragma once
// Character classes as tables of bool, and the scans over them that the text parsers' inner
// loops use (the budget text form, trace form detection).
//
// Why tables and pointers: a bool loaded from a table is branched on without an integer
// comparison, and a loop over pointers compares pointers, not integers. The fuzz build's
// coverage instrumentation calls back on every integer comparison, and the chains of
// comparisons per character of a scanning loop (`i < size`, `c == ' ' || c == '\t' ...`) were a
// fifth of fuzz_budget_text's time (docs/robustness.md). Outside the fuzz build the tables cost
// nothing either: they are built at compile time.

#include <array>
#include <cstddef>
#include <string_view>

namespace gapscope {

struct CharClass
{
    std::array<bool, 256> member{};
    constexpr bool operator()(char c) const { return member[static_cast<unsigned char>(c)]; }
};

// The table of the characters for which test(c) holds.
template <typename Test> constexpr CharClass charClass(Test test)
{
    CharClass table;
    for (int c = 0; c < 256; ++c)
        table.member[static_cast<size_t>(c)] = test(static_cast<char>(c));
    return table;
}

// The classes more than one parser scans by: white space as C's isspace (and QByteArray's
// trimmed) has it in the C locale, and the decimal digits.
inline constexpr CharClass kAsciiSpace = charClass(
    [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; });
inline constexpr CharClass kAsciiDigit = charClass([](char c) { return c >= '0' && c <= '9'; });

// The first position from pos on whose character is not in `chars` (skipWhile) or is in it
// (skipUntil); the size of s when there is none. pos <= s.size().
inline size_t skipWhile(std::string_view s, size_t pos, const CharClass& chars)
{
    const char* p = s.data() + pos;
    const char* const end = s.data() + s.size();
    while (p < end && chars(*p))
        ++p;
    return static_cast<size_t>(p - s.data());
}
inline size_t skipUntil(std::string_view s, size_t pos, const CharClass& chars)
{
    const char* p = s.data() + pos;
    const char* const end = s.data() + s.size();
    while (p < end && !chars(*p))
        ++p;
    return static_cast<size_t>(p - s.data());
}

// s without the characters in `chars` at either end.
inline std::string_view trimmedBy(std::string_view s, const CharClass& chars)
{
    s.remove_prefix(skipWhile(s, 0, chars));
    while (!s.empty() && chars(s.back()))
        s.remove_suffix(1);
    return s;
}

} // namespace gapscope
