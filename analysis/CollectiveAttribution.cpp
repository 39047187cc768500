#include "analysis/CollectiveAttribution.h"

#include "analysis/GapAnalysis.h"
#include "analysis/Int64Math.h"
#include "analysis/Phases.h"
#include "analysis/PyNumeric.h"
#include "analysis/PyRound.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>

namespace gapscope {

namespace {

// ---------------------------------------------------------------------------- the knobs

struct Knob
{
    std::string_view name;
    int64_t CollectiveConfig::*integer = nullptr; // one of the two is set
    double CollectiveConfig::*real = nullptr;
};

const std::array<Knob, 9> kKnobs{{
    {"min_samples_per_rank", &CollectiveConfig::minSamplesPerRank, nullptr},
    {"min_gap_bytes", &CollectiveConfig::minGapBytes, nullptr},
    {"min_gap_ratio", nullptr, &CollectiveConfig::minGapRatio},
    {"robust_zscore_threshold", nullptr, &CollectiveConfig::robustZScoreThreshold},
    {"marker_window_ns", &CollectiveConfig::markerWindowNs, nullptr},
    {"interval_padding_ns", &CollectiveConfig::intervalPaddingNs, nullptr},
    {"synchrony_window_ns", &CollectiveConfig::synchronyWindowNs, nullptr},
    {"min_synchrony_ratio", nullptr, &CollectiveConfig::minSynchronyRatio},
    {"min_confidence", nullptr, &CollectiveConfig::minConfidence},
}};

const Knob* findKnob(std::string_view name)
{
    for (const Knob& knob : kKnobs)
        if (knob.name == name)
            return &knob;
    return nullptr;
}

std::string_view trimmedAscii(std::string_view text)
{
    const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    while (!text.empty() && space(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && space(text.back()))
        text.remove_suffix(1);
    return text;
}

std::string lowerAscii(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

std::string joined(const std::vector<std::string_view>& names)
{
    std::string out;
    for (const auto name : names) {
        if (!out.empty())
            out += ", ";
        out += name;
    }
    return out;
}

// ------------------------------------------------------------------------- the analysis

// How far a gap stands out among its rank's positive gaps (upstream's _robust_zscore with the
// median, MAD, mean and std computed once per rank instead of once per sample).
struct RobustScale
{
    size_t count = 0;
    double median = 0;
    double mad = 0;
    double mean = 0;
    double std = 0;

    explicit RobustScale(std::span<const double> values) : count(values.size())
    {
        if (count < 3)
            return;
        std::vector<double> scratch(values.begin(), values.end());
        median = numpyMedian(scratch);
        for (size_t i = 0; i < count; ++i)
            scratch[i] = std::fabs(values[i] - median);
        mad = numpyMedian(scratch);
        if (mad > 0)
            return;
        // np.mean and np.std(ddof=1): pairwise sums of the values and of the squared deviations
        const auto value = [&](size_t i) { return values[i]; };
        mean = pairwiseSum<double>(0, count, value) / static_cast<double>(count);
        const double squares = pairwiseSum<double>(0, count, [&](size_t i) {
            const double deviation = values[i] - mean;
            return deviation * deviation;
        });
        std = std::sqrt(squares / static_cast<double>(count - 1));
    }

    double zscore(double value) const
    {
        if (count < 3)
            return 0.0;
        if (mad > 0)
            return std::max(0.0, 0.6745 * (value - median) / mad);
        if (std > 0)
            return std::max(0.0, (value - mean) / std);
        return 0.0;
    }
};

struct Spike
{
    size_t rankIndex = 0; // into the ranks, ascending
    uint32_t row = 0;     // the sample
    int64_t timestampNs = 0;
    int64_t gapBytes = 0;
    std::optional<double> gapRatio;
    double robustZScore = 0; // rounded to 4 decimals, as upstream keeps it
    int64_t markerHits = 0;
    int64_t firstMarkerNs = 0; // of the markers within the window (when any)
    int64_t lastMarkerNs = 0;
    int64_t synchronizedRanks = 1;
};

// Rows grouped by rank, each group in upstream's order (stable by timestamp).
struct RankRows
{
    std::vector<int64_t> ranks;      // ascending
    std::vector<size_t> sampleBegin; // samples of rank i: sampleRows[sampleBegin[i], sampleBegin[i + 1])
    std::vector<uint32_t> sampleRows;
    std::vector<size_t> markerBegin;  // likewise into markerTimes
    std::vector<int64_t> markerTimes; // sorted
};

RankRows groupByRank(const JobEvents& events, const std::vector<uint32_t>& rankOfSource, size_t rankCount)
{
    RankRows groups;
    std::vector<size_t> samples(rankCount + 1, 0), markers(rankCount + 1, 0);
    const size_t n = events.size();
    for (size_t row = 0; row < n; ++row) {
        if (!events.has(row, kCountersRecorded))
            continue;
        const uint32_t rank = rankOfSource[events.source[row]];
        samples[rank + 1] += events.has(row, kSampleByStripLower);
        markers[rank + 1] += events.has(row, kCollectiveMarker);
    }
    std::partial_sum(samples.begin(), samples.end(), samples.begin());
    std::partial_sum(markers.begin(), markers.end(), markers.begin());
    groups.sampleBegin = samples;
    groups.markerBegin = markers;
    groups.sampleRows.resize(samples.back());
    groups.markerTimes.resize(markers.back());
    for (size_t row = 0; row < n; ++row) {
        if (!events.has(row, kCountersRecorded))
            continue;
        const uint32_t rank = rankOfSource[events.source[row]];
        if (events.has(row, kSampleByStripLower))
            groups.sampleRows[samples[rank]++] = static_cast<uint32_t>(row);
        if (events.has(row, kCollectiveMarker))
            groups.markerTimes[markers[rank]++] = events.timestampNs[row];
    }
    // upstream sorts all events by timestamp (stable) before grouping them by rank
    for (size_t r = 0; r < rankCount; ++r) {
        const auto first = groups.sampleRows.begin() + std::ptrdiff_t(groups.sampleBegin[r]);
        const auto last = groups.sampleRows.begin() + std::ptrdiff_t(groups.sampleBegin[r + 1]);
        if (!std::is_sorted(first, last, [&](uint32_t a, uint32_t b) {
                return events.timestampNs[a] < events.timestampNs[b];
            }))
            std::stable_sort(first, last, [&](uint32_t a, uint32_t b) {
                return events.timestampNs[a] < events.timestampNs[b];
            });
        std::sort(groups.markerTimes.begin() + std::ptrdiff_t(groups.markerBegin[r]),
                  groups.markerTimes.begin() + std::ptrdiff_t(groups.markerBegin[r + 1]));
    }
    return groups;
}

// The spikes of one rank, in sample order (upstream's _detect_rank_spikes).
void detectRankSpikes(const JobEvents& events, const RankRows& groups, size_t rank,
                      const CollectiveConfig& config, std::vector<Spike>& spikes)
{
    const std::span<const uint32_t> rows(groups.sampleRows.data() + groups.sampleBegin[rank],
                                         groups.sampleBegin[rank + 1] - groups.sampleBegin[rank]);
    if (static_cast<int64_t>(rows.size()) < config.minSamplesPerRank)
        return;
    const std::span<const int64_t> markers(groups.markerTimes.data() + groups.markerBegin[rank],
                                           groups.markerBegin[rank + 1] - groups.markerBegin[rank]);
    // max(0, used - reserved): both counters are recorded and not negative, so it is exact
    const auto gapOf = [&](uint32_t row) {
        return std::max<int64_t>(0, gapBytes(events.used[row], events.reserved[row]));
    };
    std::vector<double> positiveGaps(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        positiveGaps[i] = static_cast<double>(gapOf(rows[i]));
    const RobustScale scale(positiveGaps);

    for (size_t i = 0; i < rows.size(); ++i) {
        const uint32_t row = rows[i];
        const int64_t gap = gapOf(row);
        const int64_t total = events.total[row];
        std::optional<double> ratio;
        if (total != kNullInt && total > 0)
            ratio = trueDivide(gap, total);
        const bool significant = (ratio && *ratio >= config.minGapRatio) || gap >= config.minGapBytes;
        if (!significant)
            continue;
        const double z = scale.zscore(static_cast<double>(gap));
        if (z < config.robustZScoreThreshold)
            continue;
        Spike spike;
        spike.rankIndex = rank;
        spike.row = row;
        spike.timestampNs = events.timestampNs[row];
        spike.gapBytes = gap;
        spike.gapRatio = ratio;
        spike.robustZScore = pyRound(z, 4);
        // markers within the window: |marker - t| <= window
        const int64_t from = saturatingSub(spike.timestampNs, config.markerWindowNs);
        const int64_t to = saturatingAdd(spike.timestampNs, config.markerWindowNs);
        const auto first = std::lower_bound(markers.begin(), markers.end(), from);
        const auto last = std::upper_bound(first, markers.end(), to);
        spike.markerHits = last - first;
        if (first != last) {
            spike.firstMarkerNs = *first;
            spike.lastMarkerNs = *(last - 1);
        }
        spikes.push_back(spike);
    }
}

// How many ranks spiked within the synchrony window of each spike (upstream's buckets of the
// window's width hold, of the neighbouring ones, exactly the spikes within the window, so a
// sliding window over the spikes in time order gives the same sets).
void countSynchronizedRanks(std::vector<Spike>& spikes, size_t rankCount, int64_t windowNs)
{
    std::vector<size_t> order(spikes.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return spikes[a].timestampNs < spikes[b].timestampNs; });
    std::vector<size_t> inWindow(rankCount, 0);
    int64_t distinct = 0;
    size_t low = 0, high = 0; // order[low, high) is in the window
    for (const size_t index : order) {
        Spike& spike = spikes[index];
        const WideInt from = WideInt(spike.timestampNs) - windowNs;
        const WideInt to = WideInt(spike.timestampNs) + windowNs;
        while (high < order.size() && spikes[order[high]].timestampNs <= to)
            distinct += inWindow[spikes[order[high++]].rankIndex]++ == 0;
        while (low < high && spikes[order[low]].timestampNs < from)
            distinct -= --inWindow[spikes[order[low++]].rankIndex] == 0;
        spike.synchronizedRanks = std::max<int64_t>(distinct, 1);
    }
}

constexpr uint32_t bit(CollectiveReason reason)
{
    return 1u << unsigned(reason);
}

// upstream's _score_spike; nullopt when the confidence is not above 0.
std::optional<CollectiveAttribution> scoreSpike(const Spike& spike, int64_t rank, int64_t expectedWorldSize,
                                                int64_t traceStartNs, const CollectiveConfig& config)
{
    const bool markerOverlap = spike.markerHits > 0;
    const int64_t synchronized = std::max<int64_t>(spike.synchronizedRanks, 1);
    const double synchronyRatio =
        expectedWorldSize <= 1 ? 0.0 : std::min(1.0, trueDivide(synchronized - 1, expectedWorldSize - 1));
    const double zscoreStrength = std::min(1.0, spike.robustZScore / config.robustZScoreThreshold);
    const double bytesStrength =
        config.minGapBytes > 0 ? std::min(1.0, trueDivide(spike.gapBytes, config.minGapBytes)) : 1.0;
    const double ratioStrength =
        config.minGapRatio > 0 ? std::min(1.0, spike.gapRatio.value_or(0.0) / config.minGapRatio) : 1.0;
    const double divergenceStrength = std::max(bytesStrength, ratioStrength);

    double confidence = 0.0;
    confidence += markerOverlap ? 0.34 : 0.0;
    confidence += 0.34 * synchronyRatio;
    confidence += 0.16 * zscoreStrength;
    confidence += 0.16 * divergenceStrength;
    uint32_t reasons = bit(CollectiveReason::GapSpikeStatisticalOutlier);
    if (markerOverlap) {
        reasons |= bit(CollectiveReason::MarkerCollectiveToken) | bit(CollectiveReason::MarkerSpikeOverlap);
    } else {
        confidence -= 0.15;
        reasons |= bit(CollectiveReason::WeakMarkerSignal);
    }
    if (synchronyRatio >= config.minSynchronyRatio)
        reasons |= bit(CollectiveReason::CrossRankSynchrony);
    if (divergenceStrength >= 0.5)
        reasons |= bit(CollectiveReason::AllocatorDeviceDivergence);
    if (expectedWorldSize <= 1 || synchronized <= 1) {
        confidence -= 0.15;
        reasons |= bit(CollectiveReason::SingleRankOnly);
    }
    if (!spike.gapRatio)
        confidence -= 0.05;
    confidence = std::max(0.0, std::min(1.0, confidence));
    if (confidence <= 0)
        return std::nullopt;

    const int64_t markerStart = markerOverlap ? spike.firstMarkerNs : spike.timestampNs;
    const int64_t markerEnd = markerOverlap ? spike.lastMarkerNs : spike.timestampNs;
    const WideInt unclampedStart =
        WideInt(std::min(markerStart, spike.timestampNs)) - config.intervalPaddingNs;
    CollectiveAttribution result;
    result.rank = rank;
    result.intervalStartNs = saturateToInt64(std::max({WideInt(0), WideInt(traceStartNs), unclampedStart}));
    result.intervalEndNs =
        saturateToInt64(WideInt(std::max(markerEnd, spike.timestampNs)) + config.intervalPaddingNs);
    result.evidence.markerHits = spike.markerHits;
    result.evidence.synchronizedRanks = synchronized;
    result.evidence.expectedWorldSize = expectedWorldSize;
    result.evidence.synchronyRatio = pyRound(synchronyRatio, 4);
    result.evidence.peakGapBytes = spike.gapBytes;
    if (spike.gapRatio)
        result.evidence.peakGapRatio = pyRound(*spike.gapRatio, 6);
    result.evidence.robustZScore = pyRound(spike.robustZScore, 4);
    result.classification = confidence >= 0.8   ? CollectiveClassification::Confident
                            : confidence >= 0.6 ? CollectiveClassification::Likely
                                                : CollectiveClassification::Suspect;
    result.confidence = pyRound(confidence, 3);
    result.reasons = reasons;
    return result;
}

// upstream's _merge_rank_intervals: by (rank, start), overlapping intervals of a rank merged.
std::vector<CollectiveAttribution> mergeRankIntervals(std::vector<CollectiveAttribution> results)
{
    std::stable_sort(results.begin(), results.end(), [](const auto& a, const auto& b) {
        return std::tie(a.rank, a.intervalStartNs) < std::tie(b.rank, b.intervalStartNs);
    });
    std::vector<CollectiveAttribution> merged;
    for (CollectiveAttribution& result : results) {
        if (merged.empty() || merged.back().rank != result.rank ||
            result.intervalStartNs > merged.back().intervalEndNs) {
            merged.push_back(std::move(result));
            continue;
        }
        CollectiveAttribution& previous = merged.back();
        CollectiveEvidence& evidence = previous.evidence;
        const CollectiveEvidence& other = result.evidence;
        evidence.markerHits = std::max(evidence.markerHits, other.markerHits);
        evidence.synchronizedRanks = std::max(evidence.synchronizedRanks, other.synchronizedRanks);
        evidence.expectedWorldSize = std::max(evidence.expectedWorldSize, other.expectedWorldSize);
        evidence.synchronyRatio = std::max(evidence.synchronyRatio, other.synchronyRatio);
        evidence.peakGapBytes = std::max(evidence.peakGapBytes, other.peakGapBytes);
        // the larger ratio; a missing one counts as no ratio, not as 0
        if (!evidence.peakGapRatio || (other.peakGapRatio && *other.peakGapRatio > *evidence.peakGapRatio))
            evidence.peakGapRatio = other.peakGapRatio;
        evidence.robustZScore = std::max(evidence.robustZScore, other.robustZScore);
        previous.intervalStartNs = std::min(previous.intervalStartNs, result.intervalStartNs);
        previous.intervalEndNs = std::max(previous.intervalEndNs, result.intervalEndNs);
        previous.classification = std::max(previous.classification, result.classification);
        previous.confidence = std::max(previous.confidence, result.confidence);
        previous.reasons |= result.reasons;
        previous.phase = mergePhaseAttributions(previous.phase, result.phase);
    }
    return merged;
}

} // namespace

// ------------------------------------------------------------------------------- config

std::optional<CollectiveConfig> CollectiveConfig::fromPreset(std::string_view name)
{
    const std::string normalized = lowerAscii(trimmedAscii(name.empty() ? std::string_view("medium") : name));
    CollectiveConfig config;
    if (normalized == "low") {
        config.minSamplesPerRank = 8;
        config.minGapBytes = 256LL * 1024 * 1024;
        config.minGapRatio = 0.06;
        config.robustZScoreThreshold = 3.0;
        config.markerWindowNs = 120'000'000;
        config.intervalPaddingNs = 100'000'000;
        config.synchronyWindowNs = 100'000'000;
        config.minSynchronyRatio = 0.6;
        config.minConfidence = 0.7;
    } else if (normalized == "high") {
        config.minSamplesPerRank = 5;
        config.minGapBytes = 64LL * 1024 * 1024;
        config.minGapRatio = 0.025;
        config.robustZScoreThreshold = 1.8;
        config.markerWindowNs = 180'000'000;
        config.intervalPaddingNs = 160'000'000;
        config.synchronyWindowNs = 180'000'000;
        config.minSynchronyRatio = 0.34;
        config.minConfidence = 0.35;
    } else if (normalized != "medium") {
        return std::nullopt;
    }
    config.preset = normalized;
    return config;
}

const std::vector<std::string_view>& CollectiveConfig::presetNames()
{
    static const std::vector<std::string_view> kNames{"high", "low", "medium"};
    return kNames;
}

const std::vector<std::string_view>& CollectiveConfig::knobNames()
{
    static const std::vector<std::string_view> kNames = [] {
        std::vector<std::string_view> names;
        for (const Knob& knob : kKnobs)
            names.push_back(knob.name);
        return names;
    }();
    return kNames;
}

bool CollectiveConfig::isIntegerKnob(std::string_view name)
{
    const Knob* knob = findKnob(name);
    return knob && knob->integer;
}

std::optional<double> CollectiveConfig::knob(std::string_view name) const
{
    const Knob* knob = findKnob(name);
    if (!knob)
        return std::nullopt;
    return knob->integer ? static_cast<double>(this->*knob->integer) : this->*knob->real;
}

std::string validateCollectiveConfig(const CollectiveConfig& c)
{
    if (c.minSamplesPerRank < 3)
        return "min_samples_per_rank must be >= 3";
    if (c.minGapBytes < 0)
        return "min_gap_bytes must be >= 0";
    if (c.minGapRatio < 0)
        return "min_gap_ratio must be >= 0";
    if (c.robustZScoreThreshold <= 0)
        return "robust_zscore_threshold must be > 0";
    if (c.markerWindowNs < 0)
        return "marker_window_ns must be >= 0";
    if (c.intervalPaddingNs < 0)
        return "interval_padding_ns must be >= 0";
    if (c.synchronyWindowNs < 0)
        return "synchrony_window_ns must be >= 0";
    if (!(c.minSynchronyRatio >= 0 && c.minSynchronyRatio <= 1))
        return "min_synchrony_ratio must be in [0, 1]";
    if (!(c.minConfidence >= 0 && c.minConfidence <= 1))
        return "min_confidence must be in [0, 1]";
    return {};
}

std::string CollectiveSettings::set(std::string_view name, std::string_view value)
{
    if (name == "preset") {
        if (!CollectiveConfig::fromPreset(value))
            return "unknown collective preset '" + std::string(value) +
                   "' (known: " + joined(CollectiveConfig::presetNames()) + ")";
        preset = lowerAscii(trimmedAscii(value.empty() ? std::string_view("medium") : value));
        presetGiven = true;
        return {};
    }
    const Knob* knob = findKnob(name);
    if (!knob)
        return "unknown collective setting '" + std::string(name) + "' (known: preset, " +
               joined(CollectiveConfig::knobNames()) + ")";
    const std::string_view text = trimmedAscii(value);
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    CollectiveConfig probe = overrides;
    if (knob->integer) {
        int64_t whole = 0;
        if (auto [ptr, ec] = std::from_chars(begin, end, whole);
            ec != std::errc() || ptr != end || text.empty()) {
            // 1e8 is a whole number too
            double number = 0;
            auto [dptr, dec] = std::from_chars(begin, end, number);
            const auto converted = toInt64(number);
            if (dec != std::errc() || dptr != end || text.empty() || !converted ||
                double(*converted) != number)
                return std::string(name) + " needs a whole number, got '" + std::string(value) + "'";
            whole = *converted;
        }
        probe.*knob->integer = whole;
    } else {
        double number = 0;
        auto [ptr, ec] = std::from_chars(begin, end, number);
        if (ec != std::errc() || ptr != end || text.empty() || !std::isfinite(number))
            return std::string(name) + " needs a finite number, got '" + std::string(value) + "'";
        probe.*knob->real = number;
    }
    if (std::string why = validateCollectiveConfig(probe); !why.empty())
        return why;
    overrides = probe;
    if (std::find(overridden.begin(), overridden.end(), name) == overridden.end())
        overridden.emplace_back(name);
    return {};
}

CollectiveConfig CollectiveSettings::resolve() const
{
    CollectiveConfig config = CollectiveConfig::fromPreset(preset).value_or(CollectiveConfig{});
    for (const std::string& name : overridden) {
        const Knob* knob = findKnob(name);
        if (knob && knob->integer)
            config.*knob->integer = overrides.*knob->integer;
        else if (knob)
            config.*knob->real = overrides.*knob->real;
    }
    return config;
}

// ------------------------------------------------------------------------------ results

std::string_view toString(CollectiveClassification classification)
{
    switch (classification) {
    case CollectiveClassification::Suspect:
        return "collective_suspect";
    case CollectiveClassification::Likely:
        return "collective_likely";
    case CollectiveClassification::Confident:
        return "collective_confident";
    }
    return "collective_suspect";
}

std::string_view toString(CollectiveReason reason)
{
    switch (reason) {
    case CollectiveReason::AllocatorDeviceDivergence:
        return "allocator_device_divergence";
    case CollectiveReason::CrossRankSynchrony:
        return "cross_rank_synchrony";
    case CollectiveReason::GapSpikeStatisticalOutlier:
        return "gap_spike_statistical_outlier";
    case CollectiveReason::MarkerCollectiveToken:
        return "marker_collective_token";
    case CollectiveReason::MarkerSpikeOverlap:
        return "marker_spike_overlap";
    case CollectiveReason::SingleRankOnly:
        return "single_rank_only";
    case CollectiveReason::WeakMarkerSignal:
        return "weak_marker_signal";
    }
    return {};
}

std::vector<std::string_view> CollectiveAttribution::reasonCodes() const
{
    std::vector<std::string_view> codes;
    for (unsigned r = 0; r <= unsigned(CollectiveReason::WeakMarkerSignal); ++r)
        if (hasReason(CollectiveReason(r)))
            codes.push_back(toString(CollectiveReason(r)));
    return codes;
}

double robustZScore(std::span<const double> values, double value)
{
    return RobustScale(values).zscore(value);
}

bool hasCollectiveToken(std::string_view text)
{
    static constexpr std::array<std::string_view, 8> kTokens{"nccl",      "collective", "communication",
                                                             "allreduce", "allgather",  "reducescatter",
                                                             "broadcast", "barrier"};
    // Upstream looks for "all_reduce" in the text with '-' read as '_', and for "allreduce" in
    // the text without '-' and '_'; the second finds whatever the first does.
    std::string collapsed;
    collapsed.reserve(text.size());
    for (const char c : text) {
        if (c == '-' || c == '_')
            continue;
        collapsed.push_back(c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c);
    }
    for (const std::string_view token : kTokens)
        if (collapsed.find(token) != std::string::npos)
            return true;
    return false;
}

std::vector<CollectiveAttribution> attributeCollectiveMemory(const JobEvents& events,
                                                             const CollectiveConfig& config,
                                                             const PhaseResolver& phases)
{
    // Ranks in ascending order; each source's rank as an index into them.
    std::map<int64_t, uint32_t> rankIndex;
    for (const JobEventSource& source : events.sources)
        rankIndex.emplace(source.rank, 0);
    std::vector<int64_t> ranks;
    for (auto& [rank, index] : rankIndex) {
        index = static_cast<uint32_t>(ranks.size());
        ranks.push_back(rank);
    }
    std::vector<uint32_t> rankOfSource(events.sources.size());
    for (size_t s = 0; s < events.sources.size(); ++s)
        rankOfSource[s] = rankIndex[events.sources[s].rank];

    // Only events with all counters recorded take part; their earliest time and world sizes.
    bool any = false;
    int64_t firstTimestampNs = 0;
    int64_t largestWorldSize = 0;
    std::vector<bool> rankSeen(ranks.size(), false);
    for (size_t row = 0; row < events.size(); ++row) {
        if (!events.has(row, kCountersRecorded))
            continue;
        firstTimestampNs =
            any ? std::min(firstTimestampNs, events.timestampNs[row]) : events.timestampNs[row];
        any = true;
        const JobEventSource& source = events.sourceOf(row);
        largestWorldSize = std::max(largestWorldSize, source.worldSize);
        rankSeen[rankOfSource[events.source[row]]] = true;
    }
    if (!any)
        return {};
    // upstream's _expected_world_size: the largest positive world_size, else the rank count
    const int64_t expectedWorldSize =
        largestWorldSize > 0 ? largestWorldSize
                             : std::max<int64_t>(1, std::count(rankSeen.begin(), rankSeen.end(), true));
    const int64_t traceStartNs = std::max<int64_t>(0, firstTimestampNs);

    const RankRows groups = groupByRank(events, rankOfSource, ranks.size());
    std::vector<Spike> spikes;
    for (size_t rank = 0; rank < ranks.size(); ++rank)
        detectRankSpikes(events, groups, rank, config, spikes);
    if (spikes.empty())
        return {};
    countSynchronizedRanks(spikes, ranks.size(), config.synchronyWindowNs);

    std::vector<CollectiveAttribution> results;
    for (const Spike& spike : spikes) {
        std::optional<CollectiveAttribution> scored =
            scoreSpike(spike, ranks[spike.rankIndex], expectedWorldSize, traceStartNs, config);
        if (!scored || scored->confidence < config.minConfidence)
            continue;
        // asked only for the spikes that are kept: the phase does not change the score
        const uint32_t source = events.source[spike.row];
        if (phases && events.sources[source].hasSessionId)
            scored->phase = phases(spike.timestampNs, source);
        results.push_back(std::move(*scored));
    }
    return mergeRankIntervals(std::move(results));
}

} // namespace gapscope
