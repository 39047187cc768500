// Cross-rank first-cause analysis (analysis/CrossRankAnalysis): upstream stormlog's
// summarize_cross_rank_analysis on the distributed parity vectors, compared field by field with
// what upstream wrote, and on small hand-made jobs for each rule (selection of samples and of
// the job id, world size, missing ranks, alignment, candidates, confidence).

#include "tests/DistributedVectors.h"

#include "analysis/CollectiveAttribution.h"
#include "analysis/CrossRankAnalysis.h"
#include "analysis/PyNumeric.h"
#include "model/job/JobAnalysis.h"
#include "model/report/JobAnalysisJson.h"
#include "model/report/JsonWriter.h"

#include <QtTest>

#include <limits>

using namespace gapscope;

namespace {

constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kGiB = 1024 * kMiB;
constexpr int64_t kStartNs = 1'796'000'000'000'000'000;
constexpr int64_t kIntervalNs = 100'000'000;

// A job made by hand: sources and sample events, in the order they are added.
struct HandJob
{
    JobEvents events;

    uint32_t source(int64_t rank, int64_t worldSize, const std::string& jobId = "job-1", int64_t pid = 100,
                    const std::string& host = "node-0")
    {
        JobEventSource source;
        source.rank = rank;
        source.worldSize = worldSize;
        source.pid = pid + rank % 1000;
        source.host = host;
        source.jobId = jobId;
        source.sessionId = "session";
        source.hasSessionId = true;
        source.samplingIntervalMs = 100;
        events.sources.push_back(source);
        return static_cast<uint32_t>(events.sources.size() - 1);
    }
    void sample(uint32_t source, int64_t timestampNs, int64_t used)
    {
        events.append(timestampNs, used, used / 2, 80 * kGiB, source,
                      kSampleByStripLower | kSampleByCasefold | kCountersRecorded);
    }
    void other(uint32_t source, int64_t timestampNs)
    {
        events.append(timestampNs, 0, 0, 80 * kGiB, source, kCountersRecorded);
    }
    // `count` samples of a rank at 100 ms, flat at 1 GiB, rising by 2 GiB at sample `spikeAt`
    // (none when negative)
    void series(uint32_t source, int count, int spikeAt, int64_t offsetNs = 0)
    {
        for (int i = 0; i < count; ++i)
            sample(source, kStartNs + offsetNs + i * kIntervalNs,
                   spikeAt >= 0 && i >= spikeAt ? 3 * kGiB : kGiB);
    }
};

QString nameOf(FirstCauseConfidence confidence)
{
    return QString::fromUtf8(toString(confidence).data());
}

bool hasNoteWith(const CrossRankAnalysis& analysis, const std::string& text)
{
    for (const auto& note : analysis.notes)
        if (note.find(text) != std::string::npos)
            return true;
    return false;
}

QString notesOf(const CrossRankAnalysis& analysis)
{
    QStringList notes;
    for (const auto& note : analysis.notes)
        notes << QString::fromStdString(note);
    return notes.join(QStringLiteral(" | "));
}

} // namespace

class TestCrossRankAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void parity_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString& name : distributed::vectorNames())
            QTest::newRow(qPrintable(name)) << name;
        for (const QString& path : distributed::extraVectorNames())
            QTest::newRow(qPrintable(QStringLiteral("extra/") + QFileInfo(path).fileName())) << path;
    }

    // Every field upstream wrote, exactly, in its order; our notes beside them.
    void parity()
    {
        QFETCH(QString, name);
        QString error;
        const JobData job = distributed::vectorJob(name, &error);
        QVERIFY2(!job.inputs.empty(), qPrintable(error));
        const QJsonObject expected = distributed::expectedOf(name);
        if (expected.value(QStringLiteral("mode")).toString() == QLatin1String("session")) {
            QCOMPARE(job.mode, JobMode::Session);
            const JobInput& input = job.inputs.front();
            QCOMPARE(input.trace->sessions[input.sessionIndex].id,
                     expected.value(QStringLiteral("session_id")).toString());
        }
        const auto result = analyzeJob(job);
        QVERIFY(result);
        const distributed::ExpectedSection section =
            distributed::expectedSection(name, QStringLiteral("cross_rank_analysis"));
        QCOMPARE(result->crossRank.has_value(), !section.value.isUndefined());
        if (!result->crossRank)
            return;

        JsonWriter json;
        writeCrossRankAnalysis(json, *result->crossRank);
        const QByteArray ours = json.take();
        QJsonObject oursObject = QJsonDocument::fromJson(ours).object();
        QVERIFY2(oursObject.value(QStringLiteral("notes")).isArray(), ours.constData());
        oursObject.remove(QStringLiteral("notes")); // upstream's notes are left out of the vectors
        QString where;
        QVERIFY2(
            distributed::sameJson(oursObject, section.value, QStringLiteral("cross_rank_analysis"), &where),
            qPrintable(where));
        QCOMPARE(distributed::keyOrder(ours, QStringLiteral("notes")), section.keys);
        QCOMPARE(distributed::numberTokens(ours), section.numbers);
    }

    void emptyInput()
    {
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(JobEvents{});
        QVERIFY(!analysis.jobId);
        QCOMPARE(analysis.worldSize, int64_t(0));
        QVERIFY(analysis.participatingRanks.empty());
        QVERIFY(analysis.missingRanks.empty());
        QVERIFY(!analysis.clusterOnsetTimestampNs);
        QVERIFY(analysis.suspects.empty());
        // "no events" and "no samples", each once
        QCOMPARE(analysis.notes.size(), size_t(2));

        const auto result = analyzeJobEvents(JobEvents{}, {});
        QVERIFY(result->collective.empty());
        QVERIFY(!result->crossRank); // no ranks at all
    }

    void onlyOtherEvents()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 2), r1 = job.source(1, 2);
        job.other(r0, kStartNs);
        job.other(r1, kStartNs);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.worldSize, int64_t(0));
        QVERIFY2(hasNoteWith(analysis, "other than samples"), qPrintable(notesOf(analysis)));
        QVERIFY2(hasNoteWith(analysis, "No sample events"), qPrintable(notesOf(analysis)));
    }

    void oneRank()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 1);
        job.series(r0, 10, 5);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.worldSize, int64_t(1));
        QCOMPARE(analysis.participatingRanks, std::vector<int64_t>{0});
        QVERIFY(analysis.suspects.empty());
        QVERIFY(!analysis.clusterOnsetTimestampNs);
        QVERIFY2(hasNoteWith(analysis, "at least two ranks"), qPrintable(notesOf(analysis)));
        // upstream's report has no cross_rank_analysis for one rank
        QVERIFY(!analyzeJobEvents(job.events, {})->crossRank);
    }

    // Rank 2 rises first, one sampling interval ahead of the others: the one high suspect.
    void clearLeaderIsHigh()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 3), r1 = job.source(1, 3), r2 = job.source(2, 3);
        job.series(r0, 20, 11);
        job.series(r1, 20, 11);
        job.series(r2, 20, 10);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.clusterOnsetTimestampNs, std::optional<int64_t>(kStartNs + 11 * kIntervalNs));
        QCOMPARE(analysis.suspects.size(), size_t(3));
        QCOMPARE(analysis.suspects[0].rank, int64_t(2));
        QCOMPARE(nameOf(analysis.suspects[0].confidence), QStringLiteral("high"));
        QCOMPARE(analysis.suspects[0].leadOverClusterOnsetNs, kIntervalNs);
        QCOMPARE(analysis.suspects[0].peakDeltaBytes, 2 * kGiB);
        QCOMPARE(analysis.suspects[0].spikeWindowSamples, int64_t(1));
        QCOMPARE(analysis.suspects[0].supportingRanks, int64_t(3));
        // equal aligned times and peaks: by rank
        QCOMPARE(analysis.suspects[1].rank, int64_t(0));
        QCOMPARE(nameOf(analysis.suspects[1].confidence), QStringLiteral("low"));
        QCOMPARE(analysis.suspects[2].rank, int64_t(1));
        QCOMPARE(analysis.medianSampleIntervalNs, kIntervalNs);
    }

    // Two ranks rise together first: medium for both, no high.
    void tiedLeadersAreMedium()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 3), r1 = job.source(1, 3), r2 = job.source(2, 3);
        job.series(r0, 20, 10);
        job.series(r1, 20, 10);
        job.series(r2, 20, 12);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.suspects.size(), size_t(2));
        QCOMPARE(nameOf(analysis.suspects[0].confidence), QStringLiteral("medium"));
        QCOMPARE(nameOf(analysis.suspects[1].confidence), QStringLiteral("medium"));
        QCOMPARE(analysis.suspects[0].leadOverClusterOnsetNs, int64_t(0));
    }

    // A rank with one sample cannot spike; it makes the evidence sparse: all suspects low.
    void rankWithFewerThanTwoSamples()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 3), r1 = job.source(1, 3), r2 = job.source(2, 3);
        job.series(r0, 20, 12);
        job.sample(r1, kStartNs, kGiB);
        job.series(r2, 20, 10);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QVERIFY2(hasNoteWith(analysis, "fewer than two samples take no part in spike detection: 1."),
                 qPrintable(notesOf(analysis)));
        QCOMPARE(analysis.suspects.size(), size_t(2));
        QCOMPARE(analysis.suspects[0].rank, int64_t(2));
        QCOMPARE(nameOf(analysis.suspects[0].confidence), QStringLiteral("low"));
        QCOMPARE(analysis.rankSampleCounts, (std::vector<RankValue>{{0, 20}, {1, 1}, {2, 20}}));
    }

    // Samples of the less common job id are dropped; a tie goes to the job id seen first.
    void severalJobIds()
    {
        HandJob job;
        const uint32_t a0 = job.source(0, 2, "job-a"), a1 = job.source(1, 2, "job-a");
        const uint32_t b2 = job.source(2, 3, "job-b");
        job.series(a0, 10, -1);
        job.series(a1, 10, -1);
        job.series(b2, 10, -1);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.jobId, std::optional<std::string>("job-a"));
        QCOMPARE(analysis.participatingRanks, (std::vector<int64_t>{0, 1}));
        QCOMPARE(analysis.worldSize, int64_t(2)); // job-b's world size went with its samples
        QVERIFY2(hasNoteWith(analysis, "several job ids"), qPrintable(notesOf(analysis)));

        HandJob tie;
        const uint32_t b = tie.source(1, 2, "job-b"), a = tie.source(0, 2, "job-a");
        tie.sample(b, kStartNs, kGiB);
        tie.sample(a, kStartNs, kGiB);
        tie.sample(a, kStartNs + kIntervalNs, kGiB);
        tie.sample(b, kStartNs + kIntervalNs, kGiB);
        QCOMPARE(summarizeCrossRankAnalysis(tie.events).jobId, std::optional<std::string>("job-b"));
        // samples without a job id are dropped with the other job's when there are several
        HandJob none;
        const uint32_t n0 = none.source(0, 2, ""), n1 = none.source(1, 2, "job-x");
        none.series(n0, 3, -1);
        none.series(n1, 3, -1);
        const CrossRankAnalysis single = summarizeCrossRankAnalysis(none.events);
        QCOMPARE(single.jobId, std::optional<std::string>("job-x"));
        QCOMPARE(single.participatingRanks, (std::vector<int64_t>{0, 1})); // one job id: nothing dropped
    }

    // The most common world size above 1 wins (the first seen of equal counts), but never fewer
    // than the ranks present; the ranks below it without samples are missing.
    void worldSizeDisagreement()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 4), r1 = job.source(1, 4), r2 = job.source(2, 8);
        job.series(r0, 5, -1);
        job.series(r1, 5, -1);
        job.series(r2, 5, -1);
        CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.worldSize, int64_t(4));
        QCOMPARE(analysis.missingRanks, std::vector<int64_t>{3});
        QVERIFY2(hasNoteWith(analysis, "No samples from ranks 3 of world size 4."),
                 qPrintable(notesOf(analysis)));

        HandJob tie;
        const uint32_t t0 = tie.source(0, 8), t1 = tie.source(1, 4);
        tie.series(t0, 5, -1);
        tie.series(t1, 5, -1);
        QCOMPARE(summarizeCrossRankAnalysis(tie.events).worldSize, int64_t(8));

        HandJob under;
        const uint32_t u0 = under.source(0, 2), u5 = under.source(5, 2);
        under.series(u0, 5, -1);
        under.series(u5, 5, -1);
        analysis = summarizeCrossRankAnalysis(under.events);
        QCOMPARE(analysis.worldSize, int64_t(6)); // rank 5 is there
        QCOMPARE(analysis.missingRanks, (std::vector<int64_t>{1, 2, 3, 4}));
    }

    // A world size of a trillion names more missing ranks than anyone can list.
    void hugeWorldSize()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 1'000'000'000'000), r1 = job.source(1, 1'000'000'000'000);
        job.series(r0, 5, -1);
        job.series(r1, 5, -1);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.worldSize, int64_t(1'000'000'000'000));
        QCOMPARE(analysis.missingRanks.size(), kMaxListedMissingRanks);
        QCOMPARE(analysis.missingRanks.front(), int64_t(2));
        QCOMPARE(analysis.missingRanksNotListed,
                 int64_t(1'000'000'000'000 - 2 - int64_t(kMaxListedMissingRanks)));
        JsonWriter json;
        writeCrossRankAnalysis(json, analysis);
        QVERIFY(json.data().contains("\"missing_ranks_not_listed\": 999999899998"));
    }

    // Ranks are aligned on their first samples; a rank starting late rises late in wall time
    // but not in aligned time. Samples of one rank are ordered by (timestamp, pid, host).
    void alignment()
    {
        HandJob job;
        const uint32_t r1 = job.source(1, 2), r0 = job.source(0, 2);
        job.series(r1, 20, 10, 700 * 1'000'000); // starts 700 ms late, rises at its 10th sample
        job.series(r0, 20, 11);
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        // dict order: the rank whose first sample came first in the events
        QCOMPARE(analysis.rankSampleCounts, (std::vector<RankValue>{{1, 20}, {0, 20}}));
        QCOMPARE(analysis.alignmentOffsetsNs, (std::vector<RankValue>{{0, 0}, {1, 700'000'000}}));
        QVERIFY2(hasNoteWith(analysis, "Rank 1 starts 700000000 ns from the anchor rank"),
                 qPrintable(notesOf(analysis)));
        QCOMPARE(analysis.suspects.front().rank, int64_t(1));
        QCOMPARE(analysis.suspects.front().firstSpikeTimestampNs, kStartNs + 700'000'000 + 10 * kIntervalNs);
        QCOMPARE(analysis.suspects.front().alignedFirstSpikeTimestampNs, kStartNs + 10 * kIntervalNs);
        QCOMPARE(nameOf(analysis.suspects.front().confidence), QStringLiteral("high"));
    }

    // statistics.median of ints: the two middle values averaged as a float, then truncated.
    void medianOfInts()
    {
        std::vector<int64_t> odd{5, 1, 3};
        QCOMPARE(pythonIntMedian(odd), int64_t(3));
        std::vector<int64_t> even{4, 1, 2, 3};
        QCOMPARE(pythonIntMedian(even), int64_t(2)); // 2.5 -> 2
        // (2^62 + 1 + 2^62 + 2) / 2 = 2^62 + 1.5 is no double: it rounds to 2^62 (Python: the same)
        std::vector<int64_t> huge{(int64_t(1) << 62) + 1, (int64_t(1) << 62) + 2};
        QCOMPARE(pythonIntMedian(huge), int64_t(1) << 62);
        std::vector<int64_t> none;
        QCOMPARE(pythonIntMedian(none), int64_t(0));
    }

    // Values anywhere in the int64 range (a file may hold them): both analyses stay defined
    // (the sanitizer build runs this) and saturate where upstream's Python ints would grow.
    void extremeValues()
    {
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
        HandJob job;
        const uint32_t r0 = job.source(0, kMax), r1 = job.source(kMax - 1, kMax);
        for (int i = 0; i < 8; ++i) {
            job.sample(r0, i == 7 ? kMax : i, i % 2 ? kMax : 0);
            job.sample(r1, kMax - 8 + i, i == 3 ? kMax : 0);
            job.events.append(i, kMax, 0, kMax, r0,
                              kSampleByStripLower | kCountersRecorded | kCollectiveMarker);
        }
        const CrossRankAnalysis analysis = summarizeCrossRankAnalysis(job.events);
        QCOMPARE(analysis.worldSize, kMax);
        QCOMPARE(analysis.missingRanks.size(), kMaxListedMissingRanks);
        QVERIFY(analysis.missingRanksNotListed > 0);
        QCOMPARE(analysis.alignmentOffsetsNs.back().value, int64_t(kMax - 8));
        CollectiveConfig wide;
        wide.markerWindowNs = kMax;
        wide.intervalPaddingNs = kMax;
        wide.synchronyWindowNs = kMax;
        wide.minGapBytes = kMax;
        wide.minConfidence = 0;
        const auto results = attributeCollectiveMemory(job.events, wide);
        for (const auto& result : results) {
            QVERIFY(result.intervalStartNs >= 0);
            QVERIFY(result.intervalStartNs <= result.intervalEndNs);
        }
        QVERIFY(!jobAnalysisJson(*analyzeJobEvents(job.events, {}, wide)).isEmpty());
    }

    void sampleTests()
    {
        QVERIFY(isSampleByStripLower("sample") && isSampleByCasefold("sample"));
        QVERIFY(isSampleByStripLower("SAMPLE") && isSampleByCasefold("SaMpLe"));
        // strip() only in the collective analysis, casefold() only in this one
        QVERIFY(isSampleByStripLower(" sample\t") && !isSampleByCasefold(" sample\t"));
        QVERIFY(isSampleByStripLower("\u00a0sample\u3000") && !isSampleByCasefold("\u00a0sample"));
        QVERIFY(!isSampleByStripLower("\u017Fample") && isSampleByCasefold("\u017Fample"));
        QVERIFY(!isSampleByStripLower("samples") && !isSampleByCasefold("samples"));
        QVERIFY(!isSampleByStripLower("") && !isSampleByCasefold(""));
        QVERIFY(!isSampleByStripLower("\xff"
                                      "sample"));
    }
};

QTEST_MAIN(TestCrossRankAnalysis)
#include "tst_crossrankanalysis.moc"
