#pragma once
// The report of one analysis as `gapscope analyze` prints it: JSON (the stable, documented
// object; field names and numbers as upstream's gap_analysis so the two can be diffed),
// Markdown and plain text.

#include "AnalysisRunner.h"

#include <QByteArray>
#include <QString>

namespace gapscope {

enum class ReportFormat { Json, Markdown, Text };
std::optional<ReportFormat> reportFormatFromString(const QString& name);

// Version of the JSON object's layout; bumped on incompatible changes.
inline constexpr int kReportSchemaVersion = 1;

QByteArray analysisReportJson(const AnalysisResult& result);
QString analysisReportMarkdown(const AnalysisResult& result);
QString analysisReportText(const AnalysisResult& result);
QByteArray renderAnalysisReport(const AnalysisResult& result, ReportFormat format);

// One evidence value with its unit in words ("1.50 GiB", "0.9992", "214.6 MB/s").
QString formatEvidenceValue(const EvidenceValue& value);
// "+12.345 s" relative to origin
QString formatRelativeTime(int64_t ns, int64_t originNs);

} // namespace gapscope
