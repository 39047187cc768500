// libFuzzer target: append-only sink directories. The input is manifest.json; when it holds
// the separator "\n--segment--\n", the text after it becomes segment-000001.jsonl. The sink is
// loaded with loadSinkBytes (the directory reader's code, from memory).
#include "fuzz/FuzzSupport.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kSeparator = "\n--segment--\n";
    const size_t split = input.find(kSeparator);
    std::vector<SinkSegmentBytes> segments;
    if (split != std::string_view::npos)
        segments.push_back({QStringLiteral("segment-000001.jsonl"), input.substr(split + kSeparator.size())});
    fuzz::checkTraceOutcome(loadSinkBytes(QStringLiteral("sink"), input.substr(0, split), segments));
    return 0;
}
