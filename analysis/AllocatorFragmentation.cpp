#include "analysis/AllocatorFragmentation.h"

#include "analysis/PyRound.h"

namespace gapscope {

bool isFragmentedSample(int64_t allocated, int64_t reserved, const FragmentationRule& rule)
{
    if (allocated == kNullInt || reserved == kNullInt || reserved <= 0)
        return false;
    const int64_t unallocated = saturatingSub(reserved, std::max<int64_t>(allocated, 0));
    return unallocated >= rule.minUnallocatedBytes &&
           double(unallocated) >= rule.minUnallocatedShare * double(reserved);
}

std::optional<Finding> allocatorFragmentation(const GapInput& input, size_t trackerWarnings,
                                              const FragmentationRule& rule)
{
    size_t samples = 0;    // with reserved > 0: before the allocator holds anything, no evidence
    size_t fragmented = 0; // of them
    size_t run = 0;
    std::optional<size_t> worst;         // index into rows, in a sustained run
    std::optional<size_t> worstAnywhere; // the same without the run's length
    int64_t worstBytes = -1;
    int64_t worstAnywhereBytes = -1;
    int64_t runBestBytes = -1;
    size_t runBest = 0;

    auto closeRun = [&] {
        if (run >= rule.sustainedRun && runBestBytes > worstBytes) {
            worstBytes = runBestBytes;
            worst = runBest;
        }
        run = 0;
        runBestBytes = -1;
    };

    Int64ColumnReader allocatedReader(input.allocated);
    Int64ColumnReader reservedReader(input.reserved);
    for (size_t i = 0; i < input.size(); ++i) {
        const uint32_t row = input.rows[i];
        const int64_t allocated = allocatedReader[row];
        const int64_t reserved = reservedReader[row];
        if (allocated == kNullInt || reserved == kNullInt || reserved <= 0)
            continue; // not a sample of the allocator: neither counted nor breaking a run
        ++samples;
        if (!isFragmentedSample(allocated, reserved, rule)) {
            closeRun();
            continue;
        }
        ++fragmented;
        const int64_t unallocated = saturatingSub(reserved, std::max<int64_t>(allocated, 0));
        ++run;
        if (unallocated > runBestBytes) {
            runBestBytes = unallocated;
            runBest = i;
        }
        if (unallocated > worstAnywhereBytes) {
            worstAnywhereBytes = unallocated;
            worstAnywhere = i;
        }
    }
    closeRun();

    if (samples == 0 || fragmented < rule.minFragmentedSamples)
        return std::nullopt;
    const double share = double(fragmented) / double(samples);
    if (share < rule.infoSampleShare)
        return std::nullopt;

    const size_t at = worst ? *worst : *worstAnywhere;
    const uint32_t row = input.rows[at];
    const int64_t reserved = input.reserved[row];
    const int64_t allocated = std::max<int64_t>(input.allocated[row], 0);
    const int64_t unallocated = saturatingSub(reserved, allocated);

    Finding finding;
    finding.classification = Classification::AllocatorFragmentation;
    finding.severity = share >= rule.warningSampleShare ? Severity::Warning : Severity::Info;
    finding.confidence = pyRound(share, 3);
    finding.evidenceTimestampNs = input.timestampNs[row];
    finding.evidenceRow = row;
    finding.evidence = {
        {"reserved_bytes", double(reserved), true, EvidenceUnit::Bytes},
        {"allocated_bytes", double(allocated), true, EvidenceUnit::Bytes},
        {"unallocated_bytes", double(unallocated), true, EvidenceUnit::Bytes},
        {"unallocated_ratio", pyRound(double(unallocated) / double(reserved), 4), false, EvidenceUnit::Ratio},
        {"fragmented_samples", double(fragmented), true, EvidenceUnit::Count},
        {"sample_count", double(samples), true, EvidenceUnit::Count},
        {"fragmented_sample_ratio", pyRound(share, 4), false, EvidenceUnit::Ratio},
        {"tracker_fragmentation_warnings", double(trackerWarnings), true, EvidenceUnit::Count},
    };
    return finding;
}

} // namespace gapscope
