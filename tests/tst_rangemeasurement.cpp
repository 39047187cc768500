// measureGapRange over the first samples of the drift parity fixture, against values worked
// out by hand from its lines (gap = device_used_bytes - allocator_reserved_bytes):
//   t (s from 1796000000.0)  0.1         0.2         0.3         0.4         0.5         0.6
//   gap (bytes)              1560682765  1654858774  1674756442  1720953182  1605707639  1692851198
// Slopes are least squares over the samples in the span, x in seconds:
//   0.1..0.4: mean x 0.15, Sxx 0.05, Sxy 0.15 * 160270417 + 0.05 * 19897668 = 25035445.95
//             -> 500708919 B/s
//   0.2..0.3: two samples, 19897668 / 0.1 = 198976680 B/s
//   0.4..0.6: Sxx 0.02, Sxy 0.1 * (1692851198 - 1720953182) = -2810198.4 -> -140509920 B/s
#include "analysis/PhaseSteps.h"
#include "analysis/RangeMeasurement.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace gapscope;

namespace {

constexpr int64_t kOrigin = 1796000000000000000; // the fixture's start event
constexpr int64_t kMs = 1000000;

qint64 at(qint64 ms)
{
    return kOrigin + ms * kMs;
}

} // namespace

class TestRangeMeasurement : public QObject
{
    Q_OBJECT

    std::shared_ptr<const AnalysisResult> m_result;

private slots:
    void initTestCase()
    {
        const LoadOutcome loaded =
            loadTrace(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl"));
        QVERIFY(loaded.data);
        m_result = runAnalysis(loaded.data, AnalysisRequest{});
        QVERIFY(m_result);
        QCOMPARE(m_result->usableRows.size(), size_t(300));
    }

    void measuresSpan_data()
    {
        QTest::addColumn<qint64>("beginNs");
        QTest::addColumn<qint64>("endNs");
        QTest::addColumn<int>("samples");
        QTest::addColumn<qint64>("startGap");
        QTest::addColumn<qint64>("endGap");
        QTest::addColumn<qint64>("deltaGap");
        QTest::addColumn<qint64>("minGap");
        QTest::addColumn<qint64>("maxGap");
        QTest::addColumn<bool>("hasSlope");
        QTest::addColumn<double>("slope");

        QTest::newRow("four samples, edges on samples")
            << at(100) << at(400) << 4 << qint64(1560682765) << qint64(1720953182) << qint64(160270417)
            << qint64(1560682765) << qint64(1720953182) << true << 500708919.0;
        QTest::newRow("dragged backwards")
            << at(400) << at(100) << 4 << qint64(1560682765) << qint64(1720953182) << qint64(160270417)
            << qint64(1560682765) << qint64(1720953182) << true << 500708919.0;
        QTest::newRow("edges between samples")
            << at(150) << at(350) << 2 << qint64(1654858774) << qint64(1674756442) << qint64(19897668)
            << qint64(1654858774) << qint64(1674756442) << true << 198976680.0;
        QTest::newRow("minimum inside, falling")
            << at(400) << at(600) << 3 << qint64(1720953182) << qint64(1692851198) << qint64(-28101984)
            << qint64(1605707639) << qint64(1720953182) << true << -140509920.0;
        QTest::newRow("one sample: no slope")
            << at(450) << at(550) << 1 << qint64(1605707639) << qint64(1605707639) << qint64(0)
            << qint64(1605707639) << qint64(1605707639) << false << 0.0;
    }

    void measuresSpan()
    {
        QFETCH(qint64, beginNs);
        QFETCH(qint64, endNs);
        QFETCH(int, samples);
        QFETCH(qint64, startGap);
        QFETCH(qint64, endGap);
        QFETCH(qint64, deltaGap);
        QFETCH(qint64, minGap);
        QFETCH(qint64, maxGap);
        QFETCH(bool, hasSlope);
        QFETCH(double, slope);

        const std::optional<RangeMeasurement> m = measureGapRange(m_result->gapInput(), beginNs, endNs);
        QVERIFY(m);
        QCOMPARE(m->beginNs, std::min(beginNs, endNs));
        QCOMPARE(m->endNs, std::max(beginNs, endNs));
        QCOMPARE(m->durationNs, std::abs(endNs - beginNs));
        QCOMPARE(int(m->sampleCount), samples);
        QCOMPARE(m->startGapBytes, startGap);
        QCOMPARE(m->endGapBytes, endGap);
        QCOMPARE(m->deltaGapBytes, deltaGap);
        QCOMPARE(m->minGapBytes, minGap);
        QCOMPARE(m->maxGapBytes, maxGap);
        QCOMPARE(m->slopeBytesPerSecond.has_value(), hasSlope);
        if (hasSlope) // to a byte per second of hand-computed values in the hundreds of millions
            QVERIFY2(std::abs(*m->slopeBytesPerSecond - slope) < 1.0,
                     qPrintable(QString::number(*m->slopeBytesPerSecond, 'f', 3)));
    }

    void emptySpans_data()
    {
        QTest::addColumn<qint64>("beginNs");
        QTest::addColumn<qint64>("endNs");
        QTest::newRow("between two samples") << at(420) << at(480);
        QTest::newRow("before the first sample") << at(0) << at(50);
        QTest::newRow("after the last sample") << at(30001) << at(40000);
    }

    void emptySpans()
    {
        QFETCH(qint64, beginNs);
        QFETCH(qint64, endNs);
        QVERIFY(!measureGapRange(m_result->gapInput(), beginNs, endNs));
    }

    void wholeRunMatchesTheDriftFit()
    {
        // over every sample the least-squares slope is the drift analysis' own regression
        const GapInput input = m_result->gapInput();
        const auto m =
            measureGapRange(input, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        QVERIFY(m && m->slopeBytesPerSecond);
        QCOMPARE(m->sampleCount, size_t(300));
        QCOMPARE(m->durationNs, std::numeric_limits<int64_t>::max()); // saturated, not wrapped
        const double perNs = m_result->statistics.slopePerNs;
        QVERIFY2(std::abs(*m->slopeBytesPerSecond - perNs * 1e9) <= 1e-6 * std::abs(perNs * 1e9),
                 qPrintable(QStringLiteral("%1 vs %2").arg(*m->slopeBytesPerSecond).arg(perNs * 1e9)));
    }

    // The steps under a measured span on the real H200 captures (tests/data/fixtures/real-gpu/
    // README.md): the single-rank run during its native leak, 96 MiB outside the allocator every
    // 15 steps (6.4 MiB per step), and a DDP rank across an epoch whose step count restarts. The
    // span runs from the start of one step to the end of another.
    void steps_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("fromEpoch"); // -1: none
        QTest::addColumn<int>("fromStep");
        QTest::addColumn<int>("toEpoch");
        QTest::addColumn<int>("toStep");
        QTest::addColumn<QString>("label");
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("perStepMiB"); // 0: not checked; else within 10 %
        const QString real = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/steps/");
        QTest::newRow("the leak, steps 250-310") << real + "truth_leak_steps_250_310.jsonl" << -1 << 250 << -1
                                                 << 310 << "steps 250-310" << 61 << 96.0 / 15.0;
        QTest::newRow("one step") << real + "truth_leak_steps_250_310.jsonl" << -1 << 271 << -1 << 271
                                  << "step 271" << 1 << 0.0;
        QTest::newRow("across an epoch") << real + "ddp_rank2_epoch_change.jsonl" << 1 << 58 << 2 << 2
                                         << "from epoch 1, step 58 to epoch 2, step 2" << 5 << 0.0;
        QTest::newRow("within an epoch")
            << real + "ddp_rank2_epoch_change.jsonl" << 2 << 3 << 2 << 9 << "epoch 2, steps 3-9" << 7 << 0.0;
    }
    void steps()
    {
        QFETCH(QString, path);
        QFETCH(int, fromEpoch);
        QFETCH(int, fromStep);
        QFETCH(int, toEpoch);
        QFETCH(int, toStep);
        QFETCH(QString, label);
        QFETCH(int, count);
        QFETCH(double, perStepMiB);
        const LoadOutcome loaded = loadTrace(path);
        QVERIFY(loaded.data);
        const auto result = runAnalysis(loaded.data, AnalysisRequest{});
        QVERIFY(result);
        const StepIndex steps(result->phases);
        const auto find = [&](int epoch, int step) -> const TrainingStep* {
            for (const TrainingStep& s : steps.steps())
                if (s.step == step && (epoch < 0 || s.epoch == std::optional<int64_t>(epoch)))
                    return &s;
            return nullptr;
        };
        const TrainingStep* from = find(fromEpoch, fromStep);
        const TrainingStep* to = find(toEpoch, toStep);
        QVERIFY(from && to);
        const auto m = measureGapRange(result->gapInput(), from->startNs, to->endNs, &steps);
        QVERIFY(m && m->steps);
        QCOMPARE(QString::fromStdString(m->steps->label), label);
        QCOMPARE(int(m->steps->count), count);
        QCOMPARE(m->steps->gapBytesPerStep.has_value(), count >= 2 && m->slopeBytesPerSecond.has_value());
        if (perStepMiB > 0) {
            QVERIFY(m->steps->gapBytesPerStep);
            const double got = *m->steps->gapBytesPerStep / (1024.0 * 1024.0);
            QVERIFY2(std::abs(got - perStepMiB) <= 0.1 * perStepMiB,
                     qPrintable(QStringLiteral("%1 MiB per step").arg(got)));
        }
        // without steps, none named
        QVERIFY(!measureGapRange(result->gapInput(), from->startNs, to->endNs)->steps);
    }
};

QTEST_GUILESS_MAIN(TestRangeMeasurement)
#include "tst_rangemeasurement.moc"
