#include "model/items/FindingsModel.h"
#include "model/report/ReportContent.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace gapscope;

namespace {

// A trace of one partition whose first event is at originNs and last spanNs later, with the
// given findings (a 30-second trace's times read to the millisecond).
std::shared_ptr<const AnalysisResult> makeResult(int64_t originNs, std::vector<Finding> findings,
                                                 int64_t spanNs = 30'000'000'000)
{
    auto trace = std::make_shared<TraceData>();
    trace->store.timestampNs = {originNs, originNs + 1'000'000'000, originNs + spanNs};
    trace->sessions.push_back(SessionInfo{});
    Partition partition;
    partition.begin = 0;
    partition.end = 3;
    trace->partitions.push_back(partition);

    auto result = std::make_shared<AnalysisResult>();
    result->trace = trace;
    result->partition = partition;
    result->findings = std::move(findings);
    return result;
}

Finding makeFinding(Classification c, Severity s, double confidence, int64_t ts)
{
    Finding f;
    f.classification = c;
    f.severity = s;
    f.confidence = confidence;
    f.evidenceTimestampNs = ts;
    f.description = "description of " + std::string(toString(c));
    return f;
}

} // namespace

class TestFindingsModel : public QObject
{
    Q_OBJECT
private slots:
    void emptyModel()
    {
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(FindingsModel::ColumnCount));
        QVERIFY(model.finding(0) == nullptr);
        model.setAnalysis(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void columns_data()
    {
        QTest::addColumn<int>("classification");
        QTest::addColumn<int>("severity");
        QTest::addColumn<double>("confidence");
        QTest::addColumn<qint64>("offsetNs");
        QTest::addColumn<QString>("severityText");
        QTest::addColumn<QString>("classificationKey");
        QTest::addColumn<QString>("confidenceText");
        QTest::addColumn<QString>("timeText");

        QTest::newRow("critical spike") << int(Classification::TransientSpike) << int(Severity::Critical)
                                        << 1.0 << qint64(10'800'000'000) << "Critical"
                                        << "transient_spike"
                                        << "100.0 %"
                                        << "+10.800 s";
        QTest::newRow("warning drift") << int(Classification::PersistentDrift) << int(Severity::Warning)
                                       << 0.619 << qint64(30'000'000'000) << "Warning"
                                       << "persistent_drift"
                                       << "61.9 %"
                                       << "+30.000 s";
        QTest::newRow("info fragmentation")
            << int(Classification::FragmentationLike) << int(Severity::Info) << 0.5 << qint64(0) << "Info"
            << "fragmentation_like"
            << "50.0 %"
            << "+0.000 s";
    }

    void columns()
    {
        QFETCH(int, classification);
        QFETCH(int, severity);
        QFETCH(double, confidence);
        QFETCH(qint64, offsetNs);
        QFETCH(QString, severityText);
        QFETCH(QString, classificationKey);
        QFETCH(QString, confidenceText);
        QFETCH(QString, timeText);

        const int64_t origin = 1'796'000'000'000'000'000;
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(makeResult(origin, {makeFinding(Classification(classification), Severity(severity),
                                                          confidence, origin + offsetNs)}));
        QCOMPARE(model.rowCount(), 1);
        const auto at = [&](int column) { return model.index(0, column); };
        QCOMPARE(at(FindingsModel::SeverityColumn).data().toString(), severityText);
        QCOMPARE(at(FindingsModel::SeverityColumn).data(FindingsModel::SeverityRole).toInt(), severity);
        QCOMPARE(
            at(FindingsModel::ClassificationColumn).data(FindingsModel::ClassificationKeyRole).toString(),
            classificationKey);
        QCOMPARE(at(FindingsModel::ClassificationColumn).data().toString(),
                 classificationTitle(Classification(classification)));
        QCOMPARE(at(FindingsModel::ConfidenceColumn).data().toString(), confidenceText);
        QCOMPARE(at(FindingsModel::TimeColumn).data().toString(), timeText);
        QCOMPARE(at(FindingsModel::TimeColumn).data(FindingsModel::EvidenceTimeRole).toLongLong(),
                 origin + offsetNs);
        QCOMPARE(at(FindingsModel::TimeColumn).data(FindingsModel::SortRole).toLongLong(), origin + offsetNs);
        QCOMPARE(at(FindingsModel::PhaseColumn).data(FindingsModel::FindingIndexRole).toInt(), 0);
        QCOMPARE(at(FindingsModel::SeverityColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("description of ") + classificationKey);
    }

    // Issue 17 item 10: the time column follows the run's span (an 8-hour run in hours, to
    // the second; not "+29750.010 s"), the confidence is the one percent format, and the name
    // is the reports' (one function).
    void longRunAndOneFormat()
    {
        const int64_t origin = 1'796'000'000'000'000'000;
        constexpr int64_t hour = 3'600'000'000'000;
        const auto result = makeResult(origin,
                                       {makeFinding(Classification::OsAllocatorSpike, Severity::Warning, 1.0,
                                                    origin + 29'750'010'000'000)},
                                       8 * hour);
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(result);
        QCOMPARE(model.index(0, FindingsModel::TimeColumn).data().toString(),
                 QStringLiteral("+8 h 15 min 50 s"));
        QCOMPARE(model.index(0, FindingsModel::ConfidenceColumn).data().toString(),
                 QStringLiteral("100.0 %"));
        QCOMPARE(model.index(0, FindingsModel::ClassificationColumn).data().toString(),
                 QStringLiteral("OS allocator spike"));
        QCOMPARE(classificationTitle(Classification::OsAllocatorSpike), QStringLiteral("OS allocator spike"));
        QCOMPARE(classificationTitle(Classification::FragmentationLike),
                 QStringLiteral("Fragmentation-like"));
        // the report of the same run writes the same time
        QCOMPARE(buildReportContent(*result, false).findings.front().relativeTime,
                 QStringLiteral("+8 h 15 min 50 s"));
    }

    void phaseText_data()
    {
        QTest::addColumn<bool>("unique");
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QString>("summary");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unique") << true << QStringList{"train / step"} << QString() << "train / step";
        QTest::newRow("ambiguous") << false << QStringList{"a", "b"} << QString() << "ambiguous: a, b";
        QTest::newRow("ambiguous with summary") << false << QStringList{"a", "b"} << "b"
                                                << "ambiguous: a, b (most recent b)";
    }

    void phaseText()
    {
        QFETCH(bool, unique);
        QFETCH(QStringList, paths);
        QFETCH(QString, summary);
        QFETCH(QString, expected);
        PhaseAttribution a;
        a.resolution = unique ? PhaseResolution::Unique : PhaseResolution::Ambiguous;
        for (const QString& p : paths)
            a.phasePaths.push_back(p.toStdString());
        if (unique)
            a.phasePath = paths.front().toStdString();
        if (!summary.isEmpty())
            a.summary = PhaseSummary{summary.toStdString(), "heuristic"};
        Finding f = makeFinding(Classification::TransientSpike, Severity::Warning, 0.5, 5);
        f.phase = a;
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(makeResult(0, {f}));
        QCOMPARE(model.index(0, FindingsModel::PhaseColumn).data().toString(), expected);
        QCOMPARE(FindingsModel::phaseText(std::nullopt), QString());
    }

    void resetKeepsTesterHappy()
    {
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setAnalysis(
            makeResult(0, {makeFinding(Classification::TransientSpike, Severity::Critical, 1, 1),
                           makeFinding(Classification::PersistentDrift, Severity::Warning, 0.7, 2)}));
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.finding(1)->classification == Classification::PersistentDrift);
        model.setAnalysis(makeResult(0, {}));
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(resets.count(), 2);
        QVERIFY(!model.index(0, 0).isValid());
        QVERIFY(!model.data(model.index(5, 0)).isValid());
    }

    void jobFindings()
    {
        // a job's findings: rank in the classification text and RankRole, the time column in
        // aligned time from the page's origin
        auto job = std::make_shared<JobFindings>();
        JobCrossRankSummary summary;
        summary.alignmentOffsetsNs = {{0, 0}, {1, -3'000'000}};
        job->summary = summary;
        Finding collective;
        collective.classification = Classification::CollectiveMemory;
        collective.severity = Severity::Warning;
        collective.confidence = 0.9;
        collective.rank = 1;
        collective.evidenceTimestampNs = 1'000'000'000;
        job->findings.push_back(collective);
        Finding firstCause = collective;
        firstCause.classification = Classification::FirstCause;
        firstCause.rank = 0;
        firstCause.evidenceTimestampNs = 2'000'000'000;
        job->findings.push_back(firstCause);
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJobFindings(job, 500'000'000);
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.jobFindings() == job);
        QVERIFY(!model.analysis() && !model.budgetAnalysis());
        QCOMPARE(model.index(0, FindingsModel::ClassificationColumn).data().toString(),
                 QStringLiteral("Collective memory · rank 1"));
        QCOMPARE(model.index(1, FindingsModel::ClassificationColumn).data().toString(),
                 QStringLiteral("First cause · rank 0"));
        QCOMPARE(model.index(0, 0).data(FindingsModel::RankRole).toLongLong(), 1);
        QCOMPARE(model.index(0, 0).data(FindingsModel::EvidenceTimeRole).toLongLong(), 1'000'000'000);
        QCOMPARE(model.index(0, 0).data(FindingsModel::AlignedTimeRole).toLongLong(), 1'003'000'000);
        // 1.003 s aligned - 0.5 s origin
        QCOMPARE(model.index(0, FindingsModel::TimeColumn).data().toString(),
                 formatRelativeTime(503'000'000, 0));
        QCOMPARE(model.index(0, FindingsModel::TimeColumn).data(FindingsModel::SortRole).toLongLong(),
                 1'003'000'000);
        model.setJobFindings(nullptr, 0);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.index(0, 0).isValid());
    }

    void headers()
    {
        FindingsModel model;
        QStringList headers;
        for (int c = 0; c < model.columnCount(); ++c)
            headers << model.headerData(c, Qt::Horizontal).toString();
        QCOMPARE(headers, (QStringList{"Severity", "Classification", "Confidence", "Phase", "Time"}));
    }
};

QTEST_GUILESS_MAIN(TestFindingsModel)
#include "tst_findingsmodel.moc"
