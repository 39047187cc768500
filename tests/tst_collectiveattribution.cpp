// Collective attribution (analysis/CollectiveAttribution): upstream stormlog's
// attribute_collective_memory on the distributed parity vectors, compared field by field with
// what upstream wrote; its parts on their own (robust z-score, collective tokens, merged
// intervals, scoring, presets and overrides); and the events built from a loaded trace
// (model/job/JobEvents: which events are samples and markers).

#include "tests/DistributedVectors.h"

#include "analysis/CollectiveAttribution.h"
#include "analysis/GapAnalysis.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobEvents.h"
#include "model/report/JobAnalysisJson.h"
#include "model/report/JsonWriter.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace gapscope;

namespace {

constexpr int64_t kGiB = 1024LL * 1024 * 1024;
constexpr int64_t kStartNs = 1'796'000'000'000'000'000;
constexpr int64_t kIntervalNs = 100'000'000;

struct HandJob
{
    JobEvents events;

    uint32_t source(int64_t rank, int64_t worldSize)
    {
        JobEventSource source;
        source.rank = rank;
        source.worldSize = worldSize;
        source.sessionId = "session";
        source.hasSessionId = true;
        events.sources.push_back(source);
        return static_cast<uint32_t>(events.sources.size() - 1);
    }
    void sample(uint32_t source, int64_t timestampNs, int64_t gap, int64_t total = 80 * kGiB)
    {
        events.append(timestampNs, 10 * kGiB + gap, 10 * kGiB, total, source,
                      kSampleByStripLower | kSampleByCasefold | kCountersRecorded);
    }
    void marker(uint32_t source, int64_t timestampNs)
    {
        events.append(timestampNs, 0, 0, 80 * kGiB, source, kCollectiveMarker | kCountersRecorded);
    }
    // 20 samples at 100 ms without a gap but at the given indexes (a 10 GiB gap there)
    void series(uint32_t source, std::initializer_list<int> spikes, int64_t total = 80 * kGiB)
    {
        for (int i = 0; i < 20; ++i)
            sample(source, kStartNs + i * kIntervalNs,
                   std::find(spikes.begin(), spikes.end(), i) != spikes.end() ? 10 * kGiB : 0, total);
    }
};

QStringList codesOf(const CollectiveAttribution& attribution)
{
    QStringList codes;
    for (const auto code : attribution.reasonCodes())
        codes << QString::fromUtf8(code.data(), qsizetype(code.size()));
    return codes;
}

PhaseAttribution uniquePhase(const std::string& path, const std::string& scopeId)
{
    PhaseAttribution attribution;
    attribution.phasePaths = {path};
    attribution.source = "heuristic";
    attribution.phasePath = path;
    attribution.scopeId = scopeId;
    attribution.threadId = 1;
    attribution.threadName = "MainThread";
    return attribution;
}

// The z-score of the 10 GiB spikes of HandJob::series with two of 20 samples spiking: the
// MAD is 0 (most gaps are 0), so the sample std decides.
double twoSpikeZScore()
{
    const double mean = 20.0 * kGiB / 20.0;
    const double squares = 18.0 * mean * mean + 2.0 * (10.0 * kGiB - mean) * (10.0 * kGiB - mean);
    return (10.0 * kGiB - mean) / std::sqrt(squares / 19.0);
}

} // namespace

class TestCollectiveAttribution : public QObject
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

    // Every result upstream wrote, every field exactly, in its order.
    void parity()
    {
        QFETCH(QString, name);
        QString error;
        const JobData job = distributed::vectorJob(name, &error);
        QVERIFY2(!job.inputs.empty(), qPrintable(error));
        const auto result = analyzeJob(job);
        QVERIFY(result);
        const distributed::ExpectedSection section =
            distributed::expectedSection(name, QStringLiteral("collective_attribution"));
        QVERIFY(section.value.isArray());

        JsonWriter json;
        writeCollectiveAttributions(json, result->collective);
        const QByteArray ours = json.take();
        QString where;
        QVERIFY2(distributed::sameJson(QJsonDocument::fromJson(ours).array(), section.value,
                                       QStringLiteral("collective_attribution"), &where),
                 qPrintable(where));
        QCOMPARE(distributed::keyOrder(ours), section.keys);
        QCOMPARE(distributed::numberTokens(ours), section.numbers);
    }

    void robustZScoreOfMad()
    {
        // median 3, absolute deviations 2 1 0 1 97: MAD 1
        const std::vector<double> values{1, 2, 3, 4, 100};
        QCOMPARE(robustZScore(values, 100), 0.6745 * 97.0 / 1.0);
        QCOMPARE(robustZScore(values, 1), 0.0); // below the median: 0, never negative
        // an even count: medians are means of the two middle values (3.5; deviations 2.5 1.5
        // 0.5 0.5 1.5 96.5: MAD 1.5)
        const std::vector<double> even{1, 2, 3, 4, 5, 100};
        QCOMPARE(robustZScore(even, 100), 0.6745 * (100 - 3.5) / 1.5);
    }

    void robustZScoreFallsBackToStd()
    {
        // median 0 and MAD 0: (x - mean) / sample std, mean 2, std sqrt(80 / 4)
        const std::vector<double> values{0, 0, 0, 0, 10};
        QCOMPARE(robustZScore(values, 10), (10.0 - 2.0) / std::sqrt(80.0 / 4.0));
        // no spread at all
        const std::vector<double> flat{7, 7, 7, 7};
        QCOMPARE(robustZScore(flat, 7), 0.0);
        QCOMPARE(robustZScore(flat, 100), 0.0);
    }

    void robustZScoreNeedsThreeValues()
    {
        const std::vector<double> two{0, 1000};
        QCOMPARE(robustZScore(two, 1000), 0.0);
        QCOMPARE(robustZScore(std::vector<double>{}, 5), 0.0);
    }

    void collectiveTokens_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("marker");
        QTest::newRow("All-Reduce") << QStringLiteral("All-Reduce") << true;
        QTest::newRow("reducescatter") << QStringLiteral("reducescatter") << true;
        QTest::newRow("REDUCE_SCATTER") << QStringLiteral("REDUCE_SCATTER") << true;
        QTest::newRow("all-gather_into_tensor") << QStringLiteral("all-gather_into_tensor") << true;
        QTest::newRow("broad_cast") << QStringLiteral("broad_cast") << true;
        QTest::newRow("NCCL wait") << QStringLiteral("NCCL wait") << true;
        QTest::newRow("barrier") << QStringLiteral(" barrier ") << true;
        QTest::newRow("communications") << QStringLiteral("communications") << true;
        QTest::newRow("collective") << QStringLiteral("collective") << true;
        QTest::newRow("all reduce (space)") << QStringLiteral("all reduce") << false;
        QTest::newRow("sample") << QStringLiteral("sample") << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("reduce") << QStringLiteral("reduce") << false;
    }

    void collectiveTokens()
    {
        QFETCH(QString, text);
        QFETCH(bool, marker);
        QCOMPARE(hasCollectiveToken(text.toStdString()), marker);
    }

    // Markers in event_type, context and any string of metadata (nested objects and lists, not
    // keys); samples by strip().lower(): what the events built from a loaded trace say.
    void eventsFromTrace()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("markers.jsonl"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const auto line = [](int index, const char* type, const char* context, const char* metadata,
                             int rank) {
            return QStringLiteral(
                       "{\"schema_version\": 3, \"session_id\": \"s\", \"timestamp_ns\": %1, \"event_type\": "
                       "\"%2\", "
                       "\"collector\": \"stormlog.cuda_tracker\", \"sampling_interval_ms\": 100, \"pid\": 1, "
                       "\"host\": \"h\", \"job_id\": \"j\", \"rank\": %5, \"local_rank\": 0, \"world_size\": "
                       "2, "
                       "\"device_id\": 0, \"allocator_allocated_bytes\": 1, \"allocator_reserved_bytes\": 2, "
                       "\"allocator_active_bytes\": null, \"allocator_inactive_bytes\": null, "
                       "\"allocator_change_bytes\": 0, \"device_used_bytes\": 3, \"device_free_bytes\": "
                       "null, "
                       "\"device_total_bytes\": 100, \"context\": %3, \"metadata\": %4}\n")
                .arg(int64_t(1000 + index))
                .arg(QString::fromLatin1(type), QString::fromLatin1(context), QString::fromLatin1(metadata))
                .arg(rank)
                .toUtf8();
        };
        // one row per case, each at its own time: the rows come back in this order
        file.write(line(0, "sample", "null", "{}", 0));
        file.write(line(1, " Sample ", "null", "{}", 1));
        file.write(line(2, "SAMPLE", "\"nccl wait\"", "{}", 0));
        file.write(line(3, "allocation", "null", "{\"ops\": [{\"kind\": [\"x\", \"All-Gather\"]}]}", 1));
        file.write(line(4, "allocation", "null", "{\"all_reduce\": 1, \"flag\": true, \"n\": null}", 0));
        file.write(line(5, "collective", "null", "{}", 1));
        file.write(line(6, "warning", "\"\"", "{\"backend\": \"cuda\", \"note\": \"barrier-sync\"}", 0));
        file.write(line(7, "warning", "null", "{\"ops\": [{\"kind\": [\"x\", \"All-Gather\"]}]}", 0));
        // a token written with escapes is a token; an escape elsewhere makes none
        file.write(line(8, "warning", "null", "{\"note\": \"\\u0062arrier\", \"x\": \"a\\\"b\"}", 1));
        file.write(line(9, "warning", "null", "{\"note\": \"\\\"quoted\\\" \\u00e9t\\u00e9\"}", 1));
        file.close();

        const DocumentOutcome loaded = loadDocument(path);
        QVERIFY2(loaded.trace, qPrintable(loaded.failure()));
        QCOMPARE(loaded.trace->problems.errorCount(), qint64(0));
        const JobEventsBuild build = buildJobEvents(*loaded.trace, 0);
        const JobEvents& events = build.events;
        QCOMPARE(events.size(), size_t(10));
        for (size_t row = 0; row < events.size(); ++row)
            QCOMPARE(events.timestampNs[row], int64_t(1000 + row));
        const auto flags = [&](size_t row) { return events.flags[row]; };
        QCOMPARE(flags(0), uint8_t(kSampleByStripLower | kSampleByCasefold | kCountersRecorded));
        QCOMPARE(flags(1), uint8_t(kSampleByStripLower | kCountersRecorded)); // casefold keeps the spaces
        QCOMPARE(flags(2),
                 uint8_t(kSampleByStripLower | kSampleByCasefold | kCollectiveMarker | kCountersRecorded));
        QCOMPARE(flags(3), uint8_t(kCollectiveMarker | kCountersRecorded)); // nested list
        QCOMPARE(flags(4), uint8_t(kCountersRecorded));                     // a key is no marker
        QCOMPARE(flags(5), uint8_t(kCollectiveMarker | kCountersRecorded)); // event_type
        QCOMPARE(flags(6), uint8_t(kCollectiveMarker | kCountersRecorded)); // a metadata value
        QCOMPARE(flags(7), uint8_t(kCollectiveMarker | kCountersRecorded)); // the same metadata again
        QCOMPARE(flags(8), uint8_t(kCollectiveMarker | kCountersRecorded)); // an escaped token
        QCOMPARE(flags(9), uint8_t(kCountersRecorded));
        QCOMPARE(events.sources.size(), size_t(2));
        QCOMPARE(events.rankCount(), size_t(2));
        QCOMPARE(events.sourceOf(1).rank, int64_t(1));
        QCOMPARE(events.sourceOf(0).jobId, std::string("j"));
        QCOMPARE(events.used[0], int64_t(3));
        QCOMPARE(events.reserved[0], int64_t(2));
        QCOMPARE(events.total[0], int64_t(100));

        // a window keeps the events within it, ends included
        const JobEventsBuild windowed = buildJobEvents(*loaded.trace, 0, TimeWindow{1002, 1004});
        QCOMPARE(windowed.events.size(), size_t(3));
        QCOMPARE(windowed.events.timestampNs.front(), int64_t(1002));
    }

    // Two ranks spike together on consecutive samples beside a marker: per rank one interval,
    // the two spikes' intervals (overlapping by their padding) merged into one.
    void overlappingIntervalsMerge()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 2), r1 = job.source(1, 2);
        job.series(r0, {10, 11});
        job.series(r1, {10, 11});
        job.marker(r0, kStartNs + 10 * kIntervalNs);
        job.marker(r1, kStartNs + 10 * kIntervalNs);
        const CollectiveConfig config;
        const auto results = attributeCollectiveMemory(job.events, config);
        QCOMPARE(results.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const CollectiveAttribution& a = results[i];
            QCOMPARE(a.rank, int64_t(i));
            QCOMPARE(a.intervalStartNs, kStartNs + 10 * kIntervalNs - config.intervalPaddingNs);
            QCOMPARE(a.intervalEndNs, kStartNs + 11 * kIntervalNs + config.intervalPaddingNs);
            QCOMPARE(a.confidence, 1.0);
            QCOMPARE(QString::fromUtf8(toString(a.classification).data()),
                     QStringLiteral("collective_confident"));
            QCOMPARE(codesOf(a), (QStringList{QStringLiteral("allocator_device_divergence"),
                                              QStringLiteral("cross_rank_synchrony"),
                                              QStringLiteral("gap_spike_statistical_outlier"),
                                              QStringLiteral("marker_collective_token"),
                                              QStringLiteral("marker_spike_overlap")}));
            QCOMPARE(a.evidence.markerHits, int64_t(1));
            QCOMPARE(a.evidence.synchronizedRanks, int64_t(2));
            QCOMPARE(a.evidence.expectedWorldSize, int64_t(2));
            QCOMPARE(a.evidence.synchronyRatio, 1.0);
            QCOMPARE(a.evidence.peakGapBytes, 10 * kGiB);
            QCOMPARE(a.evidence.peakGapRatio, std::optional<double>(0.125));
            QCOMPARE(a.evidence.robustZScore, std::round(twoSpikeZScore() * 1e4) / 1e4);
        }
        // farther apart than twice the padding plus the marker window: separate intervals;
        // without markers, synchrony alone keeps them just above medium's 0.5
        HandJob apart;
        const uint32_t a0 = apart.source(0, 2), a1 = apart.source(1, 2);
        apart.series(a0, {4, 15});
        apart.series(a1, {4, 15});
        const auto separate = attributeCollectiveMemory(apart.events, CollectiveConfig{});
        QCOMPARE(separate.size(), size_t(4));
        QCOMPARE(separate[0].rank, int64_t(0));
        QCOMPARE(separate[1].rank, int64_t(0));
        QVERIFY(separate[0].intervalEndNs < separate[1].intervalStartNs);
        QCOMPARE(separate[0].confidence, 0.51); // 0.34 + 0.16 + 0.16 - 0.15
        QVERIFY(separate[0].hasReason(CollectiveReason::WeakMarkerSignal));
        QVERIFY(!separate[0].hasReason(CollectiveReason::MarkerSpikeOverlap));
    }

    // Merged intervals merge their phases: one scope stays unique, two paths become ambiguous.
    void mergedPhases()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 2), r1 = job.source(1, 2);
        job.series(r0, {10, 11});
        job.series(r1, {10, 11});
        job.marker(r0, kStartNs + 10 * kIntervalNs);
        job.marker(r1, kStartNs + 10 * kIntervalNs);
        const PhaseResolver phases = [](int64_t timestampNs,
                                        uint32_t source) -> std::optional<PhaseAttribution> {
            if (source == 0) // rank 0: one scope over both spikes
                return uniquePhase("train / all_reduce", "scope-a");
            return timestampNs == kStartNs + 10 * kIntervalNs ? uniquePhase("train / all_reduce", "scope-b")
                                                              : uniquePhase("train / step", "scope-c");
        };
        const auto results = attributeCollectiveMemory(job.events, CollectiveConfig{}, phases);
        QCOMPARE(results.size(), size_t(2));
        QVERIFY(results[0].phase);
        QVERIFY(results[0].phase->resolution == PhaseResolution::Unique);
        QCOMPARE(results[0].phase->scopeId, std::optional<std::string>("scope-a"));
        QVERIFY(results[1].phase);
        QVERIFY(results[1].phase->resolution == PhaseResolution::Ambiguous);
        QCOMPARE(results[1].phase->phasePaths,
                 (std::vector<std::string>{"train / all_reduce", "train / step"}));
        QVERIFY(!results[1].phase->summary);
        QVERIFY(!results[1].phase->source);
    }

    // One rank (world size 1): a marker still carries it over the medium threshold, with
    // single_rank_only; without one it is dropped. No device total: no ratio, 0.05 less.
    void singleRankAndNoTotal()
    {
        HandJob job;
        const uint32_t r0 = job.source(0, 1);
        job.series(r0, {10});
        job.marker(r0, kStartNs + 10 * kIntervalNs);
        const auto results = attributeCollectiveMemory(job.events, CollectiveConfig{});
        QCOMPARE(results.size(), size_t(1));
        QCOMPARE(results[0].confidence, 0.51); // 0.34 + 0.16 + 0.16 - 0.15
        QVERIFY(results[0].hasReason(CollectiveReason::SingleRankOnly));
        QCOMPARE(results[0].evidence.synchronyRatio, 0.0);
        QCOMPARE(QString::fromUtf8(toString(results[0].classification).data()),
                 QStringLiteral("collective_suspect"));

        HandJob silent;
        silent.series(silent.source(0, 1), {10});
        QVERIFY(attributeCollectiveMemory(silent.events, CollectiveConfig{}).empty());

        HandJob cpu;
        const uint32_t c0 = cpu.source(0, 1);
        cpu.series(c0, {10}, kNullInt);
        cpu.marker(c0, kStartNs + 10 * kIntervalNs);
        CollectiveConfig lenient;
        lenient.minConfidence = 0.4;
        const auto noTotal = attributeCollectiveMemory(cpu.events, lenient);
        QCOMPARE(noTotal.size(), size_t(1));
        QVERIFY(!noTotal[0].evidence.peakGapRatio);
        QCOMPARE(noTotal[0].confidence, 0.46);
        JsonWriter json;
        writeCollectiveAttributions(json, noTotal);
        QVERIFY(json.data().contains("\"peak_gap_ratio\": null"));
    }

    // Events without all three counters take no part (schema 4 may leave them null); too few
    // samples per rank: nothing.
    void emptyAndTooFew()
    {
        QVERIFY(attributeCollectiveMemory(JobEvents{}, CollectiveConfig{}).empty());
        HandJob few;
        const uint32_t r0 = few.source(0, 2);
        for (int i = 0; i < 5; ++i)
            few.sample(r0, kStartNs + i * kIntervalNs, i == 4 ? 10 * kGiB : 0);
        QVERIFY(attributeCollectiveMemory(few.events, CollectiveConfig{}).empty()); // medium needs 6
        HandJob nulls;
        const uint32_t n0 = nulls.source(0, 2);
        nulls.series(n0, {10});
        nulls.marker(n0, kStartNs + 10 * kIntervalNs);
        for (auto& flags : nulls.events.flags)
            flags &= uint8_t(~kCountersRecorded);
        QVERIFY(attributeCollectiveMemory(nulls.events, CollectiveConfig{}).empty());
    }

    void presets()
    {
        const auto medium = CollectiveConfig::fromPreset("medium");
        QVERIFY(medium);
        QCOMPARE(*medium, CollectiveConfig{});
        QCOMPARE(CollectiveConfig::fromPreset("")->preset, std::string("medium"));
        const auto low = CollectiveConfig::fromPreset(" LOW ");
        QVERIFY(low);
        QCOMPARE(low->preset, std::string("low"));
        QCOMPARE(low->minSamplesPerRank, int64_t(8));
        QCOMPARE(low->minGapBytes, int64_t(256) * 1024 * 1024);
        QCOMPARE(low->minConfidence, 0.7);
        const auto high = CollectiveConfig::fromPreset("high");
        QVERIFY(high);
        QCOMPARE(high->robustZScoreThreshold, 1.8);
        QCOMPARE(high->minSynchronyRatio, 0.34);
        QCOMPARE(high->synchronyWindowNs, int64_t(180'000'000));
        QVERIFY(!CollectiveConfig::fromPreset("extreme"));
        for (const auto name : CollectiveConfig::presetNames())
            QVERIFY(validateCollectiveConfig(*CollectiveConfig::fromPreset(name)).empty());
        QCOMPARE(CollectiveConfig::knobNames().size(), size_t(9));
    }

    void overrides_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error"); // empty: accepted
        QTest::newRow("preset") << "preset"
                                << "High"
                                << "";
        QTest::newRow("unknown preset") << "preset"
                                        << "extreme"
                                        << "unknown collective preset 'extreme' (known: high, low, medium)";
        QTest::newRow("unknown knob") << "min_gap"
                                      << "1"
                                      << "unknown collective setting 'min_gap'";
        QTest::newRow("samples 3") << "min_samples_per_rank"
                                   << "3"
                                   << "";
        QTest::newRow("samples 2") << "min_samples_per_rank"
                                   << "2"
                                   << "min_samples_per_rank must be >= 3";
        QTest::newRow("samples 3.5") << "min_samples_per_rank"
                                     << "3.5"
                                     << "min_samples_per_rank needs a whole number";
        QTest::newRow("bytes 1e8") << "min_gap_bytes"
                                   << "1e8"
                                   << "";
        QTest::newRow("bytes -1") << "min_gap_bytes"
                                  << "-1"
                                  << "min_gap_bytes must be >= 0";
        QTest::newRow("bytes word") << "min_gap_bytes"
                                    << "lots"
                                    << "min_gap_bytes needs a whole number";
        QTest::newRow("ratio 0") << "min_gap_ratio"
                                 << "0"
                                 << "";
        QTest::newRow("ratio -0.1") << "min_gap_ratio"
                                    << "-0.1"
                                    << "min_gap_ratio must be >= 0";
        QTest::newRow("ratio nan") << "min_gap_ratio"
                                   << "nan"
                                   << "min_gap_ratio needs a finite number";
        QTest::newRow("z 0") << "robust_zscore_threshold"
                             << "0"
                             << "robust_zscore_threshold must be > 0";
        QTest::newRow("z inf") << "robust_zscore_threshold"
                               << "inf"
                               << "robust_zscore_threshold needs a finite number";
        QTest::newRow("marker -5") << "marker_window_ns"
                                   << "-5"
                                   << "marker_window_ns must be >= 0";
        QTest::newRow("padding 0") << "interval_padding_ns"
                                   << "0"
                                   << "";
        QTest::newRow("synchrony -1") << "synchrony_window_ns"
                                      << "-1"
                                      << "synchrony_window_ns must be >= 0";
        QTest::newRow("sync ratio 1") << "min_synchrony_ratio"
                                      << "1"
                                      << "";
        QTest::newRow("sync ratio 1.01") << "min_synchrony_ratio"
                                         << "1.01"
                                         << "min_synchrony_ratio must be in [0, 1]";
        QTest::newRow("confidence 1.5") << "min_confidence"
                                        << "1.5"
                                        << "min_confidence must be in [0, 1]";
        QTest::newRow("confidence empty") << "min_confidence"
                                          << ""
                                          << "min_confidence needs a finite number";
    }

    void overrides()
    {
        QFETCH(QString, name);
        QFETCH(QString, value);
        QFETCH(QString, error);
        CollectiveSettings settings;
        const QString why = QString::fromStdString(settings.set(name.toStdString(), value.toStdString()));
        if (error.isEmpty()) {
            QVERIFY2(why.isEmpty(), qPrintable(why));
            QVERIFY(settings.any());
        } else {
            QVERIFY2(why.startsWith(error), qPrintable(why));
            QVERIFY(!settings.any());
            QCOMPARE(settings.resolve(), CollectiveConfig{});
        }
    }

    // Overrides apply on top of the preset whatever their order; the last value of a knob wins.
    void overridesOnPreset()
    {
        CollectiveSettings settings;
        QVERIFY(settings.set("min_confidence", "0.41").empty());
        QVERIFY(settings.set("preset", "high").empty());
        QVERIFY(settings.set("min_gap_bytes", "1e8").empty());
        QVERIFY(settings.set("min_gap_bytes", "2000").empty());
        const CollectiveConfig config = settings.resolve();
        QCOMPARE(config.preset, std::string("high"));
        QCOMPARE(config.minConfidence, 0.41);
        QCOMPARE(config.minGapBytes, int64_t(2000));
        QCOMPARE(config.minGapRatio, 0.025); // high's
        QCOMPARE(config.knob("min_gap_bytes"), std::optional<double>(2000));
        QVERIFY(CollectiveConfig::isIntegerKnob("marker_window_ns"));
        QVERIFY(!CollectiveConfig::isIntegerKnob("min_confidence"));
    }

    // The preset changes what is found: the medium vector has more results under high.
    void presetChangesResults()
    {
        QString error;
        const JobData job = distributed::vectorJob(QStringLiteral("nomarker-merged.jsonl"), &error);
        QVERIFY2(!job.inputs.empty(), qPrintable(error));
        const auto medium = analyzeJob(job);
        const auto low = analyzeJob(job, *CollectiveConfig::fromPreset("low"));
        QVERIFY(!medium->collective.empty());
        QVERIFY(low->collective.size() < medium->collective.size());
    }
};

QTEST_MAIN(TestCollectiveAttribution)
#include "tst_collectiveattribution.moc"
