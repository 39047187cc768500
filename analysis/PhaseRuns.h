#pragma once
// Navigation by phase name (Navigate > Next Phase Kind, Ctrl+F7): a training run is a long
// row of same-named phases (150 `warmup`, 600 `train`, 150 `eval`, one per step), so stepping
// by occurrence (F7) takes 150 presses from warm-up to train. This moves between runs of
// same-named phases as an editor's Ctrl+Right and Ctrl+Left move between words. Plain C++, no
// Qt.
//
// A run is seen from the depth of the phase it starts from: the phases at that depth or
// shallower, in start order, and among them a row of consecutive ones with the same label. A
// run of `batch` phases therefore ends where its epoch does (at the epoch's
// `epoch_loss_all_reduce`, or the next `epoch`), and the phases inside a batch (forward,
// backward) never split it.

#include "analysis/Phases.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace gapscope {

// spans: one (session, rank)'s phases in start order (AnalysisResult::phases).
// Forward (direction > 0): the first span after current, at current's depth or shallower, whose
// label differs from current's: the start of the next run. Backward: the first span of
// current's own run when current is not it, else the first span of the run before. Without a
// current span: the first span at the shallowest depth (forward), or the first span of the
// last run at that depth (backward). None when there is no such span.
std::optional<size_t> phaseRunStep(const std::vector<PhaseSpan>& spans, std::optional<size_t> current,
                                   int direction);

// The run that span `index` belongs to, seen from its depth: first and last span (indices
// into spans) and how many spans of its label it holds.
struct PhaseRun
{
    size_t first = 0;
    size_t last = 0;
    size_t count = 0;
};
PhaseRun phaseRunOf(const std::vector<PhaseSpan>& spans, size_t index);

} // namespace gapscope
