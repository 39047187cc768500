// libFuzzer target: every JSON trace form through loadTraceBytes (detection, JSON array,
// {"events": [...]}, single object, JSON lines, diagnose timeline), then the invariants.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    gapscope::fuzz::checkTraceOutcome(
        gapscope::loadTraceBytes(input, std::nullopt, QStringLiteral("trace.json")));
    return 0;
}
