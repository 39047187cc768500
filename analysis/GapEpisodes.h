#pragma once
// gapscope's own account of where a gap finding happened, beside upstream's numbers: the
// episodes of a transient_spike (upstream counts spike samples: one 3 GiB buffer held for 12
// steps is "6 transient spikes" at a 20 ms sampling interval) and the growth intervals of a
// persistent_drift (upstream fits one line over the whole trace: a leak that grew for 300
// steps and then stopped reads as a rate per second, forever). Upstream's evidence is left
// exactly as it is; these fill Finding::episodes, growthIntervals and the steps.
// Plain C++, no Qt. Every pass is O(n) over the samples.

#include "analysis/Finding.h"
#include "analysis/GapAnalysis.h"
#include "analysis/PhaseSteps.h"

#include <vector>

namespace gapscope {

// The episodes of upstream's spike rule. A spike sample is one whose z-score
// (gap - mean) / std (ddof = 1, GapStatistics) is above thresholds.spikeZScore: upstream's
// spike_count counts them. An episode is one contiguous excursion: a maximal run of
// consecutive samples whose z-score stays above half the threshold (hysteresis: the gap has
// not come back to its baseline) that holds at least one spike sample. So spike samples next
// to each other, and spike samples with only samples still above that lower line between
// them, are one episode; a gap that falls back in between makes two. The lower line is half
// the threshold, not the mean: on a trace whose gap settles on a plateau above its mean (a
// leak that stopped), two buffers at different steps would otherwise be one episode.
// Empty when stats has no spread or no spike sample.
std::vector<SpikeEpisode> spikeEpisodes(const GapInput& input, const GapThresholds& thresholds,
                                        const GapStatistics& stats);

// The intervals where the gap's held level rose.
//
// Why this segmentation: a leak is a staircase (a native extension that keeps 96 MiB every 15
// steps) or a ramp, with transient excursions (a spike) and sampling noise on top. The held
// level is the morphological opening then closing of the gap series with a window of W
// samples (a running minimum then maximum, then the reverse; O(n) with monotone queues): an
// excursion up or down shorter than W samples is removed, a level held for W samples or more
// and any monotone stretch are kept exactly. W is 5 % of the samples (at least 3): what the
// whole trace's chart shows at a glance, so a 12-step buffer on a 900-step run is not growth
// while the run's leak is. On the held level a zig-zag scan with a reversal line finds the
// rises: an interval starts at the last sample of the level it rises from, runs as long as
// the level makes a new high within W samples and does not fall back by more than the
// reversal line, and ends at its highest sample. The reversal line and the least growth
// reported are 5 % of the held level's range, so noise on a flat stretch is not growth.
// A piecewise-linear least-squares segmentation was the alternative; it needs a noise model
// for its penalty, and the captures' gap is quantised in 2 MiB pages (no noise at all on long
// stretches), where every stair of the staircase becomes a segment of its own.
std::vector<GrowthInterval> growthIntervals(const GapInput& input);

// Fills the episodes of a transient_spike and the growth intervals of a persistent_drift of
// findings (other classes are left alone), and, where steps has any, the steps: the
// evidence's step and the steps of every episode and interval. stats and thresholds: the ones
// the findings were computed with (for findings below the ratio gate, the same: the gate
// decides nothing else).
void addGapShape(std::vector<Finding>& findings, const GapInput& input, const GapThresholds& thresholds,
                 const GapStatistics& stats, const StepIndex& steps);

} // namespace gapscope
