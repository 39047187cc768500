#include "analysis/Phases.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace gapscope {

namespace {

std::string joinPath(const std::vector<std::string>& path)
{
    std::string label;
    for (const auto& part : path) {
        if (part.empty())
            continue;
        if (!label.empty())
            label += " / ";
        label += part;
    }
    return label;
}

// Spans built by hand may leave the label empty.
std::string labelOf(const PhaseSpan& span)
{
    return span.label.empty() ? joinPath(span.path) : span.label;
}

// Upstream's "most recent": the largest (sequence, scope_id); the first of equals wins.
const PhaseSpan* mostRecent(const std::vector<const PhaseSpan*>& spans)
{
    const PhaseSpan* best = nullptr;
    for (const PhaseSpan* span : spans)
        if (!best || std::tie(span->sequence, span->scopeId) > std::tie(best->sequence, best->scopeId))
            best = span;
    return best;
}

PhaseAttribution uniqueAttribution(const PhaseSpan& span, const char* source)
{
    PhaseAttribution attribution;
    attribution.resolution = PhaseResolution::Unique;
    const std::string label = labelOf(span);
    attribution.phasePaths = {label};
    attribution.source = source;
    attribution.phasePath = label;
    attribution.scopeId = span.scopeId;
    attribution.threadId = span.threadId;
    attribution.threadName = span.threadName;
    return attribution;
}

PhaseSpan spanFrom(const PhaseBoundary& opened, int64_t endNs)
{
    PhaseSpan span;
    span.sessionId = opened.sessionId;
    span.rank = opened.rank;
    span.scopeId = opened.scopeId;
    span.parentScopeId = opened.parentScopeId;
    span.name = opened.name;
    span.path = opened.path;
    span.label = joinPath(opened.path);
    // Upstream's span depth is the length of its path, whatever the boundary claimed.
    span.depth = static_cast<int64_t>(opened.path.size());
    span.threadId = opened.threadId;
    span.threadName = opened.threadName;
    span.sequence = opened.sequence;
    span.startNs = opened.timestampNs;
    span.endNs = endNs;
    span.attributesJson = opened.attributesJson;
    return span;
}

} // namespace

std::vector<PhaseSpan> replayPhases(std::vector<PhaseBoundary> boundaries,
                                    const std::vector<SessionRankEnd>& ends)
{
    std::stable_sort(boundaries.begin(), boundaries.end(),
                     [](const PhaseBoundary& a, const PhaseBoundary& b) {
                         return std::tie(a.sessionId, a.rank, a.timestampNs, a.sequence, a.scopeId) <
                                std::tie(b.sessionId, b.rank, b.timestampNs, b.sequence, b.scopeId);
                     });

    // The last timestamp of each (session, rank): the caller's, which covers every event;
    // the boundaries themselves are events too, so they count as well.
    using GroupKey = std::pair<std::string, int64_t>;
    std::map<GroupKey, int64_t> lastTimestamp;
    const auto noteTimestamp = [&](const std::string& session, int64_t rank, int64_t ts) {
        auto [it, inserted] = lastTimestamp.try_emplace(GroupKey{session, rank}, ts);
        if (!inserted)
            it->second = std::max(it->second, ts);
    };
    for (const auto& end : ends)
        noteTimestamp(end.sessionId, end.rank, end.lastTimestampNs);
    for (const auto& boundary : boundaries)
        noteTimestamp(boundary.sessionId, boundary.rank, boundary.timestampNs);

    using ThreadKey = std::tuple<std::string, int64_t, int64_t>;
    std::map<ThreadKey, std::vector<const PhaseBoundary*>> stacks;
    std::vector<PhaseSpan> spans;
    for (const auto& boundary : boundaries) {
        auto& stack = stacks[ThreadKey{boundary.sessionId, boundary.rank, boundary.threadId}];
        if (boundary.action == PhaseAction::Enter) {
            stack.push_back(&boundary);
            continue;
        }
        // An exit closes only the innermost open scope; any other exit is noise.
        if (stack.empty() || stack.back()->scopeId != boundary.scopeId)
            continue;
        const PhaseBoundary& opened = *stack.back();
        stack.pop_back();
        PhaseSpan span = spanFrom(opened, boundary.timestampNs);
        span.threadName = boundary.threadName; // upstream names the span after its exit
        spans.push_back(std::move(span));
    }

    for (const auto& [key, stack] : stacks) {
        const int64_t endNs = lastTimestamp[GroupKey{std::get<0>(key), std::get<1>(key)}];
        for (const PhaseBoundary* opened : stack) {
            PhaseSpan span = spanFrom(*opened, endNs);
            span.syntheticEnd = true;
            spans.push_back(std::move(span));
        }
    }

    std::sort(spans.begin(), spans.end(), [](const PhaseSpan& a, const PhaseSpan& b) {
        return std::tie(a.sessionId, a.rank, a.startNs, a.sequence, a.scopeId, a.endNs) <
               std::tie(b.sessionId, b.rank, b.startNs, b.sequence, b.scopeId, b.endNs);
    });
    return spans;
}

std::optional<PhaseAttribution> attributePhase(const std::vector<PhaseSpan>& spans, int64_t timestampNs,
                                               const EventOrigin& origin)
{
    std::vector<const PhaseSpan*> active;
    for (const auto& span : spans)
        if (span.contains(timestampNs))
            active.push_back(&span);
    return attributeActiveSpans(active, origin);
}

std::optional<PhaseAttribution> attributeActiveSpans(const std::vector<const PhaseSpan*>& active,
                                                     const EventOrigin& origin)
{
    if (active.empty())
        return std::nullopt;

    // 1. The event names its scope.
    if (origin.phaseScopeId && !origin.phaseScopeId->empty()) {
        const PhaseSpan* match = nullptr;
        size_t matches = 0;
        for (const PhaseSpan* span : active)
            if (span->scopeId == *origin.phaseScopeId) {
                match = span;
                ++matches;
            }
        if (matches == 1)
            return uniqueAttribution(*match, "exact");
    }

    // 2. The event names its thread.
    if (origin.threadId) {
        std::vector<const PhaseSpan*> onThread;
        for (const PhaseSpan* span : active)
            if (span->threadId == *origin.threadId)
                onThread.push_back(span);
        if (!onThread.empty())
            return uniqueAttribution(*mostRecent(onThread), "thread_local");
    }

    // 3. The deepest spans of each thread.
    std::vector<int64_t> threadOrder;
    std::map<int64_t, std::vector<const PhaseSpan*>> byThread;
    for (const PhaseSpan* span : active) {
        auto [it, inserted] = byThread.try_emplace(span->threadId);
        if (inserted)
            threadOrder.push_back(span->threadId);
        it->second.push_back(span);
    }
    std::vector<const PhaseSpan*> threadMatches;
    std::set<std::string> ambiguousLabels;
    for (const int64_t threadId : threadOrder) {
        const auto& threadSpans = byThread[threadId];
        size_t maxDepth = 0;
        for (const PhaseSpan* span : threadSpans)
            maxDepth = std::max(maxDepth, span->path.size());
        std::vector<const PhaseSpan*> deepest;
        std::set<std::string> labels;
        for (const PhaseSpan* span : threadSpans)
            if (span->path.size() == maxDepth) {
                deepest.push_back(span);
                labels.insert(labelOf(*span));
            }
        if (labels.size() != 1) {
            ambiguousLabels.insert(labels.begin(), labels.end());
            continue;
        }
        threadMatches.push_back(mostRecent(deepest));
    }

    if (ambiguousLabels.empty() && threadMatches.size() == 1)
        return uniqueAttribution(*threadMatches.front(), "heuristic");

    std::set<std::string> labels = ambiguousLabels;
    for (const PhaseSpan* span : threadMatches)
        labels.insert(labelOf(*span));
    PhaseAttribution attribution;
    attribution.resolution = PhaseResolution::Ambiguous;
    for (const auto& label : labels)
        if (!label.empty())
            attribution.phasePaths.push_back(label);
    if (attribution.phasePaths.size() >= 2) {
        // A presentation hint only: the most recently entered active span, of any thread.
        const PhaseSpan* winner = mostRecent(active);
        const std::string winnerLabel = labelOf(*winner);
        if (!winnerLabel.empty())
            attribution.summary = PhaseSummary{winnerLabel, "heuristic"};
    }
    return attribution;
}

PhaseSpanIndex::PhaseSpanIndex(std::vector<PhaseSpan> spans) : m_spans(std::move(spans))
{
    std::stable_sort(m_spans.begin(), m_spans.end(),
                     [](const PhaseSpan& a, const PhaseSpan& b) { return a.startNs < b.startNs; });
    m_leaves = 1;
    while (m_leaves < m_spans.size())
        m_leaves *= 2;
    m_maxEnd.assign(2 * m_leaves, std::numeric_limits<int64_t>::min());
    for (size_t i = 0; i < m_spans.size(); ++i)
        m_maxEnd[m_leaves + i] = m_spans[i].endNs;
    for (size_t node = m_leaves; node-- > 1;)
        m_maxEnd[node] = std::max(m_maxEnd[2 * node], m_maxEnd[2 * node + 1]);
}

std::vector<const PhaseSpan*> PhaseSpanIndex::activeAt(int64_t timestampNs) const
{
    std::vector<const PhaseSpan*> active;
    // spans that start at or before the moment; of those, the ones that have not ended
    const auto started =
        std::upper_bound(m_spans.begin(), m_spans.end(), timestampNs,
                         [](int64_t ts, const PhaseSpan& span) { return ts < span.startNs; });
    const auto count = static_cast<size_t>(started - m_spans.begin());
    if (count == 0)
        return active;
    // left to right through the subtrees whose latest end reaches the moment
    struct Subtree
    {
        size_t node, firstLeaf, leaves;
    };
    std::vector<Subtree> pending{{1, 0, m_leaves}};
    while (!pending.empty()) {
        const Subtree tree = pending.back();
        pending.pop_back();
        if (tree.firstLeaf >= count || m_maxEnd[tree.node] < timestampNs)
            continue;
        if (tree.leaves == 1) {
            active.push_back(&m_spans[tree.firstLeaf]);
            continue;
        }
        const size_t half = tree.leaves / 2;
        pending.push_back({2 * tree.node + 1, tree.firstLeaf + half, half});
        pending.push_back({2 * tree.node, tree.firstLeaf, half});
    }
    return active;
}

std::optional<PhaseAttribution> PhaseSpanIndex::attribute(int64_t timestampNs,
                                                          const EventOrigin& origin) const
{
    return attributeActiveSpans(activeAt(timestampNs), origin);
}

namespace {

// upstream's _phase_paths: the non-empty phase_paths, else the phase_path
std::vector<std::string> pathsOf(const PhaseAttribution& attribution)
{
    std::vector<std::string> paths;
    for (const auto& path : attribution.phasePaths)
        if (!path.empty())
            paths.push_back(path);
    if (paths.empty() && attribution.phasePaths.empty() && attribution.phasePath &&
        !attribution.phasePath->empty())
        paths.push_back(*attribution.phasePath);
    return paths;
}

} // namespace

std::optional<PhaseAttribution> mergePhaseAttributions(const std::optional<PhaseAttribution>& first,
                                                       const std::optional<PhaseAttribution>& second)
{
    if (!first)
        return second;
    if (!second)
        return first;
    const std::vector<std::string> firstPaths = pathsOf(*first);
    const std::vector<std::string> secondPaths = pathsOf(*second);
    if (firstPaths.empty())
        return second;
    if (secondPaths.empty())
        return first;
    std::set<std::string> merged(firstPaths.begin(), firstPaths.end());
    merged.insert(secondPaths.begin(), secondPaths.end());
    if (merged.size() == 1 && first->resolution == PhaseResolution::Unique &&
        second->resolution == PhaseResolution::Unique && first->phasePath == second->phasePath &&
        first->scopeId == second->scopeId && first->threadId == second->threadId)
        return first;
    // one label from two different scopes, or several labels: ambiguous, without a summary
    PhaseAttribution attribution;
    attribution.resolution = PhaseResolution::Ambiguous;
    attribution.phasePaths.assign(merged.begin(), merged.end());
    return attribution;
}

} // namespace gapscope
