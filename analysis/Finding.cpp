#include "analysis/Finding.h"

#include <array>
#include <utility>

namespace gapscope {

namespace {

// One table per enum keeps toString and fromString from drifting apart.
constexpr std::array<std::pair<Severity, std::string_view>, 3> kSeverityNames{{
    {Severity::Critical, "critical"},
    {Severity::Warning, "warning"},
    {Severity::Info, "info"},
}};

constexpr std::array<std::pair<Classification, std::string_view>, 16> kClassificationNames{{
    {Classification::TransientSpike, "transient_spike"},
    {Classification::PersistentDrift, "persistent_drift"},
    {Classification::FragmentationLike, "fragmentation_like"},
    {Classification::LeakOutsideCaches, "leak_outside_caches"},
    {Classification::AllocatorRetention, "allocator_retention"},
    {Classification::UnattributedGrowth, "unattributed_growth"},
    {Classification::WedgedBudget, "wedged_budget"},
    {Classification::LeasePressure, "lease_pressure"},
    {Classification::OverTarget, "over_target"},
    {Classification::OsAllocatorSpike, "os_allocator_spike"},
    {Classification::OsAllocatorDrift, "os_allocator_drift"},
    {Classification::CacheThrash, "cache_thrash"},
    {Classification::CollectiveMemory, "collective_memory"},
    {Classification::FirstCause, "first_cause"},
    {Classification::RankDivergence, "rank_divergence"},
    {Classification::AllocatorFragmentation, "allocator_fragmentation"},
}};

constexpr std::array<std::pair<PhaseResolution, std::string_view>, 2> kResolutionNames{{
    {PhaseResolution::Unique, "unique"},
    {PhaseResolution::Ambiguous, "ambiguous"},
}};

template <typename Enum, size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value)
{
    for (const auto& [candidate, name] : table)
        if (candidate == value)
            return name;
    return "unknown";
}

template <typename Enum, size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, std::string_view>, N>& table,
                            std::string_view name)
{
    for (const auto& [candidate, candidateName] : table)
        if (candidateName == name)
            return candidate;
    return std::nullopt;
}

} // namespace

std::string_view toString(Severity severity)
{
    return nameOf(kSeverityNames, severity);
}

std::string_view toString(Classification classification)
{
    return nameOf(kClassificationNames, classification);
}

std::string_view toString(PhaseResolution resolution)
{
    return nameOf(kResolutionNames, resolution);
}

std::optional<Classification> classificationFromString(std::string_view name)
{
    return valueOf(kClassificationNames, name);
}

std::optional<Severity> severityFromString(std::string_view name)
{
    return valueOf(kSeverityNames, name);
}

std::optional<PhaseResolution> phaseResolutionFromString(std::string_view name)
{
    return valueOf(kResolutionNames, name);
}

bool isAllocatorClassification(Classification classification)
{
    return classification == Classification::AllocatorFragmentation;
}

bool isGapClassification(Classification classification)
{
    return classification == Classification::TransientSpike ||
           classification == Classification::PersistentDrift ||
           classification == Classification::FragmentationLike;
}

bool isJobClassification(Classification classification)
{
    return classification == Classification::CollectiveMemory ||
           classification == Classification::FirstCause || classification == Classification::RankDivergence;
}

int severityRank(Severity severity)
{
    switch (severity) {
    case Severity::Critical:
        return 0;
    case Severity::Warning:
        return 1;
    case Severity::Info:
        return 2;
    }
    return 3;
}

} // namespace gapscope
