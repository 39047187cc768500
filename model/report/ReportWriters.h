#pragma once
// Text writers of a ReportContent: JSON (the stable `gapscope analyze` object, see
// docs/report-json.md), Markdown, plain text, a self-contained HTML page and a CSV table of
// the findings. Every trace-provided string is escaped for the target format here.

#include "model/report/ReportContent.h"

#include <QByteArray>
#include <QSize>
#include <QString>

#include <utility>
#include <vector>

namespace gapscope {

class JsonWriter;

// Version of the JSON object's layout; bumped on incompatible changes.
inline constexpr int kReportSchemaVersion = 1;

// A chart already rendered by the caller (the model library draws nothing itself).
struct ReportImage
{
    QString title;    // "Gap over time"
    QString caption;  // one sentence under the image
    QString mimeType; // "image/svg+xml" or "image/png"
    QByteArray data;  // the encoded image
    QSize size;       // CSS pixels
    // Markdown links the picture instead of holding it: its file beside the report, relative
    // (empty: the report went where no file can sit beside it, and it says so).
    QString fileName = {};
};

// "device_used_source": {"kind": "trace"} or the attached nvidia-smi log (docs/report-json.md)
void writeDeviceUsedSourceJson(JsonWriter& json, const DeviceUsedSource* source);
QByteArray reportJson(const ReportContent& content);
// "notices": code, severity, title, message, then each extra key in its order (docs/report-json.md)
void writeNoticesJson(JsonWriter& json, const std::vector<Notice>& notices);
// One phase attribution as upstream's phase_attribution_to_payload writes it (phase_resolution,
// phase_paths, then each optional field that is set).
void writePhaseAttribution(JsonWriter& json, const PhaseAttribution& attribution);
// images: a "Charts" section (after the ranks, as in HTML) linking each picture's fileName.
QString reportMarkdown(const ReportContent& content, const std::vector<ReportImage>& images = {});
// One finding as the Markdown report shows it (a "###" section); standalone adds the input
// and session lines so the text means something on its own (the clipboard).
QString reportFindingMarkdown(const ReportContent& content, size_t index, bool standalone = true);
QString reportText(const ReportContent& content);
// One file: styles inline, images as data URIs, no script, no external URL; light and dark
// via prefers-color-scheme. Well-formed XML as well as HTML5 so it can be checked by parsers.
QString reportHtml(const ReportContent& content, const std::vector<ReportImage>& images = {});
// One row per finding (RFC 4180, CRLF): session, host, rank, severity, classification,
// confidence, time, phase, description, evidence, remediation.
QByteArray reportFindingsCsv(const ReportContent& content);

// Rows of the "Input" table every human format shows: (label, raw value), unescaped.
std::vector<std::pair<QString, QString>> reportInputRows(const ReportContent& content);

// A table of a human format: header and rows, unescaped.
struct ReportTable
{
    QStringList header;
    std::vector<QStringList> rows;
};
// A table as the Markdown and the HTML reports write one, cells escaped (the HTML's last column
// in <code> when lastIsPath), for the other reports of model/report.
QString reportTableMarkdown(const ReportTable& table);
QString reportTableHtml(const ReportTable& table, bool lastIsPath = false);
// The style sheet of every HTML report (light and dark, print).
QLatin1StringView reportHtmlStyle();

// The rank table of a job's report (rank, host, present, samples, latest gap, peak |gap|,
// findings, with the cross-rank analyses collective spikes and first-cause confidence, input),
// empty without a job.
ReportTable reportRankTable(const ReportContent& content);
// The parts of a job's report after its rank table: the collective spikes and the first-cause
// suspects (when the report has the cross-rank analyses) and the job's notes.
struct ReportJobSection
{
    QString title;
    QString intro; // a sentence before the table (may be empty)
    ReportTable table;
    QString empty;   // said instead of an empty table
    QString trailer; // after the table ("3 more not listed.")
};
std::vector<ReportJobSection> reportJobSections(const ReportContent& content);
// One line on a job: "job job-268: 4 inputs, world size 4, 4 ranks present, none missing".
QString reportJobSummary(const ReportJob& job);

// The headline figures (samples, duration, peak gap / rss, findings), unescaped.
struct ReportSummaryFigure
{
    QString label;
    QString value;
    QString detail;
};
std::vector<ReportSummaryFigure> reportSummaryFigures(const ReportContent& content);

// Said where the findings would be when there are none: "No hidden-memory findings.", or, on a
// trace whose gap cannot be observed (a gap_not_observable notice), that none could be found
// there, instead of reading as a clean bill of health.
QString reportNoFindingsText(const ReportContent& content);

// "Out of memory at +0.971 s: torch.cuda.OutOfMemoryError": how every human format (and the
// app's summary) heads an OOM.
QString reportOomHeadline(const ReportOom& oom);

// "2026-11-30T09:00:00.123Z"-style UTC time of an ns timestamp (ms precision)
QString formatUtcTime(int64_t ns);

} // namespace gapscope
