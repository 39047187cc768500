// The step axis (widgets/chart/StepAxis): which steps get a tick for a visible range and a
// pixel width, on made-up steps whose ticks are worked out by hand and on the real H200
// captures (the single-rank run's warm-up to train and train to eval, and a DDP rank across an
// epoch whose step count restarts). The expected counts of the real rows were worked out from
// the JSON lines with Python (step starts from the phase_enter records, stride by the rule
// below), not by this code.
#include "model/trace/TraceLoader.h"
#include "widgets/chart/StepAxis.h"

#include <QSet>
#include <QTest>

using namespace gapscope;

namespace {

// (epoch or -1, step) of each step
using StepNumbers = QList<QPair<int, int>>;

const QString kSteps = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/steps/");

// steps given as (epoch or -1, step), each 10 ns long starting 10 ns after the one before
StepIndex madeUp(const StepNumbers& numbers)
{
    std::vector<PhaseSpan> spans;
    for (int i = 0; i < numbers.size(); ++i) {
        PhaseSpan span;
        span.name = "train";
        span.startNs = 10 * i;
        span.endNs = 10 * i + 9;
        span.attributesJson = numbers[i].first < 0
                                  ? "{\"step\":" + std::to_string(numbers[i].second) + "}"
                                  : "{\"epoch\":" + std::to_string(numbers[i].first) +
                                        ",\"step\":" + std::to_string(numbers[i].second) + "}";
        spans.push_back(span);
    }
    return StepIndex(spans);
}

StepNumbers plainSteps(int count)
{
    StepNumbers numbers;
    for (int i = 0; i < count; ++i)
        numbers << QPair<int, int>(-1, i);
    return numbers;
}

QStringList labelsOf(const StepIndex& steps, const StepAxisTicks& ticks)
{
    return stepTickLabels(steps, ticks.ticks);
}

} // namespace

class TestStepAxis : public QObject
{
    Q_OBJECT
private slots:
    void madeUpSteps_data()
    {
        QTest::addColumn<StepNumbers>("numbers");
        QTest::addColumn<qint64>("beginNs");
        QTest::addColumn<qint64>("endNs");
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("spacing");
        QTest::addColumn<qint64>("stride");
        QTest::addColumn<QStringList>("labels");
        const StepNumbers hundred = plainSteps(100);
        QStringList fives, tens;
        for (int s = 0; s < 100; s += 5)
            fives << QString::number(s);
        for (int s = 0; s < 100; s += 10)
            tens << QString::number(s);
        // 100 steps, at most 1000 / 40 = 25 ticks: 1 gives 100, 2 gives 50, 5 gives 20
        QTest::newRow("100 steps, 1000 px")
            << hundred << qint64(0) << qint64(999) << 1000.0 << 40.0 << qint64(5) << fives;
        // at most 10 ticks: every 10th step, 40.0 px apart
        QTest::newRow("100 steps, 400 px")
            << hundred << qint64(0) << qint64(999) << 400.0 << 40.0 << qint64(10) << tens;
        QTest::newRow("100 steps, 100 px")
            << hundred << qint64(0) << qint64(999) << 100.0 << 40.0 << qint64(50) << QStringList{"0", "50"};
        // zoomed in on steps 20-30: every step
        QStringList twentyToThirty;
        for (int s = 20; s <= 30; ++s)
            twentyToThirty << QString::number(s);
        QTest::newRow("zoomed to 11 steps")
            << hundred << qint64(200) << qint64(300) << 1000.0 << 40.0 << qint64(1) << twentyToThirty;
        // inside one step: no step begins in the range
        QTest::newRow("inside one step")
            << hundred << qint64(201) << qint64(208) << 1000.0 << 40.0 << qint64(0) << QStringList{};
        QTest::newRow("no steps") << StepNumbers{} << qint64(0) << qint64(999) << 1000.0 << 40.0 << qint64(0)
                                  << QStringList{};
        // three epochs of steps 0-6, the count restarting: at most 10 ticks; stride 1 gives 21,
        // 2 gives 12 (0, 2, 4, 6 per epoch), 5 gives 6 (0 and 5 per epoch), at pixels 0, 250,
        // 350, 600, 700, 950 of 1000 over 0-200 ns
        StepNumbers epochs;
        for (int e = 1; e <= 3; ++e)
            for (int s = 0; s < 7; ++s)
                epochs << QPair<int, int>(e, s);
        QTest::newRow("epochs") << epochs << qint64(0) << qint64(200) << 1000.0 << 100.0 << qint64(5)
                                << QStringList{"epoch 1", "5", "epoch 2", "5", "epoch 3", "5"};
        // 120 px apart: an epoch's first step 100 px after step 5 of the epoch before takes
        // its place
        QTest::newRow("epochs, labels wider")
            << epochs << qint64(0) << qint64(200) << 1000.0 << 120.0 << qint64(5)
            << QStringList{"epoch 1", "epoch 2", "epoch 3", "5"};
        // a step count that runs on across epochs names no epoch
        StepNumbers runningOn;
        for (int i = 0; i < 20; ++i)
            runningOn << QPair<int, int>(i / 10, i);
        QTest::newRow("epochs, count runs on")
            << runningOn << qint64(0) << qint64(199) << 1000.0 << 100.0 << qint64(2)
            << QStringList{"0", "2", "4", "6", "8", "10", "12", "14", "16", "18"};
    }
    void madeUpSteps()
    {
        QFETCH(StepNumbers, numbers);
        QFETCH(qint64, beginNs);
        QFETCH(qint64, endNs);
        QFETCH(double, width);
        QFETCH(double, spacing);
        QFETCH(qint64, stride);
        QFETCH(QStringList, labels);
        const StepIndex steps = madeUp(numbers);
        const StepAxisTicks ticks = stepAxisTicks(steps, TimeAxis{beginNs, endNs, 0, width}, spacing);
        QCOMPARE(qint64(ticks.stride), stride);
        QCOMPARE(labelsOf(steps, ticks), labels);
        for (const StepTick& tick : ticks.ticks)
            QCOMPARE(tick.ns, steps.steps()[tick.index].startNs); // at a step boundary
    }

    // Steps of uneven length (the warm-up's longer than the evaluation's): the first 10 take
    // 30 ns, the next 30 take 10 ns, over 600 px (1 px per ns), labels 25 px apart. Stride 2
    // gives 20 ticks (at most 24 fit) but puts two ticks 20 px apart among the short steps;
    // stride 5 gives 8 ticks at least 50 px apart: every label regular, none left out.
    void unevenSteps()
    {
        std::vector<PhaseSpan> spans;
        int64_t start = 0;
        for (int i = 0; i < 40; ++i) {
            PhaseSpan span;
            span.startNs = start;
            span.endNs = start + (i < 10 ? 29 : 9);
            span.attributesJson = "{\"step\":" + std::to_string(i) + "}";
            start = span.endNs + 1;
            spans.push_back(span);
        }
        const StepIndex steps(spans);
        const StepAxisTicks ticks = stepAxisTicks(steps, TimeAxis{0, 600, 0, 600}, 25.0);
        QCOMPARE(qint64(ticks.stride), qint64(5));
        QCOMPARE(labelsOf(steps, ticks), (QStringList{"0", "5", "10", "15", "20", "25", "30", "35"}));
    }

    void realCaptures_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("spacing");
        QTest::addColumn<qint64>("stride");
        QTest::addColumn<int>("tickCount");
        QTest::addColumn<QString>("firstLabel");
        QTest::addColumn<QString>("lastLabel");
        // 47 steps (127-173) in 1200 px, 40 px apart: at most 30 ticks, every 2nd step gives 23
        QTest::newRow("truth, warm-up to train")
            << kSteps + "truth_warmup_to_train.jsonl" << 1200.0 << 40.0 << qint64(2) << 23 << "128"
            << "172";
        QTest::newRow("truth, train to eval")
            << kSteps + "truth_train_to_eval.jsonl" << 1200.0 << 40.0 << qint64(2) << 23 << "728"
            << "772";
        // narrower: at most 7 ticks; every 10th step gives 5 (130-170)
        QTest::newRow("truth, warm-up to train, 300 px")
            << kSteps + "truth_warmup_to_train.jsonl" << 300.0 << 40.0 << qint64(10) << 5 << "130"
            << "170";
        // 19 steps across the epoch change, each its own tick, named with its epoch
        QTest::newRow("ddp rank 2 across an epoch")
            << kSteps + "ddp_rank2_epoch_change.jsonl" << 1200.0 << 40.0 << qint64(1) << 19 << "epoch 1 · 52"
            << "10";
    }
    void realCaptures()
    {
        QFETCH(QString, path);
        QFETCH(double, width);
        QFETCH(double, spacing);
        QFETCH(qint64, stride);
        QFETCH(int, tickCount);
        QFETCH(QString, firstLabel);
        QFETCH(QString, lastLabel);
        const LoadOutcome loaded = loadTrace(path);
        QVERIFY(loaded.data && !loaded.data->partitions.empty());
        const StepIndex steps(loaded.data->phasesOf(loaded.data->partitions.front()));
        QVERIFY(!steps.empty());
        const TimeAxis axis{steps.steps().front().startNs, steps.steps().back().endNs, 0, width};
        const StepAxisTicks ticks = stepAxisTicks(steps, axis, spacing);
        QCOMPARE(qint64(ticks.stride), stride);
        QCOMPARE(int(ticks.ticks.size()), tickCount);
        const QStringList labels = labelsOf(steps, ticks);
        QCOMPARE(labels.front(), firstLabel);
        QCOMPARE(labels.back(), lastLabel);
        // never two labels closer than the spacing asked for
        for (size_t k = 1; k < ticks.ticks.size(); ++k)
            QVERIFY(axis.toPixel(ticks.ticks[k].ns) - axis.toPixel(ticks.ticks[k - 1].ns) >= spacing);
    }
};

QTEST_GUILESS_MAIN(TestStepAxis)
#include "tst_stepaxis.moc"
