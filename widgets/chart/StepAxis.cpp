#include "widgets/chart/StepAxis.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
    // strides 1, 2, 5, 10, ... up to where one tick is left; counting is O(steps shown)
    int64_t stride = 1;
    for (int64_t decade = 1; decade <= std::numeric_limits<int64_t>::max() / 10; decade *= 10) {
        bool found = false;
        for (int64_t m : {1, 2, 5}) {
            stride = m * decade;
            size_t count = 0;
            for (size_t k = first; k < last; ++k)
                count += onStride(k, stride) ? 1 : 0;
            if (double(count) <= fit) {
                found = true;
                break;
            }
        }
        if (found)
            break;
    }
    result.stride = stride;
    double lastPixel = -std::numeric_limits<double>::infinity();
    for (size_t k = first; k < last; ++k) {
        if (!onStride(k, stride))
            continue;
        const double pixel = axis.toPixel(all[k].startNs);
        if (pixel - lastPixel < minSpacingPx)
            continue;
        result.ticks.push_back({all[k].startNs, k});
        lastPixel = pixel;
    }
    return result;
}

QString stepTickLabel(const StepIndex& steps, const TrainingStep& step)
{
    if (steps.namesEpochs() && step.epoch)
        return QStringLiteral("%1:%2").arg(*step.epoch).arg(step.step);
    return QString::number(step.step);
}

} // namespace gapscope
