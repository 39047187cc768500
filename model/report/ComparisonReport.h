#pragma once
// The reports of a comparison of two analyses (model/trace/TraceComparison): what
// `gapscope compare --format json|markdown` writes. The comparison itself is computed in trace/;
// writing reports is this folder's.

#include "model/trace/TraceComparison.h"

#include <QByteArray>

namespace gapscope {

// Machine-readable and human-readable reports.
QByteArray renderComparisonJson(const TraceComparison& comparison);
QByteArray renderComparisonMarkdown(const TraceComparison& comparison);

} // namespace gapscope
