#pragma once
// The events of a job as the cross-rank analyses read them (analysis/JobEvents.h), built from
// loaded traces: which events, in which order, and the per-event facts that need strings
// (event_type tests, collective markers in event_type, context and metadata). Each distinct
// string is judged once, so a trace whose events repeat their metadata parses it once.
//
// Order: each input's selected session in timestamp order (ties: the order of the
// partitions, i.e. rank, then file order within a rank; the store keeps no file order across
// ranks), inputs one after the other as given. That is the list upstream's `analyze` reads
// for a merged file (its events sorted by timestamp) and for several per-rank files
// (concatenated).

#include "analysis/JobEvents.h"
#include "model/base/TimeWindow.h"
#include "model/job/JobData.h"

#include <memory>
#include <optional>

namespace gapscope {

struct JobEventsBuild
{
    JobEvents events;
    // Resolves a moment of a source's (session, rank) against the phases of every input
    // holding that session and rank; independent of the traces' lifetime.
    PhaseResolver phases;
};

// JobMode::Session: every event of the selected session of the one input (all its ranks,
// markers and phases included); JobMode::Job: those of every input, input after input, a rank
// given in several inputs read from the one JobRank::parts names (its phases too).
// window: only events within it (inclusive).
JobEventsBuild buildJobEvents(const JobData& job, const std::optional<TimeWindow>& window = std::nullopt);

// One input (`gapscope analyze` on one file): every event of one session, all its ranks.
JobEventsBuild buildJobEvents(const TraceData& trace, size_t sessionIndex,
                              const std::optional<TimeWindow>& window = std::nullopt);

} // namespace gapscope
