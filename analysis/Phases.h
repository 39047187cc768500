#pragma once
// Phase replay and attribution (stormlog-telemetry.md section 5).

#include "analysis/Finding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

enum class PhaseAction
{
    Enter,
    Exit
};

// One phase_enter / phase_exit event with a valid metadata.phase_scope.
struct PhaseBoundary
{
    std::string sessionId; // events without a string session_id do not take part
    int64_t rank = 0;
    int64_t timestampNs = 0;
    PhaseAction action = PhaseAction::Enter;
    int64_t sequence = 0;
    std::string scopeId;
    std::optional<std::string> parentScopeId;
    std::string name;
    std::vector<std::string> path;
    int64_t depth = 0;
    int64_t threadId = 0;
    std::string threadName;
    std::string attributesJson; // raw JSON object text, empty when absent
    uint32_t eventRow = 0;      // row of the boundary event in the caller's store
};

struct PhaseSpan
{
    std::string sessionId;
    int64_t rank = 0;
    std::string scopeId;
    std::optional<std::string> parentScopeId;
    std::string name;
    std::vector<std::string> path;
    std::string label; // path joined with " / "
    int64_t depth = 0;
    int64_t threadId = 0;
    std::string threadName;
    int64_t sequence = 0; // of the enter boundary
    int64_t startNs = 0;
    int64_t endNs = 0; // inclusive
    bool syntheticEnd = false;
    std::string attributesJson;

    bool contains(int64_t ts) const { return startNs <= ts && ts <= endNs; }
};

// Replays boundaries (any order) into spans, sorted by (session, rank, start, sequence, scope).
// lastTimestampNs(session, rank) closes scopes still open at the end (synthetic_end).
struct SessionRankEnd
{
    std::string sessionId;
    int64_t rank = 0;
    int64_t lastTimestampNs = 0;
};
std::vector<PhaseSpan> replayPhases(std::vector<PhaseBoundary> boundaries,
                                    const std::vector<SessionRankEnd>& ends);

struct EventOrigin
{
    std::optional<std::string> phaseScopeId; // metadata.origin_phase_scope_id
    std::optional<int64_t> threadId;         // metadata.origin_thread_id
};

// Attribution of one event among `spans` (those of its session and rank). nullopt when no
// span contains the timestamp. As upstream: a span's depth is the length of its path, and
// "most recent" (thread_local winner, phase_summary) is the largest (sequence, scope_id).
std::optional<PhaseAttribution> attributePhase(const std::vector<PhaseSpan>& spans, int64_t timestampNs,
                                               const EventOrigin& origin);
// The same policy over the spans already known to be active at the moment (in the order
// upstream lists them: by start).
std::optional<PhaseAttribution> attributeActiveSpans(const std::vector<const PhaseSpan*>& active,
                                                     const EventOrigin& origin);

// The spans of one (session, rank) with the ones active at a moment found in O(log n + active)
// (a max-end tree over the spans sorted by start) rather than by a scan: the cross-rank
// analyses attribute one moment per spike, and a long run has many phases.
class PhaseSpanIndex
{
public:
    PhaseSpanIndex() = default;
    explicit PhaseSpanIndex(std::vector<PhaseSpan> spans);
    // Active spans in start order (equal starts in the order given).
    std::vector<const PhaseSpan*> activeAt(int64_t timestampNs) const;
    std::optional<PhaseAttribution> attribute(int64_t timestampNs, const EventOrigin& origin = {}) const;
    const std::vector<PhaseSpan>& spans() const { return m_spans; }

private:
    std::vector<PhaseSpan> m_spans;
    size_t m_leaves = 0;           // a power of two, at least the span count
    std::vector<int64_t> m_maxEnd; // heap order: node i covers leaves under it
};

// upstream's merge_phase_attributions (two merged intervals of one rank): either alone, or the
// first when both are the same unique scope, else ambiguous over the union of their paths
// (sorted, no summary) so that no unique path is invented.
std::optional<PhaseAttribution> mergePhaseAttributions(const std::optional<PhaseAttribution>& first,
                                                       const std::optional<PhaseAttribution>& second);

} // namespace gapscope
