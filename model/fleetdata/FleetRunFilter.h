#pragma once
// Which runs of a fleet the page lists, and in what order: the page's filters (job, host, time
// range, worst finding class and severity, notice, text) and the sort by a column, over the
// columns of FleetData. Text is judged once per distinct string, so a filter of 10 000 runs
// takes well under a millisecond (bench/run.sh BUILD fleet-page).

#include "model/fleetdata/FleetData.h"

#include <QString>

#include <vector>

namespace gapscope {

struct FleetRunFilter
{
    QString jobId;      // empty: any
    QString host;       // empty: any
    QString worstClass; // empty: any; kFleetNoFinding: runs without a finding
    FleetSeverity minSeverity = FleetSeverity::None;
    QString notice;                // a notice code the run carries; empty: any
    qint64 fromNs = kFleetNoValue; // the run's span overlaps [fromNs, toNs] (either end open)
    qint64 toNs = kFleetNoValue;
    QString text; // case-insensitive, in path, job, session, host, class, phase or notices
    // only these runs (a recurring issue's); empty: every run
    std::vector<int> only;
    bool restricted = false;

    bool isEmpty() const;
};
inline const QString kFleetNoFinding = QStringLiteral("(none)");

// The runs that pass, in run order.
std::vector<int> filterFleetRuns(const FleetData& data, const FleetRunFilter& filter);

// The columns runs sort by (FleetRunsModel's, in its order).
enum class FleetRunColumn
{
    Path,
    Job,
    Rank,
    Host,
    Session,
    Start,
    Duration,
    Samples,
    PeakGap,
    LatestGap,
    Drift,
    WorstClass,
    Severity,
    Notices,
    Findings,
    Ooms,
    Count
};
// Sorts runs (indices into data.runs) by column, stably; NULLs last either way.
void sortFleetRuns(const FleetData& data, std::vector<int>& runs, FleetRunColumn column, bool descending);

} // namespace gapscope
