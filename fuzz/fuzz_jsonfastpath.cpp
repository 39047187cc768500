// libFuzzer target: JSON lines read by the fast path (EventRecordParser::parseFlatLine) and
// by simdjson alone must give the same chunk; any difference aborts with what differs.
#include "model/trace/JsonEventReader.h"

#include <cstdio>
#include <cstdlib>
#include <string>

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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string padded(reinterpret_cast<const char*>(data), size);
    padded.append(simdjson::SIMDJSON_PADDING, '\0');
    const QString difference =
        gapscope::detail::chunkDifference(readLines(padded, size, true), readLines(padded, size, false));
    if (!difference.isEmpty()) {
        std::fprintf(stderr, "fast path differs from simdjson: %s\n", qPrintable(difference));
        std::abort();
    }
    return 0;
}
