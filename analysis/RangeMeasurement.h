#pragma once
// A measured span of the gap series (Perfetto's area selection): what the gap did between two
// times the user dragged over, computed from the samples already analysed, so measuring never
// re-runs the analysis. Pure function over the columns the gap analysis reads (GapInput).

#include "analysis/GapAnalysis.h"
#include "analysis/PhaseSteps.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace gapscope {

// The training steps under a measured span, where the phases carry them (analysis/PhaseSteps.h).
struct RangeSteps
{
    std::string label; // "steps 250-550", "epoch 2, steps 0-10"
    // Steps inside the span (StepIndex::indicesWithin; a span between two steps: the step the
    // cursor there names, StepIndex::indicesUnder).
    size_t count = 0;
    size_t firstIndex = 0; // into StepIndex::steps()
    size_t lastIndex = 0;
    // The gap's least-squares slope times the mean step length (start of the first step to
    // start of the last, over count - 1): what the gap did per step, not per second, since a
    // step's length is the unit the training loop repeats. None with fewer than two steps or
    // no slope.
    std::optional<double> gapBytesPerStep;
};

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
    // The steps under [beginNs, endNs]; none without steps (or when none is under the span).
    std::optional<RangeSteps> steps;
};

// The measurement of [beginNs, endNs] (swapped when given backwards) over input's usable
// rows, with the steps under it when steps is given; nullopt when no usable sample lies in the
// span.
std::optional<RangeMeasurement> measureGapRange(const GapInput& input, int64_t beginNs, int64_t endNs,
                                                const StepIndex* steps = nullptr);

// The steps under [beginNs, endNs] and the gap per step from slopeBytesPerSecond (RangeSteps).
std::optional<RangeSteps> stepsOfRange(const StepIndex& steps, int64_t beginNs, int64_t endNs,
                                       std::optional<double> slopeBytesPerSecond);

} // namespace gapscope
