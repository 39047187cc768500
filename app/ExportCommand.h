#pragma once
// `gapscope export` and the one export pipeline the app's "Export Report..." shares with it,
// so both write the same bytes for the same inputs.

#include "model/AnalysisRunner.h"

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

enum class ExportFormat
{
    Json, // the `gapscope analyze` object
    Markdown,
    Html, // self-contained, chart inlined
    Pdf,
    Csv,         // the plotted series
    FindingsCsv, // one row per finding
    Png,         // the gap chart
    Svg,
};

std::optional<ExportFormat> exportFormatFromString(const QString& name); // also "md", "htm"
QString exportFormatName(ExportFormat format);                           // "json", "findings-csv"
QString exportFormatSuffix(ExportFormat format);                         // "json", "md", "csv"
const std::vector<ExportFormat>& allExportFormats();
// Draws a chart: needs a QApplication (the CLI runs one on the offscreen platform).
bool exportFormatNeedsWidgets(ExportFormat format);

struct ExportOutcome
{
    QByteArray data;
    QString error; // non-empty: data is unusable
};

// The bytes of one export. chartSize is the chart image size (PNG, SVG and the images inside
// HTML and PDF).
ExportOutcome renderExport(std::shared_ptr<const AnalysisResult> result, ExportFormat format,
                           QSize chartSize);

// args: {"export", PATH, options...}. Exit codes as Cli.h.
int runExportCommand(const QStringList& args, FILE* out, FILE* err);

} // namespace gapscope
