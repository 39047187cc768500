#pragma once
// The reports of a PyTorch memory snapshot (model/snapshot), what `gapscope analyze` and
// `gapscope export` write and the app's Export Report writes the same bytes of: the JSON object
// `snapshot`, Markdown, text, a self-contained HTML page (the segment map picture given by the
// caller: model/ draws nothing), the rows of the PDF (widgets/common/PdfReport lays them out),
// one CSV row per segment and the fragmentation findings as CSV. The snapshot page shows the
// same numbers (model/snapshot/SnapshotSummary) and findings (SnapshotFragmentation); this is
// only their report.

#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/snapshot/SnapshotData.h"
#include "model/snapshot/SnapshotSummary.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <utility>
#include <vector>

namespace gapscope {

// What a snapshot's report is made of, as the snapshot page holds it: the data, its totals and
// its fragmentation findings (snapshotReportInput computes the same for the CLI).
struct SnapshotReportInput
{
    std::shared_ptr<const SnapshotData> data;
    SnapshotSummary summary;
    std::shared_ptr<const std::vector<Finding>> findings;
};
// summarizeSnapshot and snapshotFragmentationFindings of data.
SnapshotReportInput snapshotReportInput(std::shared_ptr<const SnapshotData> data);

// A titled table of a snapshot report, texts unescaped.
struct SnapshotReportSection
{
    QString title;
    QString intro; // a sentence before the table; may be empty
    ReportTable table;
    QString empty; // said instead of a table without rows
};

// One neutral structure every human form writes (Markdown, HTML, PDF), so they cannot disagree.
struct SnapshotReportContent
{
    QString path;
    std::vector<std::pair<QString, QString>> input; // path, sizes, gzip, what the PyTorch layout holds
    SnapshotReportSection totals;                   // named as the allocator's counters
    // Per device, segments by stream and pool, the allocation sites (the first 10, when stacks
    // were recorded), trace entries by action, allocator settings in force, in that order. A view
    // added later (the active-memory timeline) adds its section here, after the sites:
    // buildSnapshotReportContent appends it, and every writer prints whatever is in this list.
    std::vector<SnapshotReportSection> sections;
    QString largestFreeBlock; // the sentence on the largest inactive block and where it is
    // the fragmentation findings, worst first (times and phases do not apply: a snapshot is one moment)
    std::vector<ReportFinding> findings;
    QString noFindings; // said when there are none (the page's words)
    QStringList ignoredKeys;
    SnapshotReportSection problems; // the first kReportedProblems records left out; no rows: none
    qint64 problemsNotListed = 0;
};

SnapshotReportContent buildSnapshotReportContent(const SnapshotReportInput& input);

// {"snapshot": {"path", "segment_count", "block_count", "reserved_bytes", "allocated_bytes",
// "active_bytes", "requested_bytes", "inactive_split_bytes", "largest_free_block_bytes",
// "trace_entry_count", "trace_entries_by_action": {action: count, ...}, "devices": [...],
// "pools": [{"pool": [a, b], "segments", "reserved_bytes"}], "streams": [...],
// "frame_stack_count", "allocator_settings": {name: text}, "findings": [{"classification",
// "severity", "confidence", "evidence": {key: value}, "description", "remediation": [...]}],
// "ignored_keys": [...], "problems": {"errors", "warnings"}, "peak_active_bytes", "site_count",
// "sites": [{"name", "frames": [...], "bytes_at_peak", "bytes_at_snapshot", "allocations",
// "largest_bytes", "total_bytes"}] (model/snapshot/SnapshotSites by stack: the 20 with the most at
// the peak)}}. Text ends with the first 10 sites and the findings; the human reports have them as
// a section.
QByteArray snapshotReportJson(const SnapshotReportInput& input);
QString snapshotReportText(const SnapshotReportInput& input);
// images: a "Segment map" section linking each picture's fileName (none: no section).
QString snapshotReportMarkdown(const SnapshotReportContent& content,
                               const std::vector<ReportImage>& images = {});
// One file, the report HTML's style; images inlined as data URIs.
QString snapshotReportHtml(const SnapshotReportContent& content, const std::vector<ReportImage>& images);
// One finding as the Markdown report shows it; standalone adds the input (the clipboard).
QString snapshotFindingMarkdown(const SnapshotReportContent& content, size_t index, bool standalone = true);
// The findings, one row each (RFC 4180, CRLF), the trace findings CSV's columns that apply:
// severity, classification, confidence, description, evidence, remediation.
QByteArray snapshotFindingsCsv(const SnapshotReportContent& content);
// Every segment, one row each in the file's order (RFC 4180, CRLF): device, address (decimal,
// as the pickle holds it), stream, pool ("(0, 0)": segment_pool_id), type, total_bytes,
// allocated_bytes, active_bytes, requested_bytes (of its active allocated blocks),
// blocks, inactive_split_bytes, is_expandable (true/false). Each byte column sums to the
// snapshot's total of the same name.
QByteArray snapshotSegmentsCsv(const SnapshotData& data);

} // namespace gapscope
