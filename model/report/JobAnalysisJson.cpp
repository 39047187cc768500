#include "model/report/JobAnalysisJson.h"

#include "model/report/JsonWriter.h"
#include "model/report/ReportWriters.h"

namespace gapscope {

namespace {

void writeOptionalPhase(JsonWriter& json, const std::optional<PhaseAttribution>& phase)
{
    json.key("phase_attribution");
    if (phase)
        writePhaseAttribution(json, *phase);
    else
        json.null();
}

void writeRankValues(JsonWriter& json, std::string_view name, const std::vector<RankValue>& values)
{
    // upstream's dict keys are the ranks as strings
    json.key(name).beginObject();
    for (const RankValue& item : values)
        json.field(std::to_string(item.rank), item.value);
    json.endObject();
}

void writeRanks(JsonWriter& json, std::string_view name, const std::vector<int64_t>& ranks)
{
    json.key(name).beginArray();
    for (const int64_t rank : ranks)
        json.value(rank);
    json.endArray();
}

} // namespace

void writeCollectiveAttributions(JsonWriter& json, const std::vector<CollectiveAttribution>& attributions)
{
    json.beginArray();
    for (const CollectiveAttribution& a : attributions) {
        json.beginObject();
        json.field("rank", a.rank);
        json.field("interval_start_ns", a.intervalStartNs);
        json.field("interval_end_ns", a.intervalEndNs);
        json.field("classification", toString(a.classification));
        json.field("confidence", a.confidence);
        json.key("reason_codes").beginArray();
        for (const std::string_view code : a.reasonCodes())
            json.value(code);
        json.endArray();
        const CollectiveEvidence& e = a.evidence;
        json.key("evidence").beginObject();
        json.field("marker_hits", e.markerHits);
        json.field("synchronized_ranks", e.synchronizedRanks);
        json.field("expected_world_size", e.expectedWorldSize);
        json.field("synchrony_ratio", e.synchronyRatio);
        json.field("peak_gap_bytes", e.peakGapBytes);
        json.optionalField("peak_gap_ratio", e.peakGapRatio);
        json.field("robust_zscore", e.robustZScore);
        json.endObject();
        writeOptionalPhase(json, a.phase);
        json.endObject();
    }
    json.endArray();
}

void writeCrossRankAnalysis(JsonWriter& json, const CrossRankAnalysis& c)
{
    json.beginObject();
    json.optionalField("job_id", c.jobId);
    json.field("world_size", c.worldSize);
    writeRanks(json, "participating_ranks", c.participatingRanks);
    writeRanks(json, "missing_ranks", c.missingRanks);
    if (c.missingRanksNotListed > 0)
        json.field("missing_ranks_not_listed", c.missingRanksNotListed);
    writeRankValues(json, "rank_sample_counts", c.rankSampleCounts);
    writeRankValues(json, "alignment_offsets_ns", c.alignmentOffsetsNs);
    json.optionalField("cluster_onset_timestamp_ns", c.clusterOnsetTimestampNs);
    json.key("first_cause_suspects").beginArray();
    for (const FirstCauseSuspect& s : c.suspects) {
        json.beginObject();
        json.field("rank", s.rank);
        json.field("first_spike_timestamp_ns", s.firstSpikeTimestampNs);
        json.field("aligned_first_spike_timestamp_ns", s.alignedFirstSpikeTimestampNs);
        json.field("peak_delta_bytes", s.peakDeltaBytes);
        json.field("spike_window_samples", s.spikeWindowSamples);
        json.field("lead_over_cluster_onset_ns", s.leadOverClusterOnsetNs);
        json.field("confidence", toString(s.confidence));
        json.key("evidence").beginObject();
        json.field("device_used_delta_bytes", s.peakDeltaBytes);
        json.field("supporting_ranks_at_or_before_onset", s.supportingRanks);
        json.endObject();
        writeOptionalPhase(json, s.phase);
        json.endObject();
    }
    json.endArray();
    json.key("notes").beginArray();
    for (const std::string& note : c.notes)
        json.value(note);
    json.endArray();
    json.endObject();
}

void writeJobAnalysisFields(JsonWriter& json, const JobAnalysisResult& result)
{
    json.key("collective_attribution");
    writeCollectiveAttributions(json, result.collective);
    if (result.crossRank) {
        json.key("cross_rank_analysis");
        writeCrossRankAnalysis(json, *result.crossRank);
    }
}

QByteArray jobAnalysisJson(const JobAnalysisResult& result)
{
    JsonWriter json;
    json.beginObject();
    writeJobAnalysisFields(json, result);
    json.endObject();
    QByteArray out = json.take();
    out += '\n';
    return out;
}

} // namespace gapscope
