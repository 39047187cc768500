#pragma once
// The time axis labelled with training steps (View > Chart X Axis > Training Steps): ticks at
// the starts of steps whose number is a multiple of a nice stride (1, 2, 5, 10, 20, 50, ...),
// the smallest stride whose ticks fit the plot's width, as the time axis picks its step. A pure
// function of the steps, the visible range and the pixel width (TimeAxis), so it is tested
// without a chart.

#include "analysis/PhaseSteps.h"
#include "widgets/chart/TimeAxis.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapscope {

struct StepTick
{
    int64_t ns = 0;   // the step's start: a step boundary
    size_t index = 0; // into StepIndex::steps()
    bool operator==(const StepTick&) const = default;
};

struct StepAxisTicks
{
    int64_t stride = 0; // steps between ticks; 0 without a tick
    std::vector<StepTick> ticks;
};

// The ticks of the steps that begin inside [axis.beginNs, axis.endNs]: the smallest 1-2-5
// stride that gives at most axis.pixelWidth() / minSpacingPx ticks; a tick closer than
// minSpacingPx to the one before it is left out (steps of uneven length, the first step of an
// epoch where the step count restarts), so labels never overlap. Ascending.
StepAxisTicks stepAxisTicks(const StepIndex& steps, const TimeAxis& axis, double minSpacingPx);

// A tick's label: "620"; "2:30" (epoch 2, step 30) where the step restarts every epoch, so two
// epochs' step 30 read differently.
QString stepTickLabel(const StepIndex& steps, const TrainingStep& step);

} // namespace gapscope
