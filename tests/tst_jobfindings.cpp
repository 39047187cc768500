// The job page's findings from the cross-rank analyses: over the six distributed fixtures, the
// collective intervals and the cross-rank summary handed to the views agree with upstream's
// reference output, and every collective interval and first-cause suspect is a finding with
// its rank, its evidence (time, row, values) and the NCCL-worded texts.
#include "model/job/JobAnalysis.h"
#include "model/job/JobFindings.h"
#include "tests/JobFixtures.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

using namespace gapscope;
using namespace gapscope::test;

namespace {

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

const JobEvidenceValue* intervalEvidence(const JobCollectiveInterval& interval, const QString& name)
{
    for (const JobEvidenceValue& value : interval.evidence)
        if (value.name == name)
            return &value;
    return nullptr;
}

// The rank of a store row (its partition's), -1 when no partition of the job holds it.
int64_t rankOfRow(const JobData& job, int64_t rank, uint32_t row)
{
    const JobRank* jobRank = job.findRank(rank);
    if (!jobRank || !jobRank->present)
        return -1;
    const Partition& partition = job.partitionOf(*jobRank);
    return row >= partition.begin && row < partition.end ? partition.rank : -1;
}

} // namespace

class TestJobFindings : public QObject
{
    Q_OBJECT

private slots:
    void fixtures_data();
    void fixtures();
    void rankCountsAddGapFindings();
    void withoutAJob();
};

void TestJobFindings::fixtures_data()
{
    QTest::addColumn<QStringList>("inputs");
    QTest::addColumn<QString>("expected");
    QTest::newRow("collective-merged") << QStringList{QStringLiteral("collective-merged.jsonl")}
                                       << QStringLiteral("collective-merged.jsonl");
    QTest::newRow("nomarker-merged") << QStringList{QStringLiteral("nomarker-merged.jsonl")}
                                     << QStringLiteral("nomarker-merged.jsonl");
    QTest::newRow("quiet-merged") << QStringList{QStringLiteral("quiet-merged.jsonl")}
                                  << QStringLiteral("quiet-merged.jsonl");
    QTest::newRow("firstcause-job") << firstCauseInputs() << QStringLiteral("firstcause-job");
    QTest::newRow("skew-job") << skewInputs() << QStringLiteral("skew-job");
    QTest::newRow("missing-files") << missingFilesInputs() << QStringLiteral("missing-files");
}

void TestJobFindings::fixtures()
{
    QFETCH(QStringList, inputs);
    QFETCH(QString, expected);
    const auto job = loadFixtureJob(inputs);
    QVERIFY(job);
    const auto findings = buildJobFindings(analyzeJob(*job), job.get());
    QVERIFY(findings);
    QVERIFY(findings->backend == Backend::PyTorch); // the fixtures are cuda_tracker captures

    // --- the intervals, as upstream wrote them ---
    const std::vector<JobCollectiveInterval> wanted = expectedIntervals(expected);
    const QJsonArray wantedJson =
        expectedOutput(expected).value(QStringLiteral("collective_attribution")).toArray();
    QCOMPARE(findings->intervals.size(), wanted.size());
    for (size_t i = 0; i < wanted.size(); ++i) {
        const JobCollectiveInterval& got = findings->intervals[i];
        const JobCollectiveInterval& want = wanted[i];
        QCOMPARE(got.rank, want.rank);
        QCOMPARE(got.startNs, want.startNs);
        QCOMPARE(got.endNs, want.endNs);
        QVERIFY(got.classification == want.classification);
        QVERIFY(close(got.confidence, want.confidence));
        QCOMPARE(got.reasonCodes, want.reasonCodes);
        // every evidence value upstream has a number for, and none it has not
        const QJsonObject evidence =
            wantedJson[qsizetype(i)].toObject().value(QStringLiteral("evidence")).toObject();
        size_t numbers = 0;
        for (auto it = evidence.begin(); it != evidence.end(); ++it) {
            const JobEvidenceValue* value = intervalEvidence(got, it.key());
            if (it.value().isNull()) {
                QVERIFY2(!value, qPrintable(it.key()));
                continue;
            }
            ++numbers;
            QVERIFY2(value, qPrintable(it.key()));
            QVERIFY2(close(value->value, it.value().toDouble()), qPrintable(it.key()));
        }
        QCOMPARE(got.evidence.size(), numbers);
    }

    // --- the summary ---
    QVERIFY(findings->summary);
    const JobCrossRankSummary& summary = *findings->summary;
    const JobCrossRankSummary want = expectedSummary(expected);
    QCOMPARE(summary.worldSize, want.worldSize);
    QCOMPARE(summary.participatingRanks, want.participatingRanks);
    QCOMPARE(summary.missingRanks, want.missingRanks);
    QCOMPARE(summary.alignmentOffsetsNs, want.alignmentOffsetsNs);
    QCOMPARE(summary.clusterOnsetNs, want.clusterOnsetNs);
    QCOMPARE(summary.firstCauseSuspects.size(), want.firstCauseSuspects.size());
    for (size_t i = 0; i < want.firstCauseSuspects.size(); ++i) {
        const JobFirstCauseSuspect& got = summary.firstCauseSuspects[i];
        const JobFirstCauseSuspect& expect = want.firstCauseSuspects[i];
        QCOMPARE(got.rank, expect.rank);
        QCOMPARE(got.firstSpikeNs, expect.firstSpikeNs);
        QCOMPARE(got.alignedFirstSpikeNs, expect.alignedFirstSpikeNs);
        QCOMPARE(got.leadOverClusterOnsetNs, expect.leadOverClusterOnsetNs);
        QCOMPARE(got.peakDeltaBytes, expect.peakDeltaBytes);
        QVERIFY(got.confidence == expect.confidence);
    }

    // --- the findings: one per interval and per suspect, most severe first ---
    QCOMPARE(findings->findings.size(), wanted.size() + want.firstCauseSuspects.size());
    size_t collective = 0, firstCause = 0;
    std::set<std::pair<int64_t, int64_t>> intervalsSeen, suspectsSeen;
    for (size_t i = 0; i < findings->findings.size(); ++i) {
        const Finding& f = findings->findings[i];
        if (i > 0)
            QVERIFY(severityRank(findings->findings[i - 1].severity) <= severityRank(f.severity));
        QVERIFY(f.rank);
        QVERIFY(!f.evidence.empty());
        QVERIFY(!f.description.empty());
        QVERIFY(QString::fromStdString(f.description).contains(QStringLiteral("Rank %1").arg(*f.rank)));
        QVERIFY(f.remediation.size() >= 4);
        QVERIFY(f.confidence > 0 && f.confidence <= 1);
        QCOMPARE(rankOfRow(*job, *f.rank, f.evidenceRow), *f.rank); // the row is the rank's
        for (const EvidenceValue& e : f.evidence)
            QVERIFY2(std::isfinite(e.value), e.key.c_str());
        if (f.classification == Classification::CollectiveMemory) {
            ++collective;
            // its interval: same rank and start, its upstream class as a label
            const auto interval =
                std::find_if(wanted.begin(), wanted.end(), [&](const JobCollectiveInterval& w) {
                    return w.rank == *f.rank && w.startNs == f.evidenceTimestampNs;
                });
            QVERIFY(interval != wanted.end());
            intervalsSeen.insert({interval->rank, interval->startNs});
            QCOMPARE(QString::fromStdString(f.findEvidence("collective_class")->label),
                     toString(interval->classification));
            QVERIFY(close(f.confidence, interval->confidence));
            QVERIFY(f.findEvidence("peak_gap_bytes")->unit == EvidenceUnit::Bytes);
            QCOMPARE(f.findEvidence("peak_gap_bytes")->value,
                     intervalEvidence(*interval, QStringLiteral("peak_gap_bytes"))->value);
            QCOMPARE(f.findEvidence("interval_duration_ns")->value,
                     double(interval->endNs - interval->startNs));
            QVERIFY(f.severity == (interval->classification == CollectiveClass::Suspect ? Severity::Info
                                                                                        : Severity::Warning));
            const QString steps = QString::fromStdString(f.remediation.front() + f.remediation[1]);
            QVERIFY(steps.contains(QStringLiteral("NCCL_BUFFSIZE")));
            QVERIFY(steps.contains(QStringLiteral("process group")));
        } else {
            QVERIFY(f.classification == Classification::FirstCause);
            ++firstCause;
            const JobFirstCauseSuspect* suspect = summary.suspectOf(*f.rank);
            QVERIFY(suspect);
            suspectsSeen.insert({suspect->rank, suspect->firstSpikeNs});
            QCOMPARE(f.evidenceTimestampNs, suspect->firstSpikeNs);
            // the cursor's time for it is upstream's aligned first spike
            QCOMPARE(findings->alignedTimeNs(f), suspect->alignedFirstSpikeNs);
            QCOMPARE(QString::fromStdString(f.findEvidence("first_cause_confidence")->label),
                     toString(suspect->confidence));
            QCOMPARE(f.findEvidence("device_used_delta_bytes")->value, double(suspect->peakDeltaBytes));
            QCOMPARE(f.findEvidence("lead_over_cluster_onset_ns")->value,
                     double(suspect->leadOverClusterOnsetNs));
            QCOMPARE(f.findEvidence("alignment_offset_ns")->value, double(summary.offsetOf(suspect->rank)));
            const Severity severity = suspect->confidence == SuspectConfidence::High     ? Severity::Critical
                                      : suspect->confidence == SuspectConfidence::Medium ? Severity::Warning
                                                                                         : Severity::Info;
            QVERIFY(f.severity == severity);
            QVERIFY(QString::fromStdString(f.remediation.front()).contains(QStringLiteral("data loader")));
        }
        // the phase comes from the analysis (upstream's attribution of the same moment)
        if (f.classification == Classification::FirstCause) {
            const QJsonArray suspects = expectedOutput(expected)
                                            .value(QStringLiteral("cross_rank_analysis"))
                                            .toObject()
                                            .value(QStringLiteral("first_cause_suspects"))
                                            .toArray();
            for (const QJsonValue& s : suspects)
                if (s.toObject().value(QStringLiteral("rank")).toInteger() == *f.rank) {
                    const QJsonValue phase = s.toObject().value(QStringLiteral("phase_attribution"));
                    QCOMPARE(bool(f.phase), !phase.isNull());
                    if (f.phase && f.phase->phasePath)
                        QCOMPARE(QString::fromStdString(*f.phase->phasePath),
                                 phase.toObject().value(QStringLiteral("phase_path")).toString());
                }
        }
    }
    QCOMPARE(collective, wanted.size());
    QCOMPARE(firstCause, want.firstCauseSuspects.size());
    QCOMPARE(intervalsSeen.size(), wanted.size()); // each interval once
    QCOMPARE(suspectsSeen.size(), want.firstCauseSuspects.size());

    // per rank: every finding counted once, at its rank
    std::vector<int64_t> ranks;
    for (const JobRank& rank : job->ranks)
        ranks.push_back(rank.rank);
    const std::vector<int64_t> counts = findings->countsByRank(ranks);
    QCOMPARE(std::accumulate(counts.begin(), counts.end(), int64_t(0)), int64_t(findings->findings.size()));
    for (size_t i = 0; i < ranks.size(); ++i) {
        const auto own = std::count_if(findings->findings.begin(), findings->findings.end(),
                                       [&](const Finding& f) { return *f.rank == ranks[i]; });
        QCOMPARE(counts[i], int64_t(own));
        if (!job->ranks[i].present)
            QCOMPARE(counts[i], 0);
    }
}

void TestJobFindings::rankCountsAddGapFindings()
{
    const auto job = loadFixtureJob(firstCauseInputs());
    QVERIFY(job);
    const auto findings = buildJobFindings(analyzeJob(*job), job.get());
    const std::vector<int64_t> ranks{0, 1, 2, 3};
    const std::vector<int64_t> own = findings->countsByRank(ranks);
    // gap counts of the first three ranks only: the fourth counts its job findings alone
    const std::vector<int64_t> gap{2, 0, 5};
    const std::vector<int64_t> total = rankFindingCounts(ranks, gap, findings.get());
    QCOMPARE(total.size(), size_t(4));
    for (size_t i = 0; i < 4; ++i)
        QCOMPARE(total[i], own[i] + (i < gap.size() ? gap[i] : 0));
    QCOMPARE(total[3], own[3]);
    QVERIFY(own[3] > 0); // rank 3 leads: a first-cause finding and its collective intervals
    // without job findings the gap counts alone
    QCOMPARE(rankFindingCounts(ranks, gap, nullptr), (std::vector<int64_t>{2, 0, 5, 0}));
}

void TestJobFindings::withoutAJob()
{
    // an analysis of a view made by hand: no rows to point at, no backend to word for
    const auto job = loadFixtureJob(missingFilesInputs());
    QVERIFY(job);
    const auto analysis = analyzeJob(*job);
    const auto findings = buildJobFindings(analysis, nullptr);
    QVERIFY(findings);
    QVERIFY(findings->backend == Backend::Unknown);
    QVERIFY(!findings->findings.empty());
    for (const Finding& f : findings->findings) {
        QCOMPARE(f.evidenceRow, uint32_t(0));
        QVERIFY(!f.remediation.empty());
    }
    QVERIFY(!buildJobFindings(nullptr, job.get()));
}

QTEST_GUILESS_MAIN(TestJobFindings)
#include "tst_jobfindings.moc"
