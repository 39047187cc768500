// The JSON lines fast path (EventRecordParser::parseFlatLine) against simdjson's reading of
// the same text: whatever the fast path takes must come out exactly as parse() gives it
// (rows, strings, sources, origins, problems with their lines), and what it cannot read
// exactly it must leave to simdjson. Each row also says whether the fast path is expected
// to take its lines, so a fast path that gave up on everything would fail here too.

#include "bench/RealShape.h"
#include "model/trace/Csv.h"
#include "model/trace/JsonDocumentReader.h"

#include <QDir>
#include <QDirIterator>
#include <QtTest>

#include <algorithm>

#include <string>

using namespace gapscope;
using namespace gapscope::detail;

namespace {

enum Expect
{
    AllFast = 1,    // every non-blank line is read by the fast path
    NoneFast = 0,   // no line is
    EitherWay = -1, // traces: some lines are (those with escapes or unknown keys are not)
    Unchecked = -2, // not traces (budget logs): only the two readings are compared
};

EventChunk readLines(const std::string& text, bool fast)
{
    std::string buffer = text;
    buffer.append(simdjson::SIMDJSON_PADDING, '\0');
    EventRecordParser parser(QStringLiteral("t.jsonl"));
    EventChunk chunk;
    RangeControl control;
    control.flatFastPath = fast;
    parseJsonLinesRange(buffer.data(), 0, text.size(), buffer.size(), 1, true, parser, chunk, control);
    return chunk;
}

// Empty when reading text with the fast path and without it (read(text, fast)) gives the same
// chunk, with at least one record read; otherwise what differs.
QString fastPathDifference(const std::string& text, EventChunk (*read)(const std::string&, bool))
{
    const EventChunk fast = read(text, true);
    const EventChunk slow = read(text, false);
    if (fast.recordsRead == 0)
        return QStringLiteral("no record read");
    return chunkDifference(fast, slow);
}

// How many of the non-blank lines the fast path reads (each with a parser of its own
// history, as in a range: key order is learnt from the lines before).
int fastLines(const std::string& text, int* lines)
{
    EventRecordParser parser(QStringLiteral("t.jsonl"));
    EventChunk chunk;
    int taken = 0;
    *lines = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        if (!line.empty()) {
            ++*lines;
            if (parser.parseFlatLine(line, RecordLocation{1, -1}, chunk))
                ++taken;
        }
        pos = end + 1;
    }
    return taken;
}

std::string readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().toStdString();
}

// A schema 3 sample as the parity fixtures write it.
const std::string kSample =
    R"({"schema_version": 3, "session_id": "6513270e-269e-0d37-f2a7-4de452e6b438", "timestamp_ns": )"
    R"(1796000000400000000, "event_type": "sample", "collector": "stormlog.cuda_tracker", )"
    R"("sampling_interval_ms": 100, "pid": 4242, "host": "gpu-node-7", "job_id": "job-81", "rank": 0, )"
    R"("local_rank": 0, "world_size": 1, "device_id": 0, "allocator_allocated_bytes": 32252053317, )"
    R"("allocator_reserved_bytes": 34578429066, "allocator_active_bytes": 32252053317, )"
    R"("allocator_inactive_bytes": 2326375749, "allocator_change_bytes": 0, "device_used_bytes": )"
    R"(36299382248, "device_free_bytes": 49599963671, "device_total_bytes": 85899345920, "context": )"
    R"("Collected telemetry sample.", "metadata": {"backend": "cuda"}})";

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    if (at == std::string::npos)
        qFatal("'%s' is not in the sample", from.c_str());
    return text.replace(at, from.size(), to);
}

// The sample with one field's value replaced (the key stays).
std::string withValue(const std::string& key, const std::string& value)
{
    const std::string quoted = "\"" + key + "\": ";
    const size_t at = kSample.find(quoted);
    if (at == std::string::npos)
        qFatal("no key %s", key.c_str());
    const size_t start = at + quoted.size();
    size_t end = start;
    int depth = 0;
    bool inString = false;
    for (; end < kSample.size(); ++end) {
        const char c = kSample[end];
        if (inString) {
            if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}') {
            if (depth == 0)
                break;
            --depth;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    std::string text = kSample;
    return text.replace(start, end - start, value);
}

std::string lines(std::initializer_list<std::string> records)
{
    std::string text;
    for (const std::string& record : records)
        text += record + "\n";
    return text;
}

} // namespace

class TestJsonFastPath : public QObject
{
    Q_OBJECT

private slots:
    void sameAsSimdjson_data();
    void sameAsSimdjson();
    // CSV rows become JSON objects that take the same fast path.
    void csvSameAsSimdjson_data();
    void csvSameAsSimdjson();
};

void TestJsonFastPath::sameAsSimdjson_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("expect");
    auto row = [](const char* name, const std::string& text, Expect expect) {
        QTest::newRow(name) << QByteArray::fromStdString(text) << static_cast<int>(expect);
    };
    std::string compact = kSample;
    for (const char* from : {", ", ": "}) {
        for (size_t at = compact.find(from); at != std::string::npos; at = compact.find(from))
            compact.replace(at, 2, std::string(1, from[0]));
    }

    row("sample", lines({kSample, kSample}), AllFast);
    row("no spaces", lines({compact}), AllFast);
    row("tabs and spaces",
        lines({replaced(replaced(kSample, "{\"schema", "{ \t\"schema"), ": 4242", " :\t4242 ")}), AllFast);
    row("CRLF", kSample + "\r\n" + kSample + "\r\n", AllFast);
    row("last line without newline", kSample + "\n" + kSample, AllFast);
    row("keys in another order",
        lines({kSample, replaced(replaced(kSample, "\"rank\": 0, ", ""), "\"pid\": 4242",
                                 "\"pid\": 4242, \"rank\": 0")}),
        AllFast);
    row("UTF-8 text",
        lines({withValue("context", "\"Gr\xC3\xB6\xC3\x9F"
                                    "e \xE2\x82\xAC \xF0\x9F\x98\x80\"")}),
        AllFast);
    row("negative zero", lines({withValue("allocator_change_bytes", "-0")}), AllFast);
    row("negative change", lines({withValue("allocator_change_bytes", "-123456789012")}), AllFast);
    row("int64 max", lines({withValue("allocator_allocated_bytes", "9223372036854775807")}), AllFast);
    row("eight and sixteen digits",
        lines({withValue("pid", "12345678"), withValue("pid", "1234567812345678")}), AllFast);
    row("null counter (schema 3: rejected)", lines({withValue("device_used_bytes", "null")}), AllFast);
    row("schema 4 null counters",
        lines({replaced(withValue("device_used_bytes", "null"), "\"schema_version\": 3",
                        "\"schema_version\": 4")}),
        AllFast);
    row("boolean rank (rejected)", lines({withValue("rank", "true")}), AllFast);
    row("string pid (rejected)", lines({withValue("pid", "\"4242\"")}), AllFast);
    row("used above total (rejected)", lines({withValue("device_used_bytes", "95899345920")}), AllFast);
    row("missing field (rejected)", lines({replaced(kSample, "\"timestamp_ns\": 1796000000400000000, ", "")}),
        AllFast);
    row("metadata null", lines({withValue("metadata", "null")}), AllFast);
    row("metadata empty", lines({withValue("metadata", "{}"), withValue("metadata", "{ }")}), AllFast);
    row("metadata origins",
        lines({withValue(
            "metadata",
            R"({"backend": "cuda", "origin_thread_id": 7, "origin_phase_scope_id": "s:1", "x": true, "y": null})")}),
        AllFast);
    row("metadata origin thread -0", lines({withValue("metadata", R"({"origin_thread_id": -0})")}), AllFast);
    row("metadata typed oddly",
        lines({withValue("metadata",
                         R"({"backend": 5, "origin_thread_id": "7", "origin_phase_scope_id": 3})")}),
        AllFast);
    row("metadata duplicate keys",
        lines({withValue("metadata", R"({"backend": "cuda", "backend": "rocm"})")}), AllFast);
    row("nested metadata", lines({withValue("metadata", R"({"phase_scope": {"name": "train"}})")}), AllFast);
    row("metadata float", lines({withValue("metadata", R"({"ratio": 0.5, "big": 1e999, "n": -2.5E-3})")}),
        AllFast);
    row("metadata arrays and words",
        lines({withValue(
            "metadata",
            R"({"a": [], "b": [1, "x", null, true, false, {"c": [[]]}], "d": { }, "e": [ 1 , 2 ]})")}),
        AllFast);
    row("metadata origin thread as string", lines({withValue("metadata", R"({"origin_thread_id": "7"})")}),
        AllFast);
    row("metadata nested duplicate keys", lines({withValue("metadata", R"({"a": {"k": 1, "k": 2}})")}),
        AllFast);
    row("metadata repeated, then changed",
        lines({withValue("metadata", R"({"backend": "cuda", "origin_thread_id": 3, "p": [1]})"),
               withValue("metadata", R"({"backend": "cuda", "origin_thread_id": 3, "p": [1]})"),
               withValue("metadata", R"({"backend": "cuda", "origin_thread_id": 3, "p": [1] })"),
               withValue("metadata", R"({"backend": "rocm", "origin_thread_id": 4, "p": [1]})"),
               withValue("metadata", R"({"backend": "cuda", "origin_thread_id": 3, "p": [1]})"),
               withValue("metadata", R"({})")}),
        AllFast);
    row("phase events",
        lines(
            {replaced(
                 withValue(
                     "metadata",
                     R"({"phase_scope": {"action": "enter", "name": "s", "path": ["s"], "depth": 1, "scope_id": "x:1", "parent_scope_id": null, "thread_id": 1, "thread_name": "MainThread", "sequence": 1}})"),
                 "\"sample\"", "\"phase_enter\""),
             replaced(
                 withValue(
                     "metadata",
                     R"({"phase_scope": {"action": "exit", "name": "s", "path": ["s"], "depth": 1, "scope_id": "x:1", "parent_scope_id": null, "thread_id": 1, "thread_name": "MainThread", "sequence": 2}})"),
                 "\"sample\"", "\"phase_exit\"")}),
        AllFast);
    row("legacy record",
        lines(
            {R"({"timestamp": 1700000000, "memory_allocated": 5, "memory_reserved": 9, "device": "cuda:1"})"}),
        AllFast);

    // Left to simdjson: it must still come out the same.
    row("escaped quote", lines({withValue("context", "\"a \\\"quoted\\\" word\"")}), NoneFast);
    row("unicode escape", lines({withValue("host", "\"h\\u00e9\"")}), NoneFast);
    row("escaped key", lines({replaced(kSample, "\"pid\"", "\"p\\u0069d\"")}), NoneFast);
    row("invalid UTF-8", lines({withValue("context", "\"bad \xFF byte\"")}), NoneFast);
    row("overlong UTF-8", lines({withValue("context", "\"\xC0\xAF\"")}), NoneFast);
    row("control character", lines({withValue("context", "\"tab\there\"")}), NoneFast);
    row("int64 max + 1", lines({withValue("allocator_allocated_bytes", "9223372036854775808")}), NoneFast);
    row("int64 min", lines({withValue("allocator_change_bytes", "-9223372036854775808")}), NoneFast);
    row("twenty digits", lines({withValue("allocator_allocated_bytes", "12345678901234567890")}), NoneFast);
    row("leading zero", lines({withValue("pid", "0123")}), NoneFast);
    row("fraction", lines({withValue("pid", "42.5")}), NoneFast);
    row("exponent", lines({withValue("allocator_allocated_bytes", "1e9")}), NoneFast);
    row("minus alone", lines({withValue("pid", "-")}), NoneFast);
    row("plus sign", lines({withValue("pid", "+4")}), NoneFast);
    row("nul atom", lines({withValue("device_free_bytes", "nul")}), NoneFast);
    row("metadata array", lines({withValue("metadata", "[1, 2]")}), NoneFast);
    row("metadata string", lines({withValue("metadata", "\"cuda\"")}), NoneFast);
    row("metadata nested deeper than the fast path reads",
        lines({withValue("metadata", "{\"a\": " + std::string(40, '[') + std::string(40, ']') + "}")}),
        NoneFast);
    row("metadata nested escape", lines({withValue("metadata", R"({"phase_scope": {"name": "a\"b"}})")}),
        NoneFast);
    row("metadata bad number",
        lines({withValue("metadata", R"({"x": [1.]})"), withValue("metadata", R"({"x": 01})"),
               withValue("metadata", R"({"x": -})"), withValue("metadata", R"({"x": 1.5abc})")}),
        NoneFast);
    row("metadata bad word", lines({withValue("metadata", R"({"x": [tru]})")}), NoneFast);
    row("metadata origin thread beyond int64",
        lines({withValue("metadata", R"({"origin_thread_id": 9223372036854775808})"),
               withValue("metadata", R"({"origin_thread_id": -9223372036854775808})")}),
        NoneFast);
    row("metadata origin thread as float", lines({withValue("metadata", R"({"origin_thread_id": 7.5})")}),
        NoneFast);
    row("metadata unclosed nested", lines({withValue("metadata", R"({"a": {"b": 1})")}), NoneFast);
    row("metadata trailing comma", lines({withValue("metadata", R"({"a": [1, 2,]})")}), NoneFast);
    row("object value", lines({withValue("host", R"({"name": "h"})")}), NoneFast);
    row("duplicate key", lines({replaced(kSample, "\"pid\": 4242", "\"pid\": 4242, \"pid\": 4243")}),
        NoneFast);
    row("duplicate metadata", lines({replaced(kSample, "\"pid\": 4242", "\"metadata\": {}, \"pid\": 4242")}),
        NoneFast);
    row("unknown key", lines({replaced(kSample, "\"pid\": 4242", "\"pid\": 4242, \"colour\": \"red\"")}),
        NoneFast);
    row("text after the object", lines({kSample + " trailing"}), NoneFast);
    row("two objects", lines({kSample + kSample}), NoneFast);
    row("missing comma", lines({replaced(kSample, "\"pid\": 4242,", "\"pid\": 4242")}), NoneFast);
    row("unclosed object", lines({kSample.substr(0, kSample.size() - 1)}), NoneFast);
    row("cut last line", kSample + "\n" + kSample.substr(0, 300), EitherWay);
    row("empty object", lines({"{}"}), NoneFast);
    row("array line", lines({"[1, 2]"}), NoneFast);
    row("not JSON", lines({"hello"}), NoneFast);

    // The records stormlog writes (bench/RealShape.h): the fast path reads every one.
    for (const bool cpu : {false, true}) {
        gapscope::bench::RealShapeSource source(cpu);
        std::string text;
        for (int64_t i = 0; i < 2100; ++i)
            gapscope::bench::appendSortedLine(text, source.next(i));
        row(cpu ? "real shape, CPU tracker" : "real shape, CUDA tracker", text, AllFast);
    }

    // Every JSON lines file of the test data (fixtures, sink segments, regression inputs).
    const QString data = QStringLiteral(GAPSCOPE_TEST_DATA_DIR);
    QDirIterator files(data, {"*.jsonl"}, QDir::Files, QDirIterator::Subdirectories);
    QStringList paths;
    while (files.hasNext())
        paths << files.next();
    paths.sort();
    QVERIFY(paths.size() >= 20);
    for (const QString& path : paths) {
        const std::string text = readAll(path);
        if (std::all_of(text.begin(), text.end(), [](char c) { return c == '\n' || c == ' ' || c == '\r'; }))
            continue; // nothing to read either way
        // budget logs and the pickle reader's expected values are JSON lines of other shapes:
        // both readings must still agree on them
        const bool trace = !QFileInfo(path).fileName().startsWith(QLatin1String("budget")) &&
                           !path.contains(QLatin1String("/budget/")) &&
                           !path.contains(QLatin1String("/snapshot/"));
        QTest::newRow(qPrintable(QDir(data).relativeFilePath(path)))
            << QByteArray::fromStdString(text) << static_cast<int>(trace ? EitherWay : Unchecked);
    }
}

void TestJsonFastPath::sameAsSimdjson()
{
    QFETCH(QByteArray, text);
    QFETCH(int, expect);
    QVERIFY(!text.isEmpty());
    const std::string input = text.toStdString();
    const EventChunk fast = readLines(input, true);
    const EventChunk slow = readLines(input, false);
    const QString difference = chunkDifference(fast, slow);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    if (expect == AllFast || expect == NoneFast)
        QVERIFY(fast.recordsRead > 0);

    int lineCount = 0;
    const int taken = fastLines(input, &lineCount);
    if (expect == AllFast)
        QCOMPARE(taken, lineCount);
    else if (expect == NoneFast)
        QCOMPARE(taken, 0);
    else if (expect == EitherWay)
        QVERIFY(taken > 0 || lineCount <= 2);
}

namespace {

EventChunk readCsv(const std::string& text, bool fast)
{
    EventRecordParser parser(QStringLiteral("t.csv"));
    EventChunk chunk;
    RangeControl control;
    control.flatFastPath = fast;
    parseCsv(text, parser, chunk, control);
    return chunk;
}

} // namespace

void TestJsonFastPath::csvSameAsSimdjson_data()
{
    QTest::addColumn<QByteArray>("text");
    const QString shared = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/";
    QTest::newRow("cpu_phases.csv") << QByteArray::fromStdString(readAll(shared + "real/cpu_phases.csv"));
    {
        // the tracker's CSV export of stormlog's records (bench/RealShape.h): Python dict metadata
        gapscope::bench::RealShapeSource source;
        std::string text;
        for (int64_t i = 0; i < 2100; ++i) {
            const auto record = source.next(i);
            if (i == 0)
                text += gapscope::bench::csvHeader(record);
            gapscope::bench::appendCsvRow(text, record);
        }
        QTest::newRow("real shape CSV") << QByteArray::fromStdString(text);
    }
    const QByteArray header =
        "schema_version,session_id,timestamp_ns,event_type,collector,sampling_interval_ms,pid,host,job_id,"
        "rank,"
        "local_rank,world_size,device_id,allocator_allocated_bytes,allocator_reserved_bytes,allocator_active_"
        "bytes,allocator_inactive_bytes,allocator_change_bytes,device_used_bytes,device_free_bytes,device_"
        "total_"
        "bytes,context,metadata\n";
    const QByteArray plain = "3,s1,1000,sample,c,10,7,h,,0,0,1,0,100,200,,,0,300,700,1000,,{}\n";
    QTest::newRow("plain rows") << header + plain + plain + plain;
    QTest::newRow("python metadata")
        << header +
               "3,s1,1000,sample,c,10,7,h,,0,0,1,0,100,200,,,0,300,700,1000,ctx,\"{'a': 1, 'b': 'x'}\"\n";
    QTest::newRow("quoted cells, escapes")
        << header +
               "3,\"s,1\",1000,sample,c,10,7,\"h \"\"q\"\"\",,0,0,1,0,100,200,,,0,300,700,1000,\"a\\b\",{}\n";
    QTest::newRow("float and word cells")
        << header + "3,s1,1000.5,sample,c,10,7,h,,0,0,1,0,1e3,200,,,0,300,700,1000,,{}\n" +
               "3,s1,1000,sample,c,True,7,h,,0,0,1,0,100,x,,,0,300,700,1000,,{}\n";
    QTest::newRow("unknown column") << QByteArray("extra,") + header.left(header.size() - 1) + "\n" + "9," +
                                           plain;
    QTest::newRow("rejected rows") << header +
                                          "3,s1,,sample,c,10,7,h,,0,0,1,0,100,200,,,0,300,700,1000,,{}\n" +
                                          "3,,1000,sample,c,10,7,h,,0,0,1,0,100,200,,,0,300,700,1000,,{}\n" +
                                          plain;
}

void TestJsonFastPath::csvSameAsSimdjson()
{
    QFETCH(QByteArray, text);
    const QString difference = fastPathDifference(text.toStdString(), readCsv);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

QTEST_GUILESS_MAIN(TestJsonFastPath)
#include "tst_jsonfastpath.moc"
