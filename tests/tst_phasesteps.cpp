// Training steps from phase attributes (analysis/PhaseSteps): the attribute reader on the
// canonical text the loader writes and on malformed text, and the step index on the real H200
// captures: the single-rank run (one `step` per warmup/train/eval phase) and a rank of the
// 4-rank DDP job (torchrun's reference example: `epoch` and a `step` that restarts every epoch,
// carried by batch, forward, backward and optimizer_step, merged into one step).
#include "analysis/PhaseSteps.h"
#include "model/trace/TraceLoader.h"

#include <QTest>

using namespace gapscope;

namespace {

const QString kReal = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/");

StepIndex stepsOf(const QString& path)
{
    const LoadOutcome outcome = loadTrace(path);
    if (!outcome.data || outcome.data->partitions.empty())
        return {};
    return StepIndex(outcome.data->phasesOf(outcome.data->partitions.front()));
}

// JSON written with single quotes, which moc and the eye read more easily than escaped ones
QString j(const char* text)
{
    return QString::fromLatin1(text).replace(QLatin1Char('\''), QLatin1Char('"'));
}

} // namespace

class TestPhaseSteps : public QObject
{
    Q_OBJECT
private slots:
    void integerAttribute_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("key");
        QTest::addColumn<bool>("found");
        QTest::addColumn<qint64>("value");
        QTest::newRow("step") << j("{'step':620}") << "step" << true << qint64(620);
        QTest::newRow("epoch and step") << j("{'epoch':2,'step':30}") << "step" << true << qint64(30);
        QTest::newRow("epoch") << j("{'epoch':2,'step':30}") << "epoch" << true << qint64(2);
        QTest::newRow("spaces") << j(" { 'epoch' : 2 , 'step' : -3 } ") << "step" << true << qint64(-3);
        QTest::newRow("absent") << j("{'rank':0,'world_size':4}") << "step" << false << qint64(0);
        QTest::newRow("nested only") << j("{'inner':{'step':5},'x':[{'step':6}]}") << "step" << false
                                     << qint64(0);
        QTest::newRow("after nested") << j("{'inner':{'step':5},'step':7}") << "step" << true << qint64(7);
        QTest::newRow("key in a string")
            << j("{'name':'\\'step\\':9','step':8}") << "step" << true << qint64(8);
        QTest::newRow("fraction") << j("{'step':1.5}") << "step" << false << qint64(0);
        QTest::newRow("exponent") << j("{'step':1e3}") << "step" << false << qint64(0);
        QTest::newRow("string value") << j("{'step':'620'}") << "step" << false << qint64(0);
        QTest::newRow("null") << j("{'step':null}") << "step" << false << qint64(0);
        QTest::newRow("past int64") << j("{'step':99999999999999999999}") << "step" << false << qint64(0);
        QTest::newRow("empty object") << j("{}") << "step" << false << qint64(0);
        QTest::newRow("empty text") << ""
                                    << "step" << false << qint64(0);
        QTest::newRow("cut") << j("{'epoch':2,'st") << "step" << false << qint64(0);
        QTest::newRow("cut value") << j("{'epoch':{'a':") << "step" << false << qint64(0);
        QTest::newRow("array") << j("[1,2]") << "step" << false << qint64(0);
    }
    void integerAttribute()
    {
        QFETCH(QString, json);
        QFETCH(QString, key);
        QFETCH(bool, found);
        QFETCH(qint64, value);
        const std::string text = json.toStdString();
        const std::optional<int64_t> got = gapscope::integerAttribute(text, key.toStdString());
        QCOMPARE(got.has_value(), found);
        if (found)
            QCOMPARE(qint64(*got), value);
    }

    void labels_data()
    {
        QTest::addColumn<QStringList>("attributes"); // one span per entry, 10 ns long, 10 ns apart
        QTest::addColumn<qint64>("startNs");
        QTest::addColumn<qint64>("endNs");
        QTest::addColumn<QString>("label");
        const QStringList plain{j("{'step':0}"), j("{'step':1}"), j("{'step':2}"), j("{'step':3}")};
        QTest::newRow("one step") << plain << qint64(12) << qint64(15) << "step 1";
        QTest::newRow("range") << plain << qint64(5) << qint64(31) << "steps 0-3";
        QTest::newRow("between steps is the earlier") << plain << qint64(19) << qint64(19) << "step 1";
        QTest::newRow("before the first") << plain << qint64(-5) << qint64(12) << "steps 0-1";
        QTest::newRow("tail past the last") << plain << qint64(25) << qint64(1000) << "steps 2-3";
        QTest::newRow("all before") << plain << qint64(-9) << qint64(-1) << "";
        QTest::newRow("all after") << plain << qint64(500) << qint64(900) << "";
        QTest::newRow("around all") << plain << qint64(-9) << qint64(900) << "steps 0-3";
        const QStringList epochs{j("{'epoch':1,'step':0}"), j("{'epoch':1,'step':1}"),
                                 j("{'epoch':2,'step':0}"), j("{'epoch':2,'step':1}")};
        QTest::newRow("epoch named") << epochs << qint64(21) << qint64(21) << "epoch 2, step 0";
        QTest::newRow("epoch range") << epochs << qint64(20) << qint64(31) << "epoch 2, steps 0-1";
        QTest::newRow("across epochs")
            << epochs << qint64(11) << qint64(21) << "from epoch 1, step 1 to epoch 2, step 0";
        const QStringList oneEpoch{j("{'epoch':1,'step':0}"), j("{'epoch':1,'step':1}")};
        QTest::newRow("epoch not needed") << oneEpoch << qint64(11) << qint64(11) << "step 1";
        QTest::newRow("no steps") << QStringList{j("{'seq':64}"), ""} << qint64(0) << qint64(20) << "";
    }
    void labels()
    {
        QFETCH(QStringList, attributes);
        QFETCH(qint64, startNs);
        QFETCH(qint64, endNs);
        QFETCH(QString, label);
        std::vector<PhaseSpan> spans;
        for (int i = 0; i < attributes.size(); ++i) {
            PhaseSpan span;
            span.name = "train";
            span.startNs = 10 * i;
            span.endNs = 10 * i + 8;
            span.attributesJson = attributes[i].toStdString();
            spans.push_back(span);
        }
        const StepIndex index(spans);
        QCOMPARE(QString::fromStdString(index.rangeLabelAt(startNs, endNs)), label);
    }

    // The steps inside a range (a phase's): the time between two steps belongs to neither.
    void labelsWithin_data()
    {
        QTest::addColumn<qint64>("startNs"); // steps 0-3 at 10 ns apart, each 8 ns long
        QTest::addColumn<qint64>("endNs");
        QTest::addColumn<QString>("label");
        QTest::newRow("one step") << qint64(10) << qint64(18) << "step 1";
        QTest::newRow("from inside a step") << qint64(15) << qint64(31) << "steps 1-3";
        QTest::newRow("from between steps") << qint64(19) << qint64(31) << "steps 2-3";
        QTest::newRow("between two steps") << qint64(19) << qint64(19) << "";
        QTest::newRow("ends before a step begins") << qint64(0) << qint64(19) << "steps 0-1";
        QTest::newRow("around all") << qint64(-9) << qint64(900) << "steps 0-3";
        QTest::newRow("after all") << qint64(39) << qint64(900) << "";
        QTest::newRow("backwards") << qint64(31) << qint64(5) << "";
    }
    void labelsWithin()
    {
        QFETCH(qint64, startNs);
        QFETCH(qint64, endNs);
        QFETCH(QString, label);
        std::vector<PhaseSpan> spans;
        for (int i = 0; i < 4; ++i) {
            PhaseSpan span;
            span.startNs = 10 * i;
            span.endNs = 10 * i + 8;
            span.attributesJson = "{\"step\":" + std::to_string(i) + "}";
            spans.push_back(span);
        }
        const StepIndex index(spans);
        QCOMPARE(QString::fromStdString(index.rangeLabelWithin(startNs, endNs)), label);
    }

    void realCaptures_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("steps");
        QTest::addColumn<bool>("namesEpochs");
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("last");
        // the committed copies are cuts (tests/data/fixtures/real-gpu/README.md); the counts are
        // the distinct `step` attributes of each cut as Python's json module reads them
        QTest::newRow("single truth, first 400 records")
            << kReal + "single/truth/telemetry_sink" << 127 << false << "step 0"
            << "step 126";
        QTest::newRow("single truth around the spike")
            << kReal + "single/truth_spike/telemetry_sink" << 107 << false << "step 580"
            << "step 686";
        // (the cut begins with step 579's exit, whose enter is not in it: no span, no step)
        // torchrun's reference example restarts the step every epoch: the epoch is named
        QTest::newRow("ddp rank 2 across an epoch")
            << kReal + "steps/ddp_rank2_epoch_change.jsonl" << 19 << true << "epoch 1, step 52"
            << "epoch 2, step 10";
    }
    void realCaptures()
    {
        QFETCH(QString, path);
        QFETCH(int, steps);
        QFETCH(bool, namesEpochs);
        QFETCH(QString, first);
        QFETCH(QString, last);
        const StepIndex index = stepsOf(path);
        QCOMPARE(int(index.size()), steps);
        QCOMPARE(index.namesEpochs(), namesEpochs);
        QCOMPARE(QString::fromStdString(index.label(index.steps().front())), first);
        QCOMPARE(QString::fromStdString(index.label(index.steps().back())), last);
        for (size_t i = 1; i < index.size(); ++i) {
            QVERIFY(index.steps()[i - 1].startNs <= index.steps()[i].startNs);
            QVERIFY(index.steps()[i].startNs <= index.steps()[i].endNs);
        }
        // every step is found at its own start and middle, and the whole run counts every step
        for (const TrainingStep& step : index.steps()) {
            QCOMPARE(index.stepAt(step.startNs), &step);
            QCOMPARE(index.stepAt(step.startNs + (step.endNs - step.startNs) / 2), &step);
        }
        QCOMPARE(int(index.stepsBetween(index.steps().front().startNs, index.steps().back().endNs)), steps);
    }
};

QTEST_GUILESS_MAIN(TestPhaseSteps)
#include "tst_phasesteps.moc"
