#pragma once
// What the job page's views draw, in their own terms: every rank's gap series (rows of the
// rank's partition in its input's store, with level-of-detail pyramids and the per-rank
// figures of the rank table), the collective-attribution intervals and the cross-rank summary.
// The views take these plain structures, so they do not depend on how the job loader and the
// cross-rank analyses store their results; buildJobViewData() makes the series from a
// JobData. Qt Core only; immutable once built (crosses threads as shared_ptr<const>).

#include "model/job/HeatmapBinning.h"
#include "model/job/JobData.h"
#include "model/store/Decimation.h"

#include <QString>
#include <QStringList>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace gapscope {

// What a heatmap cell, a sparkline and a legend show of a sample.
enum class JobMeasure
{
    Gap,      // device used - allocator reserved, bytes
    GapRatio, // gap / device total (NaN without a positive total)
};

// The classes of upstream's collective attribution (collective_attribution.py).
enum class CollectiveClass
{
    Confident,
    Likely,
    Suspect,
};
// "collective_confident", "collective_likely", "collective_suspect"
QString toString(CollectiveClass classification);
std::optional<CollectiveClass> collectiveClassFromString(const QString& text);

// One named number of an interval's evidence ("peak_gap_bytes", "synchrony_ratio", ...).
struct JobEvidenceValue
{
    QString name;
    double value = 0;
};

// One collective-attribution interval of one rank, in that rank's own clock (raw time).
struct JobCollectiveInterval
{
    int64_t rank = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    CollectiveClass classification = CollectiveClass::Suspect;
    double confidence = 0; // 0..1
    QStringList reasonCodes;
    std::vector<JobEvidenceValue> evidence;
};

enum class SuspectConfidence
{
    High,
    Medium,
    Low,
};
QString toString(SuspectConfidence confidence); // "high", "medium", "low"
std::optional<SuspectConfidence> suspectConfidenceFromString(const QString& text);

// A rank that may have started the cross-rank spike (upstream's first_cause_suspects).
struct JobFirstCauseSuspect
{
    int64_t rank = 0;
    int64_t firstSpikeNs = 0;        // the rank's own clock
    int64_t alignedFirstSpikeNs = 0; // the job's aligned clock
    int64_t leadOverClusterOnsetNs = 0;
    int64_t peakDeltaBytes = 0;
    SuspectConfidence confidence = SuspectConfidence::Low;
    // gapscope's: the spike is the job's start-up (first_cause_at_startup), information only
    bool atStartup = false;
};

// The cross-rank summary: which ranks took part, how their clocks are aligned, when the
// cluster's spike began and which ranks led it.
struct JobCrossRankSummary
{
    int64_t worldSize = 0;
    std::vector<int64_t> participatingRanks;
    std::vector<int64_t> missingRanks;
    // aligned time = the rank's own time - its offset (upstream: the rank's first sample minus
    // the anchor rank's first sample)
    std::map<int64_t, int64_t> alignmentOffsetsNs;
    std::optional<int64_t> clusterOnsetNs; // aligned
    // earliest aligned first spike first, as upstream ranks them
    std::vector<JobFirstCauseSuspect> firstCauseSuspects;

    int64_t offsetOf(int64_t rank) const;
    // The suspects that lead: the first one and those sharing its aligned first spike.
    std::vector<const JobFirstCauseSuspect*> leadingSuspects() const;
    const JobFirstCauseSuspect* suspectOf(int64_t rank) const;
    // Position of the rank in firstCauseSuspects, nullopt when it is none.
    std::optional<size_t> suspectIndexOf(int64_t rank) const;
};

// A rank whose gap or reserved memory departs from its peers' (a rank_divergence finding):
// what the rank table and the heatmap mark it with.
struct JobDivergentRank
{
    int64_t rank = 0;
    QString series; // "gap" or "reserved"
    QString text;   // one line for a tooltip: "reserved memory 192.0 MiB above its peers' median"
};

// One rank's gap series and the figures of the rank table.
struct RankSeries
{
    int64_t rank = 0;
    bool present = false;
    QString host;
    int64_t localRank = 0;
    size_t sampleCount = 0; // `sample` events over all parts (JobRank::sampleCount)

    std::shared_ptr<const TraceData> trace; // holds the store the rows point into
    // Sample rows of the shown partition with both device used and allocator reserved, in
    // time order: the points of the series.
    std::vector<uint32_t> rows;
    // Empty pixel columns between two samples no further apart than this show the earlier
    // sample's value (a held counter); wider holes stay empty. 0: never held.
    int64_t holdLimitNs = 0;
    // by JobMeasure: min/max for lines (sparklines), largest magnitude for heatmap cells
    std::array<MinMaxPyramid, 2> linePyramids;
    std::array<MagnitudePyramid, 2> cellPyramids;

    // last - first over the rows where the counter is recorded
    std::optional<int64_t> allocatedDelta;
    std::optional<int64_t> reservedDelta;
    std::optional<int64_t> latestGap; // gap of the last row
    std::optional<int64_t> peakGap;   // the gap of largest magnitude (signed), earliest first
    std::optional<int64_t> peakGapNs; // its time (raw)
    // by JobMeasure: the smallest and largest value of the rows (both 0 without a value)
    std::array<double, 2> minValue{};
    std::array<double, 2> maxValue{};

    const EventStore& store() const { return trace->store; }
    Int64ColumnView times() const { return trace->store.timestampNs; }
    int64_t timeAt(size_t position) const { return trace->store.timestampNs[rows[position]]; }
    int64_t gapAt(size_t position) const { return trace->store.gapAt(rows[position]); }
    // The measure of a store row as a double; NaN where it is not defined. Inline: the
    // heatmap and the pyramids call it for every sample they do not take in a bucket.
    double valueOfRow(JobMeasure measure, uint32_t row) const
    {
        const EventStore& s = trace->store;
        return measureValue(measure, s.used[row], s.reserved[row], s.total[row]);
    }
    // The measure of a row's counters (the pyramids read them a block at a time).
    static double measureValue(JobMeasure measure, int64_t used, int64_t reserved, int64_t total)
    {
        if (used == kNullInt || reserved == kNullInt)
            return std::numeric_limits<double>::quiet_NaN();
        const double gap = double(gapBytes(used, reserved));
        if (measure == JobMeasure::Gap)
            return gap;
        return total == kNullInt || total <= 0 ? std::numeric_limits<double>::quiet_NaN()
                                               : gap / double(total);
    }
    double valueAt(JobMeasure measure, size_t position) const { return valueOfRow(measure, rows[position]); }
    const MinMaxPyramid& linePyramid(JobMeasure measure) const { return linePyramids[size_t(measure)]; }
    const MagnitudePyramid& cellPyramid(JobMeasure measure) const { return cellPyramids[size_t(measure)]; }
    // The position of the last row at or before ns (the value a held counter has there);
    // nullopt before the first row.
    std::optional<size_t> positionAtOrBefore(int64_t ns) const;
    // The position of the row nearest to ns; nullopt without rows.
    std::optional<size_t> nearestPosition(int64_t ns) const;
};

struct JobViewData
{
    std::shared_ptr<const JobData> job; // may be null for hand-made data (tests, bench)
    std::vector<RankSeries> ranks;      // ascending rank, missing ranks included
    QString jobId;
    int64_t worldSize = 0;

    const RankSeries* findRank(int64_t rank) const;
    std::optional<size_t> indexOfRank(int64_t rank) const;
    // Smallest and largest value of a measure over every rank (0 when none), for the colour scale.
    std::pair<double, double> valueDomain(JobMeasure measure) const;
};

// The series of every rank of a job: the rows of each present rank's shown partition, its
// hold limit, its pyramids and the table figures. O(samples).
std::shared_ptr<const JobViewData> buildJobViewData(std::shared_ptr<const JobData> job);
// The same for a rank made by hand (tests, bench): fills holdLimitNs, the pyramids and the
// figures from trace and rows.
void finishRankSeries(RankSeries& series);

// First and last aligned time of the samples of every present rank, the span at most INT64_MAX
// (the end cut there); nullopt without samples.
struct AlignedRange
{
    int64_t beginNs = 0;
    int64_t endNs = 0;
};
std::optional<AlignedRange> alignedRangeOf(const JobViewData& data, const JobCrossRankSummary* summary);

} // namespace gapscope
