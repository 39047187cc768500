// measureGapRange over the first samples of the drift parity fixture, against values worked
// out by hand from its lines (gap = device_used_bytes - allocator_reserved_bytes):
//   t (s from 1796000000.0)  0.1         0.2         0.3         0.4         0.5         0.6
//   gap (bytes)              1560682765  1654858774  1674756442  1720953182  1605707639  1692851198
// Slopes are least squares over the samples in the span, x in seconds:
//   0.1..0.4: mean x 0.15, Sxx 0.05, Sxy 0.15 * 160270417 + 0.05 * 19897668 = 25035445.95
//             -> 500708919 B/s
//   0.2..0.3: two samples, 19897668 / 0.1 = 198976680 B/s
//   0.4..0.6: Sxx 0.02, Sxy 0.1 * (1692851198 - 1720953182) = -2810198.4 -> -140509920 B/s
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
};

QTEST_GUILESS_MAIN(TestRangeMeasurement)
#include "tst_rangemeasurement.moc"
