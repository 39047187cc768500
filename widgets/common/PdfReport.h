#pragma once
// The report as a PDF, written with Qt's own PDF writer: A4 pages with the report's summary,
// input, charts, findings, bookmarks and thresholds, a running footer and page numbers.

#include "model/report/ReportContent.h"
#include "model/report/SnapshotReport.h"

#include <QByteArray>
#include <QImage>
#include <QString>

#include <vector>

namespace gapscope {

struct PdfChart
{
    QString title;
    QString caption;
    QImage image; // drawn at the page's content width, keeping its aspect ratio
};

// The PDF document; empty with *error set when it could not be produced.
// The rich text the PDF is laid out from (charts as "chart:<index>" image resources), images
// contentWidthPx wide; reportPdf prints it.
QString reportPdfHtml(const ReportContent& content, const std::vector<PdfChart>& charts, int contentWidthPx);

QByteArray reportPdf(const ReportContent& content, const std::vector<PdfChart>& charts,
                     QString* error = nullptr);

// A PyTorch memory snapshot's report (model/report/SnapshotReport) on the same pages: its input,
// totals, sections, the segment map picture(s), findings, keys not read and records left out.
QString snapshotReportPdfHtml(const SnapshotReportContent& content, const std::vector<PdfChart>& charts,
                              int contentWidthPx);
QByteArray snapshotReportPdf(const SnapshotReportContent& content, const std::vector<PdfChart>& charts,
                             QString* error = nullptr);

} // namespace gapscope
