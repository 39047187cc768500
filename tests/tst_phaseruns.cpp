// Navigation by phase name (analysis/PhaseRuns): Next and Previous Phase Kind on the real H200
// captures. The single-rank run has one top-level phase per step (warmup, then train, then
// eval); the DDP rank nests batch > forward, backward, optimizer_step under an epoch, with
// epoch_loss_all_reduce at the epoch's end. A span is named by its phase name and its step
// attributes as the trace writes them.
#include "analysis/PhaseRuns.h"
#include "analysis/PhaseSteps.h"
#include "model/trace/TraceLoader.h"

#include <QTest>

using namespace gapscope;

namespace {

const QString kSteps = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/steps/");

std::vector<PhaseSpan> spansOf(const QString& path)
{
    const LoadOutcome loaded = loadTrace(path);
    if (!loaded.data || loaded.data->partitions.empty())
        return {};
    return loaded.data->phasesOf(loaded.data->partitions.front());
}

// "train 150", "batch 2:0" (epoch 2, step 0), "epoch 2" (an epoch attribute alone), "epoch_loss_all_reduce 1"
QString nameOf(const PhaseSpan& span)
{
    const auto epoch = integerAttribute(span.attributesJson, "epoch");
    const auto step = integerAttribute(span.attributesJson, "step");
    QString text = QString::fromStdString(span.name);
    if (epoch && step)
        return text + QStringLiteral(" %1:%2").arg(*epoch).arg(*step);
    if (step)
        return text + QStringLiteral(" %1").arg(*step);
    if (epoch)
        return text + QStringLiteral(" %1").arg(*epoch);
    return text;
}

std::optional<size_t> spanNamed(const std::vector<PhaseSpan>& spans, const QString& name)
{
    for (size_t i = 0; i < spans.size(); ++i)
        if (nameOf(spans[i]) == name)
            return i;
    return std::nullopt;
}

} // namespace

class TestPhaseRuns : public QObject
{
    Q_OBJECT
private slots:
    void step_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("from"); // empty: no current phase
        QTest::addColumn<int>("direction");
        QTest::addColumn<QString>("to"); // empty: none
        const QString warmup = kSteps + "truth_warmup_to_train.jsonl";
        const QString eval = kSteps + "truth_train_to_eval.jsonl";
        const QString ddp = kSteps + "ddp_rank2_epoch_change.jsonl";
        QTest::newRow("warm-up to train in one press") << warmup << "warmup 127" << 1 << "train 150";
        QTest::newRow("mid warm-up to train") << warmup << "warmup 140" << 1 << "train 150";
        QTest::newRow("nothing after train here") << warmup << "train 150" << 1 << "";
        QTest::newRow("no current: the first") << warmup << "" << 1 << "warmup 127";
        QTest::newRow("no current, back: the last run") << warmup << "" << -1 << "train 150";
        QTest::newRow("back to the run's start") << warmup << "train 160" << -1 << "train 150";
        QTest::newRow("back to the run before") << warmup << "train 150" << -1 << "warmup 127";
        QTest::newRow("nothing before warm-up here") << warmup << "warmup 127" << -1 << "";
        QTest::newRow("train to eval") << eval << "train 728" << 1 << "eval 750";
        QTest::newRow("last train to eval") << eval << "train 749" << 1 << "eval 750";
        QTest::newRow("eval back to its start") << eval << "eval 760" << -1 << "eval 750";
        // nested: the batches of an epoch are one run; the phases inside a batch do not split it
        QTest::newRow("batches to the epoch's end") << ddp << "batch 1:52" << 1 << "epoch_loss_all_reduce 1";
        QTest::newRow("epoch end to the next epoch") << ddp << "epoch_loss_all_reduce 1" << 1 << "epoch 2";
        QTest::newRow("inside a batch, by name") << ddp << "forward 1:53" << 1 << "backward 1:53";
        QTest::newRow("back to the epoch's first batch") << ddp << "batch 2:5" << -1 << "batch 2:0";
        QTest::newRow("back from the first batch") << ddp << "batch 2:0" << -1 << "epoch 2";
        QTest::newRow("back from an epoch") << ddp << "epoch 2" << -1 << "epoch_loss_all_reduce 1";
    }
    void step()
    {
        QFETCH(QString, path);
        QFETCH(QString, from);
        QFETCH(int, direction);
        QFETCH(QString, to);
        const std::vector<PhaseSpan> spans = spansOf(path);
        QVERIFY(!spans.empty());
        std::optional<size_t> current;
        if (!from.isEmpty()) {
            current = spanNamed(spans, from);
            QVERIFY2(current, qPrintable(from));
        }
        const std::optional<size_t> next = phaseRunStep(spans, current, direction);
        QCOMPARE(next ? nameOf(spans[*next]) : QString(), to);
    }

    void runOf_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("span");
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("last");
        QTest::addColumn<int>("count");
        // the cut holds warm-up steps 127-149 and train steps 150-173
        QTest::newRow("train") << kSteps + "truth_warmup_to_train.jsonl"
                               << "train 160"
                               << "train 150"
                               << "train 173" << 24;
        QTest::newRow("warm-up") << kSteps + "truth_warmup_to_train.jsonl"
                                 << "warmup 127"
                                 << "warmup 127"
                                 << "warmup 149" << 23;
        QTest::newRow("epoch 2's batches") << kSteps + "ddp_rank2_epoch_change.jsonl"
                                           << "batch 2:3"
                                           << "batch 2:0"
                                           << "batch 2:10" << 11;
        QTest::newRow("epoch 1's batches") << kSteps + "ddp_rank2_epoch_change.jsonl"
                                           << "batch 1:59"
                                           << "batch 1:52"
                                           << "batch 1:59" << 8;
    }
    void runOf()
    {
        QFETCH(QString, path);
        QFETCH(QString, span);
        QFETCH(QString, first);
        QFETCH(QString, last);
        QFETCH(int, count);
        const std::vector<PhaseSpan> spans = spansOf(path);
        const std::optional<size_t> index = spanNamed(spans, span);
        QVERIFY(index);
        const PhaseRun run = phaseRunOf(spans, *index);
        QCOMPARE(nameOf(spans[run.first]), first);
        QCOMPARE(nameOf(spans[run.last]), last);
        QCOMPARE(int(run.count), count);
    }

    void emptyAndMadeUp()
    {
        QVERIFY(!phaseRunStep({}, std::nullopt, 1));
        QVERIFY(!phaseRunStep({}, size_t(0), -1));
        // a, a, b, a at one depth: b is a run of its own between two runs of a
        std::vector<PhaseSpan> spans(4);
        const char* labels[] = {"a", "a", "b", "a"};
        for (size_t i = 0; i < spans.size(); ++i) {
            spans[i].label = labels[i];
            spans[i].depth = 1;
            spans[i].startNs = int64_t(10 * i);
            spans[i].endNs = int64_t(10 * i + 5);
        }
        QCOMPARE(phaseRunStep(spans, size_t(0), 1), std::optional<size_t>(2));
        QCOMPARE(phaseRunStep(spans, size_t(2), 1), std::optional<size_t>(3));
        QCOMPARE(phaseRunStep(spans, size_t(3), 1), std::nullopt);
        QCOMPARE(phaseRunStep(spans, size_t(3), -1), std::optional<size_t>(2));
        QCOMPARE(phaseRunStep(spans, size_t(2), -1), std::optional<size_t>(0));
        QCOMPARE(phaseRunStep(spans, size_t(1), -1), std::optional<size_t>(0));
        QCOMPARE(phaseRunStep(spans, size_t(0), 0), std::nullopt);
        QCOMPARE(phaseRunStep(spans, size_t(99), 1),
                 std::optional<size_t>(0)); // no such span: as without one
    }
};

QTEST_GUILESS_MAIN(TestPhaseRuns)
#include "tst_phaseruns.moc"
