// What stormlog and PyTorch really write, read whole (issue 30): integer fields written as
// integral floats (pandas' CSV of export_events), stormlog's legacy MemoryEvent names (the
// OOM dump's events.json), and the OOM flight-recorder bundle opened as what it is, from
// every way of pointing at it, with its OOM facts in the trace and in the reports.
// Fixtures: tests/data/fixtures/real-gpu/ (copies of /work/shared/fixtures/real-gpu: a real
// H200 capture; truth_sink_head.jsonl is the first 400 records of truth/telemetry_sink's
// segment, the same run the CSV exports).
#include "model/document/Document.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/trace/OomBundle.h"
#include "model/trace/PyLiteral.h"
#include "model/trace/TraceLoader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

QString realGpu(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/") + relative;
}

const QString kBundleName = QStringLiteral("oom_dump_20261204T172219Z_601_cuda_1");

QString bundleFolder()
{
    return realGpu(QStringLiteral("oom/oom_dumps/") + kBundleName);
}

// From the bundle's events.json (python3): the 45 samples all hold device_used 3505192960 and
// memory_reserved 2952790016, a gap of 552402944 bytes (526.8 MiB); the error event's
// timestamp is 1796404939.9718642 s.
constexpr int64_t kBundleGapBytes = 552402944;
constexpr int64_t kErrorEventNs = 1796404939971864320;

QStringList problemTexts(const TraceData& data)
{
    QStringList texts;
    for (const LoadProblem& p : data.problems.kept())
        texts << p.toString();
    return texts;
}

bool copyFolder(const QString& from, const QString& to)
{
    if (!QDir().mkpath(to))
        return false;
    const QDir source(from);
    for (const QString& name : source.entryList(QDir::Files))
        if (!QFile::copy(source.filePath(name), QDir(to).filePath(name)))
            return false;
    return true;
}

DocumentAnalysis analyse(const DocumentOutcome& document)
{
    return analyzeDocument(document, DocumentRequest{});
}

} // namespace

class TestOomBundle : public QObject
{
    Q_OBJECT

private slots:
    // ------------------------------------------------------------- integral floats

    void integralNumber_data()
    {
        QTest::addColumn<QString>("token");
        QTest::addColumn<int>("outcome"); // IntegralNumber
        QTest::addColumn<qint64>("value");
        const int exact = int(IntegralNumber::Exact), fraction = int(IntegralNumber::Fraction),
                  large = int(IntegralNumber::TooLarge), nan = int(IntegralNumber::NotANumber);
        QTest::newRow("pandas float") << "86180352.0" << exact << qint64(86180352);
        QTest::newRow("integer") << "42" << exact << qint64(42);
        QTest::newRow("negative") << "-5.000" << exact << qint64(-5);
        QTest::newRow("negative zero") << "-0.0" << exact << qint64(0);
        QTest::newRow("exponent") << "1.5e3" << exact << qint64(1500);
        QTest::newRow("exponent with fraction left") << "1.2345e3" << fraction << qint64(0);
        QTest::newRow("negative exponent") << "2500e-2" << exact << qint64(25);
        QTest::newRow("zero, huge exponent") << "0e999999999999" << exact << qint64(0);
        QTest::newRow("largest exact") << "9007199254740991.0" << exact << qint64(9007199254740991);
        QTest::newRow("2^53") << "9007199254740992.0" << large << qint64(0);
        QTest::newRow("1e20") << "1e20" << large << qint64(0);
        QTest::newRow("fraction") << "1.5" << fraction << qint64(0);
        QTest::newRow("fraction a double rounds away") << "4503599627370496.4" << fraction << qint64(0);
        QTest::newRow("tiny") << "1e-400" << fraction << qint64(0);
        QTest::newRow("NaN") << "NaN" << nan << qint64(0);
        QTest::newRow("inf") << "inf" << nan << qint64(0);
        QTest::newRow("text") << "12 MB" << nan << qint64(0);
    }
    void integralNumber()
    {
        QFETCH(QString, token);
        QFETCH(int, outcome);
        QFETCH(qint64, value);
        int64_t read = -1;
        const std::string text = token.toStdString();
        QCOMPARE(int(gapscope::integralNumber(text, &read)), outcome);
        if (outcome == int(IntegralNumber::Exact))
            QCOMPARE(qint64(read), value);
    }

    // Every form takes the one rule: a JSON line, a JSON array, a CSV row and a legacy record.
    void integerFieldForms_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qint64>("used"); // device used read, -1: the record is rejected
        QTest::addColumn<QString>("reason");
        const QByteArray line = R"({"schema_version": 2, "timestamp_ns": 1000, "event_type": "sample", )"
                                R"("allocator_allocated_bytes": 10, "allocator_reserved_bytes": 20, )"
                                R"("device_used_bytes": USED, "device_total_bytes": 1000000000})";
        auto withUsed = [&](const char* used) { return QByteArray(line).replace("USED", used); };
        QTest::newRow("JSON lines, integral") << "t.jsonl" << withUsed("86180352.0") + "\n"
                                              << qint64(86180352) << QString();
        QTest::newRow("JSON lines, fraction")
            << "t.jsonl" << withUsed("1.5") + "\n"
            << qint64(-1) << "field 'device_used_bytes': expected an integer, got 1.5";
        QTest::newRow("JSON lines, beyond 2^53")
            << "t.jsonl" << withUsed("1e20") + "\n"
            << qint64(-1) << "field 'device_used_bytes': expected an integer, got 1e20, beyond 2^53";
        QTest::newRow("JSON array, integral") << "t.json"
                                              << "[" + withUsed("3e2") + "]" << qint64(300) << QString();
        const QByteArray header = "schema_version,timestamp_ns,event_type,allocator_allocated_bytes,"
                                  "allocator_reserved_bytes,device_used_bytes,device_total_bytes\n";
        QTest::newRow("CSV, integral") << "t.csv" << header + "2,1000,sample,10.0,20,512.0,1000000.0\n"
                                       << qint64(512) << QString();
        QTest::newRow("CSV, fraction")
            << "t.csv" << header + "2,1000,sample,10,20,512.25,1000000\n"
            << qint64(-1) << "field 'device_used_bytes': expected an integer, got 512.25";
        QTest::newRow("legacy, integral")
            << "t.json"
            << QByteArray(R"([{"timestamp": 1.5, "memory_allocated": 64.0, "device_used": 128.0}])")
            << qint64(128) << QString();
        QTest::newRow("legacy, fraction")
            << "t.json" << QByteArray(R"([{"timestamp": 1.5, "memory_allocated": 64.5}])") << qint64(-1)
            << "field 'memory_allocated': expected an integer, got 64.5";
    }
    void integerFieldForms()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(qint64, used);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        file.close();
        const LoadOutcome loaded = loadTrace(path);
        if (used < 0) {
            // the one record is refused with the reason, file and line
            QVERIFY(!loaded.data);
            QVERIFY2(loaded.fatalError.contains(path + QStringLiteral(":")), qPrintable(loaded.fatalError));
            QVERIFY2(loaded.fatalError.contains(reason), qPrintable(loaded.fatalError));
            return;
        }
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        QVERIFY2(loaded.data->problems.empty(), qPrintable(problemTexts(*loaded.data).join('\n')));
        QCOMPARE(loaded.data->store.size(), size_t(1));
        QCOMPARE(qint64(loaded.data->store.used[0]), used);
    }

    // The CSV stormlog really writes (pandas): every record loads, with the numbers of the JSON
    // sink of the same run.
    void realCsvLoadsWhole()
    {
        const QString csv = realGpu(QStringLiteral("single/truth_events.csv"));
        const LoadOutcome loaded = loadTrace(csv);
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        const TraceData& fromCsv = *loaded.data;
        QCOMPARE(fromCsv.recordsRead, qint64(2549));
        QCOMPARE(fromCsv.store.size(), size_t(2549));
        QCOMPARE(fromCsv.problems.errorCount(), qint64(0));
        QVERIFY2(fromCsv.problems.empty(), qPrintable(problemTexts(fromCsv).join('\n')));

        const LoadOutcome sink = loadTrace(realGpu(QStringLiteral("single/truth_sink_head.jsonl")));
        QVERIFY2(sink.data, qPrintable(sink.fatalError));
        const EventStore& a = fromCsv.store;
        const EventStore& b = sink.data->store;
        QCOMPARE(b.size(), size_t(400));
        // the same records in the same order (both sorted by time within the one session)
        int nullActive = 0;
        for (uint32_t row = 0; row < b.size(); ++row) {
            QCOMPARE(a.timestampNs[row], b.timestampNs[row]);
            QVERIFY(a.type[row] == b.type[row]);
            QCOMPARE(a.allocated[row], b.allocated[row]);
            QCOMPARE(a.reserved[row], b.reserved[row]);
            QCOMPARE(a.active[row], b.active[row]);
            QCOMPARE(a.inactive[row], b.inactive[row]);
            QCOMPARE(a.change[row], b.change[row]);
            QCOMPARE(a.used[row], b.used[row]);
            QCOMPARE(a.free[row], b.free[row]);
            QCOMPARE(a.total[row], b.total[row]);
            // the CSV's Python-literal dicts hold what the sink's JSON holds (in the writer's key order)
            QCOMPARE(QJsonDocument::fromJson(QByteArray::fromStdString(a.str(a.metadata[row]))).object(),
                     QJsonDocument::fromJson(QByteArray::fromStdString(b.str(b.metadata[row]))).object());
            nullActive += a.active[row] == kNullInt;
        }
        QVERIFY(nullActive > 0); // the empty cells that made pandas write the column as floats
    }

    // ------------------------------------------------------------- legacy names

    void legacyNames_data()
    {
        QTest::addColumn<QByteArray>("record");
        QTest::addColumn<qint64>("used");
        QTest::addColumn<qint64>("free");
        QTest::addColumn<qint64>("active");
        QTest::addColumn<QString>("collector");
        QTest::addColumn<QString>("type");
        const qint64 null = kNullInt;
        QTest::newRow("MemoryEvent.to_dict")
            << QByteArray(
                   R"({"timestamp": 2.0, "event_type": "error", "memory_allocated": 100, )"
                   R"("memory_reserved": 200, "memory_change": 0, "device_id": 0, "context": "OOM", )"
                   R"("metadata": {"oom_reason": "x"}, "active_memory": 90, "inactive_memory": 10, )"
                   R"("device_used": 700, "device_free": 300, "device_total": 1000, "backend": "cuda"})")
            << qint64(700) << qint64(300) << qint64(90) << "stormlog.cuda_tracker"
            << "error";
        QTest::newRow("nulls as written before the first sample")
            << QByteArray(R"({"timestamp": 2.0, "event_type": "start", "memory_allocated": 0, )"
                          R"("active_memory": null, "inactive_memory": null, "device_used": 0, )"
                          R"("device_free": null, "device_total": null, "backend": "rocm"})")
            << qint64(0) << null << null << "stormlog.rocm_tracker"
            << "start";
        QTest::newRow("canonical names first")
            << QByteArray(R"({"timestamp": 2.0, "memory_allocated": 100, "device_used": 5, )"
                          R"("device_used_bytes": 600, "device_total_bytes": 1000, "type": "sample"})")
            << qint64(600) << null << null << "legacy.unknown"
            << "sample";
        QTest::newRow("no device counter: allocated, as upstream")
            << QByteArray(R"({"timestamp": 2.0, "memory_allocated": 100, "total_memory": 1000})")
            << qint64(100) << null << null << "legacy.unknown"
            << "sample";
    }
    void legacyNames()
    {
        QFETCH(QByteArray, record);
        QFETCH(qint64, used);
        QFETCH(qint64, free);
        QFETCH(qint64, active);
        QFETCH(QString, collector);
        QFETCH(QString, type);
        const LoadOutcome loaded =
            loadTraceBytes("[" + record.toStdString() + "]", std::nullopt, QStringLiteral("legacy.json"));
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        const TraceData& data = *loaded.data;
        QVERIFY2(data.problems.empty(), qPrintable(problemTexts(data).join('\n'))); // no unknown keys
        QVERIFY(data.form == TraceForm::Legacy);
        QCOMPARE(qint64(data.store.used[0]), used);
        QCOMPARE(qint64(data.store.free[0]), free);
        QCOMPARE(qint64(data.store.active[0]), active);
        QCOMPARE(QString::fromStdString(data.store.str(data.store.typeName[0])), type);
        QCOMPARE(data.sessions.front().collector, collector);
    }

    // ------------------------------------------------------------- the OOM bundle

    void bundleOpens_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("bundle folder") << bundleFolder();
        QTest::newRow("manifest.json") << bundleFolder() + QStringLiteral("/manifest.json");
        QTest::newRow("events.json") << bundleFolder() + QStringLiteral("/events.json");
        QTest::newRow("oom_dumps") << realGpu(QStringLiteral("oom/oom_dumps"));
        QTest::newRow("oom_dumps/") << realGpu(QStringLiteral("oom/oom_dumps/"));
        QTest::newRow("the folder above oom_dumps") << realGpu(QStringLiteral("oom"));
    }
    void bundleOpens()
    {
        QFETCH(QString, path);
        QVERIFY(detectDocumentKind(path) == DocumentKind::StormlogTrace);
        QVERIFY(!opensAsJob({path}));
        const DocumentOutcome document = loadDocument(path);
        QVERIFY2(document.trace, qPrintable(document.failure()));
        const TraceData& trace = *document.trace;
        QCOMPARE(QDir::cleanPath(trace.path), QDir::cleanPath(bundleFolder()));
        QVERIFY(trace.form == TraceForm::Legacy);
        QCOMPARE(trace.recordsRead, qint64(223));
        QCOMPARE(trace.store.size(), size_t(223));
        QVERIFY2(trace.problems.empty(), qPrintable(problemTexts(trace).join('\n')));

        // the OOM facts equal the files
        QCOMPARE(trace.ooms.size(), size_t(1));
        const OomInfo& oom = trace.ooms.front();
        QFile metadataFile(bundleFolder() + QStringLiteral("/metadata.json"));
        QVERIFY(metadataFile.open(QIODevice::ReadOnly));
        const QJsonObject metadata = QJsonDocument::fromJson(metadataFile.readAll()).object();
        QCOMPARE(oom.metadata, metadata);
        QCOMPARE(oom.reason, QStringLiteral("torch.cuda.OutOfMemoryError"));
        QCOMPARE(oom.exceptionType, QStringLiteral("OutOfMemoryError"));
        QCOMPARE(oom.exceptionModule, QStringLiteral("torch"));
        QVERIFY(oom.exceptionMessage.startsWith(
            QStringLiteral("CUDA out of memory. Tried to allocate 64.00 MiB.")));
        QCOMPARE(oom.exceptionMessage, metadata.value(QStringLiteral("exception_message")).toString());
        QCOMPARE(oom.sessionId, QStringLiteral("065f167d-e338-4616-86f4-4d5128893c8b"));
        QCOMPARE(oom.bundleName, kBundleName);
        QCOMPARE(oom.createdAtUtc, QStringLiteral("2026-12-04T17:22:19Z"));
        QCOMPARE(oom.capturedEventCount, int64_t(223));
        QVERIFY(oom.timeFromEvent);
        QCOMPARE(oom.timeNs, std::optional<int64_t>(kErrorEventNs));
        QCOMPARE(
            oom.environment.value(QStringLiteral("system")).toObject().value(QStringLiteral("cuda_version")),
            QJsonValue(QStringLiteral("13.0")));

        // the error event is kept as an event, with its message
        int errors = 0;
        for (uint32_t row = 0; row < trace.store.size(); ++row) {
            if (trace.store.type[row] != EventType::Error)
                continue;
            ++errors;
            QCOMPARE(trace.store.timestampNs[row], kErrorEventNs);
            QCOMPARE(QString::fromStdString(trace.store.str(trace.store.context[row])),
                     QStringLiteral("OOM detected (torch.cuda.OutOfMemoryError)"));
        }
        QCOMPARE(errors, 1);

        // the legacy device counters are read: the gap is the memory outside the allocator
        const DocumentAnalysis analysis = analyse(document);
        QVERIFY2(analysis.ok(), qPrintable(analysis.error));
        const ReportContent report = analysis.reportContent();
        QCOMPARE(report.samples, uint64_t(45));
        QCOMPARE(report.peakGapBytes, std::optional<int64_t>(kBundleGapBytes));
        QCOMPARE(report.backend, QStringLiteral("PyTorch"));
    }

    // Every report says it; the JSON report has the `oom` array.
    void reportsTellTheOom()
    {
        const DocumentOutcome document = loadDocument(bundleFolder());
        QVERIFY2(document.trace, qPrintable(document.failure()));
        const ReportContent content = analyse(document).reportContent();
        QCOMPARE(content.ooms.size(), size_t(1));

        const QJsonObject json = QJsonDocument::fromJson(reportJson(content)).object();
        const QJsonArray ooms = json.value(QStringLiteral("oom")).toArray();
        QCOMPARE(ooms.size(), 1);
        const QJsonObject oom = ooms.first().toObject();
        // time_ns exceeds 2^53: compared as the text the writer wrote
        QVERIFY(reportJson(content).contains("\"time_ns\":" + QByteArray::number(kErrorEventNs)) ||
                reportJson(content).contains("\"time_ns\": " + QByteArray::number(kErrorEventNs)));
        QCOMPARE(oom.value(QStringLiteral("time_source")).toString(), QStringLiteral("error_event"));
        QCOMPARE(oom.value(QStringLiteral("reason")).toString(),
                 QStringLiteral("torch.cuda.OutOfMemoryError"));
        QCOMPARE(oom.value(QStringLiteral("exception_type")).toString(), QStringLiteral("OutOfMemoryError"));
        QCOMPARE(oom.value(QStringLiteral("exception_module")).toString(), QStringLiteral("torch"));
        QCOMPARE(oom.value(QStringLiteral("exception_message")).toString(),
                 document.trace->ooms[0].exceptionMessage);
        QCOMPARE(oom.value(QStringLiteral("bundle")).toString(), bundleFolder());

        const QString headline = reportOomHeadline(content.ooms[0]);
        QVERIFY2(headline.startsWith(QStringLiteral("Out of memory at +1.0")), qPrintable(headline));
        QVERIFY(headline.endsWith(QStringLiteral(": torch.cuda.OutOfMemoryError")));
        // each format with its own escaping (Markdown escapes the periods)
        const QString markdown = reportMarkdown(content);
        QVERIFY(markdown.contains(QStringLiteral("## Out of memory")));
        QVERIFY(markdown.contains(QStringLiteral("CUDA out of memory. Tried to allocate 64.00 MiB.")));
        QVERIFY(markdown.contains(QStringLiteral("| Peak memory (tracker) | 2.75 GiB |")));
        for (const QString& text : {reportText(content), reportHtml(content)}) {
            QVERIFY(text.contains(QStringLiteral("Out of memory")));
            QVERIFY(text.contains(QStringLiteral("CUDA out of memory. Tried to allocate 64.00 MiB.")));
            QVERIFY(text.contains(QStringLiteral("2.75 GiB"))); // the tracker's peak memory
        }
    }

    // A trace without an OOM writes no `oom` key: every other report keeps its bytes.
    void noOomNoKey()
    {
        const DocumentOutcome document =
            loadDocument(realGpu(QStringLiteral("single/truth_sink_head.jsonl")));
        QVERIFY2(document.trace, qPrintable(document.failure()));
        QVERIFY(document.trace->ooms.empty());
        const QJsonObject json =
            QJsonDocument::fromJson(reportJson(analyse(document).reportContent())).object();
        QVERIFY(!json.contains(QStringLiteral("oom")));
        QVERIFY(!reportText(analyse(document).reportContent()).contains(QStringLiteral("Out of memory")));
    }

    // A run folder: a trace with stormlog's oom_dumps beside it shows those OOMs too.
    void bundlesBesideATrace_data()
    {
        QTest::addColumn<bool>("sameSession");
        QTest::newRow("the bundle's own events beside it") << true;
        QTest::newRow("a sink of another session") << false;
    }
    void bundlesBesideATrace()
    {
        QFETCH(bool, sameSession);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString run = dir.filePath(QStringLiteral("run"));
        QVERIFY(copyFolder(bundleFolder(), run + QStringLiteral("/oom_dumps/") + kBundleName));
        QString trace;
        if (sameSession) {
            trace = run + QStringLiteral("/events.json");
            QVERIFY(QFile::copy(bundleFolder() + QStringLiteral("/events.json"), trace));
        } else {
            trace = run + QStringLiteral("/telemetry_sink");
            QVERIFY(
                copyFolder(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/real/cpu_sink"), trace));
        }
        // the trace opens as itself (not as the bundle), the OOM attached
        QVERIFY(!locateOomBundle(trace));
        if (!sameSession) // a folder with a sink beside oom_dumps is a run, not a bundle
            QVERIFY(!locateOomBundle(run));
        const DocumentOutcome document = loadDocument(trace);
        QVERIFY2(document.trace, qPrintable(document.failure()));
        QCOMPARE(document.trace->path, trace);
        QCOMPARE(document.trace->ooms.size(), size_t(1));
        const OomInfo& oom = document.trace->ooms.front();
        QCOMPARE(oom.reason, QStringLiteral("torch.cuda.OutOfMemoryError"));
        QCOMPARE(QDir::cleanPath(oom.bundlePath),
                 QDir::cleanPath(run + QStringLiteral("/oom_dumps/") + kBundleName));
        QCOMPARE(oom.sessionInTrace, sameSession);
        QCOMPARE(oom.timeFromEvent, sameSession);
        bool warned = false;
        for (const LoadProblem& p : document.trace->problems.kept())
            warned |= p.reason.contains(QStringLiteral("which this trace does not hold"));
        QCOMPARE(warned, !sameSession);
        if (sameSession)
            QCOMPARE(oom.timeNs, std::optional<int64_t>(kErrorEventNs));
        else // to the second: created_at_utc 2026-12-04T17:22:19Z
            QCOMPARE(oom.timeNs, std::optional<int64_t>(int64_t(1796404939) * 1'000'000'000));
        QCOMPARE(analyse(document).reportContent().ooms.size(), size_t(1));
    }

    // oom_dumps with several bundles: the newest opens, the others are named.
    void severalBundles()
    {
        QTemporaryDir dir;
        const QString dumps = dir.filePath(QStringLiteral("oom_dumps"));
        const QString older = dumps + QStringLiteral("/oom_dump_20261204T172000Z_601_cuda_1");
        QVERIFY(copyFolder(bundleFolder(), dumps + QStringLiteral("/") + kBundleName));
        QVERIFY(copyFolder(bundleFolder(), older));
        // the older one's manifest says so
        QFile manifest(older + QStringLiteral("/manifest.json"));
        QVERIFY(manifest.open(QIODevice::ReadWrite));
        QByteArray text = manifest.readAll().replace("2026-12-04T17:22:19Z", "2026-12-04T17:20:00Z");
        QVERIFY(manifest.resize(0));
        manifest.write(text);
        manifest.close();
        const auto location = locateOomBundle(dumps);
        QVERIFY(location);
        QCOMPARE(QFileInfo(location->folder).fileName(), kBundleName);
        QCOMPARE(location->other, QStringList{older});
        const DocumentOutcome document = loadDocument(dumps);
        QVERIFY2(document.trace, qPrintable(document.failure()));
        QCOMPARE(document.trace->problems.warningCount(), qint64(1));
        QVERIFY(document.trace->problems.kept().front().reason.contains(QStringLiteral("1 more OOM bundle")));
    }

    // A bundle without its events: a clear reason; a broken metadata.json: a warning, the rest loads.
    void damagedBundle()
    {
        QTemporaryDir dir;
        const QString bundle = dir.filePath(kBundleName);
        QVERIFY(copyFolder(bundleFolder(), bundle));
        QFile metadata(bundle + QStringLiteral("/metadata.json"));
        QVERIFY(metadata.open(QIODevice::WriteOnly | QIODevice::Truncate));
        metadata.write("{\"reason\": ");
        metadata.close();
        DocumentOutcome document = loadDocument(bundle);
        QVERIFY2(document.trace, qPrintable(document.failure()));
        QCOMPARE(document.trace->ooms.size(), size_t(1));
        QCOMPARE(document.trace->ooms[0].reason,
                 QStringLiteral("torch.cuda.OutOfMemoryError")); // the manifest's
        QCOMPARE(document.trace->problems.warningCount(), qint64(1));
        const LoadProblem& problem = document.trace->problems.kept().front();
        QCOMPARE(problem.file, bundle + QStringLiteral("/metadata.json"));
        QVERIFY2(problem.reason.startsWith(QStringLiteral("OOM bundle file not read: invalid JSON")),
                 qPrintable(problem.reason));

        QVERIFY(QFile::remove(bundle + QStringLiteral("/events.json")));
        document = loadDocument(bundle);
        QVERIFY(!document.trace);
        QCOMPARE(document.failure(),
                 bundle + QStringLiteral(": OOM bundle without events.json (its events)"));
    }
};

QTEST_GUILESS_MAIN(TestOomBundle)
#include "tst_oombundle.moc"
