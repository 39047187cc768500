#pragma once
// The events of a distributed job as the two cross-rank analyses read them
// (CollectiveAttribution.h, CrossRankAnalysis.h): one column per field they use, in the order
// upstream would hand them its event list (that order breaks ties: equal timestamps, most
// common job id, most common world size). A job of 64 ranks x 100 000 samples is 6.4 M rows
// of 37 bytes. Built by model/job/JobEvents from loaded traces, or by hand in tests.

#include "analysis/Finding.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// What a run of events shares: one per (input, source) of the loaded traces.
struct JobEventSource
{
    int64_t rank = 0;
    int64_t worldSize = 1;
    int64_t pid = 0;
    int64_t samplingIntervalMs = 0;
    std::string host;
    std::string jobId;         // empty: none (upstream tests job_id for truth)
    std::string sessionId;     // meaningful when hasSessionId
    bool hasSessionId = false; // schema 2 events have none: no phase attribution then
    bool operator==(const JobEventSource&) const = default;
};

// Per-event facts that need the event's strings, decided once when the events are built.
enum JobEventFlag : uint8_t
{
    // event_type.strip().lower() == "sample" (collective attribution, the gap analysis)
    kSampleByStripLower = 1u << 0,
    // event_type.casefold() == "sample" (cross-rank analysis: no strip, and 'ſ' folds to 's')
    kSampleByCasefold = 1u << 1,
    // a collective token in event_type, context or any string of metadata
    // (hasCollectiveToken in CollectiveAttribution.h)
    kCollectiveMarker = 1u << 2,
    // allocator_allocated_bytes, allocator_reserved_bytes and device_used_bytes all recorded
    // (schema 4 allows null counters; upstream hands the collective analysis only such events)
    kCountersRecorded = 1u << 3,
};

struct JobEvents
{
    std::vector<int64_t> timestampNs;
    std::vector<int64_t> used;     // device_used_bytes (kNullInt = null)
    std::vector<int64_t> reserved; // allocator_reserved_bytes (kNullInt = null)
    std::vector<int64_t> total;    // device_total_bytes (kNullInt = null)
    std::vector<uint32_t> source;  // index into sources
    std::vector<uint8_t> flags;    // JobEventFlag bits
    std::vector<JobEventSource> sources;

    size_t size() const { return timestampNs.size(); }
    void reserve(size_t rows);
    void append(int64_t timestampNs, int64_t used, int64_t reserved, int64_t total, uint32_t source,
                uint8_t flags);
    const JobEventSource& sourceOf(size_t row) const { return sources[source[row]]; }
    bool has(size_t row, JobEventFlag flag) const { return (flags[row] & flag) != 0; }
    // How many different ranks the events hold (upstream adds the cross-rank analysis to its
    // report above one).
    size_t rankCount() const;
};

// The two tests upstream applies to event_type (flags kSampleByStripLower, kSampleByCasefold),
// on UTF-8 text with Python's rules: strip() removes Unicode white space, lower() and
// casefold() map case (casefold also 'ſ' to 's').
bool isSampleByStripLower(std::string_view eventType);
bool isSampleByCasefold(std::string_view eventType);

// Phase attribution of a moment of one source's (session, rank): upstream's
// PhaseReplayIndex.resolve(timestamp_ns, session_id, rank), asked without origin ids. Called
// only for sources with a session id. May be empty: no phases then.
using PhaseResolver = std::function<std::optional<PhaseAttribution>(int64_t timestampNs, uint32_t source)>;

} // namespace gapscope
