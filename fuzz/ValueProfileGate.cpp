// The 1- and 2-byte comparison callbacks of the coverage instrumentation, gated on libFuzzer's
// -use_value_profile flag. fuzz/CMakeLists.txt links every target with
// -Wl,--wrap=__sanitizer_cov_trace_{,const_}cmp{1,2}, so the instrumented code calls the
// functions below instead of libFuzzer's.
//
// Why: libFuzzer (compiler-rt/lib/fuzzer/FuzzerTracePC.cpp, TracePC::HandleCmp) copies the
// operands of 4- and 8-byte comparisons into its tables of recent comparisons, which its "CMP"
// mutations draw from; of a 1- or 2-byte comparison it keeps nothing but two bits in the value
// profile map, and that map is read only with -use_value_profile=1. scripts/fuzz.sh does not set
// it, so these callbacks were pure cost: a character comparison in a scanning loop became a call
// per byte, 17 % of fuzz_budget_text's time. With the flag, the calls go on to libFuzzer's
// callbacks as a tail call, which keeps the caller's return address (the comparison's identity in
// the value profile).
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace {

bool valueProfileRequested()
{
    // libFuzzer reads its flags from the command line; so does this, before main. Read whole:
    // a replay names thousands of files, and the flag may come after them.
    std::FILE* file = std::fopen("/proc/self/cmdline", "rb");
    if (!file)
        return true; // cannot tell: keep libFuzzer's behaviour
    std::string arguments;
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
        arguments.append(buffer, got);
    std::fclose(file);
    constexpr std::string_view kFlag = "-use_value_profile=";
    bool requested = false;
    for (size_t start = 0; start < arguments.size();) {
        size_t end = arguments.find('\0', start);
        if (end == std::string::npos)
            end = arguments.size();
        const std::string_view argument(arguments.data() + start, end - start);
        if (argument.starts_with(kFlag))
            requested = argument.substr(kFlag.size()) != "0"; // libFuzzer takes the last value
        start = end + 1;
    }
    return requested;
}

const bool g_valueProfile = valueProfileRequested();

} // namespace

#define GAPSCOPE_GATED_CMP(name, type)                                                                       \
    extern "C" void __real_##name(type, type);                                                               \
    extern "C"                                                                                               \
        __attribute__((no_sanitize("address", "undefined", "coverage"))) void __wrap_##name(type a, type b)  \
    {                                                                                                        \
        if (!g_valueProfile)                                                                                 \
            return;                                                                                          \
        [[clang::musttail]] return __real_##name(a, b);                                                      \
    }

GAPSCOPE_GATED_CMP(__sanitizer_cov_trace_cmp1, uint8_t)
GAPSCOPE_GATED_CMP(__sanitizer_cov_trace_const_cmp1, uint8_t)
GAPSCOPE_GATED_CMP(__sanitizer_cov_trace_cmp2, uint16_t)
GAPSCOPE_GATED_CMP(__sanitizer_cov_trace_const_cmp2, uint16_t)
