// libFuzzer target: every JSON trace form through loadTraceBytes (detection, JSON array,
// {"events": [...]}, single object, JSON lines, diagnose timeline), then the invariants, and
// for a document, that it was read to its end or a problem says where it stopped.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const gapscope::LoadOutcome outcome =
        gapscope::loadTraceBytes(input, std::nullopt, QStringLiteral("trace.json"));
    gapscope::fuzz::checkTraceOutcome(outcome);
    gapscope::fuzz::checkDocumentConsumed(input, outcome);
    return 0;
}
