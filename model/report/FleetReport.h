#pragma once
// What the fleet page exports: the runs listed (filtered and sorted as shown) as CSV with the
// database's own column names and raw values, and the recurring issues with their runs as
// Markdown and HTML. Text from the database (paths, classes, titles) is escaped for each format.

#include "model/fleetdata/FleetData.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace gapscope {

// One line per run of rows (indices into data.runs), in that order, under a header line.
QByteArray fleetRunsCsv(const FleetData& data, const std::vector<int>& rows);
// The recurring issues, most runs first, each with the runs it was seen in (at most
// runsPerIssue of them, the most hits first).
QString fleetIssuesMarkdown(const FleetData& data, int runsPerIssue = 20);
QString fleetIssuesHtml(const FleetData& data, int runsPerIssue = 20);
// A time of the database (ns since the epoch) as UTC "2026-01-31 12:00:05", "" for none.
QString fleetTimeText(qint64 ns);

} // namespace gapscope
