#include "model/items/PhasesModel.h"
#include "model/trace/TraceLoader.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int64_t kOrigin = 1'000'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

PhaseSpan makeSpan(const std::string& scope, std::optional<std::string> parent, std::vector<std::string> path,
                   int64_t startS, int64_t endS, bool synthetic = false)
{
    PhaseSpan s;
    s.sessionId = "s";
    s.scopeId = scope;
    s.parentScopeId = std::move(parent);
    s.name = path.back();
    s.path = path;
    std::string label;
    for (const auto& p : path)
        label += (label.empty() ? "" : " / ") + p;
    s.label = label;
    s.depth = int64_t(path.size());
    s.threadId = 1;
    s.threadName = "MainThread";
    s.startNs = kOrigin + startS * kSecond;
    s.endNs = kOrigin + endS * kSecond;
    s.syntheticEnd = synthetic;
    return s;
}

// train [0, 10] { step A [1, 4], step B [5, 9] }, evaluate [11, 20] (never exited)
std::vector<PhaseSpan> standardSpans()
{
    return {makeSpan("s:0", std::nullopt, {"train"}, 0, 10), makeSpan("s:1", "s:0", {"train", "step"}, 1, 4),
            makeSpan("s:2", "s:0", {"train", "step"}, 5, 9),
            makeSpan("s:3", std::nullopt, {"evaluate"}, 11, 20, true)};
}

std::shared_ptr<AnalysisResult> makeResult(std::vector<PhaseSpan> spans, std::vector<Finding> findings = {})
{
    auto trace = std::make_shared<TraceData>();
    trace->store.timestampNs = {kOrigin, kOrigin + 20 * kSecond};
    Partition partition;
    partition.end = 2;
    auto result = std::make_shared<AnalysisResult>();
    result->trace = trace;
    result->partition = partition;
    result->phases = std::move(spans);
    result->findings = std::move(findings);
    return result;
}

Finding uniqueFinding(int64_t atS, const std::string& scope, const std::string& path)
{
    Finding f;
    f.evidenceTimestampNs = kOrigin + atS * kSecond;
    PhaseAttribution a;
    a.phasePaths = {path};
    a.phasePath = path;
    a.scopeId = scope;
    f.phase = a;
    return f;
}

} // namespace

class TestPhasesModel : public QObject
{
    Q_OBJECT
private slots:
    void tree()
    {
        PhasesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(makeResult(standardSpans()));
        QCOMPARE(model.rowCount(), 2);
        const QModelIndex train = model.index(0, 0);
        const QModelIndex evaluate = model.index(1, 0);
        QCOMPARE(train.data().toString(), QStringLiteral("train"));
        QCOMPARE(evaluate.data().toString(), QStringLiteral("evaluate"));
        // the two steps of train are one group row that lists them
        QCOMPARE(model.rowCount(train), 1);
        QCOMPARE(model.rowCount(evaluate), 0);
        const QModelIndex steps = model.index(0, 0, train);
        QVERIFY(model.isGroup(steps));
        QVERIFY(!model.isGroup(train));
        QCOMPARE(model.spanAt(steps), nullptr);
        QCOMPARE(model.rowCount(steps), 2);
        const QModelIndex stepB = model.index(1, 0, steps);
        QCOMPARE(stepB.data(PhasesModel::PathRole).toString(), QStringLiteral("train / step"));
        QCOMPARE(stepB.data(PhasesModel::SpanIndexRole).toInt(), 2);
        QCOMPARE(model.parent(stepB), steps);
        QCOMPARE(model.parent(steps), train);
        QCOMPARE(model.indexOfSpan(2), stepB);
        QCOMPARE(model.index(1, PhasesModel::StartColumn, steps).data().toString(),
                 QStringLiteral("+5.000 s"));
        QCOMPARE(model.index(1, PhasesModel::DurationColumn, steps).data().toString(),
                 QStringLiteral("4.000 s"));
        QCOMPARE(model.index(1, PhasesModel::ThreadColumn, steps).data().toString(),
                 QStringLiteral("MainThread"));
        QCOMPARE(model.index(1, PhasesModel::CountColumn, steps).data().toString(), QString());
        QCOMPARE(stepB.data(PhasesModel::StartNsRole).toLongLong(), kOrigin + 5 * kSecond);
        QCOMPARE(stepB.data(PhasesModel::EndNsRole).toLongLong(), kOrigin + 9 * kSecond);
        QCOMPARE(model.index(1, PhasesModel::SyntheticEndColumn).data().toString(), QStringLiteral("yes"));
        QCOMPARE(model.index(0, PhasesModel::SyntheticEndColumn).data().toString(), QString());
        QCOMPARE(model.spanCount(), size_t(4));
    }

    // Repeated sibling phases become one row: count, total, mean and longest duration; it
    // expands to the occurrences; a phase that occurs once stays a plain row.
    void groupsRepeatedPhases_data()
    {
        QTest::addColumn<int>("steps");
        QTest::addColumn<QList<int>>("durationsS"); // of the steps, cycled
        QTest::addColumn<QString>("total");
        QTest::addColumn<QString>("mean");
        QTest::addColumn<QString>("longest");

        QTest::newRow("one step: no group") << 1 << QList<int>{3} << QString() << QString() << QString();
        QTest::newRow("two steps") << 2 << QList<int>{1, 3} << "4.000 s"
                                   << "2.000 s"
                                   << "3.000 s";
        QTest::newRow("64 steps (cpu_phases)") << 64 << QList<int>{1, 1, 1, 5} << "128.000 s"
                                               << "2.000 s"
                                               << "5.000 s";
    }

    void groupsRepeatedPhases()
    {
        QFETCH(int, steps);
        QFETCH(QList<int>, durationsS);
        QFETCH(QString, total);
        QFETCH(QString, mean);
        QFETCH(QString, longest);
        std::vector<PhaseSpan> spans{makeSpan("t", std::nullopt, {"warmup"}, 0, 1)};
        spans.push_back(makeSpan("train", std::nullopt, {"train"}, 1, 1000));
        int64_t at = 2;
        for (int i = 0; i < steps; ++i) {
            const int d = durationsS[i % durationsS.size()];
            spans.push_back(makeSpan("step" + std::to_string(i), "train", {"train", "step"}, at, at + d));
            at += d;
        }
        spans.push_back(makeSpan("eval", std::nullopt, {"evaluate"}, 1001, 1002));
        PhasesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(makeResult(spans));
        QCOMPARE(model.rowCount(), 3); // warmup, train, evaluate
        const QModelIndex train = model.index(1, 0);
        QCOMPARE(model.rowCount(train), 1); // the step row, grouped or not
        const QModelIndex row = model.index(0, 0, train);
        QCOMPARE(model.spanCount(), spans.size());
        if (steps == 1) {
            QVERIFY(!model.isGroup(row));
            QCOMPARE(model.rowCount(row), 0);
            QCOMPARE(row.data(PhasesModel::OccurrenceCountRole).toInt(), 1);
            return;
        }
        QVERIFY(model.isGroup(row));
        QCOMPARE(row.data().toString(), QStringLiteral("step"));
        QCOMPARE(row.data(PhasesModel::OccurrenceCountRole).toInt(), steps);
        QCOMPARE(model.index(0, PhasesModel::CountColumn, train).data().toString(),
                 QStringLiteral("×%1").arg(steps));
        QCOMPARE(model.index(0, PhasesModel::DurationColumn, train).data().toString(), total);
        QCOMPARE(model.index(0, PhasesModel::MeanColumn, train).data().toString(), mean);
        QCOMPARE(model.index(0, PhasesModel::MaxColumn, train).data().toString(), longest);
        QCOMPARE(model.index(0, PhasesModel::StartColumn, train).data().toString(),
                 QStringLiteral("+2.000 s"));
        QCOMPARE(row.data(PhasesModel::StartNsRole).toLongLong(), kOrigin + 2 * kSecond);
        QCOMPARE(row.data(PhasesModel::EndNsRole).toLongLong(), kOrigin + at * kSecond);
        QCOMPARE(row.data(PhasesModel::SpanIndexRole).toInt(), 2); // the first occurrence
        // expanded: every occurrence in start order, each a span with its own duration
        QCOMPARE(model.rowCount(row), steps);
        const std::vector<size_t> occurrences = model.occurrencesAt(row);
        QCOMPARE(occurrences.size(), size_t(steps));
        for (int i = 0; i < steps; ++i) {
            const QModelIndex occurrence = model.index(i, 0, row);
            QCOMPARE(model.spanAt(occurrence), &model.analysis()->phases[size_t(2 + i)]);
            QCOMPARE(occurrences[size_t(i)], size_t(2 + i));
            QCOMPARE(model.indexOfSpan(size_t(2 + i)), occurrence);
            QCOMPARE(model.index(i, PhasesModel::DurationColumn, row).data().toString(),
                     QStringLiteral("%1.000 s").arg(durationsS[i % durationsS.size()]));
        }
    }

    void findingMarks_data()
    {
        QTest::addColumn<int>("atSecond");
        QTest::addColumn<QString>("scope");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QList<int>>("expectedCounts"); // per span index

        QTest::newRow("exact scope") << 6 << "s:2"
                                     << "train / step" << QList<int>{0, 0, 1, 0};
        QTest::newRow("scope of the outer span") << 3 << "s:0"
                                                 << "train" << QList<int>{1, 0, 0, 0};
        // scope id unknown: fall back to the label among spans containing the time
        QTest::newRow("label fallback") << 2 << "gone"
                                        << "train / step" << QList<int>{0, 1, 0, 0};
        QTest::newRow("synthetic end span") << 15 << "s:3"
                                            << "evaluate" << QList<int>{0, 0, 0, 1};
        QTest::newRow("outside every span") << 10 << "nowhere"
                                            << "train / step" << QList<int>{0, 0, 0, 0};
    }

    void findingMarks()
    {
        QFETCH(int, atSecond);
        QFETCH(QString, scope);
        QFETCH(QString, path);
        QFETCH(QList<int>, expectedCounts);
        PhasesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(
            makeResult(standardSpans(), {uniqueFinding(atSecond, scope.toStdString(), path.toStdString())}));
        QList<int> counts;
        for (size_t i = 0; i < model.spanCount(); ++i) {
            counts << model.findingCount(i);
            QCOMPARE(model.indexOfSpan(i).data(PhasesModel::FindingCountRole).toInt(), model.findingCount(i));
        }
        QCOMPARE(counts, expectedCounts);
    }

    void ambiguousMarksEveryNamedSpan()
    {
        Finding f;
        f.evidenceTimestampNs = kOrigin + 2 * kSecond;
        PhaseAttribution a;
        a.resolution = PhaseResolution::Ambiguous;
        a.phasePaths = {"train", "train / step"};
        f.phase = a;
        const auto spans = standardSpans();
        QCOMPARE(PhasesModel::spansOfFinding(f, spans), (std::vector<size_t>{0, 1}));
        f.phase.reset();
        QVERIFY(PhasesModel::spansOfFinding(f, spans).empty());
    }

    void parentCycleIsShownTopLevel()
    {
        // a malformed trace: two spans naming each other as parent
        std::vector<PhaseSpan> spans{makeSpan("a", "b", {"a"}, 0, 1), makeSpan("b", "a", {"b"}, 2, 3),
                                     makeSpan("c", "missing", {"c"}, 4, 5)};
        PhasesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(makeResult(spans));
        int reachable = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                ++reachable;
                walk(model.index(r, 0, parent));
            }
        };
        walk({});
        QCOMPARE(reachable, 3);
    }

    void resetToEmpty()
    {
        PhasesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(makeResult(standardSpans()));
        QCOMPARE(model.rowCount(), 2);
        model.setAnalysis(nullptr);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.indexOfSpan(0).isValid());
        QVERIFY(model.spanAt(QModelIndex()) == nullptr);
    }

    // Issue 31: where the phases carry training steps, each row names the steps under it, on
    // the real H200 captures (tests/data/fixtures/real-gpu/README.md): the single-rank run's
    // one phase per step, grouped as "warmup ×23" and "train ×24", and a DDP rank's batches
    // under epoch 2, where the step count restarts.
    void stepsColumn_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QStringList>("rowPath"); // names of the rows from the top, as shown
        QTest::addColumn<QString>("count");
        QTest::addColumn<QString>("steps");
        const QString real = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/steps/");
        QTest::newRow("warm-up group")
            << real + "truth_warmup_to_train.jsonl" << QStringList{"warmup"} << "×23"
            << "steps 127-149";
        QTest::newRow("train group") << real + "truth_warmup_to_train.jsonl" << QStringList{"train"} << "×24"
                                     << "steps 150-173";
        QTest::newRow("eval group") << real + "truth_train_to_eval.jsonl" << QStringList{"eval"} << "×24"
                                    << "steps 750-773";
        // the epoch's batches, each with its own batch's forward, backward and optimizer step
        QTest::newRow("epoch 2") << real + "ddp_rank2_epoch_change.jsonl" << QStringList{"epoch"} << ""
                                 << "epoch 2, steps 0-10";
        // the all-reduce of epoch 1's loss runs between two steps: it holds none
        QTest::newRow("between two steps")
            << real + "ddp_rank2_epoch_change.jsonl" << QStringList{"epoch_loss_all_reduce"} << ""
            << "";
        QTest::newRow("epoch 2's batches")
            << real + "ddp_rank2_epoch_change.jsonl" << QStringList{"epoch", "batch"} << "×11"
            << "epoch 2, steps 0-10";
    }
    void stepsColumn()
    {
        QFETCH(QString, path);
        QFETCH(QStringList, rowPath);
        QFETCH(QString, count);
        QFETCH(QString, steps);
        const LoadOutcome loaded = loadTrace(path);
        QVERIFY(loaded.data);
        const auto result = runAnalysis(loaded.data, AnalysisRequest{});
        QVERIFY(result);
        PhasesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(result); // the model builds the steps itself when not given them
        QVERIFY(model.steps() && !model.steps()->empty());
        QModelIndex row;
        for (const QString& name : rowPath) {
            const QModelIndex parent = row;
            row = {};
            for (int r = 0; r < model.rowCount(parent) && !row.isValid(); ++r)
                if (model.index(r, PhasesModel::NameColumn, parent).data().toString() == name)
                    row = model.index(r, PhasesModel::NameColumn, parent);
            QVERIFY2(row.isValid(), qPrintable(name));
        }
        QCOMPARE(model.index(row.row(), PhasesModel::CountColumn, row.parent()).data().toString(), count);
        QCOMPARE(model.index(row.row(), PhasesModel::StepsColumn, row.parent()).data().toString(), steps);
        QCOMPARE(row.data(PhasesModel::StepsRole).toString(), steps);
        if (model.isGroup(row)) {
            // the group stands for its first occurrence, whose own row names its step alone
            const std::vector<size_t> occurrences = model.occurrencesAt(row);
            const QModelIndex first = model.indexOfSpan(occurrences.front(), PhasesModel::StepsColumn);
            QCOMPARE(first.data().toString(), steps.section(QLatin1Char('-'), 0, 0)
                                                  .replace(QStringLiteral("steps"), QStringLiteral("step")));
            QVERIFY(row.data(Qt::ToolTipRole).toString().endsWith(steps));
        }
        // steps handed in (as the trace page does) are used, not built again
        const std::shared_ptr<const StepIndex> given = model.steps();
        model.setAnalysis(result, given);
        QCOMPARE(model.steps(), given);
    }

    // A trace whose phases carry no step leaves the column empty.
    void noSteps()
    {
        PhasesModel model;
        model.setAnalysis(makeResult(standardSpans()));
        QVERIFY(model.steps() && model.steps()->empty());
        for (int r = 0; r < model.rowCount(); ++r)
            QVERIFY(model.index(r, PhasesModel::StepsColumn).data().toString().isEmpty());
        QCOMPARE(model.headerData(PhasesModel::StepsColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Steps"));
    }
};

QTEST_GUILESS_MAIN(TestPhasesModel)
#include "tst_phasesmodel.moc"
