// gapscope's own account of a gap finding beside upstream's numbers (analysis/GapEpisodes.h):
// the episodes of a transient_spike, the growth intervals of a persistent_drift and the steps
// they happened at. On the real H200 capture `single/truth` (a native leak of 96 MiB every 15
// steps from step 250 to 550, then one 3 GiB buffer outside the allocator for 12 steps at step
// 620), cut around the buffer and around the leak; on synthetic series without phases (times
// only); and in every report form that carries them.
#include "analysis/GapEpisodes.h"
#include "analysis/Notice.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <numeric>

using namespace gapscope;

namespace {

const QString kReal = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/single/");
constexpr int64_t kMiB = int64_t{1} << 20;

// The analysis of the trace's default (session, rank); gapRatio < 0: the default gate.
std::shared_ptr<const AnalysisResult> analyse(const QString& path, double gapRatio)
{
    const LoadOutcome outcome = loadTrace(path);
    if (!outcome.data)
        return nullptr;
    AnalysisRequest request;
    if (gapRatio >= 0)
        request.thresholds.gapRatio = gapRatio;
    return runAnalysis(outcome.data, request);
}

// The findings the analysis reports, or those below the ratio gate when it hides them.
const std::vector<Finding>& reported(const AnalysisResult& result)
{
    return result.findings.empty() ? result.belowGateFindings : result.findings;
}

const Finding* findingOf(const std::vector<Finding>& findings, Classification classification)
{
    for (const Finding& finding : findings)
        if (finding.classification == classification)
            return &finding;
    return nullptr;
}

// A gap series written as segments: "100*50" is 50 samples of 100 MiB, "100..1100*100" a ramp
// from 100 to 1100 MiB over 100 samples (both ends included).
std::vector<int64_t> series(const QString& spec)
{
    std::vector<int64_t> values;
    for (const QString& part : spec.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList valueAndCount = part.split(QLatin1Char('*'));
        const int count = valueAndCount.value(1).toInt();
        const QStringList ends = valueAndCount.value(0).split(QStringLiteral(".."));
        const double from = ends.value(0).toDouble();
        const double to = ends.size() > 1 ? ends.value(1).toDouble() : from;
        for (int i = 0; i < count; ++i) {
            const double value = count > 1 ? from + (to - from) * i / (count - 1) : from;
            values.push_back(int64_t(value * double(kMiB)));
        }
    }
    return values;
}

// Columns of a synthetic trace: every 20 ms, reserved 1 GiB, used = reserved + gap, on an H200.
struct Columns
{
    std::vector<int64_t> timestampNs, allocated, reserved, used, total;
    std::vector<uint32_t> rows;
    explicit Columns(const std::vector<int64_t>& gaps)
    {
        for (const int64_t gap : gaps) {
            rows.push_back(uint32_t(timestampNs.size()));
            timestampNs.push_back(1'796'404'901'000'000'000 + int64_t(timestampNs.size()) * 20'000'000);
            allocated.push_back(512 * kMiB);
            reserved.push_back(1024 * kMiB);
            used.push_back(1024 * kMiB + gap);
            total.push_back(int64_t{143771} * kMiB);
        }
    }
    GapInput input() const { return GapInput{timestampNs, allocated, reserved, used, total, rows}; }
    size_t indexOf(int64_t ns) const { return size_t((ns - timestampNs.front()) / 20'000'000); }
};

} // namespace

class TestGapEpisodes : public QObject
{
    Q_OBJECT
private slots:
    // The 3 GiB buffer at step 620 is one episode, whatever upstream's count of samples.
    void spikeEpisodeOnTheRealCapture_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<double>("gapRatio");
        QTest::newRow("around the buffer, gate lowered") << kReal + "truth_spike/telemetry_sink" << 0.01;
        QTest::newRow("around the buffer, below the default gate")
            << kReal + "truth_spike/telemetry_sink" << -1.0;
        QTest::newRow("steps 200-700, gate lowered") << kReal + "truth_leak/telemetry_sink" << 0.01;
        QTest::newRow("steps 200-700, below the default gate") << kReal + "truth_leak/telemetry_sink" << -1.0;
    }
    void spikeEpisodeOnTheRealCapture()
    {
        QFETCH(QString, path);
        QFETCH(double, gapRatio);
        const auto result = analyse(path, gapRatio);
        QVERIFY(result);
        // the default gate hides everything (4.01 % of the device): the below-gate findings get
        // the same account
        QCOMPARE(result->findings.empty(), gapRatio < 0);
        const Finding* spike = findingOf(reported(*result), Classification::TransientSpike);
        QVERIFY(spike);
        QCOMPARE(spike->episodes.size(), size_t(1));
        const SpikeEpisode& episode = spike->episodes.front();
        // the buffer lived from step 620 to 631; the samples (every 20 ms, ~1.5 steps) that saw
        // it were taken in steps 621 to 630
        QVERIFY(episode.startStep && episode.endStep);
        QCOMPARE(episode.startStep->step, 621);
        QCOMPARE(episode.endStep->step, 630);
        QVERIFY(!episode.startStep->epoch);
        QCOMPARE(episode.stepCount, size_t(10));
        QCOMPARE(episode.peakGapBytes, int64_t(6'021'775'360)); // 5.61 GiB, the capture's largest gap
        QCOMPARE(episode.samples, size_t(6));
        // upstream's count is unchanged and is the episode's spike samples
        QCOMPARE(double(episode.spikeSamples), spike->findEvidence("spike_count")->value);
        QCOMPARE(spike->findEvidence("max_gap_bytes")->value, double(episode.peakGapBytes));
        QVERIFY(spike->evidenceStep);
        QCOMPARE(spike->evidenceStep->step, 621);
        QVERIFY(spike->stepsKnown);
        const QString description = QString::fromStdString(spike->description);
        QVERIFY2(
            description.startsWith(QStringLiteral("One episode of 10 steps (steps 621-630), peak 5.61 GiB")),
            qPrintable(description));
        QVERIFY2(
            description.contains(QStringLiteral("upstream counts its 6 samples above the line as 6 transient "
                                                "spikes")),
            qPrintable(description));
        QVERIFY2(description.contains(QStringLiteral("It happened at step 621 during phase \"train\".")),
                 qPrintable(description));
    }

    // The leak grew from step 254 to 541 (what the device saw of 96 MiB every 15 steps from step
    // 250 to 535) and then stopped: one growth interval, in bytes per step, no rate per hour.
    void growthIntervalOnTheRealCapture_data()
    {
        QTest::addColumn<double>("gapRatio");
        QTest::newRow("gate lowered") << 0.01;
        QTest::newRow("below the default gate") << -1.0;
    }
    void growthIntervalOnTheRealCapture()
    {
        QFETCH(double, gapRatio);
        const auto result = analyse(kReal + "truth_leak/telemetry_sink", gapRatio);
        QVERIFY(result);
        const Finding* drift = findingOf(reported(*result), Classification::PersistentDrift);
        QVERIFY(drift);
        QCOMPARE(drift->growthIntervals.size(), size_t(1));
        const GrowthInterval& interval = drift->growthIntervals.front();
        QVERIFY(interval.startStep && interval.endStep);
        QCOMPARE(interval.startStep->step, 254); // the last sample before the first 96 MiB
        QCOMPARE(interval.endStep->step, 541);   // the first sample after the twentieth
        QCOMPARE(interval.growthBytes, 20 * 96 * kMiB);
        QVERIFY(!interval.stillGrowing);
        QCOMPARE(interval.stepCount, size_t(541 - 254 + 1));
        // the spike at step 620 is not growth, and upstream's evidence is as it was
        QCOMPARE(drift->findEvidence("gap_end_bytes")->value, double(2'800'549'888));
        const QString description = QString::fromStdString(drift->description);
        QVERIFY2(description.contains(QStringLiteral("grew 1.88 GiB from step 254 to step 541 (6.69 MiB per "
                                                     "step), then stopped.")),
                 qPrintable(description));
        QVERIFY2(!description.contains(QStringLiteral("per hour")), qPrintable(description));
    }

    // With default settings the truth run's findings are below the gate: the notice, which a
    // report shows first, names the buffer and the leak in steps, not only their classes.
    void belowGateNoticeNamesThem()
    {
        const auto result = analyse(kReal + "truth_leak/telemetry_sink", -1.0);
        QVERIFY(result);
        QVERIFY(result->findings.empty());
        const Notice* notice = findNotice(result->notices, notice_code::kBelowRatioGate);
        QVERIFY(notice);
        QVERIFY(notice->severity == NoticeSeverity::Info);
        const QString message = QString::fromStdString(notice->message);
        QVERIFY2(message.contains(QStringLiteral(" Below the gate: transient_spike: One episode of 10 steps "
                                                 "(steps 621-630), peak 5.61 GiB, of memory held outside")),
                 qPrintable(message));
        QVERIFY2(
            message.contains(QStringLiteral("persistent_drift: The memory held outside PyTorch's caching "
                                            "allocator grew 1.88 GiB from step 254 to step 541 (6.69 MiB "
                                            "per step), then stopped.")),
            qPrintable(message));
        const auto* leads = std::get_if<std::vector<std::string>>(notice->field("below_gate"));
        QVERIFY(leads);
        QCOMPARE(leads->size(), result->belowGateFindings.size());
    }

    // Synthetic series without phases: times only, no steps.
    void synthetic_data()
    {
        QTest::addColumn<QString>("gaps");
        QTest::addColumn<QString>("episodes"); // "first-last" sample indices, comma-separated
        QTest::addColumn<QString>("growth");   // "first-last:MiB" (+ "+" when still growing)
        QTest::newRow("flat") << "500*100"
                              << ""
                              << "";
        // one short buffer: an episode, and no growth (it is gone within the window)
        QTest::newRow("spike on a flat gap") << "100*100 3000*6 100*100"
                                             << "100-105"
                                             << "";
        // a plateau above the mean: the gap falls back to it between the two buffers, which
        // the mean (1.0 GiB here, below the plateau) would not see
        QTest::newRow("two buffers on a plateau") << "100*100 1000*200 4000*5 1000*40 4000*5 1000*100"
                                                  << "300-304,345-349"
                                                  << "99-100:900";
        // a dip that stays above half the spike line does not end the excursion
        QTest::newRow("dip still above the baseline") << "100*200 4000*3 900*2 4000*3 100*200"
                                                      << "200-207"
                                                      << "";
        // a staircase of 10 stairs of 100 MiB, 10 samples each, then flat: one interval
        QTest::newRow("staircase then flat")
            << "100*50 200*10 300*10 400*10 500*10 600*10 700*10 800*10 900*10 1000*10 1100*200"
            << ""
            << "49-140:1000";
        // upstream's rule finds spike samples at the top of a ramp: where they are is said
        QTest::newRow("ramp to the last sample") << "100*100 100..1100*100"
                                                 << "157-199"
                                                 << "100-199:1000+";
        QTest::newRow("rise, fall back, rise") << "100*100 1100*100 100*100 1100*100"
                                               << ""
                                               << "99-100:1000,299-300:1000";
    }
    void synthetic()
    {
        QFETCH(QString, gaps);
        QFETCH(QString, episodes);
        QFETCH(QString, growth);
        const Columns columns(series(gaps));
        const GapInput input = columns.input();
        const GapThresholds thresholds;
        const GapStatistics stats = computeGapStatistics(input, thresholds);

        QStringList gotEpisodes;
        size_t spikeSamples = 0;
        for (const SpikeEpisode& e : spikeEpisodes(input, thresholds, stats)) {
            gotEpisodes
                << QStringLiteral("%1-%2").arg(columns.indexOf(e.startNs)).arg(columns.indexOf(e.endNs));
            spikeSamples += e.spikeSamples;
            QVERIFY(!e.startStep && !e.endStep);
        }
        QCOMPARE(gotEpisodes.join(QLatin1Char(',')), episodes);
        QCOMPARE(spikeSamples, stats.spikeCount); // every spike sample is in an episode

        QStringList gotGrowth;
        for (const GrowthInterval& g : growthIntervals(input))
            gotGrowth << QStringLiteral("%1-%2:%3%4")
                             .arg(columns.indexOf(g.startNs))
                             .arg(columns.indexOf(g.endNs))
                             .arg(g.growthBytes / kMiB)
                             .arg(g.stillGrowing ? QStringLiteral("+") : QString());
        QCOMPARE(gotGrowth.join(QLatin1Char(',')), growth);

        // the findings of such a trace name no step, and say where in time instead
        std::vector<Finding> findings = analyzeGaps(input, thresholds, stats);
        addGapShape(findings, input, thresholds, stats, StepIndex());
        for (Finding& finding : findings) {
            QVERIFY(!finding.evidenceStep);
            QVERIFY(!finding.stepsKnown);
            applyText(finding, Backend::PyTorch);
            const QString description = QString::fromStdString(finding.description);
            QVERIFY2(!description.contains(QStringLiteral("step ")), qPrintable(description));
            if (finding.classification == Classification::PersistentDrift && !finding.growthIntervals.empty())
                QVERIFY2(description.contains(QStringLiteral("after the first sample")),
                         qPrintable(description));
            if (finding.classification == Classification::TransientSpike && finding.episodes.size() == 1)
                QVERIFY2(description.startsWith(QStringLiteral("One episode of ")), qPrintable(description));
        }
    }

    // Every report form names the steps, the episodes and the growth intervals.
    void reportForms()
    {
        const auto result = analyse(kReal + "truth_leak/telemetry_sink", 0.01);
        QVERIFY(result);
        const ReportContent content = buildReportContent(*result, false);

        const QJsonObject report = QJsonDocument::fromJson(reportJson(content)).object();
        const QJsonArray findings = report.value(QStringLiteral("gap_analysis")).toArray();
        QCOMPARE(findings.size(), 2);
        QJsonObject spike, drift;
        for (const QJsonValue& value : findings) {
            const QJsonObject finding = value.toObject();
            (finding.value(QStringLiteral("classification")).toString() == QStringLiteral("transient_spike")
                 ? spike
                 : drift) = finding;
        }
        QCOMPARE(
            spike.value(QStringLiteral("evidence_step")).toObject().value(QStringLiteral("step")).toInt(),
            621);
        const QJsonArray episodes = spike.value(QStringLiteral("episodes")).toArray();
        QCOMPARE(episodes.size(), 1);
        const QJsonObject episode = episodes.first().toObject();
        QCOMPARE(episode.value(QStringLiteral("start_step")).toInt(), 621);
        QCOMPARE(episode.value(QStringLiteral("end_step")).toInt(), 630);
        QCOMPARE(episode.value(QStringLiteral("step_count")).toInt(), 10);
        QCOMPARE(episode.value(QStringLiteral("peak_gap_bytes")).toDouble(), 6'021'775'360.0);
        QVERIFY(episode.value(QStringLiteral("start_ns")).toDouble() <
                episode.value(QStringLiteral("end_ns")).toDouble());
        QVERIFY(!spike.contains(QStringLiteral("growth_intervals")));
        // upstream's keys are upstream's
        QCOMPARE(
            spike.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("spike_count")).toInt(),
            6);
        const QJsonArray intervals = drift.value(QStringLiteral("growth_intervals")).toArray();
        QCOMPARE(intervals.size(), 1);
        const QJsonObject interval = intervals.first().toObject();
        QCOMPARE(interval.value(QStringLiteral("start_step")).toInt(), 254);
        QCOMPARE(interval.value(QStringLiteral("end_step")).toInt(), 541);
        QCOMPARE(interval.value(QStringLiteral("growth_bytes")).toDouble(), double(20 * 96 * kMiB));
        QCOMPARE(interval.value(QStringLiteral("still_growing")).toBool(), false);
        QVERIFY(!drift.contains(QStringLiteral("episodes")));

        const QString text = reportText(content);
        QVERIFY2(text.contains(QStringLiteral("(step 621)  phase train")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("  Episodes:\n    steps 621-630 (")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("  Growth intervals:\n    steps 254-541 (")), qPrintable(text));
        const QString markdown = reportMarkdown(content);
        QVERIFY2(markdown.contains(QStringLiteral("- Step: step 621\n")), qPrintable(markdown));
        // (the numbers' escaping is the Markdown writer's: only the prefix is looked at)
        QVERIFY2(markdown.contains(QStringLiteral("**Growth intervals**\n\n- steps 254")),
                 qPrintable(markdown));
        const QString html = reportHtml(content);
        QVERIFY(html.contains(QStringLiteral("<span>Step <strong>step 621</strong></span>")));
        QVERIFY(html.contains(QStringLiteral("<h4>Episodes</h4>\n<ul>\n<li>steps 621-630 (")));
    }
};

QTEST_GUILESS_MAIN(TestGapEpisodes)
#include "tst_gapepisodes.moc"
