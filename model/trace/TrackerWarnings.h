#pragma once
// The tracker's own warning events (stormlog `warning`, `critical` and `error` records: "High
// fragmentation: 95.3%", "Large allocation detected", an OOM) of one partition, with their
// context text: the chart's tracker-warnings lane and the evidence of allocator_fragmentation.

#include "model/store/EventStore.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

struct TrackerWarning
{
    uint32_t row = 0;
    int64_t timeNs = 0;
    EventType type = EventType::Warning; // Warning, Critical or Error
    QString context;                     // the record's `context`, verbatim
    // metadata.fragmentation (the share of reserved not allocated, as stormlog computes it) of a
    // fragmentation warning
    std::optional<double> fragmentation;
};

// Rows [beginRow, endRow) of store that are warning, critical or error events, in row order.
std::vector<TrackerWarning> trackerWarnings(const EventStore& store, uint32_t beginRow, uint32_t endRow);

// Of them, the tracker's fragmentation warnings (those carrying metadata.fragmentation).
size_t fragmentationWarningCount(const std::vector<TrackerWarning>& warnings);

} // namespace gapscope
