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
// "problems": {"errors", "warnings"}}}
QByteArray snapshotReportJson(const SnapshotData& data, const SnapshotSummary& summary);
QString snapshotReportMarkdown(const SnapshotData& data, const SnapshotSummary& summary);
QString snapshotReportText(const SnapshotData& data, const SnapshotSummary& summary);

} // namespace gapscope
