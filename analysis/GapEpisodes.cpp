#include "analysis/GapEpisodes.h"

#include <algorithm>
#include <deque>
#include <functional>

namespace gapscope {

namespace {

// The share of the samples that makes the window of the held level, and the share of the held
// level's range below which a rise or a fall is noise (GapEpisodes.h says why).
constexpr double kWindowShare = 0.05;
constexpr size_t kMinWindow = 3;
constexpr double kRangeShare = 0.05;

// The running extreme of values over the window [i - half, i + half] (clipped at the ends),
// for every i: a monotone queue of indices, each pushed and popped once, O(n).
template <typename Better>
std::vector<int64_t> slidingExtreme(const std::vector<int64_t>& values, size_t half, Better better)
{
    const size_t n = values.size();
    std::vector<int64_t> out(n);
    std::deque<size_t> queue; // indices whose values are ordered by `better`, best first
    size_t next = 0;          // the next index to enter the window
    for (size_t i = 0; i < n; ++i) {
        const size_t last = std::min(n - 1, i + half);
        for (; next <= last; ++next) {
            while (!queue.empty() && !better(values[queue.back()], values[next]))
                queue.pop_back();
            queue.push_back(next);
        }
        while (queue.front() + half < i)
            queue.pop_front();
        out[i] = values[queue.front()];
    }
    return out;
}

std::vector<int64_t> erode(const std::vector<int64_t>& v, size_t half)
{
    return slidingExtreme(v, half, std::less<int64_t>());
}

std::vector<int64_t> dilate(const std::vector<int64_t>& v, size_t half)
{
    return slidingExtreme(v, half, std::greater<int64_t>());
}

// Steps counted from the step at startNs to the one at endNs, both included; 0 when either
// has none.
size_t stepCountOf(const StepIndex& steps, int64_t startNs, int64_t endNs)
{
    const std::optional<size_t> first = steps.indexAt(startNs);
    const std::optional<size_t> last = steps.indexAt(endNs);
    if (!first || !last || *last < *first)
        return 0;
    return *last - *first + 1;
}

} // namespace

std::vector<SpikeEpisode> spikeEpisodes(const GapInput& input, const GapThresholds& thresholds,
                                        const GapStatistics& stats)
{
    std::vector<SpikeEpisode> episodes;
    const size_t n = input.size();
    if (n < 2 || !(stats.stdGap > 0) || stats.spikeCount == 0)
        return episodes;
    Int64ColumnReader time(input.timestampNs);
    // the z-score of the spike rule (GapAnalysis.h), as computeGapStatistics counts spike samples
    const auto zAt = [&](size_t i) { return gapZScore(static_cast<double>(input.gapAt(i)), stats); };
    const double baselineLine = thresholds.spikeZScore / 2;
    size_t i = 0;
    while (i < n) {
        if (!(zAt(i) > baselineLine)) {
            ++i;
            continue;
        }
        SpikeEpisode episode;
        size_t first = i;
        size_t last = i;
        int64_t peak = input.gapAt(i);
        size_t peakIndex = i;
        for (; i < n && zAt(i) > baselineLine; ++i) {
            last = i;
            if (isSpikeZScore(zAt(i), thresholds))
                ++episode.spikeSamples;
            if (const int64_t gap = input.gapAt(i); gap > peak) {
                peak = gap;
                peakIndex = i;
            }
        }
        if (episode.spikeSamples == 0)
            continue; // above the baseline, never a spike: not upstream's
        episode.startNs = time[input.rows[first]];
        episode.endNs = time[input.rows[last]];
        episode.peakGapBytes = peak;
        episode.peakNs = time[input.rows[peakIndex]];
        episode.samples = last - first + 1;
        episodes.push_back(episode);
    }
    return episodes;
}

std::vector<GrowthInterval> growthIntervals(const GapInput& input)
{
    std::vector<GrowthInterval> intervals;
    const size_t n = input.size();
    if (n < 2)
        return intervals;
    std::vector<int64_t> gap(n);
    for (size_t i = 0; i < n; ++i)
        gap[i] = input.gapAt(i);
    const size_t window = std::max(kMinWindow, static_cast<size_t>(kWindowShare * static_cast<double>(n)));
    const size_t half = window / 2;
    // opening (removes excursions up), then closing (removes excursions down), on the series
    // with each end repeated: a window cut short at an end would flatten a rise that starts or
    // ends there (the closing lifts the first sample of a rise to the level after it); with
    // the ends repeated a monotone stretch is kept exactly. The four filters read 4 * half
    // samples to each side.
    const size_t pad = 4 * half;
    std::vector<int64_t> padded;
    padded.reserve(n + 2 * pad);
    padded.insert(padded.end(), pad, gap.front());
    padded.insert(padded.end(), gap.begin(), gap.end());
    padded.insert(padded.end(), pad, gap.back());
    const std::vector<int64_t> filtered = erode(dilate(dilate(erode(padded, half), half), half), half);
    const std::vector<int64_t> held(filtered.begin() + std::ptrdiff_t(pad),
                                    filtered.begin() + std::ptrdiff_t(pad + n));

    const auto [lowest, highest] = std::minmax_element(held.begin(), held.end());
    const double range = static_cast<double>(*highest) - static_cast<double>(*lowest);
    if (!(range > 0))
        return intervals;
    const double line = kRangeShare * range;

    Int64ColumnReader time(input.timestampNs);
    const auto emit = [&](size_t from, size_t to, bool stillGrowing) {
        const double growth = static_cast<double>(held[to]) - static_cast<double>(held[from]);
        if (growth < line)
            return;
        GrowthInterval interval;
        interval.startNs = time[input.rows[from]];
        interval.endNs = time[input.rows[to]];
        interval.growthBytes = saturatingSub(held[to], held[from]);
        interval.stillGrowing = stillGrowing;
        intervals.push_back(interval);
    };

    // zig-zag scan: trough (the last sample of the lowest level while idle), peak (the first
    // sample of the highest level of the rise), low (the last sample of the lowest level since
    // that peak: the next trough when the rise ends)
    bool rising = false;
    size_t trough = 0;
    size_t peak = 0;
    size_t low = 0;
    for (size_t i = 1; i < n; ++i) {
        if (!rising) {
            if (held[i] <= held[trough]) {
                trough = i;
            } else {
                rising = true;
                peak = low = i;
            }
            continue;
        }
        if (held[i] > held[peak]) {
            peak = low = i;
            continue;
        }
        if (held[i] <= held[low])
            low = i;
        const bool fellBack = static_cast<double>(held[peak]) - static_cast<double>(held[i]) > line;
        if (fellBack || i - peak > window) {
            emit(trough, peak, false);
            rising = false;
            trough = low;
        }
    }
    if (rising)
        emit(trough, peak, (n - 1) - peak <= window);
    return intervals;
}

void addGapShape(std::vector<Finding>& findings, const GapInput& input, const GapThresholds& thresholds,
                 const GapStatistics& stats, const StepIndex& steps)
{
    if (input.size() == 0)
        return;
    Int64ColumnReader time(input.timestampNs);
    const int64_t firstNs = time[input.rows.front()];
    const int64_t lastNs = time[input.rows.back()];
    for (Finding& finding : findings) {
        if (!isGapClassification(finding.classification))
            continue;
        finding.stepsKnown = !steps.empty();
        finding.firstSampleNs = firstNs;
        finding.lastSampleNs = lastNs;
        finding.evidenceStep = steps.refAt(finding.evidenceTimestampNs);
        if (finding.classification == Classification::TransientSpike) {
            finding.episodes = spikeEpisodes(input, thresholds, stats);
            for (SpikeEpisode& episode : finding.episodes) {
                episode.startStep = steps.refAt(episode.startNs);
                episode.endStep = steps.refAt(episode.endNs);
                episode.stepCount = stepCountOf(steps, episode.startNs, episode.endNs);
            }
        } else if (finding.classification == Classification::PersistentDrift) {
            finding.growthIntervals = growthIntervals(input);
            for (GrowthInterval& interval : finding.growthIntervals) {
                interval.startStep = steps.refAt(interval.startNs);
                interval.endStep = steps.refAt(interval.endNs);
                interval.stepCount = stepCountOf(steps, interval.startNs, interval.endNs);
            }
        }
    }
}

} // namespace gapscope
