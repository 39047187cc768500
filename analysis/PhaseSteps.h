#pragma once
// Training steps read from phase attributes. stormlog's phase_scope records carry the caller's
// attributes (`{"step": 620}`, `{"epoch": 2, "step": 30}` in torchrun's reference example, where
// the step restarts every epoch); an ML engineer thinks in steps, not in seconds since the
// trace began, so findings, readouts and the time axis name them where a trace has them.
// Plain C++, no Qt: shared by the analysis, the reports and the views.

#include "analysis/Phases.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gapscope {

// The integer value of a top-level key of a phase's attributes (PhaseSpan::attributesJson,
// canonical JSON text written by the loader). None when absent, nested only, or not an integer.
std::optional<int64_t> integerAttribute(std::string_view attributesJson, std::string_view key);

// One step: every span that carries the same (epoch, step) merged into one interval (a step's
// batch, forward, backward and optimizer phases are one step).
struct TrainingStep
{
    std::optional<int64_t> epoch;
    int64_t step = 0;
    int64_t startNs = 0;
    int64_t endNs = 0; // inclusive, as PhaseSpan::endNs
};

// The steps of one (session, rank) in time order, looked up by time. Built once per analysis
// (O(n log n) over the spans); lookups are O(log n).
class StepIndex
{
public:
    StepIndex() = default;
    // spans: one (session, rank)'s replayed phases (TraceData::phasesOf). Spans without an
    // integer `step` attribute are ignored.
    explicit StepIndex(const std::vector<PhaseSpan>& spans);

    bool empty() const { return m_steps.empty(); }
    size_t size() const { return m_steps.size(); }
    const std::vector<TrainingStep>& steps() const { return m_steps; }
    // Whether steps restart per epoch, so a step is named with its epoch.
    bool namesEpochs() const { return m_namesEpochs; }

    // Index into steps() of the step under ts: the one whose interval contains it, else the
    // last one that began before it (the gap between two steps belongs to the earlier one).
    // None before the first step begins, and after the last one ends by more than one step's
    // typical length (an eval tail is not "step 899").
    std::optional<size_t> indexAt(int64_t timestampNs) const;
    const TrainingStep* stepAt(int64_t timestampNs) const;
    // Steps that began in [startNs, endNs] (inclusive), how many. 0 when none.
    size_t stepsBetween(int64_t startNs, int64_t endNs) const;
    // The first and last step under [startNs, endNs] (indices into steps()), the ones
    // rangeLabelAt names: the step at the start (else the first to begin after it) to the step
    // at the end (else the last one). None when no step is under the range.
    std::optional<std::pair<size_t, size_t>> indicesUnder(int64_t startNs, int64_t endNs) const;
    // The steps inside [startNs, endNs]: from the step whose own interval holds startNs (else the
    // first to begin after it) to the last one to begin by endNs. Unlike indicesUnder, the time
    // between two steps belongs to neither: an epoch phase that begins after the last step of the
    // epoch before holds only its own steps, and a phase between steps (an all-reduce of the
    // epoch's loss) holds none.
    std::optional<std::pair<size_t, size_t>> indicesWithin(int64_t startNs, int64_t endNs) const;
    // "steps 150-749" of indicesWithin; empty when no step is inside the range.
    std::string rangeLabelWithin(int64_t startNs, int64_t endNs) const;

    // The step as a finding names it: its epoch only where namesEpochs().
    StepRef refOf(const TrainingStep& step) const;
    // refOf(*stepAt(ts)); none where stepAt is.
    std::optional<StepRef> refAt(int64_t timestampNs) const;

    // "step 620", "epoch 2, step 30".
    std::string label(const TrainingStep& step) const;
    // "steps 250-550", "step 620" when first == last; the epoch named on both ends when it differs.
    std::string rangeLabel(const TrainingStep& first, const TrainingStep& last) const;
    // The steps under [startNs, endNs]: "steps 250-550", "step 620"; empty when no step is.
    std::string rangeLabelAt(int64_t startNs, int64_t endNs) const;

private:
    std::vector<TrainingStep> m_steps;
    int64_t m_typicalLengthNs = 0; // median start-to-start distance
    bool m_namesEpochs = false;
};

// "step 620", "epoch 2, step 30" (the epoch where the reference carries one).
std::string stepLabel(const StepRef& step);
// "steps 250-550", "step 620", "epoch 2, steps 0-1", "from epoch 1, step 9 to epoch 2, step 0".
std::string stepRangeLabel(const StepRef& first, const StepRef& last);

} // namespace gapscope
