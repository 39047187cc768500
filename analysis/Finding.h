#pragma once
// Findings: the common result type of every analysis (gap analysis of stormlog traces,
// budget-log rules). Plain C++, no Qt, so the CLI, the GUI and the exporters share it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

enum class Severity
{
    Info,
    Warning,
    Critical
};

enum class Classification
{
    // stormlog hidden-memory gap analysis (upstream names, see stormlog-telemetry.md section 4)
    TransientSpike,
    PersistentDrift,
    FragmentationLike,
    // memory-budget tick-log rules (our own; see budget-snapshots.md)
    LeakOutsideCaches,
    AllocatorRetention,
    UnattributedGrowth,
    WedgedBudget,
    LeasePressure,
    OverTarget,
    OsAllocatorSpike,
    OsAllocatorDrift,
    CacheThrash,
    // cross-rank analyses of a distributed job (our names; upstream reports them apart from
    // the gap analysis, see model/job/JobFindings.h)
    CollectiveMemory, // a collective-attribution interval; its upstream class is an evidence label
    FirstCause,       // a rank whose device usage rose at or before the cluster's onset
    // gapscope's own judgement of a job (analysis/RankDivergence.h)
    RankDivergence, // ranks whose gap or reserved memory departs from their peers'

    // gapscope's own findings from the allocator's counters (analysis/AllocatorFragmentation.h);
    // reported beside upstream's gap analysis, never in it
    AllocatorFragmentation,
};

// What an evidence number measures; decides its unit in text reports and in the GUI.
enum class EvidenceUnit
{
    Count,
    Bytes,
    BytesPerSecond,
    Ratio,
    ZScore,
    Probability,
    Ticks,
    Seconds,
    Nanoseconds
};

struct EvidenceValue
{
    std::string key;        // upstream field name, e.g. "max_gap_bytes"
    double value = 0;       // already rounded as upstream rounds it
    bool isInteger = false; // printed without a fraction (counts)
    EvidenceUnit unit = EvidenceUnit::Count;
    // A name in place of a number (upstream's "collective_likely", a first-cause confidence
    // "high"): shown and written instead of the value, which is then unused.
    std::string label = {};
};

enum class PhaseResolution
{
    Unique,
    Ambiguous
};

struct PhaseSummary
{
    std::string phasePath;
    std::string source;
};

// The attribution payload of section 5; optional members are left out of JSON when empty.
struct PhaseAttribution
{
    PhaseResolution resolution = PhaseResolution::Unique;
    std::vector<std::string> phasePaths;
    std::optional<std::string> source;    // exact | thread_local | heuristic (unique only)
    std::optional<std::string> phasePath; // unique only
    std::optional<std::string> scopeId;
    std::optional<int64_t> threadId;
    std::optional<std::string> threadName;
    std::optional<PhaseSummary> summary; // ambiguous with >= 2 labels
};

struct Finding
{
    Classification classification = Classification::TransientSpike;
    Severity severity = Severity::Info;
    double confidence = 0;
    std::vector<EvidenceValue> evidence;
    int64_t evidenceTimestampNs = 0;
    // Index of the evidence record in the analysed input (row in the caller's columns).
    uint32_t evidenceRow = 0;
    std::optional<PhaseAttribution> phase;
    std::string description;
    std::vector<std::string> remediation;
    // The rank a finding of a distributed job is about (evidenceTimestampNs is in its clock);
    // none for the findings of one rank's own analysis.
    std::optional<int64_t> rank;
    // The ranks a job finding names, ascending (rank_divergence: every rank that departs; rank
    // is the one the evidence is of). Empty for every other finding.
    std::vector<int64_t> ranks;

    const EvidenceValue* findEvidence(std::string_view key) const
    {
        for (const auto& e : evidence)
            if (e.key == key)
                return &e;
        return nullptr;
    }
};

std::string_view toString(Severity severity);
std::string_view toString(Classification classification);
std::string_view toString(PhaseResolution resolution);
std::optional<Classification> classificationFromString(std::string_view name);
std::optional<Severity> severityFromString(std::string_view name);
std::optional<PhaseResolution> phaseResolutionFromString(std::string_view name);

// transient_spike, persistent_drift and fragmentation_like (the stormlog gap analysis).
bool isGapClassification(Classification classification);
// collective_memory, first_cause (the cross-rank analyses of a job) and rank_divergence.
bool isJobClassification(Classification classification);
// allocator_fragmentation: gapscope's own finding on the allocator's counters, which the JSON
// report writes under allocator_findings instead of upstream's gap_analysis.
bool isAllocatorClassification(Classification classification);
// Upstream sort order: critical 0, warning 1, info 2.
int severityRank(Severity severity);

} // namespace gapscope
