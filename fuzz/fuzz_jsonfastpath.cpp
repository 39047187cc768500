// libFuzzer target: JSON lines read by the fast path (EventRecordParser::parseFlatLine) and
// by simdjson alone must give the same chunk; any difference aborts with what differs.
//
// An input starting with the byte 0x01 is one value of a record in stormlog's own shape
// (bench/RealShape.h: sorted keys, spaced separators, nested metadata): the rest of the input
// becomes the metadata of three such lines - the second repeats the first, as a writer does on
// most lines, the third has the value once more after a phase event - and, after a 0x02 byte,
// the value of the context field. Other inputs are read as they are.
#include "bench/RealShape.h"
#include "model/trace/JsonDocumentReader.h"

#include <array>
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

// The real-shaped record of event i (built once per run: generating it was a quarter of an
// execution).
const std::string& realShapedRecord(int64_t i)
{
    using namespace gapscope::bench;
    static const std::array<std::pair<int64_t, std::string>, 4> records = [] {
        std::array<std::pair<int64_t, std::string>, 4> built;
        const int64_t events[] = {1, 2, 999, 1000};
        for (size_t k = 0; k < built.size(); ++k) {
            RealShapeSource source;
            built[k].first = events[k];
            appendSortedLine(built[k].second, source.next(events[k]));
        }
        return built;
    }();
    for (const auto& [event, line] : records)
        if (event == i)
            return line;
    std::abort(); // only the four events above are used
}

// Appends the real-shaped record of event i with the text of its metadata (and context)
// replaced to out, in place (a string per line and per replacement, then their sum, were 13 %
// of an execution's allocation samples).
void appendRealShapedLine(std::string& out, int64_t i, std::string_view metadata, std::string_view context)
{
    const size_t lineStart = out.size();
    out += realShapedRecord(i);
    auto replaceValue = [&out, lineStart](std::string_view key, std::string_view value, char close) {
        char quoted[32];
        const int length = std::snprintf(quoted, sizeof quoted, "\"%.*s\": ", int(key.size()), key.data());
        const size_t start = out.find(std::string_view(quoted, size_t(length)), lineStart);
        if (start == std::string::npos)
            return;
        const size_t from = start + size_t(length);
        // the metadata object ends before ", \"pid\"" (sorted keys); the context string at its quote
        const size_t to = close == '}' ? out.find(", \"pid\": ", from) : out.find("\", ", from + 1) + 1;
        if (to != std::string::npos && to > from)
            out.replace(from, to - from, value);
    };
    replaceValue("metadata", metadata, '}');
    if (!context.empty())
        replaceValue("context", context, '"');
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // Room for the padding appended below: one allocation, not two.
    std::string text;
    text.reserve(size + simdjson::SIMDJSON_PADDING);
    text.assign(reinterpret_cast<const char*>(data), size);
    if (!text.empty() && text.front() == '\x01') {
        std::string_view value(text.data() + 1, text.size() - 1);
        std::string_view context;
        if (const size_t split = value.find('\x02'); split != std::string_view::npos) {
            context = value.substr(split + 1);
            value = value.substr(0, split);
        }
        std::string lines;
        lines.reserve(4 * realShapedRecord(1).size() + 4 * text.size() + simdjson::SIMDJSON_PADDING);
        appendRealShapedLine(lines, 1, value, context);
        appendRealShapedLine(lines, 2, value, context);
        appendRealShapedLine(lines, 999, "{}", {});
        appendRealShapedLine(lines, 1000, value, context);
        text.swap(lines); // value and context, views into the input's copy, are not used after this
    }
    const size_t length = text.size();
    text.append(simdjson::SIMDJSON_PADDING, '\0');
    const QString difference =
        gapscope::detail::chunkDifference(readLines(text, length, true), readLines(text, length, false));
    if (!difference.isEmpty()) {
        std::fprintf(stderr, "fast path differs from simdjson: %s\n", qPrintable(difference));
        std::abort();
    }
    return 0;
}
