#pragma once
// A closed span of trace time: what a window analysis, a budget window and a job's window are
// restricted to. Shared vocabulary below trace/, budget/ and job/.

#include <cstdint>

namespace gapscope {

struct TimeWindow
{
    int64_t beginNs = 0; // inclusive
    int64_t endNs = 0;   // inclusive
    bool operator==(const TimeWindow&) const = default;
};

} // namespace gapscope
