#include "model/job/JobViewData.h"

#include "analysis/GapAnalysis.h" // kNullInt, gapBytes
#include "analysis/Int64Math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

// A hole of more than this many median sampling intervals is a stall or a pruned segment, not
// a late sample: the heatmap leaves it empty instead of holding the value across it.
constexpr int64_t kHoldIntervals = 4;

int64_t medianPositiveInterval(const Int64ColumnView& timeNs, const std::vector<uint32_t>& rows)
{
    std::vector<int64_t> intervals;
    intervals.reserve(rows.size());
    Int64ColumnReader times(timeNs);
    for (size_t i = 1; i < rows.size(); ++i) {
        const int64_t delta = saturatingSub(times[rows[i]], times[rows[i - 1]]);
        if (delta > 0)
            intervals.push_back(delta);
    }
    if (intervals.empty())
        return 0;
    const auto middle = intervals.begin() + std::ptrdiff_t(intervals.size() / 2);
    std::nth_element(intervals.begin(), middle, intervals.end());
    return *middle;
}

// last - first of a counter over the rows where it is recorded
std::optional<int64_t> counterDelta(const PackedColumn<int64_t>& column, const std::vector<uint32_t>& rows)
{
    const auto recorded = [&](uint32_t row) { return column[row] != kNullInt; };
    const auto first = std::find_if(rows.begin(), rows.end(), recorded);
    const auto last = std::find_if(rows.rbegin(), rows.rend(), recorded);
    if (first == rows.end())
        return std::nullopt;
    return saturatingSub(column[*last], column[*first]);
}

} // namespace

QString toString(CollectiveClass classification)
{
    switch (classification) {
    case CollectiveClass::Confident:
        return QStringLiteral("collective_confident");
    case CollectiveClass::Likely:
        return QStringLiteral("collective_likely");
    case CollectiveClass::Suspect:
        break;
    }
    return QStringLiteral("collective_suspect");
}

std::optional<CollectiveClass> collectiveClassFromString(const QString& text)
{
    for (CollectiveClass c : {CollectiveClass::Confident, CollectiveClass::Likely, CollectiveClass::Suspect})
        if (text == toString(c))
            return c;
    return std::nullopt;
}

QString toString(SuspectConfidence confidence)
{
    switch (confidence) {
    case SuspectConfidence::High:
        return QStringLiteral("high");
    case SuspectConfidence::Medium:
        return QStringLiteral("medium");
    case SuspectConfidence::Low:
        break;
    }
    return QStringLiteral("low");
}

std::optional<SuspectConfidence> suspectConfidenceFromString(const QString& text)
{
    for (SuspectConfidence c : {SuspectConfidence::High, SuspectConfidence::Medium, SuspectConfidence::Low})
        if (text == toString(c))
            return c;
    return std::nullopt;
}

int64_t JobCrossRankSummary::offsetOf(int64_t rank) const
{
    const auto it = alignmentOffsetsNs.find(rank);
    return it == alignmentOffsetsNs.end() ? 0 : it->second;
}

std::vector<const JobFirstCauseSuspect*> JobCrossRankSummary::leadingSuspects() const
{
    std::vector<const JobFirstCauseSuspect*> leading;
    for (const JobFirstCauseSuspect& suspect : firstCauseSuspects)
        if (leading.empty() || suspect.alignedFirstSpikeNs == leading.front()->alignedFirstSpikeNs)
            leading.push_back(&suspect);
    return leading;
}

const JobFirstCauseSuspect* JobCrossRankSummary::suspectOf(int64_t rank) const
{
    const auto index = suspectIndexOf(rank);
    return index ? &firstCauseSuspects[*index] : nullptr;
}

std::optional<size_t> JobCrossRankSummary::suspectIndexOf(int64_t rank) const
{
    for (size_t i = 0; i < firstCauseSuspects.size(); ++i)
        if (firstCauseSuspects[i].rank == rank)
            return i;
    return std::nullopt;
}

std::optional<size_t> RankSeries::positionAtOrBefore(int64_t ns) const
{
    if (rows.empty())
        return std::nullopt;
    const auto& time = trace->store.timestampNs;
    const auto it = std::upper_bound(rows.begin(), rows.end(), ns,
                                     [&](int64_t t, uint32_t row) { return t < time[row]; });
    if (it == rows.begin())
        return std::nullopt;
    return size_t(it - rows.begin()) - 1;
}

std::optional<size_t> RankSeries::nearestPosition(int64_t ns) const
{
    if (rows.empty())
        return std::nullopt;
    const auto& time = trace->store.timestampNs;
    const auto it = std::lower_bound(rows.begin(), rows.end(), ns,
                                     [&](uint32_t row, int64_t t) { return time[row] < t; });
    if (it == rows.end())
        return rows.size() - 1;
    size_t position = size_t(it - rows.begin());
    if (position > 0 && WideInt(ns) - time[rows[position - 1]] <= WideInt(time[rows[position]]) - ns)
        --position;
    return position;
}

const RankSeries* JobViewData::findRank(int64_t rank) const
{
    const auto index = indexOfRank(rank);
    return index ? &ranks[*index] : nullptr;
}

std::optional<size_t> JobViewData::indexOfRank(int64_t rank) const
{
    for (size_t i = 0; i < ranks.size(); ++i)
        if (ranks[i].rank == rank)
            return i;
    return std::nullopt;
}

std::pair<double, double> JobViewData::valueDomain(JobMeasure measure) const
{
    const size_t m = size_t(measure);
    bool any = false;
    double low = 0, high = 0;
    for (const RankSeries& series : ranks) {
        if (series.rows.empty())
            continue;
        low = any ? std::min(low, series.minValue[m]) : series.minValue[m];
        high = any ? std::max(high, series.maxValue[m]) : series.maxValue[m];
        any = true;
    }
    return {low, high};
}

void finishRankSeries(RankSeries& series)
{
    series.holdLimitNs = 0;
    series.linePyramids = {};
    series.cellPyramids = {};
    series.allocatedDelta.reset();
    series.reservedDelta.reset();
    series.latestGap.reset();
    series.peakGap.reset();
    series.peakGapNs.reset();
    for (int m = 0; m < 2; ++m)
        series.minValue[m] = series.maxValue[m] = 0;
    if (!series.trace || series.rows.empty())
        return;
    const EventStore& s = series.trace->store;
    const std::span<const uint32_t> rows(series.rows);
    series.holdLimitNs = saturatingMul(medianPositiveInterval(s.timestampNs, series.rows), kHoldIntervals);
    for (JobMeasure measure : {JobMeasure::Gap, JobMeasure::GapRatio}) {
        Int64ColumnReader used(s.used), reserved(s.reserved), total(s.total);
        const auto valueOf = [&](uint32_t row) {
            return RankSeries::measureValue(measure, used[row], reserved[row], total[row]);
        };
        series.linePyramids[size_t(measure)] = MinMaxPyramid(rows, valueOf);
        series.cellPyramids[size_t(measure)] = MagnitudePyramid(s.timestampNs, rows, valueOf);
    }
    series.allocatedDelta = counterDelta(s.allocated, series.rows);
    series.reservedDelta = counterDelta(s.reserved, series.rows);
    series.latestGap = s.gapAt(series.rows.back());
    Int64ColumnReader time(s.timestampNs), used(s.used), reserved(s.reserved), total(s.total);
    for (uint32_t row : series.rows) {
        const int64_t gap = gapBytes(used[row], reserved[row]);
        const auto magnitude = [](int64_t v) { return v < 0 ? -WideInt(v) : WideInt(v); };
        if (!series.peakGap || magnitude(gap) > magnitude(*series.peakGap)) {
            series.peakGap = gap;
            series.peakGapNs = time[row];
        }
    }
    for (JobMeasure measure : {JobMeasure::Gap, JobMeasure::GapRatio}) {
        bool any = false;
        double& low = series.minValue[size_t(measure)];
        double& high = series.maxValue[size_t(measure)];
        for (uint32_t row : series.rows) {
            const double v = RankSeries::measureValue(measure, used[row], reserved[row], total[row]);
            if (std::isnan(v))
                continue;
            low = any ? std::min(low, v) : v;
            high = any ? std::max(high, v) : v;
            any = true;
        }
    }
}

std::shared_ptr<const JobViewData> buildJobViewData(std::shared_ptr<const JobData> job)
{
    auto data = std::make_shared<JobViewData>();
    if (!job)
        return data;
    data->jobId = job->jobId;
    data->worldSize = job->worldSize;
    data->ranks.reserve(job->ranks.size());
    for (const JobRank& rank : job->ranks) {
        RankSeries series;
        series.rank = rank.rank;
        series.present = rank.present && !rank.parts.empty();
        series.host = rank.host;
        series.localRank = rank.localRank;
        series.sampleCount = rank.sampleCount;
        if (series.present) {
            const JobRankPart& part = rank.parts.front();
            if (part.inputIndex < job->inputs.size() && job->inputs[part.inputIndex].trace &&
                part.partitionIndex < job->inputs[part.inputIndex].trace->partitions.size()) {
                series.trace = job->inputs[part.inputIndex].trace;
                const EventStore& s = series.trace->store;
                const Partition& partition = series.trace->partitions[part.partitionIndex];
                const uint32_t end = uint32_t(std::min<size_t>(partition.end, s.size()));
                for (uint32_t row = partition.begin; row < end; ++row)
                    if (s.type[row] == EventType::Sample && s.used[row] != kNullInt &&
                        s.reserved[row] != kNullInt)
                        series.rows.push_back(row);
                finishRankSeries(series);
            }
        }
        data->ranks.push_back(std::move(series));
    }
    data->job = std::move(job);
    return data;
}

std::optional<AlignedRange> alignedRangeOf(const JobViewData& data, const JobCrossRankSummary* summary)
{
    std::optional<AlignedRange> range;
    for (const RankSeries& series : data.ranks) {
        if (series.rows.empty())
            continue;
        const int64_t offset = summary ? summary->offsetOf(series.rank) : 0;
        const int64_t first = saturatingSub(series.timeAt(0), offset);
        const int64_t last = saturatingSub(series.timeAt(series.rows.size() - 1), offset);
        if (!range)
            range = AlignedRange{first, last};
        range->beginNs = std::min(range->beginNs, first);
        range->endNs = std::max(range->endNs, last);
    }
    // a span must fit in int64 (time axes take end - begin): a job of more than 292 years, which
    // only a broken clock writes, is cut after its first 292
    if (range)
        range->endNs =
            std::min(range->endNs, saturatingAdd(range->beginNs, std::numeric_limits<int64_t>::max()));
    return range;
}

} // namespace gapscope
