#pragma once
// The report of one analysis as `gapscope analyze` prints it: JSON (the stable, documented
// object; field names and numbers as upstream's gap_analysis so the two can be diffed),
// Markdown and plain text. The same writers serve `gapscope export` and the app's export
// (see ReportContent.h and ReportWriters.h), so every output of one analysis agrees.

#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/trace/AnalysisRunner.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace gapscope {

enum class ReportFormat
{
    Json,
    Markdown,
    Text
};
std::optional<ReportFormat> reportFormatFromString(const QString& name);

QByteArray analysisReportJson(const AnalysisResult& result);
QString analysisReportMarkdown(const AnalysisResult& result);
QString analysisReportText(const AnalysisResult& result);
QByteArray renderAnalysisReport(const AnalysisResult& result, ReportFormat format);

} // namespace gapscope
