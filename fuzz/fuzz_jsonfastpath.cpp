// libFuzzer target: JSON lines read by the fast path (EventRecordParser::parseFlatLine) and
// by simdjson alone must give the same chunk; any difference aborts with what differs. The same
// records as a top-level array (the input itself when it starts with '[', else its lines as the
// elements of a pretty-printed array) are read as the loader streams an array (readJsonArray)
// with and without the fast path, which must agree on whether they take it and on the chunk,
// and, when they take it, give what simdjson reads from the whole document.
//
// An input starting with the byte 0x01 is one value of a record in stormlog's own shape
// (bench/RealShape.h: sorted keys, spaced separators, nested metadata): the rest of the input
// becomes the metadata of three such lines - the second repeats the first, as a writer does on
// most lines, the third has the value once more after a phase event - and, after a 0x02 byte,
// the value of the context field. Other inputs are read as they are.
#include "bench/RealShape.h"
#include "model/trace/JsonEventReader.h"
#include "model/trace/WindowedRecords.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

gapscope::detail::EventChunk readLines(const std::string& padded, size_t size, bool fast)
{
    using namespace gapscope::detail;
    EventRecordParser parser(QStringLiteral("fuzz.jsonl"));
    EventChunk chunk;
    RangeControl control;
    control.flatFastPath = fast;
    parseJsonLinesRange(padded.data(), 0, size, padded.size(), 1, true, parser, chunk, control);
    return chunk;
}

// The real-shaped record of event i with the text of its metadata (and context) replaced.
std::string realShapedLine(int64_t i, std::string_view metadata, std::string_view context)
{
    using namespace gapscope::bench;
    RealShapeSource source;
    std::string line;
    appendSortedLine(line, source.next(i));
    auto replaceValue = [&line](std::string_view key, std::string_view value, char close) {
        const std::string quoted = "\"" + std::string(key) + "\": ";
        const size_t start = line.find(quoted);
        if (start == std::string::npos)
            return;
        const size_t from = start + quoted.size();
        // the metadata object ends before ", \"pid\"" (sorted keys); the context string at its quote
        const size_t to = close == '}' ? line.find(", \"pid\": ", from) : line.find("\", ", from + 1) + 1;
        if (to != std::string::npos && to > from)
            line.replace(from, to - from, value);
    };
    replaceValue("metadata", metadata, '}');
    if (!context.empty())
        replaceValue("context", context, '"');
    return line;
}

[[noreturn]] void differs(const char* what, const QString& difference)
{
    std::fprintf(stderr, "%s: %s\n", what, qPrintable(difference));
    std::abort();
}

gapscope::detail::EventChunk readArray(std::string_view text, bool fast, bool* unusable)
{
    using namespace gapscope;
    detail::EventChunk chunk;
    detail::readJsonArray(WindowedInput{QStringLiteral("fuzz.json"), text}, chunk, WindowedForm{}, unusable,
                          fast);
    return chunk;
}

void compareArray(const std::string& array)
{
    using namespace gapscope::detail;
    bool fastUnusable = false, slowUnusable = false;
    const EventChunk fast = readArray(array, true, &fastUnusable);
    const EventChunk slow = readArray(array, false, &slowUnusable);
    if (fastUnusable != slowUnusable)
        differs("array: the fast path and simdjson disagree on taking the text", QString());
    if (fastUnusable)
        return; // the loader reads the whole document
    if (const QString difference = chunkDifference(fast, slow); !difference.isEmpty())
        differs("array: fast path differs from simdjson per element", difference);
    const simdjson::padded_string buffer(array);
    EventRecordParser parser(QStringLiteral("fuzz.json"));
    EventChunk document;
    parseJsonDocument(buffer, parser, document, RangeControl{});
    if (const QString difference = chunkDifference(fast, document); !difference.isEmpty())
        differs("array: streamed elements differ from the whole document", difference);
}

// The non-blank lines of text as the elements of an array written with indent 2.
std::string asArray(std::string_view text)
{
    std::string array = "[";
    size_t pos = 0;
    bool first = true;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
            array += first ? "\n  " : ",\n  ";
            array += line;
            first = false;
        }
        pos = end + 1;
    }
    return array + "\n]";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string text(reinterpret_cast<const char*>(data), size);
    if (!text.empty() && text.front() == '\x01') {
        std::string_view value(text.data() + 1, text.size() - 1);
        std::string_view context;
        if (const size_t split = value.find('\x02'); split != std::string_view::npos) {
            context = value.substr(split + 1);
            value = value.substr(0, split);
        }
        text = realShapedLine(1, value, context) + realShapedLine(2, value, context) +
               realShapedLine(999, "{}", {}) + realShapedLine(1000, value, context);
    }
    const size_t length = text.size();
    text.append(simdjson::SIMDJSON_PADDING, '\0');
    const QString difference =
        gapscope::detail::chunkDifference(readLines(text, length, true), readLines(text, length, false));
    if (!difference.isEmpty())
        differs("fast path differs from simdjson", difference);
    const std::string_view input(text.data(), length);
    const size_t first = input.find_first_not_of(" \t\r\n");
    compareArray(first != std::string_view::npos && input[first] == '[' ? std::string(input)
                                                                        : asArray(input));
    return 0;
}
