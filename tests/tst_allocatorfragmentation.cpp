// allocator_fragmentation (analysis/AllocatorFragmentation.h): the rule on synthetic columns
// (share, byte floor, sustained share, minimum count, the worst sustained point), then on the
// real H200 captures (cut copies): frag raises it at warning with the tracker's own warnings
// as evidence, nothing else in tests/data raises it at all; and every report form carries it
// while gap_analysis stays upstream's.

#include "analysis/AllocatorFragmentation.h"
#include "analysis/Remediation.h"
#include "model/report/AnalysisReport.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <optional>
#include <vector>

using namespace gapscope;

namespace {

constexpr qint64 kMiB = qint64{1} << 20;
constexpr int64_t kTotal = int64_t{143771} * kMiB;

struct Columns
{
    std::vector<int64_t> timestampNs, allocated, reserved, used, total;
    std::vector<uint32_t> rows;

    void add(int64_t alloc, int64_t res)
    {
        rows.push_back(uint32_t(timestampNs.size()));
        timestampNs.push_back(1'796'404'918'000'000'000 + int64_t(timestampNs.size()) * 20'000'000);
        allocated.push_back(alloc);
        reserved.push_back(res);
        used.push_back(res + 512 * kMiB);
        total.push_back(kTotal);
    }
    GapInput input() const { return GapInput{timestampNs, allocated, reserved, used, total, rows}; }
};

QString data(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/") + relative;
}

std::shared_ptr<const AnalysisResult> analyse(const QString& path)
{
    const LoadOutcome loaded = loadTrace(path);
    if (!loaded.data)
        return nullptr;
    return runAnalysis(loaded.data, AnalysisRequest{});
}

const Finding* fragmentationOf(const AnalysisResult& result)
{
    for (const Finding& f : result.findings)
        if (f.classification == Classification::AllocatorFragmentation)
            return &f;
    return nullptr;
}

double evidence(const Finding& finding, std::string_view key)
{
    const EvidenceValue* value = finding.findEvidence(key);
    return value ? value->value : -1;
}

} // namespace

class TestAllocatorFragmentation : public QObject
{
    Q_OBJECT

private slots:
    void rule_data();
    void rule();
    void worstSustainedPoint();
    void classificationName();
    void realCaptures_data();
    void realCaptures();
    void noOtherFixtureRaisesIt();
    void reportForms();
};

void TestAllocatorFragmentation::rule_data()
{
    QTest::addColumn<int>("fragmented");     // samples with reserved far above allocated
    QTest::addColumn<int>("normal");         // samples with reserved close to allocated
    QTest::addColumn<qint64>("unallocated"); // of a fragmented sample, bytes
    QTest::addColumn<qint64>("reserved");    // of a fragmented sample, bytes
    QTest::addColumn<int>("severity");       // -1: no finding

    // 600 MiB reserved, 400 unallocated (67 %): frag's shape
    QTest::newRow("all fragmented: warning") << 30 << 0 << 400 * kMiB << 600 * kMiB << int(Severity::Warning);
    QTest::newRow("two thirds: warning") << 20 << 10 << 400 * kMiB << 600 * kMiB << int(Severity::Warning);
    QTest::newRow("under two thirds: info") << 19 << 11 << 400 * kMiB << 600 * kMiB << int(Severity::Info);
    QTest::newRow("one third: info") << 10 << 20 << 400 * kMiB << 600 * kMiB << int(Severity::Info);
    QTest::newRow("under one third: none") << 9 << 21 << 400 * kMiB << 600 * kMiB << -1;
    // 100 MiB unallocated of 150 reserved: the share holds, the byte floor does not
    QTest::newRow("below 128 MiB: none") << 30 << 0 << 100 * kMiB << 150 * kMiB << -1;
    QTest::newRow("at 128 MiB: warning") << 30 << 0 << 128 * kMiB << 200 * kMiB << int(Severity::Warning);
    // 1 GiB unallocated of 2.5 GiB (40 %): bytes hold, the share does not (a cache of a large run)
    QTest::newRow("below half of reserved: none") << 30 << 0 << 1024 * kMiB << 2560 * kMiB << -1;
    QTest::newRow("exactly half: warning") << 30 << 0 << 512 * kMiB << 1024 * kMiB << int(Severity::Warning);
    QTest::newRow("four samples: none") << 4 << 0 << 400 * kMiB << 600 * kMiB << -1;
    QTest::newRow("five samples: warning") << 5 << 0 << 400 * kMiB << 600 * kMiB << int(Severity::Warning);
}

void TestAllocatorFragmentation::rule()
{
    QFETCH(int, fragmented);
    QFETCH(int, normal);
    QFETCH(qint64, unallocated);
    QFETCH(qint64, reserved);
    QFETCH(int, severity);

    Columns c;
    // before the CUDA context: all zero, no evidence either way
    for (int i = 0; i < 20; ++i)
        c.add(0, 0);
    for (int i = 0; i < normal; ++i)
        c.add(300 * kMiB, 320 * kMiB);
    for (int i = 0; i < fragmented; ++i)
        c.add(reserved - unallocated, reserved);
    const std::optional<Finding> finding = allocatorFragmentation(c.input(), 7);
    QCOMPARE(finding.has_value(), severity >= 0);
    if (!finding)
        return;
    QCOMPARE(int(finding->severity), severity);
    QCOMPARE(evidence(*finding, "fragmented_samples"), double(fragmented));
    QCOMPARE(evidence(*finding, "sample_count"), double(fragmented + normal)); // zeros not counted
    QCOMPARE(evidence(*finding, "unallocated_bytes"), double(unallocated));
    QCOMPARE(evidence(*finding, "reserved_bytes"), double(reserved));
    QCOMPARE(evidence(*finding, "allocated_bytes"), double(reserved - unallocated));
    QCOMPARE(evidence(*finding, "tracker_fragmentation_warnings"), 7.0);
    QCOMPARE(finding->confidence, std::round(1000.0 * fragmented / (fragmented + normal)) / 1000.0);
}

void TestAllocatorFragmentation::worstSustainedPoint()
{
    // one lone sample with 2 GiB unallocated between normal ones, then a sustained run whose worst
    // holds 600 MiB: the finding points into the run, not at the blip
    Columns c;
    for (int i = 0; i < 3; ++i)
        c.add(300 * kMiB, 320 * kMiB);
    c.add(100 * kMiB, 2148 * kMiB);
    const uint32_t blip = c.rows.back();
    c.add(300 * kMiB, 320 * kMiB);
    for (int i = 0; i < 10; ++i)
        c.add(200 * kMiB, (600 + (i == 6 ? 200 : 0)) * kMiB);
    const uint32_t worstRow = c.rows[c.rows.size() - 4];
    const std::optional<Finding> finding = allocatorFragmentation(c.input(), 0);
    QVERIFY(finding);
    QVERIFY(finding->evidenceRow != blip);
    QCOMPARE(finding->evidenceRow, worstRow);
    QCOMPARE(evidence(*finding, "unallocated_bytes"), double(600 * kMiB));
    QCOMPARE(evidence(*finding, "unallocated_ratio"), 0.75);
    QCOMPARE(evidence(*finding, "fragmented_samples"), 11.0);
}

void TestAllocatorFragmentation::classificationName()
{
    QCOMPARE(toString(Classification::AllocatorFragmentation), std::string_view("allocator_fragmentation"));
    QVERIFY(classificationFromString("allocator_fragmentation") == Classification::AllocatorFragmentation);
    QVERIFY(isAllocatorClassification(Classification::AllocatorFragmentation));
    QVERIFY(!isGapClassification(Classification::AllocatorFragmentation));
    QVERIFY(!isAllocatorClassification(Classification::FragmentationLike));
    QCOMPARE(classificationTitle(Classification::AllocatorFragmentation),
             QStringLiteral("Allocator fragmentation"));
}

void TestAllocatorFragmentation::realCaptures_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("severity");        // -1: none
    QTest::addColumn<int>("trackerWarnings"); // warning events of the rank
    QTest::addColumn<int>("fragmentationWarnings");

    QTest::newRow("frag") << data("fixtures/real-gpu/frag/telemetry_sink") << int(Severity::Warning) << 54
                          << 54;
    QTest::newRow("single/stock") << data("fixtures/real-gpu/single/stock/telemetry_sink") << -1 << 6 << 5;
    QTest::newRow("single/truth") << data("fixtures/real-gpu/single/truth/telemetry_sink") << -1 << 10 << 9;
    QTest::newRow("single/truth_spike")
        << data("fixtures/real-gpu/single/truth_spike/telemetry_sink") << -1 << 5 << 5;
    QTest::newRow("single/truth_events.csv")
        << data("fixtures/real-gpu/single/truth_events.csv") << -1 << 32 << 31;
    // a warning or none in their first 200 records (-2: not counted), and no finding
    for (int rank = 0; rank < 4; ++rank)
        QTest::addRow("ddp/rank%d", rank)
            << data(QStringLiteral("fixtures/real-gpu/ddp/rank%1/telemetry_sink").arg(rank)) << -1 << -2
            << -2;
}

void TestAllocatorFragmentation::realCaptures()
{
    QFETCH(QString, path);
    QFETCH(int, severity);
    QFETCH(int, trackerWarnings);
    QFETCH(int, fragmentationWarnings);

    const auto result = analyse(path);
    QVERIFY(result);
    const Finding* finding = fragmentationOf(*result);
    QCOMPARE(finding != nullptr, severity >= 0);
    if (trackerWarnings >= 0) {
        QCOMPARE(int(result->trackerWarnings.size()), trackerWarnings);
        QCOMPARE(int(fragmentationWarningCount(result->trackerWarnings)), fragmentationWarnings);
    }
    if (!finding)
        return;
    QCOMPARE(int(finding->severity), severity);
    QCOMPARE(evidence(*finding, "tracker_fragmentation_warnings"), double(fragmentationWarnings));
    // the worst point: reserved far above allocated, as the tracker itself said
    const double reserved = evidence(*finding, "reserved_bytes");
    const double unallocated = evidence(*finding, "unallocated_bytes");
    QVERIFY(unallocated >= 128.0 * kMiB);
    QVERIFY(unallocated >= reserved / 2);
    QCOMPARE(evidence(*finding, "unallocated_ratio"), std::round(10000 * unallocated / reserved) / 10000);
    QVERIFY(evidence(*finding, "fragmented_sample_ratio") >= 2.0 / 3.0);
    // its texts: what was found, and PyTorch's remedies with empty_cache's caveat
    QVERIFY(
        QString::fromStdString(finding->description).contains(QStringLiteral("54 fragmentation warnings")));
    QVERIFY(
        QString::fromStdString(finding->description).contains(QStringLiteral("PyTorch's caching allocator")));
    QString steps;
    for (const std::string& step : finding->remediation)
        steps += QString::fromStdString(step) + QLatin1Char('\n');
    for (const char* remedy :
         {"expandable_segments:True", "max_split_size_mb", "garbage_collection_threshold",
          "empty_cache() returns only whole unused segments"})
        QVERIFY2(steps.contains(QLatin1String(remedy)), remedy);
    // gapscope's finding sits beside upstream's, never in it: the gap analysis's own stays
    // exactly what analyzeGaps gives
    const std::vector<Finding> upstream = analyzeGaps(result->gapInput(), result->request.thresholds);
    QCOMPARE(result->findings.size(), upstream.size() + 1);
}

void TestAllocatorFragmentation::noOtherFixtureRaisesIt()
{
    // every trace of the synthetic and parity fixtures: only upstream's fragmentation vector
    // (52 % of reserved unallocated on every sample, by construction) is called fragmented
    const QString root = data("fixtures/stormlog/");
    QStringList raised;
    int looked = 0;
    QDirIterator it(root, {QStringLiteral("*.jsonl"), QStringLiteral("*.json"), QStringLiteral("*.csv")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.endsWith(QLatin1String(".expected.json")) || path.endsWith(QLatin1String("manifest.json")))
            continue;
        const LoadOutcome loaded = loadTrace(path);
        if (!loaded.data || !loaded.data->defaultSessionIndex())
            continue;
        const auto result = runAnalysis(loaded.data, AnalysisRequest{});
        if (!result)
            continue;
        ++looked;
        if (fragmentationOf(*result))
            raised << path.mid(root.size());
    }
    QVERIFY(looked > 10);
    QCOMPARE(raised, QStringList{QStringLiteral("parity/frag.jsonl")});
}

void TestAllocatorFragmentation::reportForms()
{
    const auto result = analyse(data("fixtures/real-gpu/frag/telemetry_sink"));
    QVERIFY(result);
    const QJsonObject json = QJsonDocument::fromJson(analysisReportJson(*result)).object();
    // upstream's list holds upstream's classes only; gapscope's own is written apart
    for (const QJsonValue& f : json.value(QLatin1String("gap_analysis")).toArray())
        QVERIFY(f.toObject().value(QLatin1String("classification")).toString() !=
                QLatin1String("allocator_fragmentation"));
    const QJsonArray own = json.value(QLatin1String("allocator_findings")).toArray();
    QCOMPARE(own.size(), 1);
    const QJsonObject finding = own.first().toObject();
    QCOMPARE(finding.value(QLatin1String("classification")).toString(),
             QStringLiteral("allocator_fragmentation"));
    QCOMPARE(finding.value(QLatin1String("severity")).toString(), QStringLiteral("warning"));
    const QJsonObject ev = finding.value(QLatin1String("evidence")).toObject();
    for (const char* key :
         {"reserved_bytes", "allocated_bytes", "unallocated_bytes", "unallocated_ratio", "fragmented_samples",
          "sample_count", "fragmented_sample_ratio", "tracker_fragmentation_warnings"})
        QVERIFY2(ev.contains(QLatin1String(key)), key);
    QCOMPARE(ev.value(QLatin1String("tracker_fragmentation_warnings")).toInt(), 54);
    QVERIFY(!finding.value(QLatin1String("remediation")).toArray().isEmpty());

    const ReportContent content = buildReportContent(*result, false);
    for (const QString& text : {reportMarkdown(content), reportText(content), reportHtml(content)}) {
        QVERIFY(text.contains(QStringLiteral("expandable")));
        QVERIFY(text.contains(QStringLiteral("reserved but not allocated")));
        QVERIFY(text.contains(QStringLiteral("llocator fragmentation")) ||
                text.contains(QStringLiteral("allocator_fragmentation")));
    }

    // a trace without it keeps its bytes: no allocator_findings key at all
    const auto quiet = analyse(data("fixtures/real-gpu/single/truth/telemetry_sink"));
    QVERIFY(quiet);
    QVERIFY(!QJsonDocument::fromJson(analysisReportJson(*quiet))
                 .object()
                 .contains(QLatin1String("allocator_findings")));
}

QTEST_GUILESS_MAIN(TestAllocatorFragmentation)
#include "tst_allocatorfragmentation.moc"
