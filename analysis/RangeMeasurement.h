#pragma once
// A measured span of the gap series (Perfetto's area selection): what the gap did between two
// times the user dragged over, computed from the samples already analysed, so measuring never
// re-runs the analysis. Pure function over the columns the gap analysis reads (GapInput).

#include "analysis/GapAnalysis.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gapscope {

struct RangeMeasurement
{
    int64_t beginNs = 0; // the span as asked (begin <= end)
    int64_t endNs = 0;
    int64_t durationNs = 0; // endNs - beginNs (saturated)
    size_t sampleCount = 0; // usable samples with beginNs <= t <= endNs
    int64_t firstSampleNs = 0;
    int64_t lastSampleNs = 0;
    int64_t startGapBytes = 0; // gap of the first sample in the span
    int64_t endGapBytes = 0;   // gap of the last one
    int64_t deltaGapBytes = 0; // endGapBytes - startGapBytes (saturated)
    int64_t minGapBytes = 0;
    int64_t maxGapBytes = 0;
    // Least-squares slope of gap over time through every sample in the span, in bytes per
    // second (not end-to-end: one outlier at either edge does not decide it). nullopt with
    // fewer than two samples at distinct times.
    std::optional<double> slopeBytesPerSecond;
};

// The measurement of [beginNs, endNs] (swapped when given backwards) over input's usable
// rows; nullopt when no usable sample lies in the span.
std::optional<RangeMeasurement> measureGapRange(const GapInput& input, int64_t beginNs, int64_t endNs);

} // namespace gapscope
