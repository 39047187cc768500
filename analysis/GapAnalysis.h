#pragma once
// Hidden-memory gap analysis (stormlog-telemetry.md section 4), reproduced exactly.
// Pure functions over columnar data: the caller passes the columns of one session/rank
// and the rows of its usable samples (event_type "sample" and device_total > 0), in
// timestamp order.

#include "analysis/ColumnView.h"
#include "analysis/Finding.h"
#include "analysis/Int64Math.h"
#include "analysis/Thresholds.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace gapscope {

// Null marker for nullable integer columns (device_total_bytes may be null).
inline constexpr int64_t kNullInt = std::numeric_limits<int64_t>::min();

// The hidden-memory gap of one sample: device used - allocator reserved, in bytes. Saturated:
// counters read from a file may be anywhere in the int64 range. Every gap shown, reported or
// analysed is this one.
constexpr int64_t gapBytes(int64_t used, int64_t reserved)
{
    return saturatingSub(used, reserved);
}

// The columns are views (dense arrays or the store's packed columns); a pass over many rows
// reads them through an Int64ColumnReader each.
struct GapInput
{
    Int64ColumnView timestampNs;
    Int64ColumnView allocated;      // allocator_allocated_bytes
    Int64ColumnView reserved;       // allocator_reserved_bytes
    Int64ColumnView used;           // device_used_bytes
    Int64ColumnView total;          // device_total_bytes (kNullInt = null)
    std::span<const uint32_t> rows; // usable rows, ascending timestamp

    size_t size() const { return rows.size(); }
    int64_t gapAt(size_t i) const { return gapBytes(used[rows[i]], reserved[rows[i]]); }
};

// Everything the chart needs beside the findings: regression line, threshold band.
struct GapStatistics
{
    size_t sampleCount = 0;
    double maxAbsGapRatio = 0; // max |gap / total|
    bool belowRatioThreshold = true;
    // transient spike statistics (ddof = 1)
    double meanGap = 0;
    double stdGap = 0;
    size_t spikeCount = 0;
    double maxZScore = 0;
    std::optional<size_t> maxGapIndex; // index into rows (first argmax)
    // least squares of gap on (t - t0) in ns, population moments (scipy linregress)
    bool hasFit = false;
    int64_t fitOriginNs = 0;
    double slopePerNs = 0;
    double intercept = 0;
    double r = 0;
    double pValue = 1;
    // fragmentation
    size_t fragmentationCount = 0;
    double avgFragmentation = 0;
    double maxFragmentation = 0;
    std::optional<size_t> maxFragmentationIndex; // index into rows
    double avgGap = 0;                           // mean of the signed gaps
};

// The spike rule, in one place: a sample is a spike when its z-score, (gap - mean) / std with
// the statistics' ddof = 1 spread, is above thresholds.spikeZScore (strictly). Upstream's
// count (computeGapStatistics), the rows a chart marks (spikeRows) and the episodes
// (GapEpisodes) all apply it through these two functions.
inline double gapZScore(double gap, const GapStatistics& stats)
{
    return (gap - stats.meanGap) / stats.stdGap;
}
inline bool isSpikeZScore(double z, const GapThresholds& thresholds)
{
    return z > thresholds.spikeZScore;
}

// Rows whose event is usable for the gap analysis must be chosen by the caller (a row
// with a null or non-positive total that slips in adds no ratio). Statistics are computed
// for any n >= 1 (spread for n >= 2, p-value for n >= 3), thresholds only decide
// belowRatioThreshold and spikeCount. O(n) time, one temporary double vector.
// x of the fit is double(ts) - double(ts0), as upstream converts before subtracting.
GapStatistics computeGapStatistics(const GapInput& input, const GapThresholds& thresholds);

// The upstream findings in upstream order (spike, drift, fragmentation, then stable sort
// by severity and descending confidence). Texts and phase attribution are left empty:
// see Remediation.h and Phases.h.
std::vector<Finding> analyzeGaps(const GapInput& input, const GapThresholds& thresholds);
// The same with the statistics computeGapStatistics(input, thresholds) gave already (the
// app draws them too: computing them once halves the analysis of a large trace).
std::vector<Finding> analyzeGaps(const GapInput& input, const GapThresholds& thresholds,
                                 const GapStatistics& stats);

// The rows of input.rows that are spikes (isSpikeZScore), ascending; none when the gaps do
// not spread (stats.stdGap not positive). stats: computeGapStatistics(input, thresholds); their
// count is stats.spikeCount. One O(n) pass, for the callers that show the spikes themselves.
std::vector<uint32_t> spikeRows(const GapInput& input, const GapThresholds& thresholds,
                                const GapStatistics& stats);

// scipy 1.10 linregress two-sided p-value for correlation r with n samples (Student's t,
// n - 2 degrees of freedom); NaN when n < 3 or r is NaN, 0 for r = +-1.
double linregressPValue(double r, size_t n);

} // namespace gapscope
