#include "analysis/CrossRankAnalysis.h"

#include "analysis/GapAnalysis.h"
#include "analysis/Int64Math.h"
#include "analysis/PyNumeric.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

namespace gapscope {

namespace {

// upstream's _SPIKE_MIN_BYTES and _SKEW_NOTE_MULTIPLIER
constexpr int64_t kSpikeMinBytes = 64LL * 1024 * 1024;
constexpr int64_t kSkewNoteMultiplier = 5;

void addNote(CrossRankAnalysis& result, std::string text)
{
    if (std::find(result.notes.begin(), result.notes.end(), text) == result.notes.end())
        result.notes.push_back(std::move(text));
}

// "1, 3, 7", at most 20 of them named in a note, the others counted ("and 12 more")
std::string rankList(const std::vector<int64_t>& ranks, int64_t notListed = 0)
{
    constexpr size_t kNamed = 20;
    std::string text;
    for (size_t i = 0; i < std::min(ranks.size(), kNamed); ++i) {
        if (!text.empty())
            text += ", ";
        text += std::to_string(ranks[i]);
    }
    const int64_t more =
        saturatingAdd(notListed, static_cast<int64_t>(ranks.size() - std::min(ranks.size(), kNamed)));
    if (more > 0)
        text += " and " + std::to_string(more) + " more";
    return text;
}

// Counter(values).most_common(1): the largest count, the first seen of equal counts. Values
// are counted per source (few) and then per value.
template <typename Value> struct FirstSeenCounter
{
    struct Entry
    {
        int64_t count = 0;
        size_t firstRow = std::numeric_limits<size_t>::max();
    };
    std::map<Value, Entry> entries;

    void add(const Value& value, int64_t count, size_t firstRow)
    {
        Entry& entry = entries[value];
        entry.count += count;
        entry.firstRow = std::min(entry.firstRow, firstRow);
    }
    std::optional<Value> mostCommon() const
    {
        const std::pair<const Value, Entry>* best = nullptr;
        for (const auto& item : entries)
            if (!best || item.second.count > best->second.count ||
                (item.second.count == best->second.count && item.second.firstRow < best->second.firstRow))
                best = &item;
        return best ? std::optional<Value>(best->first) : std::nullopt;
    }
};

// The selected samples of one rank, in upstream's order: (timestamp, pid, host), stable.
struct RankSamples
{
    int64_t rank = 0;
    size_t firstRow = 0; // where the rank's first sample came in the events
    std::vector<uint32_t> rows;
};

struct Candidate
{
    int64_t rank = 0;
    uint32_t row = 0; // the event that completed the spike
    int64_t firstSpikeTimestampNs = 0;
    int64_t alignedFirstSpikeTimestampNs = 0;
    int64_t peakDeltaBytes = 0;
    int64_t spikeWindowSamples = 0;
    size_t index = 0;        // of row in the rank's samples
    int64_t beforeBytes = 0; // device used where the rising run began
};

// upstream's _find_rank_spike_candidate: the first run of rising device-used samples whose
// rises add up to the threshold.
std::optional<Candidate> findSpikeCandidate(const JobEvents& events, const RankSamples& samples,
                                            int64_t offsetNs)
{
    const std::vector<uint32_t>& rows = samples.rows;
    if (rows.size() < 2)
        return std::nullopt;
    int64_t maxUsed = events.used[rows[0]];
    for (const uint32_t row : rows)
        maxUsed = std::max(maxUsed, events.used[row]);
    // int(max_used * 0.10): the int converted to float first
    const int64_t threshold =
        std::max(kSpikeMinBytes, toInt64(static_cast<double>(maxUsed) * 0.10).value_or(kSpikeMinBytes));
    WideInt cumulative = 0;
    int64_t windowSamples = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
        const WideInt delta = WideInt(events.used[rows[i]]) - events.used[rows[i - 1]];
        if (delta <= 0) {
            cumulative = 0;
            windowSamples = 0;
            continue;
        }
        cumulative += delta;
        ++windowSamples;
        if (cumulative < threshold)
            continue;
        Candidate candidate;
        candidate.rank = samples.rank;
        candidate.row = rows[i];
        candidate.firstSpikeTimestampNs = events.timestampNs[rows[i]];
        candidate.alignedFirstSpikeTimestampNs = saturatingSub(candidate.firstSpikeTimestampNs, offsetNs);
        candidate.peakDeltaBytes = saturateToInt64(cumulative);
        candidate.spikeWindowSamples = windowSamples;
        candidate.index = i;
        candidate.beforeBytes = events.used[rows[i - size_t(windowSamples)]];
        return candidate;
    }
    return std::nullopt;
}

// upstream's _median_sampling_interval_ns: the median positive time between a rank's
// consecutive samples, else the median sampling_interval_ms of the samples, else 0.
int64_t medianSamplingIntervalNs(const JobEvents& events, const std::vector<RankSamples>& groups)
{
    std::vector<int64_t> intervals;
    for (const RankSamples& group : groups)
        for (size_t i = 1; i < group.rows.size(); ++i) {
            const WideInt delta =
                WideInt(events.timestampNs[group.rows[i]]) - events.timestampNs[group.rows[i - 1]];
            if (delta > 0)
                intervals.push_back(saturateToInt64(delta));
        }
    if (!intervals.empty())
        return pythonIntMedian(intervals);
    for (const RankSamples& group : groups)
        for (const uint32_t row : group.rows) {
            const int64_t ms = events.sourceOf(row).samplingIntervalMs;
            if (ms > 0)
                intervals.push_back(saturatingMul(ms, 1'000'000));
        }
    return intervals.empty() ? 0 : pythonIntMedian(intervals);
}

// The first-cause part (upstream's _detect_first_cause_spikes); groups in first-sample order.
void detectFirstCause(const JobEvents& events, const std::vector<RankSamples>& groups,
                      CrossRankAnalysis& result, const std::map<int64_t, int64_t>& offsets,
                      const PhaseResolver& phases)
{
    if (groups.size() == 1) {
        addNote(result, "Cross-rank first-cause analysis needs samples from at least two ranks.");
        return;
    }
    std::vector<int64_t> insufficient;
    std::vector<Candidate> candidates;
    for (const RankSamples& group : groups) {
        if (group.rows.size() < 2)
            insufficient.push_back(group.rank);
        RankFirstSpike profile;
        profile.rank = group.rank;
        profile.firstSampleNs = events.timestampNs[group.rows.front()];
        profile.lastSampleNs = events.timestampNs[group.rows.back()];
        if (auto candidate = findSpikeCandidate(events, group, offsets.at(group.rank))) {
            candidates.push_back(*candidate);
            profile.spiked = true;
            profile.spikeNs = candidate->firstSpikeTimestampNs;
            profile.riseBytes = candidate->peakDeltaBytes;
            profile.beforeBytes = candidate->beforeBytes;
            std::vector<int64_t> after;
            for (size_t i = candidate->index + 1; i < group.rows.size(); ++i)
                after.push_back(events.used[group.rows[i]]);
            if (after.empty())
                after.push_back(events.used[candidate->row]);
            const size_t middle = after.size() / 2;
            std::nth_element(after.begin(), after.begin() + std::ptrdiff_t(middle), after.end());
            profile.heldBytes = after[middle];
        }
        result.rankFirstSpikes.push_back(profile);
    }
    std::sort(result.rankFirstSpikes.begin(), result.rankFirstSpikes.end(),
              [](const RankFirstSpike& a, const RankFirstSpike& b) { return a.rank < b.rank; });
    std::sort(insufficient.begin(), insufficient.end());
    if (!insufficient.empty())
        addNote(result, "Ranks with fewer than two samples take no part in spike detection: " +
                            rankList(insufficient) + ".");
    if (candidates.empty()) {
        addNote(result, "No rank had a qualifying spike (device used rising by 64 MiB or 10 % of its peak).");
        return;
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        // aligned time, then the larger rise, then the lower rank (peaks are positive)
        return std::make_tuple(a.alignedFirstSpikeTimestampNs, -a.peakDeltaBytes, a.rank) <
               std::make_tuple(b.alignedFirstSpikeTimestampNs, -b.peakDeltaBytes, b.rank);
    });
    if (candidates.size() >= 2)
        result.clusterOnsetTimestampNs = candidates[1].alignedFirstSpikeTimestampNs;
    else
        addNote(result, "Only one rank had a qualifying spike, so the suspect's confidence is limited.");
    const int64_t cutoff =
        result.clusterOnsetTimestampNs.value_or(candidates[0].alignedFirstSpikeTimestampNs);
    std::vector<Candidate> ranked;
    for (const Candidate& candidate : candidates)
        if (candidate.alignedFirstSpikeTimestampNs <= cutoff)
            ranked.push_back(candidate);

    const int64_t medianIntervalNs = result.medianSampleIntervalNs;
    const int64_t earliest = ranked.front().alignedFirstSpikeTimestampNs;
    const auto earliestCount = std::count_if(ranked.begin(), ranked.end(), [&](const Candidate& c) {
        return c.alignedFirstSpikeTimestampNs == earliest;
    });
    const bool sparseEvidence =
        !result.missingRanks.empty() || result.missingRanksNotListed > 0 || !insufficient.empty();
    for (const Candidate& candidate : ranked) {
        FirstCauseSuspect suspect;
        suspect.rank = candidate.rank;
        suspect.firstSpikeTimestampNs = candidate.firstSpikeTimestampNs;
        suspect.alignedFirstSpikeTimestampNs = candidate.alignedFirstSpikeTimestampNs;
        suspect.peakDeltaBytes = candidate.peakDeltaBytes;
        suspect.spikeWindowSamples = candidate.spikeWindowSamples;
        suspect.leadOverClusterOnsetNs =
            result.clusterOnsetTimestampNs
                ? saturatingSub(*result.clusterOnsetTimestampNs, candidate.alignedFirstSpikeTimestampNs)
                : 0;
        // high: the one earliest rank, leading the onset by a sampling interval, nothing missing;
        // medium: an earliest rank otherwise; low: the others, or when ranks or samples are missing
        const bool isEarliest = candidate.alignedFirstSpikeTimestampNs == earliest;
        if (candidates.size() < 2 || sparseEvidence || !isEarliest)
            suspect.confidence = FirstCauseConfidence::Low;
        else if (earliestCount == 1 &&
                 (medianIntervalNs <= 0 || suspect.leadOverClusterOnsetNs >= medianIntervalNs))
            suspect.confidence = FirstCauseConfidence::High;
        else
            suspect.confidence = FirstCauseConfidence::Medium;
        suspect.supportingRanks = static_cast<int64_t>(ranked.size());
        const uint32_t source = events.source[candidate.row];
        if (phases && events.sources[source].hasSessionId)
            suspect.phase = phases(candidate.firstSpikeTimestampNs, source);
        result.suspects.push_back(std::move(suspect));
    }
}

} // namespace

std::string_view toString(FirstCauseConfidence confidence)
{
    switch (confidence) {
    case FirstCauseConfidence::Low:
        return "low";
    case FirstCauseConfidence::Medium:
        return "medium";
    case FirstCauseConfidence::High:
        return "high";
    }
    return "low";
}

std::vector<int64_t> firstCauseSuspectsAtStartup(const CrossRankAnalysis& analysis)
{
    if (analysis.suspects.empty() || analysis.rankFirstSpikes.size() < 2)
        return {};
    for (const RankFirstSpike& r : analysis.rankFirstSpikes) {
        const WideInt span = WideInt(r.lastSampleNs) - r.firstSampleNs;
        if (!r.spiked || span <= 0)
            return {};
        const double into = double(WideInt(r.spikeNs) - r.firstSampleNs);
        if (into > kStartupShareOfRun * double(span))
            return {};
        if (WideInt(r.heldBytes) < WideInt(r.beforeBytes) + r.riseBytes / 2)
            return {};
    }
    std::vector<int64_t> ranks;
    for (const FirstCauseSuspect& suspect : analysis.suspects)
        ranks.push_back(suspect.rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

CrossRankAnalysis summarizeCrossRankAnalysis(const JobEvents& events, const PhaseResolver& phases)
{
    CrossRankAnalysis result;
    const size_t n = events.size();
    if (n == 0)
        addNote(result, "No events were given.");

    // Which events take part: samples (casefolded) with a device-used value, of one job.
    size_t samples = 0, withUsed = 0;
    std::vector<int64_t> countOfSource(events.sources.size(), 0);
    std::vector<size_t> firstRowOfSource(events.sources.size(), std::numeric_limits<size_t>::max());
    for (size_t row = 0; row < n; ++row) {
        if (!events.has(row, kSampleByCasefold))
            continue;
        ++samples;
        if (events.used[row] == kNullInt)
            continue;
        ++withUsed;
        const uint32_t source = events.source[row];
        ++countOfSource[source];
        firstRowOfSource[source] = std::min(firstRowOfSource[source], row);
    }
    if (samples != n)
        addNote(result, "Events other than samples were left out of the cross-rank analysis.");
    if (withUsed != samples)
        addNote(result, "Samples without a device-used value were left out of the cross-rank analysis.");
    if (withUsed == 0) {
        addNote(result, "No sample events were left to analyse across ranks.");
        return result;
    }
    FirstSeenCounter<std::string> jobIds;
    for (size_t s = 0; s < events.sources.size(); ++s)
        if (countOfSource[s] > 0 && !events.sources[s].jobId.empty())
            jobIds.add(events.sources[s].jobId, countOfSource[s], firstRowOfSource[s]);
    result.jobId = jobIds.mostCommon();
    // several job ids: the samples of the most common one only (samples without one go too)
    std::vector<bool> sourceTakesPart(events.sources.size());
    for (size_t s = 0; s < events.sources.size(); ++s)
        sourceTakesPart[s] = countOfSource[s] > 0;
    if (jobIds.entries.size() > 1) {
        addNote(result,
                "The samples carry several job ids; only those of the most common one were analysed.");
        for (size_t s = 0; s < events.sources.size(); ++s)
            sourceTakesPart[s] = sourceTakesPart[s] && events.sources[s].jobId == *result.jobId;
    }
    const auto takesPart = [&](size_t row) {
        return events.has(row, kSampleByCasefold) && events.used[row] != kNullInt &&
               sourceTakesPart[events.source[row]];
    };

    // Group by rank, in the order of each rank's first sample.
    std::map<int64_t, size_t> groupOfRank;
    std::vector<RankSamples> groups;
    for (size_t s = 0; s < events.sources.size(); ++s) {
        if (!sourceTakesPart[s])
            continue;
        auto [it, inserted] = groupOfRank.try_emplace(events.sources[s].rank, groups.size());
        if (inserted)
            groups.push_back(RankSamples{events.sources[s].rank, firstRowOfSource[s], {}});
        groups[it->second].firstRow = std::min(groups[it->second].firstRow, firstRowOfSource[s]);
    }
    std::vector<int64_t> sizeOfGroup(groups.size(), 0);
    for (size_t s = 0; s < events.sources.size(); ++s)
        if (sourceTakesPart[s])
            sizeOfGroup[groupOfRank[events.sources[s].rank]] += countOfSource[s];
    for (size_t g = 0; g < groups.size(); ++g)
        groups[g].rows.reserve(size_t(sizeOfGroup[g]));
    for (size_t row = 0; row < n; ++row)
        if (takesPart(row))
            groups[groupOfRank[events.sourceOf(row).rank]].rows.push_back(static_cast<uint32_t>(row));
    // (timestamp, pid, host): sources ranked by (pid, host) once
    std::vector<size_t> sourceOrder(events.sources.size());
    std::iota(sourceOrder.begin(), sourceOrder.end(), size_t{0});
    const auto pidHost = [&](size_t s) { return std::tie(events.sources[s].pid, events.sources[s].host); };
    std::sort(sourceOrder.begin(), sourceOrder.end(),
              [&](size_t a, size_t b) { return pidHost(a) < pidHost(b); });
    std::vector<uint32_t> pidHostRank(events.sources.size(), 0);
    for (size_t i = 1; i < sourceOrder.size(); ++i)
        pidHostRank[sourceOrder[i]] =
            pidHostRank[sourceOrder[i - 1]] + (pidHost(sourceOrder[i - 1]) < pidHost(sourceOrder[i]) ? 1 : 0);
    const auto before = [&](uint32_t a, uint32_t b) {
        return std::make_pair(events.timestampNs[a], pidHostRank[events.source[a]]) <
               std::make_pair(events.timestampNs[b], pidHostRank[events.source[b]]);
    };
    for (RankSamples& group : groups)
        if (!std::is_sorted(group.rows.begin(), group.rows.end(), before))
            std::stable_sort(group.rows.begin(), group.rows.end(), before);
    std::sort(groups.begin(), groups.end(),
              [](const RankSamples& a, const RankSamples& b) { return a.firstRow < b.firstRow; });

    for (const RankSamples& group : groups)
        result.participatingRanks.push_back(group.rank);
    std::sort(result.participatingRanks.begin(), result.participatingRanks.end());

    // world_size: the most common one above 1 that the samples claim, or what the ranks show
    FirstSeenCounter<int64_t> claimedSizes;
    for (size_t s = 0; s < events.sources.size(); ++s)
        if (sourceTakesPart[s] && events.sources[s].worldSize > 1)
            claimedSizes.add(events.sources[s].worldSize, countOfSource[s], firstRowOfSource[s]);
    const int64_t declared = claimedSizes.mostCommon().value_or(1);
    const int64_t observed = saturatingAdd(result.participatingRanks.back(), 1);
    result.worldSize =
        std::max({declared, observed, result.participatingRanks.size() > 1 ? observed : int64_t{1}});

    // ranks 0 .. world_size - 1 without samples (a bad world_size could name billions)
    int64_t unjudged = 0;
    const auto addMissing = [&](int64_t from, int64_t to) { // [from, to)
        if (from >= to)
            return;
        const WideInt count = WideInt(to) - from;
        const auto listed = static_cast<int64_t>(
            std::min<WideInt>(count, WideInt(kMaxListedMissingRanks - result.missingRanks.size())));
        for (int64_t k = 0; k < listed; ++k)
            result.missingRanks.push_back(from + k);
        result.missingRanksNotListed =
            saturatingAdd(result.missingRanksNotListed, saturateToInt64(count - listed));
    };
    for (const int64_t rank : result.participatingRanks) {
        if (rank >= result.worldSize)
            break;
        if (rank >= unjudged) {
            addMissing(unjudged, rank);
            unjudged = rank + 1;
        }
    }
    addMissing(unjudged, result.worldSize);
    for (const RankSamples& group : groups)
        result.rankSampleCounts.push_back({group.rank, static_cast<int64_t>(group.rows.size())});
    if (!result.missingRanks.empty())
        addNote(result, "No samples from ranks " +
                            rankList(result.missingRanks, result.missingRanksNotListed) + " of world size " +
                            std::to_string(result.worldSize) + ".");

    // Align each rank on its first sample, against rank 0 (or the lowest rank).
    for (size_t g = 0; g < groups.size(); ++g)
        groupOfRank[groups[g].rank] = g;
    const auto firstTimestampOf = [&](int64_t rank) {
        return events.timestampNs[groups[groupOfRank[rank]].rows.front()];
    };
    const int64_t anchorNs = firstTimestampOf(groupOfRank.count(0) ? 0 : result.participatingRanks.front());
    result.medianSampleIntervalNs = medianSamplingIntervalNs(events, groups);
    std::map<int64_t, int64_t> offsets;
    for (const int64_t rank : result.participatingRanks) {
        const int64_t offset = saturatingSub(firstTimestampOf(rank), anchorNs);
        offsets[rank] = offset;
        result.alignmentOffsetsNs.push_back({rank, offset});
        const WideInt magnitude = offset < 0 ? -WideInt(offset) : WideInt(offset);
        if (result.medianSampleIntervalNs > 0 &&
            magnitude > WideInt(kSkewNoteMultiplier) * result.medianSampleIntervalNs)
            addNote(result, "Rank " + std::to_string(rank) + " starts " + std::to_string(offset) +
                                " ns from the anchor rank; aligning on first samples may be approximate.");
    }

    detectFirstCause(events, groups, result, offsets, phases);
    return result;
}

} // namespace gapscope
