// gapscope's own judgement of a distributed job beside upstream's cross-rank analyses:
//  - rank_divergence (analysis/RankDivergence.h): a rank whose gap or reserved memory departs
//    from its peers'. Synthetic series (eight noisy ranks: nothing; one of 64 above the others
//    in level or in slope: that one; fewer than three ranks, a rank below its peers: nothing),
//    the real 4-rank DDP capture (tests/data/fixtures/real-gpu/ddp-samples: rank 2 keeps its
//    logits, its reserved memory grows; the gap is blind there, so only reserved is judged), a
//    synthetic job of the shape of a real one with per-process device truth
//    (fixtures/synthetic-jobs/gapleak-job: rank 1 leaks 48 MiB outside the allocator every 6
//    steps) and, as normal jobs that must raise nothing, upstream's distributed parity vectors
//    and a single-rank capture.
//  - first_cause_at_startup (firstCauseSuspectsAtStartup in analysis/CrossRankAnalysis.h): on
//    ddp every rank rises together in step 0 and upstream's suspects (0 high, 1 low) become
//    information; the parity vectors and a job whose first cause is mid-run
//    (fixtures/synthetic-jobs/midrun-job) keep their warning and critical findings, and
//    cross_rank_analysis stays upstream's.
#include "analysis/RankDivergence.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobFindings.h"
#include "model/document/JobOpen.h"
#include "model/job/JobLoader.h"
#include "model/report/ReportWriters.h"
#include "tests/DistributedVectors.h"
#include "tests/JobFixtures.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace gapscope;
using namespace gapscope::test;

namespace {

constexpr int64_t kGiB = int64_t(1) << 30;

QString dataPath(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/") + relative;
}

std::shared_ptr<const JobData> loadPaths(const QStringList& relative)
{
    QStringList paths;
    for (const QString& path : relative)
        paths << dataPath(path);
    return loadJob(paths).job;
}

QStringList ddpInputs()
{
    QStringList inputs;
    for (int r = 0; r < 4; ++r)
        inputs << QStringLiteral("fixtures/real-gpu/ddp-samples/rank%1/telemetry_sink").arg(r);
    return inputs;
}

QStringList syntheticInputs(const QString& name)
{
    QStringList inputs;
    for (int r = 0; r < 4; ++r)
        inputs << QStringLiteral("fixtures/synthetic-jobs/%1/rank%2.jsonl").arg(name).arg(r);
    return inputs;
}

// A deterministic noise in [-1, 1) (the tests need no randomness, only scatter).
double scatter(int64_t a, int64_t b)
{
    const uint64_t x =
        uint64_t(a) * 0x9E3779B97F4A7C15ULL ^ (uint64_t(b) + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL;
    return double((x >> 11) % 2000001) / 1000000.0 - 1.0;
}

// rankCount ranks of `samples` samples every 100 ms; rank r's value at sample i is bytesOf(r, i).
template <typename BytesOf>
std::vector<RankSeriesSamples> series(int rankCount, int samples, BytesOf&& bytesOf)
{
    std::vector<RankSeriesSamples> ranks;
    for (int r = 0; r < rankCount; ++r) {
        RankSeriesSamples s{r, {}, {}};
        for (int i = 0; i < samples; ++i) {
            s.timestampNs.push_back(1'797'000'000'000'000'000 + int64_t(i) * 100'000'000 + r * 1'000'000);
            s.bytes.push_back(bytesOf(r, i));
        }
        ranks.push_back(std::move(s));
    }
    return ranks;
}

std::vector<int64_t> ranksOf(const std::vector<RankDivergence>& divergences)
{
    std::vector<int64_t> ranks;
    for (const RankDivergence& d : divergences)
        ranks.push_back(d.rank);
    return ranks;
}

std::vector<const Finding*> findingsOf(const JobFindings& findings, Classification classification)
{
    std::vector<const Finding*> found;
    for (const Finding& f : findings.findings)
        if (f.classification == classification)
            found.push_back(&f);
    return found;
}

} // namespace

class TestRankDivergence : public QObject
{
    Q_OBJECT

private slots:
    void synthetic_data();
    void synthetic();
    void realDdpNamesRank2Reserved();
    void gapLeakNamesRank1Gap();
    void normalJobsRaiseNothing_data();
    void normalJobsRaiseNothing();
    void singleRankRaisesNothing();
    void ddpFirstCauseIsStartup();
    void realFirstCauseStaysAnAlarm_data();
    void realFirstCauseStaysAnAlarm();
    void reportsSayIt();
};

void TestRankDivergence::synthetic_data()
{
    QTest::addColumn<std::vector<RankSeriesSamples>>("ranks");
    QTest::addColumn<std::vector<int64_t>>("expected");
    QTest::addColumn<bool>("bySlope");

    // eight ranks at 812 MiB scattering by up to 40 MiB, each drifting a little: nothing
    QTest::newRow("8 noisy ranks") << series(8, 200, [](int r, int i) {
        return int64_t(812 * kMiB + 40 * kMiB * scatter(r, i) + i * 64 * 1024 * scatter(r, -1));
    }) << std::vector<int64_t>{} << false;
    // 64 ranks like those, rank 37 holding 600 MiB more from the start: that one, by level
    QTest::newRow("one of 64 by level") << series(64, 200, [](int r, int i) {
        return int64_t(812 * kMiB + 40 * kMiB * scatter(r, i) + (r == 37 ? 600 * kMiB : 0));
    }) << std::vector<int64_t>{37} << false;
    // 64 ranks, rank 5 growing 8 MiB per sample (80 MiB/s): that one, by slope too
    QTest::newRow("one of 64 by slope") << series(64, 200, [](int r, int i) {
        return int64_t(2 * kGiB + 20 * kMiB * scatter(r, i) + (r == 5 ? i * 8 * kMiB : 0));
    }) << std::vector<int64_t>{5} << true;
    // identical ranks (a MAD of 0) but for 32 MiB on one: below the 64 MiB floor
    QTest::newRow("identical, 32 MiB apart")
        << series(4, 100, [](int r, int) { return int64_t(234 * kMiB + (r == 2 ? 32 * kMiB : 0)); })
        << std::vector<int64_t>{} << false;
    // a rank below its peers leaks nothing
    QTest::newRow("one rank lower") << series(6, 100, [](int r, int) {
        return int64_t(4 * kGiB - (r == 3 ? kGiB : 0));
    }) << std::vector<int64_t>{} << false;
    // two ranks: neither is the odd one out
    QTest::newRow("two ranks") << series(2, 100,
                                         [](int r, int) { return int64_t(kGiB + (r == 1 ? kGiB : 0)); })
                               << std::vector<int64_t>{} << false;
    // 10 % of a 40 GiB level is the floor: 1 GiB more on one rank is not enough, 5 GiB is
    QTest::newRow("40 GiB, 1 GiB more")
        << series(4, 100, [](int r, int) { return int64_t(40 * kGiB + (r == 1 ? kGiB : 0)); })
        << std::vector<int64_t>{} << false;
    QTest::newRow("40 GiB, 5 GiB more")
        << series(4, 100, [](int r, int) { return int64_t(40 * kGiB + (r == 1 ? 5 * kGiB : 0)); })
        << std::vector<int64_t>{1} << false;
}

void TestRankDivergence::synthetic()
{
    QFETCH(std::vector<RankSeriesSamples>, ranks);
    QFETCH(std::vector<int64_t>, expected);
    QFETCH(bool, bySlope);
    const std::vector<RankDivergence> found = findRankDivergence(ranks, DivergenceSeries::Gap);
    QCOMPARE(ranksOf(found), expected);
    for (const RankDivergence& d : found) {
        QVERIFY(d.byLevel || d.bySlope);
        QCOMPARE(d.bySlope, bySlope);
        QCOMPARE(d.peers, ranks.size() - 1);
        QVERIFY(d.excessBytes > d.levelThresholdBytes ||
                d.excessBytesPerSecond > d.slopeThresholdBytesPerSecond);
        QVERIFY(d.levelThresholdBytes >= double(kDivergenceFloorBytes));
    }
    if (expected.empty())
        return;
    // as a finding: the ranks, the series, the excess in bytes and bytes per second
    Finding f = rankDivergenceFinding(found);
    applyText(f, Backend::PyTorch);
    QVERIFY(f.classification == Classification::RankDivergence);
    QVERIFY(f.severity == Severity::Warning);
    QCOMPARE(f.ranks, expected);
    QCOMPARE(f.rank, std::optional<int64_t>(expected.front()));
    QCOMPARE(f.findEvidence("series")->label, std::string("gap"));
    QCOMPARE(f.findEvidence("excess_bytes")->value, std::round(found.front().excessBytes));
    QVERIFY(f.findEvidence("excess_bytes_per_second")->unit == EvidenceUnit::BytesPerSecond);
    QVERIFY(f.confidence > 0.5 && f.confidence <= 1);
    QVERIFY2(QString::fromStdString(f.description)
                 .startsWith(QStringLiteral("Rank %1's memory outside").arg(expected.front())),
             f.description.c_str());
    QVERIFY(f.remediation.size() >= 2);
}

void TestRankDivergence::realDdpNamesRank2Reserved()
{
    const auto job = loadPaths(ddpInputs());
    QVERIFY(job);
    QCOMPARE(job->ranks.size(), size_t(4));
    const auto analysis = analyzeJob(*job);
    // the stock collector: the gap is 0 by construction, not judged; reserved is
    const JobDivergenceInput input = jobDivergenceInput(*job);
    QVERIFY(input.gap.empty());
    QCOMPARE(input.reserved.size(), size_t(4));
    QCOMPARE(ranksOf(analysis->divergences), std::vector<int64_t>{2});
    const RankDivergence& d = analysis->divergences.front();
    QVERIFY(d.series == DivergenceSeries::Reserved);
    // rank 2 ends at 426 MiB reserved, its peers at 234 MiB (from 98 MiB): +328 MiB against +136
    QCOMPARE(qint64(d.profile.levelBytes), qint64(426 * kMiB));
    QCOMPARE(qint64(d.peerMedianLevelBytes), qint64(234 * kMiB));
    QCOMPARE(qint64(d.excessBytes), qint64(192 * kMiB));
    QCOMPARE(qint64(d.profile.growthBytes()), qint64(328 * kMiB));
    QCOMPARE(qint64(d.peerMedianGrowthBytes), qint64(136 * kMiB));
    QVERIFY(d.byLevel);
    QVERIFY(d.excessBytesPerSecond > 0);

    const auto findings = buildJobFindings(analysis, job.get());
    const auto divergence = findingsOf(*findings, Classification::RankDivergence);
    QCOMPARE(divergence.size(), size_t(1));
    const Finding& f = *divergence.front();
    QCOMPARE(f.ranks, std::vector<int64_t>{2});
    QCOMPARE(f.findEvidence("series")->label, std::string("reserved"));
    const QString description = QString::fromStdString(f.description);
    QVERIFY2(description.startsWith(QStringLiteral("Rank 2's reserved memory grew 328.00 MiB")),
             qPrintable(description));
    QVERIFY2(description.contains(QStringLiteral("median of 136.00 MiB")), qPrintable(description));
    // its evidence points at rank 2's samples, when it left its peers
    const JobRank* rank2 = job->findRank(2);
    const Partition& partition = job->partitionOf(*rank2);
    QVERIFY(f.evidenceRow >= partition.begin && f.evidenceRow < partition.end);
    QVERIFY(f.evidenceTimestampNs > job->traceOf(*rank2).store.timestampNs[partition.begin]);
    // the rank table and the heatmap mark it
    QCOMPARE(findings->divergentRanks.size(), size_t(1));
    QCOMPARE(findings->divergentRanks.front().rank, int64_t(2));
    QCOMPARE(findings->divergentRanks.front().series, QStringLiteral("reserved"));
    // counted once on rank 2
    const std::vector<int64_t> ranks{0, 1, 2, 3};
    const std::vector<int64_t> counts = findings->countsByRank(ranks);
    const std::vector<int64_t> withoutDivergence = [&] {
        JobFindings copy = *findings;
        copy.findings.erase(std::remove_if(copy.findings.begin(), copy.findings.end(),
                                           [](const Finding& x) {
                                               return x.classification == Classification::RankDivergence;
                                           }),
                            copy.findings.end());
        return copy.countsByRank(ranks);
    }();
    QCOMPARE(counts[2], withoutDivergence[2] + 1);
    QCOMPARE(counts[0], withoutDivergence[0]);
}

void TestRankDivergence::gapLeakNamesRank1Gap()
{
    const auto job = loadPaths(syntheticInputs(QStringLiteral("gapleak-job")));
    QVERIFY(job);
    const auto analysis = analyzeJob(*job);
    QCOMPARE(ranksOf(analysis->divergences), std::vector<int64_t>{1});
    const RankDivergence& d = analysis->divergences.front();
    QVERIFY(d.series == DivergenceSeries::Gap);
    // 812 MiB on its peers, ~1.87 GiB on rank 1 at the end
    QVERIFY(std::abs(d.peerMedianLevelBytes - 812.0 * kMiB) < 8.0 * kMiB);
    QVERIFY(d.profile.levelBytes > 1.8 * kGiB && d.profile.levelBytes < 1.95 * kGiB);
    QVERIFY(d.byLevel && d.bySlope);
    // 48 MiB every 6 samples of 100 ms: 80 MiB/s faster
    QVERIFY(std::abs(d.excessBytesPerSecond - 80.0 * kMiB) < 8.0 * kMiB);
    const auto findings = buildJobFindings(analysis, job.get());
    const auto divergence = findingsOf(*findings, Classification::RankDivergence);
    QCOMPARE(divergence.size(), size_t(1));
    QCOMPARE(divergence.front()->findEvidence("series")->label, std::string("gap"));
    QVERIFY(QString::fromStdString(divergence.front()->description)
                .startsWith(QStringLiteral("Rank 1's memory outside PyTorch's caching allocator")));
    QVERIFY(
        QString::fromStdString(divergence.front()->remediation.front()).contains(QStringLiteral("native")));
}

void TestRankDivergence::normalJobsRaiseNothing_data()
{
    QTest::addColumn<QString>("vector");
    for (const QString& name : distributed::vectorNames())
        QTest::newRow(qPrintable(name)) << distributed::vectorPath(name);
    for (const QString& path : distributed::extraVectorNames())
        QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    QTest::newRow("midrun-job") << dataPath(QStringLiteral("fixtures/synthetic-jobs/midrun-job"));
    QTest::newRow("ddp (first 200 records)") << dataPath(QStringLiteral("fixtures/real-gpu/ddp"));
}

void TestRankDivergence::normalJobsRaiseNothing()
{
    QFETCH(QString, vector);
    QString error;
    const JobData job = distributed::vectorJob(vector, &error);
    QVERIFY2(!job.inputs.empty(), qPrintable(error));
    const auto analysis = analyzeJob(job);
    for (const RankDivergence& d : analysis->divergences)
        qWarning("rank %lld departs in %s by %.0f bytes, %.0f bytes/s", qlonglong(d.rank),
                 toString(d.series).data(), d.excessBytes, d.excessBytesPerSecond);
    QVERIFY(analysis->divergences.empty());
}

void TestRankDivergence::singleRankRaisesNothing()
{
    const auto job = loadPaths({QStringLiteral("fixtures/real-gpu/single/truth/telemetry_sink")});
    QVERIFY(job);
    const auto analysis = analyzeJob(*job);
    QVERIFY(analysis->divergences.empty());
    QVERIFY(analysis->firstCauseAtStartup.empty());
    QVERIFY(jobNotices(*analysis).empty());
}

void TestRankDivergence::ddpFirstCauseIsStartup()
{
    const auto job = loadPaths(ddpInputs());
    QVERIFY(job);
    const auto analysis = analyzeJob(*job);
    QVERIFY(analysis->crossRank);
    const CrossRankAnalysis& crossRank = *analysis->crossRank;
    // upstream's numbers: rank 0 high, rank 1 low
    QCOMPARE(crossRank.suspects.size(), size_t(2));
    QCOMPARE(crossRank.suspects[0].rank, int64_t(0));
    QVERIFY(crossRank.suspects[0].confidence == FirstCauseConfidence::High);
    QCOMPARE(crossRank.suspects[1].rank, int64_t(1));
    QVERIFY(crossRank.suspects[1].confidence == FirstCauseConfidence::Low);
    // every rank's first spike in its first 10 % and kept (what the comment of
    // firstCauseSuspectsAtStartup says was measured)
    QCOMPARE(crossRank.rankFirstSpikes.size(), size_t(4));
    for (const RankFirstSpike& r : crossRank.rankFirstSpikes) {
        QVERIFY(r.spiked);
        const double share = double(r.spikeNs - r.firstSampleNs) / double(r.lastSampleNs - r.firstSampleNs);
        qInfo("rank %lld: first spike %.3f s after its first sample, %.1f %% of its run", qlonglong(r.rank),
              double(r.spikeNs - r.firstSampleNs) / 1e9, share * 100);
        QVERIFY2(share > 0.035 && share < 0.07, qPrintable(QString::number(share)));
        qInfo("  rose %lld MiB from %lld MiB, then held %lld MiB", qlonglong(r.riseBytes / kMiB),
              qlonglong(r.beforeBytes / kMiB), qlonglong(r.heldBytes / kMiB));
        QVERIFY(r.riseBytes >= 64 * kMiB);
        QVERIFY(r.beforeBytes <= 166 * kMiB); // some ranks' rise is broken by a flat sample
        QVERIFY(r.heldBytes >= 234 * kMiB);   // the level of the rest of the run (rank 2 above it)
    }
    QCOMPARE(analysis->firstCauseAtStartup, (std::vector<int64_t>{0, 1}));

    const auto findings = buildJobFindings(analysis, job.get());
    const auto firstCause = findingsOf(*findings, Classification::FirstCause);
    QCOMPARE(firstCause.size(), size_t(2));
    for (const Finding* f : firstCause) {
        QVERIFY(f->severity == Severity::Info); // not Critical nor Warning
        QVERIFY(QString::fromStdString(f->description).contains(QStringLiteral("start-up")));
    }
    // upstream's grade is kept beside it
    QCOMPARE(firstCause.front()->findEvidence("first_cause_confidence")->label, std::string("high"));
    QCOMPARE(findings->notices.size(), size_t(1));
    const Notice& notice = findings->notices.front();
    QCOMPARE(notice.code, std::string(notice_code::kFirstCauseAtStartup));
    QVERIFY(notice.severity == NoticeSeverity::Info);
    const auto* ranks = std::get_if<std::vector<int64_t>>(notice.field("ranks"));
    QVERIFY(ranks);
    QCOMPARE(*ranks, (std::vector<int64_t>{0, 1}));
    QVERIFY(findings->summary);
    QVERIFY(findings->summary->suspectOf(0)->atStartup);
    // nothing on the job is Warning or Critical but the divergent rank
    for (const Finding& f : findings->findings)
        if (f.classification != Classification::RankDivergence)
            QVERIFY(f.severity == Severity::Info);
}

void TestRankDivergence::realFirstCauseStaysAnAlarm_data()
{
    QTest::addColumn<QStringList>("inputs");
    QTest::addColumn<int64_t>("leader");
    QTest::addColumn<int>("severity");
    QTest::newRow("firstcause-job") << [] {
        QStringList inputs;
        for (const QString& input : firstCauseInputs())
            inputs << QStringLiteral("fixtures/stormlog/distributed/") + input;
        return inputs;
    }() << int64_t(3) << int(Severity::Critical);
    QTest::newRow("skew-job") << [] {
        QStringList inputs;
        for (const QString& input : skewInputs())
            inputs << QStringLiteral("fixtures/stormlog/distributed/") + input;
        return inputs;
    }() << int64_t(6) << int(Severity::Critical);
    QTest::newRow("collective-merged")
        << QStringList{QStringLiteral("fixtures/stormlog/distributed/collective-merged.jsonl")} << int64_t(1)
        << int(Severity::Warning);
    QTest::newRow("midrun-job") << syntheticInputs(QStringLiteral("midrun-job")) << int64_t(2)
                                << int(Severity::Critical);
}

void TestRankDivergence::realFirstCauseStaysAnAlarm()
{
    QFETCH(QStringList, inputs);
    QFETCH(int64_t, leader);
    QFETCH(int, severity);
    std::shared_ptr<const JobData> job;
    if (inputs.size() == 1) {
        const DocumentOutcome outcome = loadDocument(dataPath(inputs.front()));
        QVERIFY(outcome.trace && outcome.trace->defaultSessionIndex());
        job = jobFromTraceSession(outcome.trace, *outcome.trace->defaultSessionIndex());
    } else {
        job = loadPaths(inputs);
    }
    QVERIFY(job);
    const auto analysis = analyzeJob(*job);
    QVERIFY(analysis->crossRank && !analysis->crossRank->suspects.empty());
    QCOMPARE(analysis->crossRank->suspects.front().rank, leader);
    for (const RankFirstSpike& r : analysis->crossRank->rankFirstSpikes)
        if (r.rank == leader && r.spiked)
            qInfo("rank %lld: first spike at %.1f %% of its run, rose %lld MiB from %lld MiB, then held %lld "
                  "MiB",
                  qlonglong(r.rank),
                  100.0 * double(r.spikeNs - r.firstSampleNs) / double(r.lastSampleNs - r.firstSampleNs),
                  qlonglong(r.riseBytes / kMiB), qlonglong(r.beforeBytes / kMiB),
                  qlonglong(r.heldBytes / kMiB));
    QVERIFY(analysis->firstCauseAtStartup.empty());
    const auto findings = buildJobFindings(analysis, job.get());
    QVERIFY(findings->notices.empty());
    const auto firstCause = findingsOf(*findings, Classification::FirstCause);
    const auto lead = std::find_if(firstCause.begin(), firstCause.end(),
                                   [&](const Finding* f) { return *f->rank == leader; });
    QVERIFY(lead != firstCause.end());
    QCOMPARE(int((*lead)->severity), severity);
}

void TestRankDivergence::reportsSayIt()
{
    // `gapscope analyze` of the four ranks: every report form names rank 2 and the start-up
    QStringList paths;
    for (const QString& input : ddpInputs())
        paths << dataPath(input);
    const InputsAnalysis inputs = analyzeInputs(paths, DocumentRequest{});
    QVERIFY2(inputs.analysis.ok(), qPrintable(inputs.analysis.error));
    const ReportContent content = inputs.analysis.reportContent(true);
    QVERIFY(content.job);

    // JSON: the job's findings hold rank_divergence; upstream's cross_rank_analysis is as before
    const QJsonObject json = QJsonDocument::fromJson(reportJson(content)).object();
    const QJsonArray jobFindings =
        json.value(QStringLiteral("job")).toObject().value(QStringLiteral("findings")).toArray();
    QCOMPARE(jobFindings.size(), 1);
    const QJsonObject divergence = jobFindings.first().toObject();
    QCOMPARE(divergence.value(QStringLiteral("classification")).toString(),
             QStringLiteral("rank_divergence"));
    QCOMPARE(divergence.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
    QCOMPARE(divergence.value(QStringLiteral("rank")).toInteger(), 2);
    QCOMPARE(divergence.value(QStringLiteral("ranks")).toArray(), QJsonArray{2});
    const QJsonObject evidence = divergence.value(QStringLiteral("evidence")).toObject();
    QCOMPARE(evidence.value(QStringLiteral("series")).toString(), QStringLiteral("reserved"));
    QCOMPARE(evidence.value(QStringLiteral("excess_bytes")).toInteger(), 192 * kMiB);
    QVERIFY(evidence.value(QStringLiteral("excess_bytes_per_second")).toDouble() > 0);
    QVERIFY(!divergence.value(QStringLiteral("remediation")).toArray().isEmpty());
    const QJsonArray suspects = json.value(QStringLiteral("cross_rank_analysis"))
                                    .toObject()
                                    .value(QStringLiteral("first_cause_suspects"))
                                    .toArray();
    QCOMPARE(suspects.size(), 2);
    QCOMPARE(suspects[0].toObject().value(QStringLiteral("confidence")).toString(), QStringLiteral("high"));
    // the gap findings of each rank stay upstream's: no rank_divergence there
    for (const QJsonValue& rank : json.value(QStringLiteral("ranks")).toArray())
        QVERIFY(rank.toObject().value(QStringLiteral("gap_analysis")).toArray().isEmpty());
    QJsonObject startup;
    for (const QJsonValue& notice : json.value(QStringLiteral("notices")).toArray())
        if (notice.toObject().value(QStringLiteral("code")).toString() ==
            QStringLiteral("first_cause_at_startup"))
            startup = notice.toObject();
    QCOMPARE(startup.value(QStringLiteral("severity")).toString(), QStringLiteral("info"));
    QCOMPARE(startup.value(QStringLiteral("ranks")).toArray(), (QJsonArray{0, 1}));

    // text, Markdown, HTML and the PDF's page: the section, its row and its words
    const QString sentence = QStringLiteral("Rank 2's reserved memory grew 328.00 MiB");
    const QString text = reportText(content);
    QVERIFY(text.contains(QStringLiteral("rank divergence:")));
    QVERIFY(text.contains(sentence));
    QVERIFY(text.contains(QStringLiteral("first_cause_at_startup")));
    for (const QString& page : {reportMarkdown(content), reportHtml(content)}) {
        QVERIFY(page.contains(QStringLiteral("Rank divergence")));
        // (Markdown may escape the point: "192\\.00 MiB")
        QVERIFY(page.contains(QRegularExpression(QStringLiteral("192\\\\?\\.00 MiB"))));
        QVERIFY(page.contains(QStringLiteral("First cause at start")));
    }
    QVERIFY(reportHtml(content).contains(QStringLiteral("Rank 2&#39;s reserved memory grew")) ||
            reportHtml(content).contains(QStringLiteral("Rank 2's reserved memory grew")));
}

QTEST_GUILESS_MAIN(TestRankDivergence)
#include "tst_rankdivergence.moc"
