#include "analysis/DeviceLogJoin.h"

#include "analysis/Int64Math.h"

#include <algorithm>

namespace gapscope {

int64_t defaultJoinToleranceNs(std::span<const int64_t> times)
{
    if (times.size() < 2)
        return 0;
    std::vector<int64_t> intervals;
    intervals.reserve(times.size() - 1);
    for (size_t i = 1; i < times.size(); ++i)
        intervals.push_back(saturatingSub(times[i], times[i - 1]));
    const auto middle = intervals.begin() + std::ptrdiff_t(intervals.size() / 2);
    std::nth_element(intervals.begin(), middle, intervals.end());
    return saturatingAdd(*middle, *middle);
}

DeviceLogJoin joinNearest(std::span<const int64_t> samples, const DeviceLogSeries& series, int64_t tolerance)
{
    DeviceLogJoin join;
    join.rowOfSample.assign(samples.size(), -1);
    const std::span<const int64_t> times = series.timestampNs;
    for (size_t i = 0; i < samples.size(); ++i) {
        const int64_t t = samples[i];
        const auto next = std::lower_bound(times.begin(), times.end(), t); // first row at or after t
        std::ptrdiff_t best = -1;
        int64_t bestDistance = 0;
        if (next != times.begin()) {
            best = std::prev(next) - times.begin();
            bestDistance = saturatingSub(t, times[size_t(best)]);
        }
        if (next != times.end()) {
            const int64_t distance = saturatingSub(*next, t);
            if (best < 0 || distance < bestDistance) {
                best = next - times.begin();
                bestDistance = distance;
            }
        }
        if (best >= 0 && bestDistance <= tolerance) {
            join.rowOfSample[i] = best;
            ++join.matched;
            continue;
        }
        ++join.unmatched;
        if (times.empty() || t < times.front())
            ++join.before;
        else if (t > times.back())
            ++join.after;
    }
    return join;
}

} // namespace gapscope
