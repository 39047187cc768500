#pragma once
// Which hidden-memory spikes of a distributed job are collective communication (NCCL
// all-reduce buffers and the like): upstream stormlog's attribute_collective_memory
// (stormlog/collective_attribution.py), reproduced exactly. A spike is a sample whose positive
// gap (device used - allocator reserved) is large (min_gap_bytes or min_gap_ratio of the device)
// and a robust outlier of its rank; its confidence grows with collective markers near it
// (tokens such as "all_reduce" in event types, contexts, metadata, phase names) and with other
// ranks spiking at the same time. Overlapping intervals of one rank are merged.
//
// O(n log n) in the events: per-rank medians by selection, marker windows by binary search,
// synchrony by a sliding window over the spikes in time order.

#include "analysis/Finding.h"
#include "analysis/JobEvents.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// The knobs of upstream's CollectiveAttributionConfig, with the "medium" preset's values.
struct CollectiveConfig
{
    std::string preset = "medium";
    int64_t minSamplesPerRank = 6;
    int64_t minGapBytes = 128LL * 1024 * 1024;
    double minGapRatio = 0.04;
    double robustZScoreThreshold = 2.5;
    int64_t markerWindowNs = 150'000'000;
    int64_t intervalPaddingNs = 120'000'000;
    int64_t synchronyWindowNs = 120'000'000;
    double minSynchronyRatio = 0.5;
    double minConfidence = 0.5;

    // low, medium or high, as upstream normalises the name (surrounding white space and case
    // ignored, empty = medium); nullopt for any other.
    static std::optional<CollectiveConfig> fromPreset(std::string_view name);
    static const std::vector<std::string_view>& presetNames(); // sorted, as upstream lists them
    // The nine knobs upstream lets a caller override, in the order of its dataclass.
    static const std::vector<std::string_view>& knobNames();
    static bool isIntegerKnob(std::string_view name);
    std::optional<double> knob(std::string_view name) const;
    bool operator==(const CollectiveConfig&) const = default;
};

// `--set collective.preset=NAME` and `--set collective.KNOB=VALUE`: a preset and the knobs set
// on top of it, in any order (as upstream's resolve applies overrides to the preset).
struct CollectiveSettings
{
    static constexpr std::string_view kPrefix = "collective.";

    std::string preset = "medium";
    CollectiveConfig overrides; // the values of the knobs in `overridden`
    std::vector<std::string> overridden;
    bool presetGiven = false;

    // name without the prefix ("preset", "min_confidence", ...) and the value's text. Empty when
    // accepted, else the reason in one line: unknown preset or knob, not a number, not a whole
    // number (integer knobs), or outside what upstream's validation allows ("min_synchrony_ratio
    // must be in [0, 1]"). Upstream accepts NaN for some knobs; here every value must be finite.
    std::string set(std::string_view name, std::string_view value);
    bool any() const { return presetGiven || !overridden.empty(); }
    // The preset with the overrides applied (valid by construction).
    CollectiveConfig resolve() const;
};

// Why a config is invalid by upstream's _validate_collective_config (empty when valid).
std::string validateCollectiveConfig(const CollectiveConfig& config);

enum class CollectiveClassification
{
    Suspect,   // collective_suspect, confidence below 0.6
    Likely,    // collective_likely, 0.6 to 0.8
    Confident, // collective_confident, 0.8 and more
};
std::string_view toString(CollectiveClassification classification);

// Upstream's reason codes, in its sorted order (a result lists them as a sorted set).
enum class CollectiveReason : uint8_t
{
    AllocatorDeviceDivergence,
    CrossRankSynchrony,
    GapSpikeStatisticalOutlier,
    MarkerCollectiveToken,
    MarkerSpikeOverlap,
    SingleRankOnly,
    WeakMarkerSignal,
};
std::string_view toString(CollectiveReason reason);

struct CollectiveEvidence
{
    int64_t markerHits = 0;
    int64_t synchronizedRanks = 0;
    int64_t expectedWorldSize = 0;
    double synchronyRatio = 0; // 4 decimals
    int64_t peakGapBytes = 0;
    std::optional<double> peakGapRatio; // 6 decimals; none without a device total
    double robustZScore = 0;            // 4 decimals
    bool operator==(const CollectiveEvidence&) const = default;
};

struct CollectiveAttribution
{
    int64_t rank = 0;
    int64_t intervalStartNs = 0;
    int64_t intervalEndNs = 0;
    CollectiveClassification classification = CollectiveClassification::Suspect;
    double confidence = 0; // 3 decimals
    uint32_t reasons = 0;  // bit (1 << CollectiveReason)
    CollectiveEvidence evidence;
    std::optional<PhaseAttribution> phase;

    bool hasReason(CollectiveReason reason) const { return (reasons >> unsigned(reason)) & 1u; }
    std::vector<std::string_view> reasonCodes() const; // sorted, as upstream lists them
};

// attribute_collective_memory: events with all three counters recorded take part (upstream's
// analyzer hands it no other); markers per rank, samples (event_type stripped and lower-cased
// "sample") per rank; results sorted by (rank, interval start), overlapping ones merged.
std::vector<CollectiveAttribution> attributeCollectiveMemory(const JobEvents& events,
                                                             const CollectiveConfig& config,
                                                             const PhaseResolver& phases = {});

// Upstream's robust z-score of `value` among `values`: 0.6745 (value - median) / MAD, or
// (value - mean) / sample std (ddof 1) when the MAD is 0, never below 0; 0 for fewer than
// three values or no spread. numpy's median, mean and std.
double robustZScore(std::span<const double> values, double value);

// Whether a string names a collective: lower-cased, '-' and '_' dropped, it holds nccl,
// collective, communication, allreduce, allgather, reducescatter, broadcast or barrier.
bool hasCollectiveToken(std::string_view text);

} // namespace gapscope
