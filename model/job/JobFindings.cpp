#include "model/job/JobFindings.h"

#include "analysis/Int64Math.h"
#include "model/text/Text.h"

#include <algorithm>

namespace gapscope {

namespace {

CollectiveClass viewClass(CollectiveClassification classification)
{
    switch (classification) {
    case CollectiveClassification::Confident:
        return CollectiveClass::Confident;
    case CollectiveClassification::Likely:
        return CollectiveClass::Likely;
    case CollectiveClassification::Suspect:
        break;
    }
    return CollectiveClass::Suspect;
}

SuspectConfidence viewConfidence(FirstCauseConfidence confidence)
{
    switch (confidence) {
    case FirstCauseConfidence::High:
        return SuspectConfidence::High;
    case FirstCauseConfidence::Medium:
        return SuspectConfidence::Medium;
    case FirstCauseConfidence::Low:
        break;
    }
    return SuspectConfidence::Low;
}

// Collective memory is the price of communication rather than a fault: a warning when
// upstream calls the interval a likely or confident collective, a note when only a suspect.
Severity collectiveSeverity(CollectiveClassification classification)
{
    return classification == CollectiveClassification::Suspect ? Severity::Info : Severity::Warning;
}

// Upstream grades a suspect in words; the table sorts and shows a number. The numbers sit in
// the collective classes' bands (0.8 and more, 0.6 to 0.8, below 0.6) so the two read alike.
double suspectConfidenceValue(FirstCauseConfidence confidence)
{
    switch (confidence) {
    case FirstCauseConfidence::High:
        return 0.9;
    case FirstCauseConfidence::Medium:
        return 0.7;
    case FirstCauseConfidence::Low:
        break;
    }
    return 0.4;
}

Severity suspectSeverity(FirstCauseConfidence confidence)
{
    switch (confidence) {
    case FirstCauseConfidence::High:
        return Severity::Critical;
    case FirstCauseConfidence::Medium:
        return Severity::Warning;
    case FirstCauseConfidence::Low:
        break;
    }
    return Severity::Info;
}

EvidenceValue integerEvidence(std::string key, int64_t value, EvidenceUnit unit)
{
    return {std::move(key), double(value), true, unit};
}

EvidenceValue realEvidence(std::string key, double value, EvidenceUnit unit)
{
    return {std::move(key), value, false, unit};
}

EvidenceValue labelEvidence(std::string key, std::string label)
{
    return {std::move(key), 0, false, EvidenceUnit::Count, std::move(label)};
}

// The first row of the rank's shown partition at or after ns (its last row past the end): the
// record a finding points at. 0 when the job does not hold the rank.
uint32_t evidenceRowOf(const JobData* job, int64_t rank, int64_t ns)
{
    const JobRank* jobRank = job ? job->findRank(rank) : nullptr;
    if (!jobRank || !jobRank->present || jobRank->parts.empty())
        return 0;
    const Partition& partition = job->partitionOf(*jobRank);
    if (partition.size() == 0)
        return 0;
    const auto& time = job->traceOf(*jobRank).store.timestampNs;
    const auto begin = time.begin() + partition.begin;
    const auto end = time.begin() + partition.end;
    const auto at = std::lower_bound(begin, end, ns);
    return uint32_t(at == end ? partition.end - 1 : uint32_t(at - time.begin()));
}

Finding collectiveFinding(const CollectiveAttribution& a, Backend backend, const JobData* job)
{
    Finding f;
    f.classification = Classification::CollectiveMemory;
    f.severity = collectiveSeverity(a.classification);
    f.confidence = a.confidence;
    f.rank = a.rank;
    f.evidenceTimestampNs = a.intervalStartNs;
    f.evidenceRow = evidenceRowOf(job, a.rank, a.intervalStartNs);
    f.phase = a.phase;
    const CollectiveEvidence& e = a.evidence;
    f.evidence.push_back(labelEvidence("collective_class", std::string(toString(a.classification))));
    f.evidence.push_back(integerEvidence("marker_hits", e.markerHits, EvidenceUnit::Count));
    f.evidence.push_back(integerEvidence("synchronized_ranks", e.synchronizedRanks, EvidenceUnit::Count));
    f.evidence.push_back(integerEvidence("expected_world_size", e.expectedWorldSize, EvidenceUnit::Count));
    f.evidence.push_back(realEvidence("synchrony_ratio", e.synchronyRatio, EvidenceUnit::Ratio));
    f.evidence.push_back(integerEvidence("peak_gap_bytes", e.peakGapBytes, EvidenceUnit::Bytes));
    if (e.peakGapRatio)
        f.evidence.push_back(realEvidence("peak_gap_ratio", *e.peakGapRatio, EvidenceUnit::Ratio));
    f.evidence.push_back(realEvidence("robust_zscore", e.robustZScore, EvidenceUnit::ZScore));
    f.evidence.push_back(integerEvidence("interval_duration_ns",
                                         saturatingSub(a.intervalEndNs, a.intervalStartNs),
                                         EvidenceUnit::Nanoseconds));
    std::string reasons;
    for (const std::string_view code : a.reasonCodes())
        reasons += (reasons.empty() ? "" : ", ") + std::string(code);
    f.evidence.push_back(labelEvidence("reason_codes", reasons));
    applyText(f, backend);
    return f;
}

Finding firstCauseFinding(const FirstCauseSuspect& s, const CrossRankAnalysis& crossRank, bool atStartup,
                          Backend backend, const JobData* job)
{
    Finding f;
    f.classification = Classification::FirstCause;
    // upstream's confidence stays; at start-up it is no alarm (notice first_cause_at_startup)
    f.severity = atStartup ? Severity::Info : suspectSeverity(s.confidence);
    f.confidence = suspectConfidenceValue(s.confidence);
    f.rank = s.rank;
    f.evidenceTimestampNs = s.firstSpikeTimestampNs;
    f.evidenceRow = evidenceRowOf(job, s.rank, s.firstSpikeTimestampNs);
    f.phase = s.phase;
    int64_t offset = 0;
    for (const RankValue& value : crossRank.alignmentOffsetsNs)
        if (value.rank == s.rank)
            offset = value.value;
    f.evidence.push_back(labelEvidence("first_cause_confidence", std::string(toString(s.confidence))));
    f.evidence.push_back(integerEvidence("device_used_delta_bytes", s.peakDeltaBytes, EvidenceUnit::Bytes));
    f.evidence.push_back(integerEvidence("spike_window_samples", s.spikeWindowSamples, EvidenceUnit::Count));
    f.evidence.push_back(
        integerEvidence("lead_over_cluster_onset_ns", s.leadOverClusterOnsetNs, EvidenceUnit::Nanoseconds));
    f.evidence.push_back(
        integerEvidence("supporting_ranks_at_or_before_onset", s.supportingRanks, EvidenceUnit::Count));
    f.evidence.push_back(integerEvidence("alignment_offset_ns", offset, EvidenceUnit::Nanoseconds));
    applyText(f, backend);
    if (atStartup)
        f.description += " Every rank rose the same way in its first steps and kept it: this is the "
                         "job's start-up, not one rank leading (first_cause_at_startup).";
    return f;
}

Finding divergenceFinding(const std::vector<RankDivergence>& divergences, Backend backend, const JobData* job)
{
    Finding f = rankDivergenceFinding(divergences);
    if (f.rank)
        f.evidenceRow = evidenceRowOf(job, *f.rank, f.evidenceTimestampNs);
    applyText(f, backend);
    return f;
}

} // namespace

int64_t JobFindings::alignedTimeNs(const Finding& finding) const
{
    const int64_t offset = summary && finding.rank ? summary->offsetOf(*finding.rank) : 0;
    return saturatingSub(finding.evidenceTimestampNs, offset);
}

std::vector<int64_t> JobFindings::countsByRank(std::span<const int64_t> ranks) const
{
    std::vector<int64_t> counts(ranks.size(), 0);
    for (const Finding& finding : findings) {
        // a finding that names several ranks counts once for each
        const std::vector<int64_t> named = !finding.ranks.empty() ? finding.ranks
                                           : finding.rank         ? std::vector<int64_t>{*finding.rank}
                                                                  : std::vector<int64_t>{};
        for (const int64_t rank : named) {
            const auto it = std::find(ranks.begin(), ranks.end(), rank);
            if (it != ranks.end())
                ++counts[size_t(it - ranks.begin())];
        }
    }
    return counts;
}

std::vector<JobCollectiveInterval>
jobCollectiveIntervals(const std::vector<CollectiveAttribution>& collective)
{
    std::vector<JobCollectiveInterval> intervals;
    intervals.reserve(collective.size());
    for (const CollectiveAttribution& a : collective) {
        JobCollectiveInterval interval;
        interval.rank = a.rank;
        interval.startNs = a.intervalStartNs;
        interval.endNs = a.intervalEndNs;
        interval.classification = viewClass(a.classification);
        interval.confidence = a.confidence;
        for (const std::string_view code : a.reasonCodes())
            interval.reasonCodes << qs(code);
        const CollectiveEvidence& e = a.evidence;
        interval.evidence = {
            {QStringLiteral("marker_hits"), double(e.markerHits)},
            {QStringLiteral("synchronized_ranks"), double(e.synchronizedRanks)},
            {QStringLiteral("expected_world_size"), double(e.expectedWorldSize)},
            {QStringLiteral("synchrony_ratio"), e.synchronyRatio},
            {QStringLiteral("peak_gap_bytes"), double(e.peakGapBytes)},
        };
        if (e.peakGapRatio)
            interval.evidence.push_back({QStringLiteral("peak_gap_ratio"), *e.peakGapRatio});
        interval.evidence.push_back({QStringLiteral("robust_zscore"), e.robustZScore});
        intervals.push_back(std::move(interval));
    }
    return intervals;
}

std::optional<JobCrossRankSummary> jobCrossRankSummary(const JobAnalysisResult& analysis)
{
    if (!analysis.crossRank)
        return std::nullopt;
    const CrossRankAnalysis& c = *analysis.crossRank;
    JobCrossRankSummary summary;
    summary.worldSize = c.worldSize;
    summary.participatingRanks = c.participatingRanks;
    summary.missingRanks = c.missingRanks;
    for (const RankValue& offset : c.alignmentOffsetsNs)
        summary.alignmentOffsetsNs[offset.rank] = offset.value;
    summary.clusterOnsetNs = c.clusterOnsetTimestampNs;
    for (const FirstCauseSuspect& s : c.suspects) {
        JobFirstCauseSuspect suspect;
        suspect.rank = s.rank;
        suspect.firstSpikeNs = s.firstSpikeTimestampNs;
        suspect.alignedFirstSpikeNs = s.alignedFirstSpikeTimestampNs;
        suspect.leadOverClusterOnsetNs = s.leadOverClusterOnsetNs;
        suspect.peakDeltaBytes = s.peakDeltaBytes;
        suspect.confidence = viewConfidence(s.confidence);
        suspect.atStartup = std::binary_search(analysis.firstCauseAtStartup.begin(),
                                               analysis.firstCauseAtStartup.end(), s.rank);
        summary.firstCauseSuspects.push_back(suspect);
    }
    return summary;
}

Backend jobBackend(const JobData& job)
{
    for (const JobInput& input : job.inputs) {
        if (!input.trace || input.sessionIndex >= input.trace->sessions.size())
            continue;
        const SessionInfo& session = input.trace->sessions[input.sessionIndex];
        const Backend backend =
            backendFromTrace(session.collector.toStdString(), session.backend.toStdString());
        if (backend != Backend::Unknown)
            return backend;
    }
    return Backend::Unknown;
}

std::vector<Finding> jobFindings(const JobAnalysisResult& analysis, Backend backend, const JobData* job)
{
    std::vector<Finding> findings;
    const auto atStartup = [&analysis](int64_t rank) {
        return std::binary_search(analysis.firstCauseAtStartup.begin(), analysis.firstCauseAtStartup.end(),
                                  rank);
    };
    if (analysis.crossRank)
        for (const FirstCauseSuspect& suspect : analysis.crossRank->suspects)
            findings.push_back(
                firstCauseFinding(suspect, *analysis.crossRank, atStartup(suspect.rank), backend, job));
    for (const DivergenceSeries series : {DivergenceSeries::Gap, DivergenceSeries::Reserved}) {
        std::vector<RankDivergence> ofSeries;
        for (const RankDivergence& d : analysis.divergences)
            if (d.series == series)
                ofSeries.push_back(d);
        if (!ofSeries.empty())
            findings.push_back(divergenceFinding(ofSeries, backend, job));
    }
    for (const CollectiveAttribution& attribution : analysis.collective)
        findings.push_back(collectiveFinding(attribution, backend, job));
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return severityRank(a.severity) < severityRank(b.severity);
    });
    return findings;
}

std::vector<Notice> jobNotices(const JobAnalysisResult& analysis)
{
    std::vector<Notice> notices;
    if (!analysis.firstCauseAtStartup.empty())
        notices.push_back(firstCauseAtStartupNotice(analysis.firstCauseAtStartup));
    return notices;
}

std::vector<JobDivergentRank> jobDivergentRanks(const JobAnalysisResult& analysis)
{
    std::vector<JobDivergentRank> marks;
    for (const RankDivergence& d : analysis.divergences) {
        const bool gap = d.series == DivergenceSeries::Gap;
        JobDivergentRank mark;
        mark.rank = d.rank;
        mark.series = qs(toString(d.series));
        mark.text =
            QStringLiteral("%1 %2 above its peers' median")
                .arg(gap ? QStringLiteral("gap (outside the allocator)") : QStringLiteral("reserved memory"),
                     bytesText(d.excessBytes));
        if (d.bySlope)
            mark.text +=
                QStringLiteral(", growing %1 faster").arg(bytesPerSecondText(d.excessBytesPerSecond));
        marks.push_back(std::move(mark));
    }
    std::stable_sort(marks.begin(), marks.end(),
                     [](const JobDivergentRank& a, const JobDivergentRank& b) { return a.rank < b.rank; });
    return marks;
}

std::shared_ptr<const JobFindings> buildJobFindings(std::shared_ptr<const JobAnalysisResult> analysis,
                                                    const JobData* job)
{
    if (!analysis)
        return nullptr;
    auto result = std::make_shared<JobFindings>();
    result->backend = job ? jobBackend(*job) : Backend::Unknown;
    result->intervals = jobCollectiveIntervals(analysis->collective);
    result->summary = jobCrossRankSummary(*analysis);
    result->findings = jobFindings(*analysis, result->backend, job);
    result->notices = jobNotices(*analysis);
    result->divergentRanks = jobDivergentRanks(*analysis);
    result->analysis = std::move(analysis);
    return result;
}

std::vector<int64_t> rankFindingCounts(std::span<const int64_t> ranks, std::span<const int64_t> gapCounts,
                                       const JobFindings* findings)
{
    std::vector<int64_t> counts =
        findings ? findings->countsByRank(ranks) : std::vector<int64_t>(ranks.size());
    for (size_t i = 0; i < counts.size() && i < gapCounts.size(); ++i)
        counts[i] = saturatingAdd(counts[i], gapCounts[i]);
    return counts;
}

} // namespace gapscope
