#pragma once
// Distributed jobs for the tests of the job views, loaded from the fixtures by the job loader
// (model/job/JobLoader). The collective intervals and the cross-rank summary are read from the fixture's
// upstream reference output (*.expected.json).

#include "model/document/Document.h"
#include "model/job/JobLoader.h"
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

// The job of inputs (paths relative to the distributed fixtures) as the app opens it: one
// multi-rank input is its default session's job, several inputs go through the job loader;
// nullptr when it fails.
inline std::shared_ptr<const JobData> loadFixtureJob(const QStringList& inputs)
{
    QStringList paths;
    for (const QString& input : inputs)
        paths << distributedFixture(input);
    if (paths.size() == 1 && !isJobFolder(paths.front())) {
        const DocumentOutcome outcome = loadDocument(paths.front());
        if (!outcome.trace || !outcome.trace->defaultSessionIndex())
            return nullptr;
        return jobFromTraceSession(outcome.trace, *outcome.trace->defaultSessionIndex());
    }
    return loadJob(paths).job;
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
