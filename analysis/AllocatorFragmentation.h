#pragma once
// Allocator-visible fragmentation: memory the allocator holds reserved but has not allocated to
// any tensor, far above what is allocated, over most of a run. gapscope's own finding
// (allocator_fragmentation), beside upstream's gap analysis: it reads only the allocator's own
// counters, so it holds on a trace whose gap cannot be observed (stormlog's stock collectors)
// too, and it never changes upstream's gap_analysis (fragmentation_like there is upstream's
// ratio of the gap, a different rule).
//
// The rule, measured on the real H200 captures (docs/report-json.md, allocator_findings):
// a sample is fragmented when reserved - allocated is at least half of reserved and at least
// 128 MiB. frag (variable sizes, survivors freed in a pattern): 199 of 206 samples (96.6 %),
// 435 MiB at worst. pair (a transformer with 11 sequence lengths whose cache keeps the peak of
// its largest step, then an OOM): 188 of 434 (43.3 %). single (truth and stock) and the four
// ddp ranks: none (at most 166 MiB of 474 MiB, 35 %). So: Warning when at least two thirds of
// the samples are fragmented, Info from one third, nothing below.

#include "analysis/GapAnalysis.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gapscope {

struct FragmentationRule
{
    double minUnallocatedShare = 0.5;          // of reserved, on one sample
    int64_t minUnallocatedBytes = 128LL << 20; // on one sample
    double warningSampleShare = 2.0 / 3.0;     // of the samples with reserved > 0
    double infoSampleShare = 1.0 / 3.0;
    size_t minFragmentedSamples = 5; // fewer can be one cache flush caught mid-way
    size_t sustainedRun = 5;         // consecutive fragmented samples that make a point "sustained"
};

// Whether one sample is fragmented under rule.
bool isFragmentedSample(int64_t allocated, int64_t reserved, const FragmentationRule& rule = {});

// The finding over the usable rows of input (null allocated or reserved: the sample is not
// counted), or nullopt. trackerWarnings: the tracker's own fragmentation warnings in the same
// rows' span (stormlog `warning` events with metadata.fragmentation), quoted as evidence.
// Evidence: reserved_bytes, allocated_bytes, unallocated_bytes, unallocated_ratio at the worst
// sustained point (the fragmented sample with the most unallocated bytes among runs of
// rule.sustainedRun consecutive fragmented samples; the worst fragmented sample when no run is
// that long), fragmented_samples, sample_count, fragmented_sample_ratio,
// tracker_fragmentation_warnings. Texts are left empty (Remediation.h).
std::optional<Finding> allocatorFragmentation(const GapInput& input, size_t trackerWarnings,
                                              const FragmentationRule& rule = {});

} // namespace gapscope
