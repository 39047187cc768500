// libFuzzer target: append-only sink directories. The input is manifest.json; when it holds
// the separator "\n--segment--\n", the text after it becomes segment-000001.jsonl. The
// directory is loaded with loadTrace.
#include "fuzz/FuzzSupport.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    static fuzz::ScratchDirectory dir;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kSeparator = "\n--segment--\n";
    const size_t split = input.find(kSeparator);
    dir.put("manifest.json", input.substr(0, split));
    if (split == std::string_view::npos)
        dir.put("segment-000001.jsonl", {});
    else
        dir.put("segment-000001.jsonl", input.substr(split + kSeparator.size()));
    fuzz::checkTraceOutcome(loadTrace(dir.path()));
    return 0;
}
