#pragma once
// Distributed jobs for the tests of the job views, made by hand from the fixtures (the job
// loader is another unit): every input loaded with loadDocument, every partition of its
// default session one rank, the ranks a world size expects but no input holds added as
// missing. The collective intervals and the cross-rank summary are read from the fixture's
// upstream reference output (*.expected.json).

#include "model/document/Document.h"
#include "model/job/JobViewData.h"
#include "tests/SyntheticJob.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <memory>
#include <vector>

namespace gapscope::test {

inline QString distributedFixture(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/distributed/") + name;
}

// The job of inputs (paths relative to the distributed fixtures); nullptr when one fails.
inline std::shared_ptr<const JobData> loadJob(const QStringList& inputs)
{
    auto job = std::make_shared<JobData>();
    job->mode = inputs.size() == 1 ? JobMode::Session : JobMode::Job;
    int64_t declaredWorld = 0;
    for (const QString& input : inputs) {
        const DocumentOutcome outcome = loadDocument(distributedFixture(input));
        if (!outcome.trace)
            return nullptr;
        const auto session = outcome.trace->defaultSessionIndex();
        if (!session)
            return nullptr;
        const size_t inputIndex = job->inputs.size();
        job->inputs.push_back(JobInput{outcome.path, outcome.trace, *session});
        const TraceData& trace = *outcome.trace;
        for (size_t p = 0; p < trace.partitions.size(); ++p) {
            const Partition& partition = trace.partitions[p];
            if (partition.sessionIndex != *session || partition.size() == 0)
                continue;
            JobRank rank;
            rank.rank = partition.rank;
            rank.present = true;
            rank.parts.push_back(JobRankPart{inputIndex, p});
            const EventSource& source = trace.store.sources[trace.store.source[partition.begin]];
            rank.host = QString::fromStdString(trace.store.str(source.host));
            rank.localRank = source.localRank;
            if (job->jobId.isEmpty()) // the fixtures' inputs share one job id
                job->jobId = QString::fromStdString(trace.store.str(source.jobId));
            declaredWorld = std::max(declaredWorld, source.worldSize);
            for (uint32_t row = partition.begin; row < partition.end; ++row)
                rank.sampleCount += trace.store.type[row] == EventType::Sample ? 1 : 0;
            job->ranks.push_back(std::move(rank));
        }
    }
    std::sort(job->ranks.begin(), job->ranks.end(),
              [](const JobRank& a, const JobRank& b) { return a.rank < b.rank; });
    const int64_t observed = job->ranks.empty() ? 0 : job->ranks.back().rank + 1;
    job->worldSize = std::max(declaredWorld, observed);
    for (int64_t r = 0; r < job->worldSize; ++r)
        if (!job->findRank(r)) {
            JobRank missing;
            missing.rank = r;
            job->ranks.push_back(missing);
        }
    std::sort(job->ranks.begin(), job->ranks.end(),
              [](const JobRank& a, const JobRank& b) { return a.rank < b.rank; });
    bool first = true;
    for (const JobRank& rank : job->ranks) {
        if (!rank.present)
            continue;
        const Partition& partition = job->partitionOf(rank);
        const auto& time = job->traceOf(rank).store.timestampNs;
        job->firstTimestampNs =
            first ? time[partition.begin] : std::min(job->firstTimestampNs, time[partition.begin]);
        job->lastTimestampNs =
            first ? time[partition.end - 1] : std::max(job->lastTimestampNs, time[partition.end - 1]);
        first = false;
    }
    return job;
}

inline QJsonObject expectedOutput(const QString& name)
{
    QFile file(distributedFixture(name + QStringLiteral(".expected.json")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

inline std::vector<JobCollectiveInterval> expectedIntervals(const QString& name)
{
    std::vector<JobCollectiveInterval> intervals;
    for (const QJsonValue& value :
         expectedOutput(name).value(QStringLiteral("collective_attribution")).toArray()) {
        const QJsonObject o = value.toObject();
        JobCollectiveInterval interval;
        interval.rank = o.value(QStringLiteral("rank")).toInteger();
        interval.startNs = o.value(QStringLiteral("interval_start_ns")).toInteger();
        interval.endNs = o.value(QStringLiteral("interval_end_ns")).toInteger();
        interval.classification =
            collectiveClassFromString(o.value(QStringLiteral("classification")).toString())
                .value_or(CollectiveClass::Suspect);
        interval.confidence = o.value(QStringLiteral("confidence")).toDouble();
        for (const QJsonValue& code : o.value(QStringLiteral("reason_codes")).toArray())
            interval.reasonCodes << code.toString();
        const QJsonObject evidence = o.value(QStringLiteral("evidence")).toObject();
        for (auto it = evidence.begin(); it != evidence.end(); ++it)
            interval.evidence.push_back(JobEvidenceValue{it.key(), it.value().toDouble()});
        intervals.push_back(std::move(interval));
    }
    return intervals;
}

inline JobCrossRankSummary expectedSummary(const QString& name)
{
    const QJsonObject o = expectedOutput(name).value(QStringLiteral("cross_rank_analysis")).toObject();
    JobCrossRankSummary summary;
    summary.worldSize = o.value(QStringLiteral("world_size")).toInteger();
    for (const QJsonValue& r : o.value(QStringLiteral("participating_ranks")).toArray())
        summary.participatingRanks.push_back(r.toInteger());
    for (const QJsonValue& r : o.value(QStringLiteral("missing_ranks")).toArray())
        summary.missingRanks.push_back(r.toInteger());
    const QJsonObject offsets = o.value(QStringLiteral("alignment_offsets_ns")).toObject();
    for (auto it = offsets.begin(); it != offsets.end(); ++it)
        summary.alignmentOffsetsNs[it.key().toLongLong()] = it.value().toInteger();
    if (o.value(QStringLiteral("cluster_onset_timestamp_ns")).isDouble())
        summary.clusterOnsetNs = o.value(QStringLiteral("cluster_onset_timestamp_ns")).toInteger();
    for (const QJsonValue& value : o.value(QStringLiteral("first_cause_suspects")).toArray()) {
        const QJsonObject s = value.toObject();
        JobFirstCauseSuspect suspect;
        suspect.rank = s.value(QStringLiteral("rank")).toInteger();
        suspect.firstSpikeNs = s.value(QStringLiteral("first_spike_timestamp_ns")).toInteger();
        suspect.alignedFirstSpikeNs = s.value(QStringLiteral("aligned_first_spike_timestamp_ns")).toInteger();
        suspect.leadOverClusterOnsetNs = s.value(QStringLiteral("lead_over_cluster_onset_ns")).toInteger();
        suspect.peakDeltaBytes = s.value(QStringLiteral("peak_delta_bytes")).toInteger();
        suspect.confidence = suspectConfidenceFromString(s.value(QStringLiteral("confidence")).toString())
                                 .value_or(SuspectConfidence::Low);
        summary.firstCauseSuspects.push_back(suspect);
    }
    return summary;
}

inline QStringList firstCauseInputs()
{
    QStringList inputs;
    for (int r = 0; r < 4; ++r)
        inputs << QStringLiteral("firstcause-job/rank%1/telemetry_sink").arg(r);
    return inputs;
}

inline QStringList skewInputs()
{
    QStringList inputs;
    for (int r = 0; r < 8; ++r)
        inputs << QStringLiteral("skew-job/rank%1/telemetry_sink").arg(r);
    return inputs;
}

inline QStringList missingFilesInputs()
{
    return {QStringLiteral("missing-files/rank0.jsonl"), QStringLiteral("missing-files/rank1.jsonl"),
            QStringLiteral("missing-files/rank2.jsonl")};
}

} // namespace gapscope::test
