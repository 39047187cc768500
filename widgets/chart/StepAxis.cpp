#include "widgets/chart/StepAxis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace gapscope {

StepAxisTicks stepAxisTicks(const StepIndex& steps, const TimeAxis& axis, double minSpacingPx)
{
    StepAxisTicks result;
    const std::vector<TrainingStep>& all = steps.steps();
    const auto byStart = [](const TrainingStep& s, int64_t ns) { return s.startNs < ns; };
    const size_t first =
        size_t(std::lower_bound(all.begin(), all.end(), axis.beginNs, byStart) - all.begin());
    size_t last = first; // one past the last step beginning in the range
    while (last < all.size() && all[last].startNs <= axis.endNs)
        ++last;
    if (first == last || axis.pixelWidth() <= 0)
        return result;
    minSpacingPx = std::max(minSpacingPx, 1.0);
    const double fit = std::max(1.0, std::floor(axis.pixelWidth() / minSpacingPx));

    const auto onStride = [&](size_t k, int64_t stride) {
        // a multiple of the stride; the first step of an epoch (the step count restarted) too
        return all[k].step % stride == 0 ||
               (k > 0 && all[k].epoch != all[k - 1].epoch && steps.namesEpochs());
    };
    // Whether every tick of a stride fits: no more than the width holds, and no two ticks of one
    // epoch closer than the spacing (steps of uneven length: the warm-up's are longer than the
    // evaluation's). A regular stride is chosen over thinning one, so the labels read 0, 100,
    // 200 rather than 0, 50, 150; only an epoch's first step may still be left out below.
    const auto fits = [&](int64_t stride) {
        size_t count = 0;
        std::optional<size_t> previous;
        for (size_t k = first; k < last; ++k) {
            if (!onStride(k, stride))
                continue;
            if (double(++count) > fit)
                return false;
            if (previous && (!steps.namesEpochs() || all[*previous].epoch == all[k].epoch) &&
                axis.toPixel(all[k].startNs) - axis.toPixel(all[*previous].startNs) < minSpacingPx)
                return false;
            previous = k;
        }
        return true;
    };
    // strides 1, 2, 5, 10, ...; counting is O(steps shown) each
    int64_t stride = 1;
    bool found = false;
    for (int64_t decade = 1; !found && decade <= std::numeric_limits<int64_t>::max() / 10; decade *= 10) {
        for (int64_t m : {1, 2, 5}) {
            stride = m * decade;
            if (fits(stride)) {
                found = true;
                break;
            }
        }
    }
    result.stride = stride;
    // Where an epoch's first step comes too close after a tick, the epoch wins: where an epoch
    // begins says more than its step 50 does.
    const auto beginsEpoch = [&](size_t k) {
        return steps.namesEpochs() && k > 0 && all[k].epoch != all[k - 1].epoch;
    };
    std::vector<StepTick>& ticks = result.ticks;
    const auto pixelOf = [&](const StepTick& tick) { return axis.toPixel(tick.ns); };
    for (size_t k = first; k < last; ++k) {
        if (!onStride(k, stride))
            continue;
        const double pixel = axis.toPixel(all[k].startNs);
        if (!ticks.empty() && pixel - pixelOf(ticks.back()) < minSpacingPx) {
            const bool replaces =
                beginsEpoch(k) && !beginsEpoch(ticks.back().index) &&
                (ticks.size() < 2 || pixel - pixelOf(ticks[ticks.size() - 2]) >= minSpacingPx);
            if (!replaces)
                continue;
            ticks.pop_back();
        }
        ticks.push_back({all[k].startNs, k});
    }
    return result;
}

QString stepTickLabel(const StepIndex& steps, const TrainingStep& step, bool firstOfEpoch)
{
    if (!steps.namesEpochs() || !step.epoch || !firstOfEpoch)
        return QString::number(step.step);
    if (step.step == 0)
        return QStringLiteral("epoch %1").arg(*step.epoch);
    return QStringLiteral("epoch %1 · %2").arg(*step.epoch).arg(step.step);
}

QStringList stepTickLabels(const StepIndex& steps, const std::vector<StepTick>& ticks)
{
    QStringList labels;
    const std::vector<TrainingStep>& all = steps.steps();
    for (size_t k = 0; k < ticks.size(); ++k) {
        const TrainingStep& step = all[ticks[k].index];
        labels << stepTickLabel(steps, step, k == 0 || all[ticks[k - 1].index].epoch != step.epoch);
    }
    return labels;
}

} // namespace gapscope
