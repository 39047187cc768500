#pragma once
// The time axis labelled with training steps (View > Chart X Axis > Training Steps): ticks at
// the starts of steps whose number is a multiple of a nice stride (1, 2, 5, 10, 20, 50, ...),
// the smallest stride whose ticks fit the plot's width, as the time axis picks its step. A pure
// function of the steps, the visible range and the pixel width (TimeAxis), so it is tested
// without a chart.

#include "analysis/PhaseSteps.h"
#include "widgets/chart/TimeAxis.h"

#include <QString>
#include <QStringList>

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
// stride that gives at most axis.pixelWidth() / minSpacingPx ticks, none closer than
// minSpacingPx to the one before it in its epoch (steps are of uneven length); where the step
// count restarts, each epoch's first step is a tick too: where it comes closer than
// minSpacingPx after the tick before it, it takes that tick's place (the one before it
// permitting), else it is left out, so labels never overlap. Ascending.
StepAxisTicks stepAxisTicks(const StepIndex& steps, const TimeAxis& axis, double minSpacingPx);

// A tick's label: "620". Where the step count restarts every epoch, the first tick of each
// epoch names it ("epoch 2" at its step 0, "epoch 2 · 30" elsewhere) and the others give the
// step alone ("40"): "2:30" would read as a time.
QString stepTickLabel(const StepIndex& steps, const TrainingStep& step, bool firstOfEpoch);
// The labels of ticks, in order: the first tick and each one in another epoch than the tick
// before it are the first of their epoch. Two epochs' ticks can read alike ("20").
QStringList stepTickLabels(const StepIndex& steps, const std::vector<StepTick>& ticks);

} // namespace gapscope
