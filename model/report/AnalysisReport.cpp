#include "model/report/AnalysisReport.h"

namespace gapscope {

std::optional<ReportFormat> reportFormatFromString(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("json"))
        return ReportFormat::Json;
    if (n == QLatin1String("markdown") || n == QLatin1String("md"))
        return ReportFormat::Markdown;
    if (n == QLatin1String("text") || n == QLatin1String("txt"))
        return ReportFormat::Text;
    return std::nullopt;
}

QByteArray analysisReportJson(const AnalysisResult& result)
{
    return reportJson(buildReportContent(result));
}

QString analysisReportMarkdown(const AnalysisResult& result)
{
    return reportMarkdown(buildReportContent(result, false));
}

QString analysisReportText(const AnalysisResult& result)
{
    return reportText(buildReportContent(result, false));
}

QByteArray renderAnalysisReport(const AnalysisResult& result, ReportFormat format)
{
    switch (format) {
    case ReportFormat::Json:
        return analysisReportJson(result);
    case ReportFormat::Markdown:
        return analysisReportMarkdown(result).toUtf8();
    case ReportFormat::Text:
        return analysisReportText(result).toUtf8();
    }
    return {};
}

} // namespace gapscope
