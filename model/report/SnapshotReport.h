#pragma once
// What `gapscope analyze` writes for a PyTorch memory snapshot (model/snapshot): its totals, as
// JSON (an object `snapshot`), Markdown or text. The snapshot page reuses the same numbers
// (model/snapshot/SnapshotSummary); this is only their report.

#include "model/snapshot/SnapshotData.h"
#include "model/snapshot/SnapshotSummary.h"

#include <QByteArray>
#include <QString>

namespace gapscope {

// {"snapshot": {"path", "segment_count", "block_count", "reserved_bytes", "allocated_bytes",
// "active_bytes", "requested_bytes", "inactive_split_bytes", "largest_free_block_bytes",
// "trace_entry_count", "trace_entries_by_action": {action: count, ...}, "devices": [...],
// "pools": [{"pool": [a, b], "segments", "reserved_bytes"}], "streams": [...],
// "frame_stack_count", "allocator_settings": {name: text}, "ignored_keys": [...],
// "problems": {"errors", "warnings"}, "peak_active_bytes", "site_count", "sites": [{"name",
// "frames": [...], "bytes_at_peak", "bytes_at_snapshot", "allocations", "largest_bytes",
// "total_bytes"}] (model/snapshot/SnapshotSites by stack: the 20 with the most at the peak)}}
// Markdown and text end with the 10 first sites.
QByteArray snapshotReportJson(const SnapshotData& data, const SnapshotSummary& summary);
QString snapshotReportMarkdown(const SnapshotData& data, const SnapshotSummary& summary);
QString snapshotReportText(const SnapshotData& data, const SnapshotSummary& summary);

} // namespace gapscope
