// libFuzzer target: memory-budget logs, seeded with tracing-subscriber text lines. The input goes through
// loadBudgetBytes (the loader's line splitting, per-line parsing, assembling, in the calling
// thread) and content detection; every line must be accounted for.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    fuzz::checkBudgetOutcome(loadBudgetBytes(input, QStringLiteral("budget.log")), input);
    looksLikeBudgetLog(QByteArray::fromRawData(input.data(), static_cast<qsizetype>(input.size())));
    return 0;
}
