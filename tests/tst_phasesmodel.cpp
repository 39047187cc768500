#include "model/items/PhasesModel.h"

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
        QCOMPARE(model.rowCount(train), 2);
        QCOMPARE(model.rowCount(evaluate), 0);
        const QModelIndex stepB = model.index(1, 0, train);
        QCOMPARE(stepB.data(PhasesModel::PathRole).toString(), QStringLiteral("train / step"));
        QCOMPARE(stepB.data(PhasesModel::SpanIndexRole).toInt(), 2);
        QCOMPARE(model.parent(stepB), train);
        QCOMPARE(model.indexOfSpan(2), stepB);
        QCOMPARE(model.index(1, PhasesModel::StartColumn, train).data().toString(),
                 QStringLiteral("+5.000 s"));
        QCOMPARE(model.index(1, PhasesModel::DurationColumn, train).data().toString(),
                 QStringLiteral("4.000 s"));
        QCOMPARE(model.index(1, PhasesModel::ThreadColumn, train).data().toString(),
                 QStringLiteral("MainThread"));
        QCOMPARE(stepB.data(PhasesModel::StartNsRole).toLongLong(), kOrigin + 5 * kSecond);
        QCOMPARE(stepB.data(PhasesModel::EndNsRole).toLongLong(), kOrigin + 9 * kSecond);
        QCOMPARE(model.index(1, PhasesModel::SyntheticEndColumn).data().toString(), QStringLiteral("yes"));
        QCOMPARE(model.index(0, PhasesModel::SyntheticEndColumn).data().toString(), QString());
        QCOMPARE(model.spanCount(), size_t(4));
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
};

QTEST_GUILESS_MAIN(TestPhasesModel)
#include "tst_phasesmodel.moc"
