#include "model/trace/TraceLoader.h"
#include "tests/StoreChecks.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace gapscope;
using gapscope::test::compareCounterColumns;
using gapscope::test::problemTexts;
using gapscope::test::storedText;

namespace {

const QString kShared = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog");

using Fields = QList<QPair<QByteArray, QByteArray>>; // key, raw JSON value

Fields baseEvent(qint64 ts, const QByteArray& type = "sample", const QByteArray& session = "s1")
{
    return {{"schema_version", "3"},
            {"session_id", "\"" + session + "\""},
            {"timestamp_ns", QByteArray::number(ts)},
            {"event_type", "\"" + type + "\""},
            {"collector", "\"stormlog.cuda_tracker\""},
            {"sampling_interval_ms", "100"},
            {"pid", "7"},
            {"host", "\"node\""},
            {"job_id", "null"},
            {"rank", "0"},
            {"local_rank", "0"},
            {"world_size", "1"},
            {"device_id", "0"},
            {"allocator_allocated_bytes", "100"},
            {"allocator_reserved_bytes", "200"},
            {"allocator_active_bytes", "null"},
            {"allocator_inactive_bytes", "null"},
            {"allocator_change_bytes", "0"},
            {"device_used_bytes", "300"},
            {"device_free_bytes", "700"},
            {"device_total_bytes", "1000"},
            {"context", "null"},
            {"metadata", "{}"}};
}

// overrides replace a value in place (or are appended); an empty value removes the key
QByteArray objectText(Fields fields, const Fields& overrides = {})
{
    for (const auto& [key, value] : overrides) {
        auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == key; });
        if (it == fields.end())
            fields.append({key, value});
        else if (value.isEmpty())
            fields.erase(it);
        else
            it->second = value;
    }
    QByteArray out = "{";
    for (const auto& [key, value] : fields) {
        if (out.size() > 1)
            out += ", ";
        out += "\"" + key + "\": " + value;
    }
    return out + "}";
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(content);
    return path;
}

std::shared_ptr<const TraceData> loadOk(const QString& path)
{
    LoadOutcome outcome = loadTrace(path);
    if (!outcome.data)
        qWarning("load failed: %s", qPrintable(outcome.fatalError));
    return outcome.data;
}

} // namespace

class TestTraceLoader : public QObject
{
    Q_OBJECT
private slots:
    void bytesLoadAsTheFile_data()
    {
        QTest::addColumn<QString>("file");
        const QString real = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/real/";
        const QString parity = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/parity/";
        QTest::newRow("JSON array") << real + "cpu_phases.json";
        QTest::newRow("CSV") << real + "cpu_phases.csv";
        QTest::newRow("JSON lines, mixed") << parity + "mixed.jsonl";
        QTest::newRow("JSON lines, phases") << parity + "phases.jsonl";
        QTest::newRow("sink segment") << real + "cpu_sink/segment-000001.jsonl";
    }

    void bytesLoadAsTheFile()
    {
        // loadTraceBytes goes through the detection and parsing a file goes through: the
        // same trace, in the calling thread.
        QFETCH(QString, file);
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const auto fromFile = loadOk(file);
        const LoadOutcome fromBytes =
            loadTraceBytes(std::string_view(bytes.constData(), size_t(bytes.size())), std::nullopt, file);
        QVERIFY2(fromBytes.data, qPrintable(fromBytes.fatalError));
        const TraceData& a = *fromFile;
        const TraceData& b = *fromBytes.data;
        QCOMPARE(toString(b.form), toString(a.form));
        QCOMPARE(b.recordsRead, a.recordsRead);
        QCOMPARE(b.bytesRead, a.bytesRead);
        QCOMPARE(b.store.size(), a.store.size());
        QVERIFY(b.store.timestampNs == a.store.timestampNs);
        QVERIFY(b.store.allocated == a.store.allocated);
        QCOMPARE(b.sessions.size(), a.sessions.size());
        QCOMPARE(b.partitions.size(), a.partitions.size());
        QCOMPARE(problemTexts(b), problemTexts(a));
    }

    void sinkBytesLoadAsTheDirectory()
    {
        const QString sink = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/real/cpu_sink";
        QFile manifest(sink + "/manifest.json");
        QFile segment(sink + "/segment-000001.jsonl");
        QVERIFY(manifest.open(QIODevice::ReadOnly) && segment.open(QIODevice::ReadOnly));
        const QByteArray manifestText = manifest.readAll();
        const QByteArray segmentText = segment.readAll();
        const auto fromDirectory = loadOk(sink);
        const LoadOutcome fromBytes = loadSinkBytes(
            sink, std::string_view(manifestText.constData(), size_t(manifestText.size())),
            {SinkSegmentBytes{"segment-000001.jsonl",
                              std::string_view(segmentText.constData(), size_t(segmentText.size()))}});
        QVERIFY2(fromBytes.data, qPrintable(fromBytes.fatalError));
        QCOMPARE(toString(fromBytes.data->form), toString(TraceForm::SinkDirectory));
        QCOMPARE(fromBytes.data->store.size(), fromDirectory->store.size());
        QVERIFY(fromBytes.data->store.timestampNs == fromDirectory->store.timestampNs);
        QCOMPARE(fromBytes.data->sessions.size(), fromDirectory->sessions.size());
        QCOMPARE(toString(fromBytes.data->sessions[0].status), toString(fromDirectory->sessions[0].status));
        QCOMPARE(problemTexts(*fromBytes.data), problemTexts(*fromDirectory));
    }

    void realJsonArray()
    {
        const QString path = kShared + "/real/cpu_phases.json";
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::JsonArray));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::JsonArray);
        QCOMPARE(data->store.size(), size_t(369));
        QCOMPARE(data->recordsRead, qint64(369));
        QVERIFY2(data->problems.empty(), qPrintable(problemTexts(*data).join('\n')));
        QCOMPARE(data->sessions.size(), size_t(1));
        const SessionInfo& session = data->sessions[0];
        QCOMPARE(session.id, QStringLiteral("055a8d0e-f2ab-485f-a68f-41a9a6e51892"));
        QVERIFY(session.status == SessionStatus::Completed); // the trace ends with a stop event
        QCOMPARE(session.host, QStringLiteral("vm"));
        QCOMPARE(session.pid, qint64(9959));
        QCOMPARE(session.jobId, QString());
        QCOMPARE(session.ranks, std::vector<int64_t>{0});
        QCOMPARE(session.eventCount, qint64(369));
        QCOMPARE(session.collector, QStringLiteral("stormlog.cpu_tracker"));
        QCOMPARE(session.startedNs, qint64(1796063116763916800));
        QCOMPARE(session.manifestEventCount, qint64(-1));
        QVERIFY(data->defaultSessionIndex() == std::optional<size_t>(0));
        const Partition* partition = data->partition(0);
        QVERIFY(partition);
        QCOMPARE(partition->size(), size_t(369));
        QVERIFY(std::is_sorted(data->store.timestampNs.begin(), data->store.timestampNs.end()));
        QCOMPARE(data->store.total[0], kNullInt); // CPU traces have no device total
        QCOMPARE(data->store.sources[data->store.source[0]].deviceId, int64_t(-1));

        // Phases: one span per phase_enter, labels counted from the file itself.
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QMap<QString, int> expectedLabels;
        for (const QJsonValue& event : QJsonDocument::fromJson(file.readAll()).array()) {
            if (event["event_type"].toString() != "phase_enter")
                continue;
            QStringList path;
            for (const QJsonValue& part : event["metadata"]["phase_scope"]["path"].toArray())
                path << part.toString();
            ++expectedLabels[path.join(" / ")];
        }
        QCOMPARE(expectedLabels.value("train / step"), 64);
        QMap<QString, int> labels;
        for (const PhaseSpan& span : data->phasesOf(*partition)) {
            ++labels[QString::fromStdString(span.label)];
            QVERIFY(!span.syntheticEnd);
        }
        QCOMPARE(labels, expectedLabels);
        QCOMPARE(labels.keys(), (QStringList{"evaluate", "train", "train / step", "warmup"}));
        QCOMPARE(data->phases.size(), size_t(67));
        QCOMPARE(data->phases.front().label, std::string("warmup"));
    }

    // The CSV capture of the same run must load into exactly the same columns.
    void realCsvEqualsJson()
    {
        const QString csvPath = kShared + "/real/cpu_phases.csv";
        QVERIFY(detectTraceForm(csvPath) == std::optional<TraceForm>(TraceForm::Csv));
        auto json = loadOk(kShared + "/real/cpu_phases.json");
        auto csv = loadOk(csvPath);
        QVERIFY(json && csv);
        QVERIFY(csv->form == TraceForm::Csv);
        QVERIFY2(csv->problems.empty(), qPrintable(problemTexts(*csv).join('\n')));
        const EventStore& a = json->store;
        const EventStore& b = csv->store;
        compareCounterColumns(b, a);
        if (QTest::currentTestFailed())
            return;
        for (size_t row = 0; row < a.size(); ++row) {
            QCOMPARE(storedText(*csv, b.typeName[row]), storedText(*json, a.typeName[row]));
            QCOMPARE(storedText(*csv, b.context[row]), storedText(*json, a.context[row]));
            QCOMPARE(storedText(*csv, b.metadata[row]), storedText(*json, a.metadata[row]));
            const EventSource& sa = a.sources[a.source[row]];
            const EventSource& sb = b.sources[b.source[row]];
            QCOMPARE(storedText(*csv, sb.sessionId), storedText(*json, sa.sessionId));
            QCOMPARE(storedText(*csv, sb.collector), storedText(*json, sa.collector));
            QCOMPARE(storedText(*csv, sb.host), storedText(*json, sa.host));
            QCOMPARE(storedText(*csv, sb.jobId), storedText(*json, sa.jobId));
            QCOMPARE(sb.pid, sa.pid);
            QCOMPARE(sb.rank, sa.rank);
            QCOMPARE(sb.localRank, sa.localRank);
            QCOMPARE(sb.worldSize, sa.worldSize);
            QCOMPARE(sb.deviceId, sa.deviceId);
            QCOMPARE(sb.samplingIntervalMs, sa.samplingIntervalMs);
            QCOMPARE(sb.schemaVersion, sa.schemaVersion);
        }
        QVERIFY(storedText(*json, a.metadata[1]).startsWith("{\"phase_scope\":{\"action\":\"enter\""));
        QCOMPARE(b.origins.size(), a.origins.size());
        QCOMPARE(csv->phases.size(), json->phases.size());
        for (size_t i = 0; i < json->phases.size(); ++i) {
            const PhaseSpan& x = json->phases[i];
            const PhaseSpan& y = csv->phases[i];
            QCOMPARE(y.sessionId, x.sessionId);
            QCOMPARE(y.scopeId, x.scopeId);
            QCOMPARE(y.parentScopeId, x.parentScopeId);
            QCOMPARE(y.label, x.label);
            QCOMPARE(y.depth, x.depth);
            QCOMPARE(y.threadId, x.threadId);
            QCOMPARE(y.threadName, x.threadName);
            QCOMPARE(y.sequence, x.sequence);
            QCOMPARE(y.startNs, x.startNs);
            QCOMPARE(y.endNs, x.endNs);
            QCOMPARE(y.syntheticEnd, x.syntheticEnd);
        }
        QCOMPARE(csv->sessions.size(), json->sessions.size());
        const SessionInfo& x = json->sessions[0];
        const SessionInfo& y = csv->sessions[0];
        QCOMPARE(y.id, x.id);
        QVERIFY(y.status == x.status);
        QCOMPARE(y.host, x.host);
        QCOMPARE(y.pid, x.pid);
        QCOMPARE(y.jobId, x.jobId);
        QCOMPARE(y.ranks, x.ranks);
        QCOMPARE(y.eventCount, x.eventCount);
        QCOMPARE(y.startedNs, x.startedNs);
        QCOMPARE(y.endedNs, x.endedNs);
        QCOMPARE(y.collector, x.collector);
        QCOMPARE(y.backend, x.backend);
    }

    void realSink()
    {
        const QString path = kShared + "/real/cpu_sink";
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::SinkDirectory));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::SinkDirectory);
        QCOMPARE(data->store.size(), size_t(67));
        QVERIFY2(data->problems.empty(), qPrintable(problemTexts(*data).join('\n')));
        QCOMPARE(data->sessions.size(), size_t(1));
        const SessionInfo& session = data->sessions[0];
        QCOMPARE(session.id, QStringLiteral("97784f9c-dc7b-40d8-abc5-844eb32b2644"));
        QVERIFY(session.status == SessionStatus::Completed);
        QCOMPARE(session.manifestEventCount, qint64(67));
        QCOMPARE(session.startedNs, qint64(1796063059450905921)); // manifest started_at_ns
        QCOMPARE(session.endedNs, qint64(1796063064458349640));
        QCOMPARE(session.host, QStringLiteral("vm"));
        QCOMPARE(session.pid, qint64(9718));
        QCOMPARE(session.ranks, std::vector<int64_t>{0});
    }

    void sinkWithMissingSegment()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString source = kShared + "/real/cpu_sink";
        QVERIFY(QFile::copy(source + "/segment-000001.jsonl", dir.filePath("segment-000001.jsonl")));
        QFile manifestFile(source + "/manifest.json");
        QVERIFY(manifestFile.open(QIODevice::ReadOnly));
        QJsonObject manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
        QJsonArray segments = manifest["segments"].toArray();
        QJsonObject missing = segments[0].toObject();
        missing["filename"] = "segment-000002.jsonl";
        missing["event_count"] = 10;
        segments.append(missing);
        manifest["segments"] = segments;
        writeFile(dir, "manifest.json", QJsonDocument(manifest).toJson());

        auto data = loadOk(dir.path());
        QVERIFY(data);
        QCOMPARE(data->store.size(), size_t(67));
        QCOMPARE(data->problems.errorCount(), qint64(0));
        QCOMPARE(data->problems.warningCount(), qint64(1));
        const LoadProblem& problem = data->problems.kept().front();
        QVERIFY(problem.level == LoadProblem::Level::Warning);
        QCOMPARE(problem.file, dir.filePath("manifest.json"));
        QCOMPARE(problem.reason,
                 QStringLiteral("segment 'segment-000002.jsonl' named by the manifest is missing "
                                "(pruned by retention?); its 10 events are not loaded"));
        QCOMPARE(data->sessions[0].manifestEventCount, qint64(77));
        QCOMPARE(data->sessions[0].eventCount, qint64(67));
    }

    void sinkListsSessionTwice()
    {
        QTemporaryDir dir;
        const QByteArray segment =
            objectText(baseEvent(1000, "start")) + "\n" + objectText(baseEvent(2000)) + "\n";
        writeFile(dir, "segment-000001.jsonl", segment);
        writeFile(
            dir, "manifest.json",
            "{\"format\": \"stormlog.append_only_telemetry_sink\",\n            \"sessions\": "
            "[{\"session_id\": \"s1\", \"status\": \"running\", \"host\": \"a\"},\n                         "
            "{\"session_id\": \"s1\", \"status\": \"interrupted\", \"pid\": 99}],\n            \"segments\": "
            "[{\"filename\": \"segment-000001.jsonl\", \"event_count\": 2, \"session_id\": \"s1\"}]}");
        auto data = loadOk(dir.path());
        QVERIFY(data);
        QCOMPARE(data->sessions.size(), size_t(1));
        QVERIFY(data->sessions[0].status == SessionStatus::Interrupted); // later entry wins
        QCOMPARE(data->sessions[0].host, QStringLiteral("a"));
        QCOMPARE(data->sessions[0].pid, qint64(99));
        QCOMPARE(data->problems.warningCount(), qint64(1));
        QVERIFY(data->problems.kept().front().reason.contains("listed twice"));
    }

    void parity_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("spans");
        for (const char* name : {"drift", "frag", "mixed", "quiet", "spikes"})
            QTest::newRow(name) << QString(name) << 302 << 0;
        for (const char* name : {"phases", "phasespike"})
            QTest::newRow(name) << QString(name) << 308 << 3;
    }
    void parity()
    {
        QFETCH(QString, name);
        QFETCH(int, events);
        QFETCH(int, spans);
        const QString path = kShared + "/parity/" + name + ".jsonl";
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::JsonLines));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::JsonLines);
        QCOMPARE(data->store.size(), size_t(events));
        QVERIFY2(data->problems.empty(), qPrintable(problemTexts(*data).join('\n')));
        QCOMPARE(data->phases.size(), size_t(spans));
        QCOMPARE(data->sessions.size(), size_t(1));
        const SessionInfo& session = data->sessions[0];
        QVERIFY(session.status == SessionStatus::Completed);
        QCOMPARE(session.host, QStringLiteral("gpu-node-7"));
        QCOMPARE(session.jobId, QStringLiteral("job-81"));
        QCOMPARE(session.backend, QStringLiteral("cuda"));
        QCOMPARE(session.collector, QStringLiteral("stormlog.cuda_tracker"));
    }

    void malformedRecord_data()
    {
        QTest::addColumn<Fields>("overrides");
        QTest::addColumn<int>("loaded");
        QTest::addColumn<int>("errors");
        QTest::addColumn<int>("warnings");
        QTest::addColumn<QString>("reason");
        QTest::newRow("string where int") << Fields{{"timestamp_ns", "\"12\""}} << 2 << 1 << 0
                                          << "field 'timestamp_ns': expected an integer, got a string";
        QTest::newRow("bool where int")
            << Fields{{"allocator_allocated_bytes", "true"}} << 2 << 1 << 0
            << "field 'allocator_allocated_bytes': expected an integer, got a boolean";
        QTest::newRow("fractional float where int")
            << Fields{{"device_used_bytes", "1.5"}} << 2 << 1 << 0
            << "field 'device_used_bytes': expected an integer, got 1.5";
        // pandas writes an integer column holding an empty cell as floats: read exactly
        QTest::newRow("integral float where int")
            << Fields{{"device_used_bytes", "500.0"}} << 3 << 0 << 0 << QString();
        QTest::newRow("float beyond 2^53 where int")
            << Fields{{"allocator_allocated_bytes", "1e17"}} << 2 << 1 << 0
            << "field 'allocator_allocated_bytes': expected an integer, got 1e17, beyond 2^53 where a "
               "floating-point number no longer holds every integer";
        QTest::newRow("negative counter") << Fields{{"allocator_reserved_bytes", "-5"}} << 2 << 1 << 0
                                          << "field 'allocator_reserved_bytes' is negative (-5)";
        QTest::newRow("negative change is fine")
            << Fields{{"allocator_change_bytes", "-5"}} << 3 << 0 << 0 << QString();
        QTest::newRow("used > total") << Fields{{"device_used_bytes", "2000"}} << 2 << 1 << 0
                                      << "device_used_bytes (2000) exceeds device_total_bytes (1000)";
        QTest::newRow("missing timestamp_ns")
            << Fields{{"timestamp_ns", ""}} << 2 << 1 << 0 << "missing required field 'timestamp_ns'";
        QTest::newRow("missing event_type")
            << Fields{{"event_type", ""}} << 2 << 1 << 0 << "missing required field 'event_type'";
        QTest::newRow("schema 3 without session_id")
            << Fields{{"session_id", ""}} << 2 << 1 << 0 << "missing required field 'session_id'";
        QTest::newRow("null counter before schema 4")
            << Fields{{"allocator_allocated_bytes", "null"}} << 2 << 1 << 0
            << "field 'allocator_allocated_bytes' is null (null counters need schema_version 4)";
        QTest::newRow("unsupported schema") << Fields{{"schema_version", "9"}} << 2 << 1 << 0
                                            << "unsupported schema_version 9 (2, 3 or 4 expected)";
        QTest::newRow("metadata not an object") << Fields{{"metadata", "[1]"}} << 2 << 1 << 0
                                                << "field 'metadata': expected an object, got an array";
        QTest::newRow("rank beyond world") << Fields{{"rank", "2"}, {"world_size", "2"}} << 2 << 1 << 0
                                           << "rank 2 is not below world_size 2";
        QTest::newRow("huge integer")
            << Fields{{"pid", "99999999999999999999"}} << 2 << 1 << 0
            << "field 'pid': expected an integer, got an invalid or out-of-range value";
        QTest::newRow("unknown key") << Fields{{"mystery", "{\"a\": [1]}"}} << 3 << 0 << 1
                                     << "unknown key 'mystery' ignored";
    }
    void malformedRecord()
    {
        QFETCH(Fields, overrides);
        QFETCH(int, loaded);
        QFETCH(int, errors);
        QFETCH(int, warnings);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, "trace.jsonl",
                      objectText(baseEvent(1000)) + "\n" + objectText(baseEvent(2000), overrides) + "\n" +
                          objectText(baseEvent(3000)) + "\n");
        auto data = loadOk(path);
        QVERIFY(data);
        QCOMPARE(int(data->store.size()), loaded);
        QCOMPARE(data->recordsRead, qint64(3));
        QCOMPARE(int(data->problems.errorCount()), errors);
        QCOMPARE(int(data->problems.warningCount()), warnings);
        if (errors + warnings == 0)
            return;
        const LoadProblem& problem = data->problems.kept().front();
        QCOMPARE(problem.file, path);
        QCOMPARE(problem.line, qint64(2));
        QCOMPARE(problem.index, qint64(-1));
        QCOMPARE(problem.reason, reason);
        QVERIFY(problem.level == (errors ? LoadProblem::Level::Error : LoadProblem::Level::Warning));
    }

    void truncatedLastLineIsAWarning()
    {
        QTemporaryDir dir;
        const QByteArray partial = objectText(baseEvent(3000)).left(40);
        const QString path =
            writeFile(dir, "live.jsonl",
                      objectText(baseEvent(1000)) + "\n" + objectText(baseEvent(2000)) + "\n" + partial);
        auto data = loadOk(path);
        QVERIFY(data);
        QCOMPARE(data->store.size(), size_t(2));
        QCOMPARE(data->problems.errorCount(), qint64(0));
        QCOMPARE(data->problems.warningCount(), qint64(1));
        const LoadProblem& problem = data->problems.kept().front();
        QCOMPARE(problem.line, qint64(3));
        QVERIFY2(problem.reason.startsWith("truncated last line ignored (40 bytes without a newline"),
                 qPrintable(problem.reason));

        // The same broken line with a newline after it is an error, and so is one mid-file.
        const QString midPath = writeFile(dir, "broken.jsonl",
                                          objectText(baseEvent(1000)) + "\n" + partial + "\n" +
                                              objectText(baseEvent(2000)) + "\n");
        auto mid = loadOk(midPath);
        QVERIFY(mid);
        QCOMPARE(mid->store.size(), size_t(2));
        QCOMPARE(mid->problems.errorCount(), qint64(1));
        QCOMPARE(mid->problems.kept().front().line, qint64(2));
        QVERIFY(mid->problems.kept().front().reason.startsWith("invalid JSON"));
    }

    void schema4Nulls()
    {
        QTemporaryDir dir;
        const Fields nulls{{"schema_version", "4"},
                           {"allocator_allocated_bytes", "null"},
                           {"allocator_reserved_bytes", "null"},
                           {"allocator_change_bytes", "null"},
                           {"device_used_bytes", "null"},
                           {"device_total_bytes", "null"},
                           {"device_free_bytes", "null"}};
        const QString path = writeFile(dir, "v4.jsonl",
                                       objectText(baseEvent(1000), nulls) + "\n" +
                                           objectText(baseEvent(2000), {{"schema_version", "4"}}) + "\n");
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY2(data->problems.empty(), qPrintable(problemTexts(*data).join('\n')));
        QCOMPARE(data->store.size(), size_t(2));
        const EventStore& s = data->store;
        QCOMPARE(s.allocated[0], kNullInt);
        QCOMPARE(s.reserved[0], kNullInt);
        QCOMPARE(s.change[0], kNullInt);
        QCOMPARE(s.used[0], kNullInt);
        QCOMPARE(s.total[0], kNullInt);
        QCOMPARE(s.allocated[1], int64_t(100));
        QCOMPARE(s.sources[s.source[0]].schemaVersion, int64_t(4));
    }

    void fatalInput_data()
    {
        QTest::addColumn<QByteArray>("content"); // written to "input.json"
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty file") << QByteArray() << "empty file";
        QTest::newRow("whitespace only") << QByteArray("  \n\n ") << "file holds only whitespace";
        QTest::newRow("plain text")
            << QByteArray("hello world\nsecond line\n")
            << "neither a stormlog trace nor a memory-budget log: not JSON, not a CSV with event columns, no "
               "budget tick line (starts with \"hello world second line \")";
        QTest::newRow("binary") << QByteArray("\x89PNG\r\n\x1a\n\0\0", 10) << "binary file, not JSON or CSV";
        QTest::newRow("object without event fields")
            << QByteArray("{\"name\": \"x\", \"value\": 3}")
            << "JSON object without event fields (keys: name, value)";
        QTest::newRow("array of numbers")
            << QByteArray("[1, 2, 3]") << "JSON array whose first element is not an object";
        QTest::newRow("empty array") << QByteArray("[]") << "no valid event record";
        QTest::newRow("only invalid records")
            << QByteArray("[{\"schema_version\": 3, \"timestamp_ns\": \"x\"}]")
            << "no valid event record (1 rejected; first: %1:1 [index 0]: "
               "missing required field 'session_id')";
    }
    void fatalInput()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = writeFile(dir, "input.json", content);
        const LoadOutcome outcome = loadTrace(path);
        QVERIFY(!outcome.data);
        QVERIFY(!outcome.cancelled);
        QCOMPARE(outcome.fatalError, path + ": " + (reason.contains("%1") ? reason.arg(path) : reason));
    }

    void fatalPaths()
    {
        QTemporaryDir dir;
        const QString missing = dir.filePath("nope.jsonl");
        QCOMPARE(loadTrace(missing).fatalError, missing + ": no such file or directory");
        QString why;
        QVERIFY(!detectTraceForm(dir.path(), &why));
        QCOMPARE(why, QStringLiteral("directory without manifest.json (not a stormlog sink)"));
        QCOMPARE(loadTrace(dir.path()).fatalError,
                 dir.path() + ": directory without manifest.json (not a stormlog sink)");
        writeFile(dir, "manifest.json", "{\"format\": \"something.else\"}");
        QCOMPARE(loadTrace(dir.path()).fatalError,
                 dir.path() + ": manifest.json is not a stormlog sink manifest (format 'something.else')");
    }

    // Several sessions: partitions sorted, statuses inferred, default picks newest completed.
    void severalSessions()
    {
        QTemporaryDir dir;
        QByteArray text;
        auto add = [&](qint64 ts, const QByteArray& type, const QByteArray& session,
                       const Fields& extra = {}) {
            text += objectText(baseEvent(ts, type, session), extra) + "\n";
        };
        add(5000, "start", "old");     // completed, oldest
        add(9000, "start", "newer");   // ends with an OOM error: interrupted
        add(12000, "start", "newest"); // no stop: incomplete
        add(6000, "sample", "old");
        add(6000, "sample", "old", {{"allocator_allocated_bytes", "101"}}); // tie: file order kept
        add(7000, "stop", "old");
        add(9500, "error", "newer", {{"metadata", "{\"oom_reason\": \"CUDA out of memory\"}"}});
        add(9600, "sample", "newer");
        add(13000, "sample", "newest", {{"rank", "1"}, {"world_size", "2"}});
        add(12500, "sample", "newest");
        const QString path = writeFile(dir, "multi.jsonl", text);
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY2(data->problems.empty(), qPrintable(problemTexts(*data).join('\n')));
        QCOMPARE(data->sessions.size(), size_t(3));
        QCOMPARE(data->sessions[0].id, QStringLiteral("old"));
        QVERIFY(data->sessions[0].status == SessionStatus::Completed);
        QCOMPARE(data->sessions[1].id, QStringLiteral("newer"));
        QVERIFY(data->sessions[1].status == SessionStatus::Interrupted);
        QCOMPARE(data->sessions[2].id, QStringLiteral("newest"));
        QVERIFY(data->sessions[2].status == SessionStatus::Incomplete);
        QCOMPARE(data->sessions[2].ranks, (std::vector<int64_t>{0, 1}));
        QVERIFY(data->defaultSessionIndex() == std::optional<size_t>(0));
        QVERIFY(data->findSession("newer") == std::optional<size_t>(1));
        QCOMPARE(data->partitions.size(), size_t(4));
        const Partition* old = data->partition(0);
        QVERIFY(old);
        QCOMPARE(old->size(), size_t(4));
        const auto& ts = data->store.timestampNs;
        QCOMPARE(std::vector<int64_t>(ts.begin() + old->begin, ts.begin() + old->end),
                 (std::vector<int64_t>{5000, 6000, 6000, 7000}));
        QCOMPARE(data->store.allocated[old->begin + 1], int64_t(100));
        QCOMPARE(data->store.allocated[old->begin + 2], int64_t(101));
        const Partition* rank1 = data->partition(2, 1);
        QVERIFY(rank1);
        QCOMPARE(rank1->size(), size_t(1));
        QCOMPARE(data->partition(2)->rank, int64_t(0));
        QVERIFY(!data->partition(1, 5));
        QCOMPARE(storedText(*data, data->store.metadata[data->partition(1)->begin + 1]),
                 QStringLiteral("{\"oom_reason\":\"CUDA out of memory\"}"));
    }

    // One source, timestamps out of order inside its run of rows (a clock stepped back, a
    // writer that flushed late): the rows are sorted by time all the same, ties kept in order.
    void outOfOrderWithinOneSource_data()
    {
        QTest::addColumn<QList<qint64>>("times");
        QTest::newRow("one step back") << QList<qint64>{1000, 2000, 1500, 3000};
        QTest::newRow("last row first") << QList<qint64>{2000, 3000, 4000, 1000};
        QTest::newRow("reversed") << QList<qint64>{4000, 3000, 2000, 1000};
        QTest::newRow("ties and a step back") << QList<qint64>{1000, 2000, 2000, 1000, 2000};
        QTest::newRow("in order") << QList<qint64>{1000, 1000, 2000, 3000};
    }
    void outOfOrderWithinOneSource()
    {
        QFETCH(QList<qint64>, times);
        QTemporaryDir dir;
        QByteArray text;
        for (qsizetype i = 0; i < times.size(); ++i) // allocated = file position, to see the order
            text += objectText(baseEvent(times[i]), {{"allocator_allocated_bytes", QByteArray::number(i)}}) +
                    "\n";
        auto data = loadOk(writeFile(dir, "steps.jsonl", text));
        QVERIFY(data);
        QCOMPARE(data->partitions.size(), size_t(1));
        std::vector<std::pair<qint64, qint64>> expected; // (time, file position), stable order
        for (qsizetype i = 0; i < times.size(); ++i)
            expected.push_back({times[i], i});
        std::stable_sort(expected.begin(), expected.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::pair<qint64, qint64>> loaded;
        for (size_t row = 0; row < data->store.size(); ++row)
            loaded.push_back({data->store.timestampNs[row], data->store.allocated[row]});
        QCOMPARE(loaded, expected);
        QCOMPARE(data->sessions.front().startedNs, *std::min_element(times.begin(), times.end()));
        QCOMPARE(data->sessions.front().endedNs, *std::max_element(times.begin(), times.end()));
    }

    void phasesAndOrigins()
    {
        QTemporaryDir dir;
        auto scope = [](const char* action, int sequence) {
            return QByteArray("{\"phase_scope\": {\"action\": \"") + action +
                   "\", \"name\": \"train\", \"path\": [\"train\"], \"depth\": 1, \"scope_id\": \"s1:1\", "
                   "\"parent_scope_id\": null, \"thread_id\": 5, \"thread_name\": \"Main\", \"sequence\": " +
                   QByteArray::number(sequence) + ", \"attributes\": {\"epoch\": 1}}}";
        };
        QByteArray text;
        text += objectText(baseEvent(1000, "phase_enter"), {{"metadata", scope("enter", 1)}}) + "\n";
        text += objectText(baseEvent(2000),
                           {{"metadata", "{\"origin_phase_scope_id\": \"s1:1\", \"origin_thread_id\": 5}"}}) +
                "\n";
        text += objectText(baseEvent(3000, "phase_exit"), {{"metadata", scope("enter", 2)}}) +
                "\n"; // wrong action
        text += objectText(baseEvent(4000)) + "\n";
        auto data = loadOk(writeFile(dir, "phases.jsonl", text));
        QVERIFY(data);
        QCOMPARE(data->problems.warningCount(), qint64(1));
        QCOMPARE(data->problems.kept().front().reason,
                 QStringLiteral("phase_scope ignored: action 'enter' does not match event_type phase_exit"));
        QCOMPARE(data->phases.size(), size_t(1));
        const PhaseSpan& span = data->phases.front();
        QCOMPARE(span.label, std::string("train"));
        QCOMPARE(span.startNs, int64_t(1000));
        QCOMPARE(span.endNs, int64_t(4000)); // never exited: closes at the last event
        QVERIFY(span.syntheticEnd);
        QCOMPARE(span.threadName, std::string("Main"));
        QCOMPARE(span.attributesJson, std::string("{\"epoch\":1}"));
        QCOMPARE(data->store.origins.size(), size_t(1));
        const EventOrigin& origin = data->store.origins.at(1);
        QVERIFY(origin.phaseScopeId == std::optional<std::string>("s1:1"));
        QVERIFY(origin.threadId == std::optional<int64_t>(5));
    }

    void legacyRecords()
    {
        QTemporaryDir dir;
        const QString path = writeFile(
            dir, "events.json",
            "[\n  {\"timestamp\": 1.5, \"memory_allocated\": 100, \"memory_reserved\": 200, "
            "\"memory_change\": 10,\n   \"type\": \"allocation\", \"device\": \"cuda:1\", \"total_memory\": "
            "1000},\n  {\"timestamp\": 2, \"memory_allocated\": 150, \"type\": \"sample\", \"device\": "
            "\"cpu\", \"device_total\": null},\n  {\"timestamp\": \"later\", \"memory_allocated\": 1}\n]");
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::Legacy));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::Legacy);
        QCOMPARE(data->store.size(), size_t(2));
        QCOMPARE(data->problems.errorCount(), qint64(1));
        const LoadProblem& problem = data->problems.kept().front();
        QCOMPARE(problem.line, qint64(5));
        QCOMPARE(problem.index, qint64(2));
        QCOMPARE(problem.reason,
                 QStringLiteral("field 'timestamp': expected seconds as a number, got a string"));
        const EventStore& s = data->store;
        QCOMPARE(s.timestampNs, (std::vector<int64_t>{1'500'000'000, 2'000'000'000}));
        QCOMPARE(s.allocated, (std::vector<int64_t>{100, 150}));
        QCOMPARE(s.reserved, (std::vector<int64_t>{200, 150})); // reserved defaults to allocated
        QCOMPARE(s.used, s.allocated);
        QCOMPARE(s.change.toVector(), (std::vector<int64_t>{10, 0}));
        QCOMPARE(s.total, (std::vector<int64_t>{1000, kNullInt}));
        QVERIFY(s.type[0] == EventType::Allocation);
        QCOMPARE(s.sources[s.source[0]].deviceId, int64_t(1));
        QCOMPARE(s.sources[s.source[1]].deviceId, int64_t(-1));
        QCOMPARE(s.sources[s.source[0]].schemaVersion, int64_t(0));
        QCOMPARE(data->sessions[0].collector, QStringLiteral("legacy.unknown"));
        QCOMPARE(data->sessions[0].id, QString());
        QVERIFY(data->sessions[0].status == SessionStatus::Incomplete);
    }

    void diagnoseTimeline()
    {
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, "telemetry_timeline.json",
                      "{\"timestamps\": [1.0, 1.5, 2.25], \"allocated\": [10, 20, 30],\n                     "
                      "                      \"reserved\": [40, 50, 60.0]}");
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::DiagnoseTimeline));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::DiagnoseTimeline);
        QVERIFY(data->problems.empty());
        const EventStore& s = data->store;
        QCOMPARE(s.timestampNs, (std::vector<int64_t>{1'000'000'000, 1'500'000'000, 2'250'000'000}));
        QCOMPARE(s.allocated, (std::vector<int64_t>{10, 20, 30}));
        QCOMPARE(s.reserved, (std::vector<int64_t>{40, 50, 60}));
        QCOMPARE(s.used, s.allocated);
        QVERIFY(
            std::all_of(s.type.begin(), s.type.end(), [](EventType t) { return t == EventType::Sample; }));
        QCOMPARE(data->sessions[0].collector, QStringLiteral("diagnose.timeline"));
    }

    void eventsWrapperAndArrayLines()
    {
        QTemporaryDir dir;
        const QByteArray text = "{\"events\": [\n  " + objectText(baseEvent(1000)) + ",\n  " +
                                objectText(baseEvent(2000), {{"pid", "false"}}) + ",\n  " +
                                objectText(baseEvent(3000)) + "\n]}\n";
        const QString path = writeFile(dir, "wrapped.json", text);
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::JsonArray));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::JsonArray);
        QCOMPARE(data->store.size(), size_t(2));
        QCOMPARE(data->problems.errorCount(), qint64(1));
        const LoadProblem& problem = data->problems.kept().front();
        QCOMPARE(problem.line, qint64(3));
        QCOMPARE(problem.index, qint64(1));
        QCOMPARE(problem.toString(), path + ":3 [index 1]: field 'pid': expected an integer, got a boolean");
    }

    void singlePrettyObject()
    {
        QTemporaryDir dir;
        QByteArray pretty = objectText(baseEvent(1000, "peak"));
        pretty.replace(", ", ",\n  ");
        const QString path = writeFile(dir, "one.json", pretty);
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::JsonArray));
        auto data = loadOk(path);
        QVERIFY(data);
        QCOMPARE(data->store.size(), size_t(1));
        QVERIFY(data->store.type[0] == EventType::Peak);
        QVERIFY(data->problems.empty());
    }

    // A first record longer than the 1 MB detection prefix (large metadata) must not make a
    // JSON lines file look like one JSON document: every line loads, from a file and from bytes.
    void longFirstRecordIsStillJsonLines_data()
    {
        QTest::addColumn<int>("padBytes");
        QTest::newRow("just over the prefix") << (1 << 20) + 10;
        QTest::newRow("3 MB") << (3 << 20);
    }

    void longFirstRecordIsStillJsonLines()
    {
        QFETCH(int, padBytes);
        QTemporaryDir dir;
        const QByteArray pad = "{\"pad\": \"" + QByteArray(padBytes, 'x') + "\"}";
        const QByteArray text = objectText(baseEvent(1000), {{"metadata", pad}}) + "\n" +
                                objectText(baseEvent(2000)) + "\n" + objectText(baseEvent(3000)) + "\n";
        const QString path = writeFile(dir, "long.jsonl", text);
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::JsonLines));
        const auto data = loadOk(path);
        QVERIFY(data);
        QCOMPARE(data->store.size(), size_t(3));
        QVERIFY2(data->problems.empty(), qPrintable(problemTexts(*data).join(QLatin1Char('\n'))));
        const LoadOutcome fromBytes =
            loadTraceBytes(std::string_view(text.constData(), size_t(text.size())), std::nullopt, path);
        QVERIFY(fromBytes.data);
        QVERIFY(fromBytes.data->form == TraceForm::JsonLines);
        QCOMPARE(fromBytes.data->store.size(), size_t(3));
    }

    void csvWithPythonMetadata()
    {
        QTemporaryDir dir;
        const QString path = writeFile(
            dir, "trace.txt",
            "schema_version,session_id,timestamp_ns,event_type,collector,device_used_bytes,"
            "allocator_allocated_bytes,allocator_reserved_bytes,device_total_bytes,context,metadata\r\n"
            "3,s9,1000,sample,stormlog.cuda_tracker,300,100,200,1000,\"a, \"\"quoted\"\"\nline\","
            "\"{'backend': 'cuda', 'x': None, 'ok': True, 'path': ['a', 'b']}\"\r\n"
            "\r\n"
            "3,s9,2000,sample,stormlog.cuda_tracker,300,100,200,,,{\"backend\": \"cuda\"}\r\n"
            "3,s9,3000,sample,stormlog.cuda_tracker,300,True,200,,,{}\r\n"
            "3,s9,4000,sample,stormlog.cuda_tracker,300,100,200,,,{'broken': }\r\n"
            "3,s9,5000,sample\r\n");
        QVERIFY(detectTraceForm(path) == std::optional<TraceForm>(TraceForm::Csv));
        auto data = loadOk(path);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::Csv);
        QCOMPARE(data->store.size(), size_t(2));
        QCOMPARE(data->recordsRead, qint64(5));
        QCOMPARE(data->problems.errorCount(), qint64(3));
        const auto& problems = data->problems.kept();
        QCOMPARE(problems[0].line, qint64(6));
        QCOMPARE(problems[0].reason,
                 QStringLiteral("field 'allocator_allocated_bytes': expected an integer, got a boolean"));
        QCOMPARE(problems[1].line, qint64(7));
        QVERIFY(problems[1].reason.startsWith("field 'metadata': neither JSON nor a Python literal"));
        QCOMPARE(problems[2].line, qint64(8));
        QCOMPARE(problems[2].reason, QStringLiteral("row has 4 cells, the header has 11"));
        const EventStore& s = data->store;
        QCOMPARE(storedText(*data, s.metadata[0]),
                 QStringLiteral("{\"backend\":\"cuda\",\"x\":null,\"ok\":true,\"path\":[\"a\",\"b\"]}"));
        QCOMPARE(storedText(*data, s.metadata[1]), QStringLiteral("{\"backend\":\"cuda\"}"));
        QCOMPARE(storedText(*data, s.context[0]), QStringLiteral("a, \"quoted\"\nline"));
        QCOMPARE(s.total, (std::vector<int64_t>{1000, kNullInt}));
        QCOMPARE(data->sessions[0].backend, QStringLiteral("cuda"));
    }

    // The form comes from the content, whatever the extension says.
    void detectionIgnoresExtension()
    {
        QTemporaryDir dir;
        const QString lines =
            writeFile(dir, "looks.csv", objectText(baseEvent(1)) + "\n" + objectText(baseEvent(2)) + "\n");
        QVERIFY(detectTraceForm(lines) == std::optional<TraceForm>(TraceForm::JsonLines));
        const QString array = writeFile(dir, "looks.jsonl", "[" + objectText(baseEvent(1)) + "]");
        QVERIFY(detectTraceForm(array) == std::optional<TraceForm>(TraceForm::JsonArray));
        const QString legacyLines = writeFile(dir, "legacy.log",
                                              "{\"timestamp\": 1.0, \"memory_allocated\": 5}\n"
                                              "{\"timestamp\": 2.0, \"memory_allocated\": 6}\n");
        QVERIFY(detectTraceForm(legacyLines) == std::optional<TraceForm>(TraceForm::Legacy));
        auto data = loadOk(legacyLines);
        QVERIFY(data);
        QVERIFY(data->form == TraceForm::Legacy);
        QCOMPARE(data->store.size(), size_t(2));
    }

    // Bytes in memory are detected as a file of the same content (detectTraceBytesForm is what
    // loadTraceBytes uses), keys with escaped quotes included.
    void bytesDetectedAsTheirFile_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("form"); // toString(TraceForm), or "none"
        const QByteArray event = objectText(baseEvent(1));
        QTest::newRow("JSON lines") << event + "\n" + event + "\n" << toString(TraceForm::JsonLines);
        QTest::newRow("JSON array") << "[" + event + "]" << toString(TraceForm::JsonArray);
        QTest::newRow("one object") << event << toString(TraceForm::JsonArray);
        QTest::newRow("legacy lines") << QByteArray("{\"timestamp\": 1.0, \"memory_allocated\": 5}\n"
                                                    "{\"timestamp\": 2.0, \"memory_allocated\": 6}\n")
                                      << toString(TraceForm::Legacy);
        QTest::newRow("CSV") << QByteArray("timestamp_ns,event_type\n1,sample\n") << toString(TraceForm::Csv);
        QTest::newRow("escaped quote in a key")
            << QByteArray("{\"a\\\"b\": {\"c\": [1, \"]\"]}, \"timestamp_ns\": 1}")
            << toString(TraceForm::JsonArray);
        QTest::newRow("key only inside a string")
            << QByteArray("{\"note\": \"timestamp_ns\\\\\", \"x\": 1}") << QStringLiteral("none");
        QTest::newRow("cut after a backslash") << QByteArray("{\"timestamp_ns\\") << QStringLiteral("none");
        QTest::newRow("text") << QByteArray("hello\n") << QStringLiteral("none");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("none");
    }
    void bytesDetectedAsTheirFile()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, form);
        QTemporaryDir dir;
        const QString path = writeFile(dir, "input", content);
        const auto asText = [](std::optional<TraceForm> detected) {
            return detected ? toString(*detected) : QStringLiteral("none");
        };
        QString whyBytes, whyFile;
        QCOMPARE(asText(detectTraceBytesForm(std::string_view(content.constData(), size_t(content.size())),
                                             &whyBytes)),
                 form);
        QCOMPARE(asText(detectTraceForm(path, &whyFile)), form);
        QCOMPARE(whyBytes, whyFile);
    }

    void progressAndCancel()
    {
        // ~3 MB of JSON lines: progress at least every ~1 MB, cancel honoured mid-file.
        QTemporaryDir dir;
        QByteArray text;
        const int lines = 5000;
        for (int i = 0; i < lines; ++i)
            text += objectText(baseEvent(1000 + i), {{"context", "\"" + QByteArray(300, 'c') + "\""}}) + "\n";
        const QString path = writeFile(dir, "big.jsonl", text);
        const qint64 size = text.size();
        constexpr qint64 kStep = 1 << 20;
        const qint64 longestLine = text.indexOf('\n') + 1;

        std::vector<std::pair<qint64, qint64>> calls;
        LoadControl control;
        control.progress = [&](qint64 done, qint64 total) { calls.emplace_back(done, total); };
        auto outcome = loadTrace(path, control);
        QVERIFY(outcome.data);
        QVERIFY(!outcome.cancelled);
        QCOMPARE(outcome.data->store.size(), size_t(lines));
        QVERIFY(calls.size() >= size_t(size / kStep));
        QVERIFY(calls.back() == std::make_pair(size, size));
        qint64 previous = 0;
        for (const auto& [done, total] : calls) {
            QCOMPARE(total, size);
            QVERIFY(done >= previous);
            QVERIFY(done - previous <= kStep + longestLine);
            previous = done;
        }

        std::atomic<bool> cancel{false};
        LoadControl cancelling;
        cancelling.cancel = &cancel;
        cancelling.progress = [&](qint64, qint64) { cancel = true; }; // cancel at the first report
        const LoadOutcome cancelled = loadTrace(path, cancelling);
        QVERIFY(cancelled.cancelled);
        QVERIFY(cancelled.fatalError.isEmpty());
        QVERIFY(cancelled.data);
        QVERIFY(cancelled.data->store.size() > 0);
        QVERIFY(cancelled.data->store.size() < size_t(lines) / 2);

        // Already cancelled: nothing is read.
        const LoadOutcome early = loadTrace(path, cancelling);
        QVERIFY(early.cancelled);
        QVERIFY(!early.data);
        QVERIFY(early.fatalError.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTraceLoader)
#include "tst_traceloader.moc"
