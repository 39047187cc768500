#include "analysis/PhaseRuns.h"

#include <algorithm>

namespace gapscope {

namespace {

// The next span after `from` (before it, direction < 0) at maxDepth or shallower.
std::optional<size_t> nextWithin(const std::vector<PhaseSpan>& spans, size_t from, int64_t maxDepth,
                                 int direction)
{
    if (direction > 0) {
        for (size_t k = from + 1; k < spans.size(); ++k)
            if (spans[k].depth <= maxDepth)
                return k;
    } else {
        for (size_t k = from; k-- > 0;)
            if (spans[k].depth <= maxDepth)
                return k;
    }
    return std::nullopt;
}

// The first span of index's run seen from maxDepth: back over the spans with its label.
size_t runStart(const std::vector<PhaseSpan>& spans, size_t index, int64_t maxDepth)
{
    size_t first = index;
    for (std::optional<size_t> k = nextWithin(spans, index, maxDepth, -1);
         k && spans[*k].label == spans[index].label; k = nextWithin(spans, *k, maxDepth, -1))
        first = *k;
    return first;
}

} // namespace

PhaseRun phaseRunOf(const std::vector<PhaseSpan>& spans, size_t index)
{
    PhaseRun run;
    if (index >= spans.size())
        return run;
    const int64_t depth = spans[index].depth;
    run.first = runStart(spans, index, depth);
    run.last = run.first;
    run.count = 1;
    for (std::optional<size_t> k = nextWithin(spans, run.first, depth, +1);
         k && spans[*k].label == spans[index].label; k = nextWithin(spans, *k, depth, +1)) {
        run.last = *k;
        ++run.count;
    }
    return run;
}

std::optional<size_t> phaseRunStep(const std::vector<PhaseSpan>& spans, std::optional<size_t> current,
                                   int direction)
{
    if (spans.empty() || direction == 0)
        return std::nullopt;
    if (!current || *current >= spans.size()) {
        const int64_t top =
            std::min_element(spans.begin(), spans.end(), [](const PhaseSpan& a, const PhaseSpan& b) {
                return a.depth < b.depth;
            })->depth;
        if (direction > 0)
            return size_t(std::find_if(spans.begin(), spans.end(),
                                       [top](const PhaseSpan& s) { return s.depth == top; }) -
                          spans.begin());
        const size_t last = size_t(std::find_if(spans.rbegin(), spans.rend(),
                                                [top](const PhaseSpan& s) { return s.depth == top; })
                                       .base() -
                                   spans.begin()) -
                            1;
        return runStart(spans, last, top);
    }
    const PhaseSpan& from = spans[*current];
    if (direction > 0) {
        for (std::optional<size_t> k = nextWithin(spans, *current, from.depth, +1); k;
             k = nextWithin(spans, *k, from.depth, +1))
            if (spans[*k].label != from.label)
                return k;
        return std::nullopt;
    }
    const size_t start = runStart(spans, *current, from.depth);
    if (start != *current)
        return start;
    const std::optional<size_t> before = nextWithin(spans, start, from.depth, -1);
    if (!before)
        return std::nullopt;
    return runStart(spans, *before, from.depth);
}

} // namespace gapscope
