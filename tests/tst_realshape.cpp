// The benchmark's records (bench/RealShape.h, what gapscope_gen writes) in every form stormlog
// writes them - JSON lines and sink segments with sorted keys, the tracker's JSON export indented
// by two spaces, its CSV export with Python dict metadata - load as the same events, with the
// same analysis, as the JSON array does (read by simdjson alone: the JSON lines fast path never
// sees it). Also with two threads and small windows, so that ranges and windows are cut.

#include "bench/RealShape.h"
#include "model/report/AnalysisReport.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"
#include "tests/StoreChecks.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace gapscope;
using gapscope::test::compareCounterColumns;
using gapscope::test::problemTexts;
using gapscope::test::storedText;
namespace bench = gapscope::bench;

namespace {

constexpr int64_t kRecords = 4321;

// The analysis report without what tells the inputs apart: the input (path, form) and the
// session's status (a sink's manifest says the run completed; a file does not).
QJsonObject reportOfAnalysis(const std::shared_ptr<const TraceData>& data)
{
    const auto result = runAnalysis(data, AnalysisRequest{});
    if (!result)
        return {};
    QJsonObject report = QJsonDocument::fromJson(analysisReportJson(*result)).object();
    report.remove(QStringLiteral("input"));
    QJsonObject session = report.value(QStringLiteral("session")).toObject();
    session.remove(QStringLiteral("sessions"));
    report.insert(QStringLiteral("session"), session);
    return report;
}

} // namespace

class TestRealShape : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void formsLoadAlike_data();
    void formsLoadAlike();

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const TraceData> m_reference; // the JSON array
    QJsonObject m_referenceReport;
};

void TestRealShape::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const std::string dir = m_dir.path().toStdString();
    QVERIFY(bench::writeRealShape(bench::RealForm::JsonArray, kRecords, dir + "/trace.json"));
    QVERIFY(bench::writeRealShape(bench::RealForm::JsonLines, kRecords, dir + "/trace.jsonl"));
    QVERIFY(bench::writeRealShape(bench::RealForm::Csv, kRecords, dir + "/trace.csv"));
    QVERIFY(bench::writeRealShape(bench::RealForm::Sink, kRecords, dir + "/sink", false, 1000));
    QVERIFY(QFileInfo::exists(m_dir.filePath("sink/segment-000005.jsonl")));
    const LoadOutcome outcome = loadTrace(m_dir.filePath("trace.json"));
    QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
    m_reference = outcome.data;
    QVERIFY2(m_reference->problems.empty(), qPrintable(problemTexts(*m_reference).join('\n')));
    QCOMPARE(m_reference->store.size(), size_t(kRecords));
    m_referenceReport = reportOfAnalysis(m_reference);
    QVERIFY(!m_referenceReport.value(QStringLiteral("gap_analysis")).toArray().isEmpty());
    QVERIFY(!m_referenceReport.isEmpty());
    // the run has what the analysis and the phases need: samples, findings, phase spans
    const auto result = runAnalysis(m_reference, AnalysisRequest{});
    QVERIFY(result->usableRows.size() > size_t(kRecords) * 9 / 10);
    QVERIFY(!result->findings.empty());
    QCOMPARE(m_reference->phases.size(), size_t(kRecords / 1000 + 1)); // the last span is still open
}

void TestRealShape::formsLoadAlike_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("sortedKeys"); // metadata keys sorted (sink writer), not the array's order
    for (const char* name : {"trace.jsonl", "sink", "trace.csv"}) {
        for (int threads : {1, 2}) {
            QTest::addRow("%s, %d thread(s)", name, threads)
                << QString::fromLatin1(name) << threads << (std::string_view(name) != "trace.csv");
        }
    }
}

void TestRealShape::formsLoadAlike()
{
    QFETCH(QString, name);
    QFETCH(int, threads);
    QFETCH(bool, sortedKeys);
    const QString path = m_dir.filePath(name);
    LoadControl control;
    control.threads = threads;
    control.windowBytesPerThread = 256 * 1024;
    const LoadOutcome outcome = loadTrace(path, control);
    QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
    const TraceData& data = *outcome.data;
    const TraceData& reference = *m_reference;
    QVERIFY2(data.problems.empty(), qPrintable(problemTexts(data).join('\n')));
    const EventStore& a = reference.store;
    const EventStore& b = data.store;
    compareCounterColumns(b, a);
    if (QTest::currentTestFailed())
        return;
    for (uint32_t row = 0; row < a.size(); ++row) {
        QCOMPARE(storedText(data, b.typeName[row]), storedText(reference, a.typeName[row]));
        QCOMPARE(storedText(data, b.context[row]), storedText(reference, a.context[row]));
        if (!sortedKeys)
            QCOMPARE(storedText(data, b.metadata[row]), storedText(reference, a.metadata[row]));
        const EventSource& sa = a.sources[a.source[row]];
        const EventSource& sb = b.sources[b.source[row]];
        QCOMPARE(storedText(data, sb.sessionId), storedText(reference, sa.sessionId));
        QCOMPARE(storedText(data, sb.collector), storedText(reference, sa.collector));
        QCOMPARE(storedText(data, sb.host), storedText(reference, sa.host));
        QCOMPARE(storedText(data, sb.jobId), storedText(reference, sa.jobId));
        QCOMPARE(sb.deviceId, sa.deviceId);
        QCOMPARE(sb.samplingIntervalMs, sa.samplingIntervalMs);
    }
    QCOMPARE(data.phases.size(), reference.phases.size());
    for (size_t i = 0; i < reference.phases.size(); ++i)
        QCOMPARE(data.phases[i].label, reference.phases[i].label);
    const QJsonObject report = reportOfAnalysis(outcome.data);
    QVERIFY2(report == m_referenceReport, QJsonDocument(report).toJson().left(3000).constData());

    if (sortedKeys) {
        // sorted and unsorted keys give the same metadata but for the order of its keys
        const std::string sortedSample = a.str(a.metadata[1]).empty() ? "" : b.str(b.metadata[1]);
        QVERIFY(sortedSample.starts_with("{\"backend\":\"cuda\",\"collector_consecutive_failures\":0,"));
        QCOMPARE(sortedSample.size(), a.str(a.metadata[1]).size());
    }
}

QTEST_GUILESS_MAIN(TestRealShape)
#include "tst_realshape.moc"
