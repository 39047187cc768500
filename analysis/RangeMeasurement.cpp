#include "analysis/RangeMeasurement.h"

#include <algorithm>
#include <utility>

namespace gapscope {

std::optional<RangeSteps> stepsOfRange(const StepIndex& steps, int64_t beginNs, int64_t endNs,
                                       std::optional<double> slopeBytesPerSecond)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    // the steps inside the span; a span between two steps (or at one moment) names the step
    // the cursor there would
    std::optional<std::pair<size_t, size_t>> under = steps.indicesWithin(beginNs, endNs);
    if (!under)
        under = steps.indicesUnder(beginNs, endNs);
    if (!under)
        return std::nullopt;
    RangeSteps result;
    result.firstIndex = under->first;
    result.lastIndex = under->second;
    result.count = under->second - under->first + 1;
    const TrainingStep& first = steps.steps()[under->first];
    const TrainingStep& last = steps.steps()[under->second];
    result.label = steps.rangeLabel(first, last);
    if (result.count >= 2 && slopeBytesPerSecond) {
        const double meanStepSeconds =
            differenceAsDouble(last.startNs, first.startNs) / 1e9 / double(result.count - 1);
        result.gapBytesPerStep = *slopeBytesPerSecond * meanStepSeconds;
    }
    return result;
}

std::optional<RangeMeasurement> measureGapRange(const GapInput& input, int64_t beginNs, int64_t endNs,
                                                const StepIndex* steps)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    // rows are in ascending time: the span is one run of them
    const auto timeOf = [&](uint32_t row) { return input.timestampNs[row]; };
    const auto first = std::lower_bound(input.rows.begin(), input.rows.end(), beginNs,
                                        [&](uint32_t row, int64_t ns) { return timeOf(row) < ns; });
    const auto last = std::upper_bound(first, input.rows.end(), endNs,
                                       [&](int64_t ns, uint32_t row) { return ns < timeOf(row); });
    if (first == last)
        return std::nullopt;

    RangeMeasurement m;
    m.beginNs = beginNs;
    m.endNs = endNs;
    m.durationNs = saturatingSub(endNs, beginNs);
    m.sampleCount = size_t(last - first);
    // the passes below walk the rows in order: readers decode each block of a column once
    Int64ColumnReader time(input.timestampNs), used(input.used), reserved(input.reserved);
    const auto gapOf = [&](uint32_t row) { return gapBytes(used[row], reserved[row]); };
    m.firstSampleNs = timeOf(*first);
    m.lastSampleNs = timeOf(*(last - 1));
    m.startGapBytes = gapOf(*first);
    m.endGapBytes = gapOf(*(last - 1));
    m.deltaGapBytes = saturatingSub(m.endGapBytes, m.startGapBytes);
    m.minGapBytes = m.startGapBytes;
    m.maxGapBytes = m.startGapBytes;

    // Two passes about the means (x in seconds from the first sample): the sums of squares of
    // raw gigabyte values would lose every digit of the slope to cancellation.
    double meanX = 0, meanY = 0;
    for (auto it = first; it != last; ++it) {
        const int64_t gap = gapOf(*it);
        m.minGapBytes = std::min(m.minGapBytes, gap);
        m.maxGapBytes = std::max(m.maxGapBytes, gap);
        meanX += differenceAsDouble(time[*it], m.firstSampleNs) / 1e9;
        meanY += double(gap);
    }
    const double n = double(m.sampleCount);
    meanX /= n;
    meanY /= n;
    double sxx = 0, sxy = 0;
    for (auto it = first; it != last; ++it) {
        const double dx = differenceAsDouble(time[*it], m.firstSampleNs) / 1e9 - meanX;
        sxx += dx * dx;
        sxy += dx * (double(gapOf(*it)) - meanY);
    }
    if (m.sampleCount >= 2 && sxx > 0)
        m.slopeBytesPerSecond = sxy / sxx;
    if (steps)
        m.steps = stepsOfRange(*steps, beginNs, endNs, m.slopeBytesPerSecond);
    return m;
}

} // namespace gapscope
