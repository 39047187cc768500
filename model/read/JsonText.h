#pragma once
// JSON text scanned without parsing it: its blanks, and the one walk over its brackets outside
// strings that every reader uses to find where a value ends (the fuzz targets' consumed-document
// check, the first record of an array for a run's name) or how deep it nests (the record parser's
// depth rule for fields it skips). Qt-free, header only.

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace gapscope {

// JSON's white space (RFC 8259: space, tab, line feed, carriage return).
constexpr bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// s without JSON white space at either end.
inline std::string_view trimmedJson(std::string_view s)
{
    while (!s.empty() && isJsonSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isJsonSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

// Walks text from text[start] over the brackets ('[', '{', ']', '}') outside strings (a
// backslash in a string escapes the byte after it), counting the depth: up at an opening
// bracket, down at a closing one, whichever kind. visit(position, depthAfter) is called at each
// bracket; the walk stops where it returns true and gives that position, or npos when the text
// ends first. Nothing is validated: brackets of the wrong kind count alike.
template <typename Visit> size_t walkJsonBrackets(std::string_view text, size_t start, Visit&& visit)
{
    int depth = 0;
    for (size_t i = start; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                i += text[i] == '\\' ? 1 : 0;
        } else if (c == '[' || c == '{') {
            if (visit(i, ++depth))
                return i;
        } else if (c == ']' || c == '}') {
            if (visit(i, --depth))
                return i;
        }
    }
    return std::string_view::npos;
}

// One past the JSON array or object that starts at text[start]; npos when it does not close
// within text.
inline size_t endOfJsonValue(std::string_view text, size_t start)
{
    const size_t close = walkJsonBrackets(text, start, [](size_t, int depth) { return depth <= 0; });
    return close == std::string_view::npos ? close : close + 1;
}

// The deepest nesting of arrays and objects in JSON text.
inline int jsonNestingDepth(std::string_view text)
{
    int deepest = 0;
    walkJsonBrackets(text, 0, [&deepest](size_t, int depth) {
        deepest = std::max(deepest, depth);
        return false;
    });
    return deepest;
}

} // namespace gapscope
