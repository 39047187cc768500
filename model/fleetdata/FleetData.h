#pragma once
// A fleet index database as the fleet page reads it (docs/fleet-schema.md): the runs present
// (not vanished) as columns, one entry per run, and the recurring issues with their runs.
// Immutable once loaded (model/fleetdata/FleetQuery), shared as shared_ptr<const FleetData>
// between the load thread and the page. Text columns hold ids into one table of strings, so a
// filter judges each distinct string once, not once per run.

#include "model/store/LoadProblem.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <limits>
#include <vector>

namespace gapscope {

// A NULL integer of the database.
inline constexpr qint64 kFleetNoValue = std::numeric_limits<qint64>::min();

// A finding's severity in the order the page sorts and filters it (worst last).
enum class FleetSeverity : std::uint8_t
{
    None, // no finding
    Info,
    Warning,
    Critical
};
FleetSeverity fleetSeverityFromString(const QString& text);
QString toString(FleetSeverity severity); // "" for None

struct FleetRuns
{
    // ids into FleetData::strings; 0 is the empty string (NULL)
    std::vector<quint32> path, inputKind, jobId, sessionId, host, collector, backend, worstClass, worstPhase,
        notices;
    // kFleetNoValue for NULL
    std::vector<qint64> runId, rank, worldSize, startNs, endNs, samples, peakGapBytes, latestGapBytes,
        findingCount, oomCount, firstCauseRank;
    std::vector<double> driftSlopeBytesPerS; // NaN for NULL
    std::vector<double> worstConfidence;     // NaN for NULL
    std::vector<FleetSeverity> worstSeverity;
    // bit i: the run carries FleetData::noticeCodes[i]
    std::vector<quint32> noticeMask;

    size_t size() const { return runId.size(); }
    // end - start in ns, or kFleetNoValue when either is unknown
    qint64 durationNs(size_t run) const
    {
        return startNs[run] == kFleetNoValue || endNs[run] == kFleetNoValue ? kFleetNoValue
                                                                            : endNs[run] - startNs[run];
    }
};

struct FleetIssueRun
{
    int run = -1; // index into FleetData::runs
    qint64 hitCount = 0;
    qint64 firstSeenNs = kFleetNoValue;
    qint64 lastSeenNs = kFleetNoValue;
};

// A row of the recurring_issues view, with its runs.
struct FleetIssue
{
    QString fingerprint, kind, issueClass, severity, title;
    qint64 runCount = 0, hitCount = 0, sessionCount = 0;
    qint64 firstSeenNs = kFleetNoValue, lastSeenNs = kFleetNoValue;
    std::vector<FleetIssueRun> runs; // by hits, most first, then by run
};

struct FleetData
{
    QString path; // the database
    int schemaVersion = 0;
    QStringList strings{QString()}; // [0] is the empty string
    FleetRuns runs;
    QStringList noticeCodes;        // every notice code of the runs, sorted (at most 32)
    std::vector<FleetIssue> issues; // the recurring_issues view, most runs first
    int vanishedRuns = 0;           // rows of runs left out (their inputs vanished)
    ProblemLog problems;            // values the page could not read (a notice code past 32)

    const QString& text(quint32 id) const { return strings[qsizetype(id)]; }
    // The distinct non-empty values of a text column, sorted (the page's filter choices).
    QStringList distinct(const std::vector<quint32>& column) const;
    // The run of runId, or -1.
    int runOfId(qint64 runId) const;
    // Bytes held (the bench and the status line).
    size_t heldBytes() const;
};

} // namespace gapscope
