// libFuzzer target: every JSON trace form through loadTrace (detection, JSON array,
// {"events": [...]}, single object, JSON lines, diagnose timeline), then the invariants.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static gapscope::fuzz::MemoryFile file("trace.json");
    gapscope::fuzz::checkTraceOutcome(gapscope::loadTrace(file.write(data, size)));
    return 0;
}
