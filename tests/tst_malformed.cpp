// The malformed-input suite (docs/robustness.md): what a crashed job, an interleaved log or
// another tool leaves behind. Every case states its exact outcome: the fatal error, or how
// many records loaded, how many problems at which lines and why. Every case also checks the
// input was left untouched (size, mtime and content hash before and after).

#include "model/budget/BudgetLoader.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/trace/PyLiteral.h"
#include "model/trace/TraceLoader.h"
#include "model/work/TraceFollower.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <future>
#include <thread>

using namespace gapscope;

namespace {

// ----------------------------------------------------------------------------- inputs

using Fields = QList<QPair<QByteArray, QByteArray>>; // key, raw JSON value

// One valid schema-3 event; overrides replace a value (or are appended), an empty value
// removes the key.
QByteArray eventLine(qint64 timestampNs, const Fields& overrides = {})
{
    Fields fields{{"schema_version", "3"},
                  {"session_id", "\"s1\""},
                  {"timestamp_ns", QByteArray::number(timestampNs)},
                  {"event_type", "\"sample\""},
                  {"collector", "\"stormlog.cuda_tracker\""},
                  {"pid", "7"},
                  {"host", "\"node\""},
                  {"rank", "0"},
                  {"world_size", "1"},
                  {"allocator_allocated_bytes", "100"},
                  {"allocator_reserved_bytes", "200"},
                  {"allocator_change_bytes", "0"},
                  {"device_used_bytes", "300"},
                  {"device_free_bytes", "700"},
                  {"device_total_bytes", "1000"},
                  {"metadata", "{}"}};
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

QByteArray csvHeader()
{
    return "schema_version,session_id,timestamp_ns,event_type,collector,pid,host,rank,world_size,"
           "allocator_allocated_bytes,allocator_reserved_bytes,allocator_change_bytes,device_used_bytes,"
           "device_free_bytes,device_total_bytes,metadata";
}

QByteArray csvRow(qint64 timestampNs, const QByteArray& allocated = "100")
{
    return "3,s1," + QByteArray::number(timestampNs) + ",sample,stormlog.cuda_tracker,7,node,0,1," +
           allocated + ",200,0,300,700,1000,\"{'backend': 'cuda'}\"";
}

// A text-form tick at 09:00:<second>.
QByteArray tick(int second, const QByteArray& fields = "target_bytes=1000 rss_bytes=900")
{
    return "2026-11-30T09:00:" + QByteArray::number(second).rightJustified(2, '0') +
           "Z  INFO memory_budget::budget: budget tick " + fields + " verdict=\"hold\" verdict_streak=1";
}

// A snapshot JSON line at 09:00:<second>.
QByteArray snapshot(int second, const QByteArray& rss = "900")
{
    return "{\"timestamp\": \"2026-11-30T09:00:" + QByteArray::number(second).rightJustified(2, '0') +
           "Z\", \"target_bytes\": 1000, \"rss_bytes\": " + rss + ", \"verdict\": \"hold\"}";
}

QByteArray lines(const QList<QByteArray>& items, const QByteArray& separator = "\n")
{
    QByteArray out;
    for (const QByteArray& item : items)
        out += item + separator;
    return out;
}

QString writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(content);
    return path;
}

// ----------------------------------------------------------------------------- checks

// Size, mtime and content hash of a file, or of every file under a directory.
QStringList fingerprint(const QString& path)
{
    QStringList prints;
    auto add = [&prints](const QString& file) {
        const QFileInfo info(file);
        QFile in(file);
        QByteArray hash = "unreadable";
        if (info.isFile() && in.open(QIODevice::ReadOnly)) {
            QCryptographicHash sha(QCryptographicHash::Sha256);
            sha.addData(&in);
            hash = sha.result().toHex();
        }
        prints << QStringLiteral("%1 %2 %3 %4")
                      .arg(file)
                      .arg(info.size())
                      .arg(info.lastModified().toMSecsSinceEpoch())
                      .arg(QString::fromLatin1(hash));
    };
    if (QFileInfo(path).isDir()) {
        QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext())
            add(it.next());
        prints.sort();
    } else if (QFileInfo(path).isFile()) {
        add(path);
    }
    return prints;
}

QList<qint64> problemLines(const ProblemLog& log)
{
    QList<qint64> lines;
    for (const LoadProblem& problem : log.kept())
        lines << problem.line;
    return lines;
}

QString problemText(const ProblemLog& log)
{
    QStringList texts;
    for (const LoadProblem& problem : log.kept())
        texts << problem.toString();
    return texts.join('\n');
}

long peakRssKb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// Runs work on a thread; fails (instead of hanging the suite) when it takes too long.
template <typename Work> bool finishesWithin(std::chrono::seconds limit, Work work)
{
    auto done = std::async(std::launch::async, work);
    return done.wait_for(limit) == std::future_status::ready;
}

// The columns every data-driven case has.
void addOutcomeColumns()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("fatal"); // substring of the fatal error; empty: data expected
    QTest::addColumn<int>("loaded");    // rows (trace) or ticks (budget)
    QTest::addColumn<int>("errors");    // rejected records / lines
    QTest::addColumn<int>("warnings");  // loaded with a remark, or a cut last line
    QTest::addColumn<QList<qint64>>("problemLines");
    QTest::addColumn<QString>("reason"); // substring of the first problem's reason
}

} // namespace

class TestMalformed : public QObject
{
    Q_OBJECT
private slots:
    // ------------------------------------------------------------------ trace loader

    void traceFile_data()
    {
        addOutcomeColumns();
        const QByteArray a = eventLine(1000), b = eventLine(2000), c = eventLine(3000);
        using L = QList<qint64>;
        QTest::newRow("empty file") << "t.jsonl" << QByteArray() << "empty file" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("only whitespace") << "t.jsonl" << QByteArray(" \n\t\r\n")
                                         << "file holds only whitespace" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("csv only header") << "t.csv" << csvHeader() + "\n"
                                         << "no valid event record" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("truncated last line") << "t.jsonl" << lines({a, b}) + c.left(40) << "" << 2 << 0 << 1
                                             << L{3} << "truncated last line ignored";
        QTest::newRow("NaN") << "t.jsonl"
                             << lines({a, eventLine(1500, {{"allocator_allocated_bytes", "NaN"}}), b}) << ""
                             << 2 << 1 << 0 << L{2} << "invalid JSON";
        QTest::newRow("Infinity") << "t.jsonl"
                                  << lines({a, b, eventLine(2500, {{"device_used_bytes", "Infinity"}})}) << ""
                                  << 2 << 1 << 0 << L{3} << "invalid JSON";
        QTest::newRow("1e400") << "t.jsonl"
                               << lines({eventLine(1500, {{"allocator_reserved_bytes", "1e400"}}), a}) << ""
                               << 1 << 1 << 0 << L{1}
                               << "field 'allocator_reserved_bytes': expected an integer, got an invalid or "
                                  "out-of-range value";
        QTest::newRow("integer beyond int64")
            << "t.jsonl" << lines({a, eventLine(1500, {{"timestamp_ns", "9223372036854775808"}})}) << "" << 1
            << 1 << 0 << L{2}
            << "field 'timestamp_ns': expected an integer, got an invalid or out-of-range value";
        QTest::newRow("unsigned beyond int64")
            << "t.jsonl" << lines({a, eventLine(1500, {{"device_total_bytes", "18446744073709551615"}})})
            << "" << 1 << 1 << 0 << L{2} << "field 'device_total_bytes': expected an integer";
        QTest::newRow("negative bytes")
            << "t.jsonl" << lines({a, eventLine(1500, {{"allocator_allocated_bytes", "-5"}}), b}) << "" << 2
            << 1 << 0 << L{2} << "field 'allocator_allocated_bytes' is negative (-5)";
        // pandas writes an integer column holding an empty cell as floats: integral ones are read
        // exactly, a fraction is refused with the number
        QTest::newRow("csv integral float")
            << "t.csv" << lines({csvHeader(), csvRow(1000), csvRow(2000, "100.0"), csvRow(3000)}) << "" << 3
            << 0 << 0 << L{} << "";
        QTest::newRow("csv fractional float")
            << "t.csv" << lines({csvHeader(), csvRow(1000), csvRow(2000, "100.5"), csvRow(3000)}) << "" << 2
            << 1 << 0 << L{3} << "expected an integer, got 100.5";
        QTest::newRow("string for an integer")
            << "t.jsonl" << lines({eventLine(1500, {{"timestamp_ns", "\"1500\""}}), a}) << "" << 1 << 1 << 0
            << L{1} << "field 'timestamp_ns': expected an integer, got a string";
        QTest::newRow("boolean for an integer")
            << "t.jsonl" << lines({a, eventLine(1500, {{"pid", "true"}})}) << "" << 1 << 1 << 0 << L{2}
            << "field 'pid': expected an integer, got a boolean";
        QTest::newRow("array for metadata")
            << "t.jsonl" << lines({a, eventLine(1500, {{"metadata", "[1]"}})}) << "" << 1 << 1 << 0 << L{2}
            << "field 'metadata': expected an object, got an array";
        QTest::newRow("line is not an object") << "t.jsonl" << lines({a, "[1, 2]", "42", b}) << "" << 2 << 2
                                               << 0 << L{2, 3} << "line is not a JSON object";
        QTest::newRow("duplicate keys: the last value is used")
            << "t.jsonl" << lines({eventLine(1000, {{"pid", "7, \"pid\": 8"}})}) << "" << 1 << 0 << 1 << L{1}
            << "duplicate key 'pid'";
        QTest::newRow("unknown key") << "t.jsonl" << lines({eventLine(1000, {{"gpu_temperature", "71"}}), b})
                                     << "" << 2 << 0 << 1 << L{1} << "unknown key 'gpu_temperature' ignored";
        QTest::newRow("non-UTF-8 bytes")
            << "t.jsonl" << lines({a, eventLine(1500, {{"host", "\"n\xff\xfe\""}}), b}) << "" << 2 << 1 << 0
            << L{2} << "invalid JSON";
        QTest::newRow("non-UTF-8 bytes in a JSON array")
            << "t.json"
            << "[" + a + ",\n" + eventLine(1500, {{"host", "\"n\xff\""}}) + "]"
            << "no valid event record" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("UTF-8 BOM") << "t.jsonl"
                                   << "\xEF\xBB\xBF" + lines({a, b}) << "" << 2 << 0 << 0 << L{} << "";
        QTest::newRow("UTF-8 BOM in a JSON array") << "t.json"
                                                   << "\xEF\xBB\xBF[" + a + ",\n" + b + "]"
                                                   << "" << 2 << 0 << 0 << L{} << "";
        QTest::newRow("CRLF line ends")
            << "t.jsonl" << lines({a, b, c}, "\r\n") << "" << 3 << 0 << 0 << L{} << "";
        QTest::newRow("CSV with BOM, CRLF and a bad row")
            << "t.csv"
            << "\xEF\xBB\xBF" + lines({csvHeader(), csvRow(1000), csvRow(2000, "-1"), csvRow(3000)}, "\r\n")
            << "" << 2 << 1 << 0 << L{3} << "field 'allocator_allocated_bytes' is negative (-1)";
        QTest::newRow("CSV metadata with a lone surrogate escape")
            << "t.csv" << lines({csvHeader(), csvRow(1000).replace("'cuda'", "'\\udc80'")}) << "" << 1 << 0
            << 0 << L{} << "";
        QTest::newRow("CSV row with too few cells")
            << "t.csv" << lines({csvHeader(), csvRow(1000), "3,s1,2000", csvRow(3000)}) << "" << 2 << 1 << 0
            << L{3} << "row has 3 cells, the header has 16";
        QTest::newRow("CSV truncated inside a quoted cell")
            << "t.csv" << lines({csvHeader(), csvRow(1000)}) + csvRow(2000).left(85) << "" << 1 << 1 << 0
            << L{3} << "unterminated quoted cell";
        QTest::newRow("legacy timestamp beyond int64 nanoseconds")
            << "events.json"
            << QByteArray("[{\"timestamp\": 1.5, \"memory_allocated\": 1},\n {\"timestamp\": "
                          "9223372036854775807, \"memory_allocated\": 2}]")
            << "" << 1 << 1 << 0 << L{2} << "field 'timestamp': 9223372036854775807 seconds is out of range";
        // issue 32, item 1: a document ends where its root value ends; what follows is an
        // Error at its line (one rejected record), never dropped in silence
        const QByteArray pretty = QJsonDocument::fromJson(a).toJson(QJsonDocument::Indented);
        QTest::newRow("records one after another as indented objects")
            << "t.json" << pretty + pretty + pretty << "" << 1 << 1 << 0 << L{qint64(pretty.count('\n')) + 1}
            << QStringLiteral("more JSON after the document's root value ended on line %1")
                   .arg(pretty.count('\n'));
        QTest::newRow("an export appended twice")
            << "t.json"
            << "[" + a + ",\n" + b + "]\n[" + a + ",\n" + b + "]\n"
            << "" << 2 << 1 << 0 << L{3} << "more JSON after the document's root value ended on line 2";
        QTest::newRow("an events wrapper with a record after it")
            << "t.json"
            << "{\"events\": [\n" + a + "]}\n" + b << "" << 1 << 1 << 0 << L{3}
            << "ended on line 2; the rest of the file";
        // simdjson stops at the array itself here: not loaded, but not silently either
        QTest::newRow("a document followed by a scalar")
            << "t.json"
            << "[" + a + "] 42"
            << "no valid event record" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("binary file") << "t.jsonl"
                                     << QByteArray("\x7f"
                                                   "ELF\x02\x01\x01\0\0\0",
                                                   10)
                                     << "binary file, not JSON or CSV" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("another tool's JSON")
            << "t.json" << QByteArray("{\"name\": \"x\", \"version\": 2}")
            << "JSON object without event fields" << 0 << 0 << 0 << L{} << "";
    }

    void traceFile()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, content);
        QFETCH(QString, fatal);
        QFETCH(int, loaded);
        QFETCH(int, errors);
        QFETCH(int, warnings);
        QFETCH(QList<qint64>, problemLines);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = writeFile(dir.filePath(fileName), content);
        const QStringList before = fingerprint(path);

        const LoadOutcome outcome = loadTrace(path);
        QCOMPARE(fingerprint(path), before);
        QVERIFY(!outcome.cancelled);
        if (!fatal.isEmpty()) {
            QVERIFY(!outcome.data);
            QVERIFY2(outcome.fatalError.startsWith(path + ": "), qPrintable(outcome.fatalError));
            QVERIFY2(outcome.fatalError.contains(fatal), qPrintable(outcome.fatalError));
            return;
        }
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        const TraceData& data = *outcome.data;
        QCOMPARE(int(data.store.size()), loaded);
        QCOMPARE(data.problems.errorCount(), qint64(errors));
        QCOMPARE(data.problems.warningCount(), qint64(warnings));
        QCOMPARE(::problemLines(data.problems), problemLines);
        if (!reason.isEmpty()) {
            const LoadProblem& first = data.problems.kept().front();
            QVERIFY2(first.reason.contains(reason), qPrintable(problemText(data.problems)));
            QCOMPARE(first.file, path);
            QVERIFY(first.toString().startsWith(QStringLiteral("%1:%2").arg(path).arg(first.line)));
        }
        // Nothing lost: every record read is loaded or reported.
        QCOMPARE(data.recordsRead, qint64(loaded + errors) + (reason.contains("truncated") ? 1 : 0));
    }

    void traceHugeLineWithoutNewline()
    {
        // 100 MB without a newline after one good line: the record limit refuses it without
        // handing it to the JSON parser (whose index would take ~4 bytes per input byte).
        QTemporaryDir dir;
        const QString path = dir.filePath("huge.jsonl");
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(eventLine(1000) + "\n{\"context\": \"");
            const QByteArray block(1 << 20, 'x');
            for (int i = 0; i < 100; ++i)
                file.write(block);
        }
        const QStringList before = fingerprint(path);
        const long rssBefore = peakRssKb();
        const LoadOutcome outcome = loadTrace(path);
        const long grownMb = (peakRssKb() - rssBefore) / 1024;
        QCOMPARE(fingerprint(path), before);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->store.size(), size_t(1));
        QVERIFY2(outcome.data->problems.warningCount() == 1 && outcome.data->problems.errorCount() == 0,
                 qPrintable(problemText(outcome.data->problems)));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{2});
        QVERIFY2(outcome.data->problems.kept().front().reason.contains("longer than"),
                 qPrintable(problemText(outcome.data->problems)));
        // The whole file is read into memory once (the loader's design); nothing beyond.
        QVERIFY2(grownMb < 250, qPrintable(QStringLiteral("peak RSS grew by %1 MB").arg(grownMb)));
    }

    void appendedArraysReadInSlices()
    {
        // issue 32, item 1: the sliced parse of a large array (taken from 512 KB or with
        // threads) must not stop at the first array's end either: the slice that holds the
        // junction is no clean array, and the whole-document parse reports the rest.
        QTemporaryDir dir;
        QList<QByteArray> records;
        for (int i = 0; i < 200; ++i)
            records << eventLine(1000 + i);
        const QByteArray array = "[" + records.join(",\n") + "]\n";
        const QString path = writeFile(dir.filePath("twice.json"), array + array);
        LoadControl control;
        control.threads = 2;
        const LoadOutcome outcome = loadTrace(path, control);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->store.size(), size_t(200));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(1));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{201});
        QVERIFY2(outcome.data->problems.kept().front().reason.contains("ended on line 200"),
                 qPrintable(problemText(outcome.data->problems)));
        QCOMPARE(outcome.data->recordsRead, qint64(201));
    }

    void overLongFirstLineIsJsonLines()
    {
        // issue 32, item 1: JSON lines whose first record is longer than detection reads (1 MB
        // + the 16 MB record limit) were taken for one document: 1 record of 4. Read as lines,
        // the first is reported and the three after it load.
        QTemporaryDir dir;
        const QByteArray context(17 << 20, 'x');
        const QByteArray big = eventLine(500, {{"context", "\"" + context + "\""}});
        const QString path = writeFile(dir.filePath("long-first.jsonl"),
                                       lines({big, eventLine(1000), eventLine(2000), eventLine(3000)}));
        QCOMPARE(detectTraceForm(path), std::optional<TraceForm>(TraceForm::JsonLines));
        const LoadOutcome outcome = loadTrace(path);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->store.size(), size_t(3));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(1));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{1});
        QVERIFY2(outcome.data->problems.kept().front().reason.contains("longer than the 16 MB"),
                 qPrintable(problemText(outcome.data->problems)));
        QCOMPARE(outcome.data->recordsRead, qint64(4));
    }

    void traceSparseTailIsCountedNotKept()
    {
        // issue 32, item 2: a crashed writer's preallocated or sparse tail (records, then
        // `truncate -s`) is one last line without a newline. It is counted as the reader
        // passes it, never held: memory stays bounded by the windows, not by the file (200 MB
        // here; sparse, so it takes no disk). Before, the window grew to hold the whole line.
        QTemporaryDir dir;
        // records past detection's first MB (a NUL byte in it would make the file binary)
        QList<QByteArray> records;
        for (int i = 0; i < 4000; ++i)
            records << eventLine(1000 + i);
        const QString path = writeFile(dir.filePath("sparse.jsonl"), lines(records));
        QVERIFY(QFileInfo(path).size() > (1 << 20));
        const qint64 tail = qint64(200) << 20;
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.resize(file.size() + tail));
        }
        const QStringList before = fingerprint(path);
        const long rssBefore = peakRssKb();
        const LoadOutcome outcome = loadTrace(path);
        const long grownMb = (peakRssKb() - rssBefore) / 1024;
        QCOMPARE(fingerprint(path), before);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->store.size(), size_t(4000));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(0));
        QCOMPARE(outcome.data->problems.warningCount(), qint64(1));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{4001});
        QVERIFY2(outcome.data->problems.kept().front().reason.contains(
                     QStringLiteral("truncated last line ignored (%1 bytes").arg(tail)),
                 qPrintable(problemText(outcome.data->problems)));
        QCOMPARE(outcome.data->recordsRead, qint64(4001));
        // The budget loader's bound for the same shape: two windows of up to 32 MB per thread,
        // the 16 MB line limit, room for the allocator.
        const long cores = std::max(1L, static_cast<long>(std::thread::hardware_concurrency()));
        const long limitMb = 2 * 32 * cores + 48;
        QVERIFY2(grownMb < limitMb,
                 qPrintable(QStringLiteral("peak RSS grew by %1 MB (limit %2)").arg(grownMb).arg(limitMb)));
    }

    void traceSinkWithMissingSegments()
    {
        const QString fixture = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/real/cpu_sink";
        QTemporaryDir dir;
        const QString sink = dir.filePath("sink");
        QVERIFY(QDir().mkpath(sink));
        QVERIFY(QFile::copy(fixture + "/segment-000001.jsonl", sink + "/segment-000001.jsonl"));
        QFile manifestIn(fixture + "/manifest.json");
        QVERIFY(manifestIn.open(QIODevice::ReadOnly));
        QByteArray manifest = manifestIn.readAll();
        // Name two more segments that retention (or a crash) removed.
        const int segments = manifest.indexOf("\"segments\": [");
        QVERIFY(segments > 0);
        manifest.insert(segments + 13, "{\"filename\": \"segment-000002.jsonl\", \"event_count\": 40}, "
                                       "{\"filename\": \"segment-000003.jsonl\", \"event_count\": 2}, ");
        writeFile(sink + "/manifest.json", manifest);
        const QStringList before = fingerprint(sink);

        const LoadOutcome outcome = loadTrace(sink);
        QCOMPARE(fingerprint(sink), before);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        const TraceData& data = *outcome.data;
        QCOMPARE(data.store.size(), size_t(67));
        QCOMPARE(data.problems.errorCount(), qint64(0));
        QCOMPARE(data.problems.warningCount(), qint64(2));
        QCOMPARE(data.problems.kept()[0].file, sink + "/manifest.json");
        QVERIFY2(data.problems.kept()[0].reason.contains(
                     "segment 'segment-000002.jsonl' named by the manifest is missing") &&
                     data.problems.kept()[0].reason.contains("its 40 events are not loaded"),
                 qPrintable(problemText(data.problems)));
        QVERIFY(data.problems.kept()[1].reason.contains("segment-000003.jsonl"));
        QCOMPARE(data.sessions.size(), size_t(1));
        QCOMPARE(data.sessions[0].eventCount, qint64(67));
        QCOMPARE(data.sessions[0].manifestEventCount, qint64(67 + 40 + 2)); // the loss is visible
    }

    void traceSinkWithEverySegmentMissing()
    {
        QTemporaryDir dir;
        writeFile(
            dir.filePath("manifest.json"),
            "{\"format\": \"stormlog.append_only_telemetry_sink\", \"sessions\": [{\"session_id\": \"s1\"}], "
            "\"segments\": [{\"filename\": \"segment-000001.jsonl\", \"event_count\": 3}]}");
        const QStringList before = fingerprint(dir.path());
        const LoadOutcome outcome = loadTrace(dir.path());
        QCOMPARE(fingerprint(dir.path()), before);
        QVERIFY(!outcome.data);
        QVERIFY2(outcome.fatalError.contains("no valid event record"), qPrintable(outcome.fatalError));
    }

    void flatRecordOverTheLimitIsRefused()
    {
        // A valid flat record just over the 16 MB limit: the flat fast path must not load it
        // (issue 14, defect 5). Built here, not committed.
        QTemporaryDir dir;
        const QByteArray context(16 << 20, 'x');
        const QByteArray big = eventLine(1000, {{"context", "\"" + context + "\""}});
        QVERIFY(big.size() > (16 << 20));
        const QString path = writeFile(dir.filePath("big.jsonl"), eventLine(2000) + "\n" + big + "\n");
        const LoadOutcome outcome = loadTrace(path);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QVERIFY2(outcome.data->store.size() == 1 && outcome.data->problems.errorCount() == 1,
                 qPrintable(QStringLiteral("%1 rows; %2")
                                .arg(outcome.data->store.size())
                                .arg(problemText(outcome.data->problems))));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{2});
        QVERIFY2(
            outcome.data->problems.kept().front().reason.contains("longer than the 16 MB a record may have"),
            qPrintable(problemText(outcome.data->problems)));
        // The same bytes from memory: same outcome.
        const QByteArray bytes = eventLine(2000) + "\n" + big + "\n";
        const LoadOutcome fromBytes =
            loadTraceBytes(std::string_view(bytes.constData(), size_t(bytes.size())), std::nullopt, path);
        QVERIFY2(fromBytes.data, qPrintable(fromBytes.fatalError));
        QCOMPARE(fromBytes.data->store.size(), size_t(1));
        QCOMPARE(problemText(fromBytes.data->problems), problemText(outcome.data->problems));
    }

    void sinkSegmentLinkedOutsideIsRefused()
    {
        // A segment that is a symbolic link to a file outside the sink (a private file) is not
        // read (issue 14, defect 8); one linked inside the sink is.
        QTemporaryDir dir;
        const QString sink = dir.filePath("sink");
        QVERIFY(QDir().mkpath(sink));
        writeFile(dir.filePath("private.jsonl"), eventLine(5000) + "\n" + eventLine(6000) + "\n");
        writeFile(sink + "/segment-000001.jsonl", eventLine(1000) + "\n");
        writeFile(sink + "/inside.jsonl", eventLine(3000) + "\n");
        QVERIFY(QFile::link(dir.filePath("private.jsonl"), sink + "/segment-000002.jsonl"));
        QVERIFY(QFile::link(sink + "/inside.jsonl", sink + "/segment-000003.jsonl"));
        writeFile(
            sink + "/manifest.json",
            "{\"format\": \"stormlog.append_only_telemetry_sink\", \"sessions\": [{\"session_id\": \"s1\"}], "
            "\"segments\": [{\"filename\": \"segment-000001.jsonl\"}, {\"filename\": "
            "\"segment-000002.jsonl\"}, {\"filename\": \"segment-000003.jsonl\"}]}");
        const LoadOutcome outcome = loadTrace(sink);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        const TraceData& data = *outcome.data;
        QCOMPARE(data.store.size(), size_t(2)); // segments 1 and 3, not the private file
        QCOMPARE(data.problems.errorCount(), qint64(1));
        const LoadProblem& refused = data.problems.kept().front();
        QCOMPARE(refused.file, sink + "/segment-000002.jsonl");
        QVERIFY2(refused.reason.contains("segment 'segment-000002.jsonl' resolves outside the sink folder"),
                 qPrintable(problemText(data.problems)));
    }

    void sinkManifestErrorsCountAsRejected()
    {
        // A manifest entry that cannot be used (a segment path that is not a plain file name) is
        // an error of the load, which the report counts as records_rejected (errorCount);
        // entries merely left out are warnings.
        QTemporaryDir dir;
        const QString sink = dir.filePath("sink");
        QVERIFY(QDir().mkpath(sink));
        writeFile(sink + "/segment-000001.jsonl", eventLine(1000) + "\n");
        writeFile(sink + "/manifest.json",
                  "{\"format\": \"stormlog.append_only_telemetry_sink\", \"sessions\": [{\"session_id\": "
                  "\"s1\"}, {\"x\": 1}], \"segments\": [{\"filename\": \"segment-000001.jsonl\"}, "
                  "{\"filename\": \"../x.jsonl\"}, {\"nofile\": 1}]}");
        const LoadOutcome outcome = loadTrace(sink);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        const ProblemLog& problems = outcome.data->problems;
        QCOMPARE(problems.errorCount(), qint64(1));
        QCOMPARE(problems.warningCount(), qint64(2));
        QVERIFY2(problemText(problems).contains("segment filename '../x.jsonl' is not a plain file name"),
                 qPrintable(problemText(problems)));
    }

    void valueAtTheInt64Edge_data()
    {
        // The last seconds whose nanoseconds still fit int64 (9 223 372 036 s, 2262-04-11T23:47:16Z)
        // load: the range checks are exact, not a rounder bound below them.
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        const auto legacy = [](const QByteArray& seconds) {
            return "{\"timestamp\": " + seconds + ", \"memory_allocated\": 10, \"memory_reserved\": 20}";
        };
        QTest::newRow("legacy seconds")
            << "events.jsonl" << lines({legacy("9223372034"), legacy("9223372035"), legacy("9223372036")});
        const auto at = [](const QByteArray& time) {
            return "{\"timestamp\": \"" + time +
                   "\", \"target_bytes\": 1000, \"rss_bytes\": 900, \"verdict\": \"hold\"}";
        };
        QTest::newRow("budget snapshot, RFC 3339")
            << "budget.jsonl"
            << lines({at("2262-04-11T23:47:14Z"), at("2262-04-11T23:47:15Z"), at("2262-04-11T23:47:16Z")});
    }

    void valueAtTheInt64Edge()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        const std::string_view bytes(content.constData(), size_t(content.size()));
        if (name.startsWith("budget")) {
            const BudgetLoadOutcome budget = loadBudgetBytes(bytes, name);
            QVERIFY2(budget.data, qPrintable(budget.fatalError));
            QVERIFY2(budget.data->problems.errorCount() == 0, qPrintable(problemText(budget.data->problems)));
            QCOMPARE(budget.data->ticks.size(), size_t(3));
            QCOMPARE(budget.data->ticks.timestampNs.back(), int64_t(9223372036) * 1000000000);
        } else {
            const LoadOutcome trace = loadTraceBytes(bytes, std::nullopt, name);
            QVERIFY2(trace.data, qPrintable(trace.fatalError));
            QVERIFY2(trace.data->problems.errorCount() == 0, qPrintable(problemText(trace.data->problems)));
            QCOMPARE(trace.data->store.size(), size_t(3));
        }
    }

    void valueBeyondInt64_data()
    {
        // Timestamps and byte counts whose value (or whose scaling to ns) does not fit int64:
        // the record or line is refused with a problem naming its file and line; the others load.
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<qint64>("line");
        QTest::addColumn<QString>("reason");
        const QByteArray big = "99999999999999999999"; // > INT64_MAX
        QTest::newRow("JSON lines, timestamp_ns")
            << "t.jsonl" << lines({eventLine(1000), eventLine(0, {{"timestamp_ns", big}}), eventLine(3000)})
            << qint64(2) << "timestamp_ns";
        QTest::newRow("JSON lines, allocated bytes")
            << "t.jsonl"
            << lines(
                   {eventLine(1000), eventLine(2000, {{"allocator_allocated_bytes", big}}), eventLine(3000)})
            << qint64(2) << "allocator_allocated_bytes";
        QTest::newRow("JSON array, timestamp_ns")
            << "t.json"
            << "[\n" + eventLine(1000) + ",\n" + eventLine(0, {{"timestamp_ns", "-" + big}}) + ",\n" +
                   eventLine(3000) + "\n]\n"
            << qint64(3) << "timestamp_ns";
        QTest::newRow("CSV, timestamp_ns")
            << "t.csv"
            << lines(
                   {csvHeader(), csvRow(1000), csvRow(1000).replace(",1000,", "," + big + ","), csvRow(3000)})
            << qint64(3) << "timestamp_ns";
        QTest::newRow("CSV, allocated bytes")
            << "t.csv" << lines({csvHeader(), csvRow(1000), csvRow(2000, big), csvRow(3000)}) << qint64(3)
            << "allocator_allocated_bytes";
        const auto legacy = [](const QByteArray& seconds) {
            return "{\"timestamp\": " + seconds + ", \"memory_allocated\": 10, \"memory_reserved\": 20}";
        };
        QTest::newRow("legacy, seconds beyond the ns range")
            << "events.jsonl" << lines({legacy("1"), legacy("9223372037"), legacy("3")}) << qint64(2)
            << "field 'timestamp': 9223372037 seconds is out of range";
        QTest::newRow("legacy, negative seconds beyond the ns range")
            << "events.jsonl" << lines({legacy("1"), legacy("-9223372037"), legacy("3")}) << qint64(2)
            << "field 'timestamp': -9223372037 seconds is out of range";
        QTest::newRow("diagnose timeline, seconds")
            << "telemetry_timeline.json"
            << QByteArray(
                   "{\"timestamps\": [1, 1e300, 3], \"allocated\": [1, 2, 3], \"reserved\": [1, 2, 3]}")
            << qint64(1) << "timeline entry out of range";
        QTest::newRow("budget text, rss_bytes")
            << "budget.log" << lines({tick(1), tick(2, "target_bytes=1000 rss_bytes=" + big), tick(3)})
            << qint64(2) << "rss_bytes";
        QTest::newRow("budget snapshot, rss_bytes")
            << "budget.jsonl" << lines({snapshot(1), snapshot(2, big), snapshot(3)}) << qint64(2)
            << "rss_bytes";
        QTest::newRow("budget snapshot, year beyond the ns range")
            << "budget.jsonl"
            << lines({snapshot(1), QByteArray(snapshot(2)).replace("2026-11-30", "2263-01-01"), snapshot(3)})
            << qint64(2) << "timestamp is not RFC 3339";
        QTest::newRow("budget text, effective target beyond the range")
            << "budget.log"
            << lines({tick(1),
                      tick(2, "target_bytes=9223372036854775807 rss_bytes=900 lease_bytes_active=-1"),
                      tick(3)})
            << qint64(2) << "lease_bytes_active";
    }

    void valueBeyondInt64()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(qint64, line);
        QFETCH(QString, reason);
        const std::string_view bytes(content.constData(), size_t(content.size()));
        const ProblemLog* problems = nullptr;
        LoadOutcome trace;
        BudgetLoadOutcome budget;
        if (name.startsWith("budget")) {
            budget = loadBudgetBytes(bytes, name);
            QVERIFY2(budget.data, qPrintable(budget.fatalError));
            QCOMPARE(budget.data->ticks.size(), size_t(2));
            problems = &budget.data->problems;
        } else {
            trace = loadTraceBytes(bytes, std::nullopt, name);
            QVERIFY2(trace.data, qPrintable(trace.fatalError));
            QCOMPARE(trace.data->store.size(), size_t(2));
            problems = &trace.data->problems;
        }
        QVERIFY2(problems->errorCount() == 1, qPrintable(problemText(*problems)));
        const LoadProblem& first = problems->kept().front();
        QCOMPARE(first.file, name);
        QCOMPARE(first.line, line);
        QVERIFY2(first.reason.contains(reason), qPrintable(problemText(*problems)));
    }

    void csvNulByteIsRefused()
    {
        // A raw NUL byte in a CSV cell is binary data: the row is refused with its line
        // (issue 14, defect 8), the others load.
        QTemporaryDir dir;
        QByteArray withNul = csvRow(2000);
        withNul.replace(",node,", QByteArray(",no\0de,", 7));
        // Beyond the first MB, which form detection reads (and refuses as binary with a NUL).
        QList<QByteArray> rows{csvHeader()};
        for (int i = 0; i < 12000; ++i)
            rows.append(csvRow(1000 + i));
        rows.append(withNul);
        rows.append(csvRow(100000));
        const QString path = writeFile(dir.filePath("nul.csv"), lines(rows));
        const LoadOutcome outcome = loadTrace(path);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->store.size(), size_t(12001));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(1));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{12002});
        QCOMPARE(outcome.data->problems.kept().front().file, path);
        QVERIFY2(outcome.data->problems.kept().front().reason.contains("column 'host' holds a NUL byte"),
                 qPrintable(problemText(outcome.data->problems)));
    }

    void deepMetadataSameRuleInEveryForm_data()
    {
        QTest::addColumn<bool>("array");
        QTest::addColumn<QByteArray>("deep");
        const QByteArray arrays = QByteArray(100000, '[') + QByteArray(100000, ']');
        QByteArray objects;
        for (int i = 0; i < 100000; ++i)
            objects += "{\"a\": ";
        objects += "1" + QByteArray(100000, '}');
        QTest::addColumn<QByteArray>("key");
        QTest::newRow("JSON lines, arrays") << false << arrays << QByteArray("metadata");
        QTest::newRow("JSON array, arrays") << true << arrays << QByteArray("metadata");
        QTest::newRow("JSON lines, objects") << false << objects << QByteArray("metadata");
        QTest::newRow("JSON array, objects") << true << objects << QByteArray("metadata");
        QTest::newRow("JSON lines, unknown field") << false << objects << QByteArray("extra");
        QTest::newRow("JSON array, unknown field") << true << objects << QByteArray("extra");
        QTest::newRow("JSON lines, in metadata") << false << objects << QByteArray("metadata.x");
        QTest::newRow("JSON array, in metadata") << true << objects << QByteArray("metadata.x");
    }

    void deepMetadataSameRuleInEveryForm()
    {
        // Metadata nested 100 000 deep: one rule for JSON lines and the JSON array (issue 14,
        // defect 8): the record is refused as too deep, with its file and line; the others load.
        QFETCH(bool, array);
        QFETCH(QByteArray, deep);
        QFETCH(QByteArray, key);
        const QByteArray bad = key == "metadata" ? eventLine(2000, {{"metadata", "{\"a\": " + deep + "}"}})
                               : key == "metadata.x" ? eventLine(2000, {{"metadata", deep}})
                                                     : eventLine(2000, {{key, deep}});
        QTemporaryDir dir;
        const QString path =
            array ? writeFile(dir.filePath("deep.json"),
                              "[\n" + eventLine(1000) + ",\n" + bad + ",\n" + eventLine(3000) + "\n]\n")
                  : writeFile(dir.filePath("deep.jsonl"), lines({eventLine(1000), bad, eventLine(3000)}));
        const LoadOutcome outcome = loadTrace(path);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->store.size(), size_t(2));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(1));
        QCOMPARE(outcome.data->problems.kept().front().file, path);
        QCOMPARE(outcome.data->problems.kept().front().line, qint64(array ? 3 : 2));
        QVERIFY2(outcome.data->problems.kept().front().reason.contains("too deep"),
                 qPrintable(problemText(outcome.data->problems)));
    }

    // ------------------------------------------------------------------ budget loader

    void budgetFile_data()
    {
        addOutcomeColumns();
        using L = QList<qint64>;
        QTest::newRow("empty file") << "b.log" << QByteArray()
                                    << "no memory-budget tick found (0 lines read, 0 skipped, 0 errors)" << 0
                                    << 0 << 0 << L{} << "";
        QTest::newRow("only whitespace")
            << "b.log" << QByteArray(" \n\t\r\n")
            << "no memory-budget tick found (2 lines read, 0 skipped, 0 errors)" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("another crate's log only")
            << "b.log" << lines({"2026-11-30T09:00:00Z  INFO hyper::server: listening", "garbage"})
            << "no memory-budget tick found (2 lines read, 2 skipped, 0 errors)" << 0 << 0 << 0 << L{} << "";
        QTest::newRow("truncated last line (text)")
            << "b.log" << lines({tick(0), tick(5)}) + tick(10).left(60) << "" << 2 << 0 << 1 << L{3}
            << "truncated last line ignored";
        QTest::newRow("truncated last line (snapshot)")
            << "b.jsonl" << lines({snapshot(0), snapshot(5)}) + snapshot(10).left(50) << "" << 2 << 0 << 1
            << L{3} << "truncated last line ignored";
        QTest::newRow("text last line without a newline (its last value may be cut)")
            << "b.log" << lines({tick(0), tick(5)}) + tick(10) << "" << 2 << 0 << 1 << L{3}
            << "truncated last line ignored";
        QTest::newRow("NaN (text)") << "b.log"
                                    << lines({tick(0), tick(5, "target_bytes=1000 rss_bytes=NaN"), tick(10)})
                                    << "" << 2 << 1 << 0 << L{2}
                                    << "tick: rss_bytes is not an integer ('NaN')";
        QTest::newRow("NaN (snapshot)") << "b.jsonl" << lines({snapshot(0), snapshot(5, "NaN")}) << "" << 1
                                        << 1 << 0 << L{2} << "invalid JSON";
        QTest::newRow("Infinity (snapshot)") << "b.jsonl" << lines({snapshot(0, "Infinity"), snapshot(5)})
                                             << "" << 1 << 1 << 0 << L{1} << "invalid JSON";
        QTest::newRow("1e400 (text)")
            << "b.log" << lines({tick(0, "target_bytes=1e400 rss_bytes=900"), tick(5)}) << "" << 1 << 1 << 0
            << L{1} << "tick: target_bytes is not an integer ('1e400')";
        QTest::newRow("1e400 (snapshot)")
            << "b.jsonl" << lines({snapshot(0), snapshot(5, "1e400")}) << "" << 1 << 1 << 0 << L{2}
            << "tick: rss_bytes is not an integer ('1e400')";
        QTest::newRow("integer beyond int64")
            << "b.log" << lines({tick(0, "target_bytes=1000 rss_bytes=9223372036854775808"), tick(5)}) << ""
            << 1 << 1 << 0 << L{1} << "tick: rss_bytes is not an integer ('9223372036854775808')";
        QTest::newRow("negative bytes (text)")
            << "b.log" << lines({tick(0), tick(5, "target_bytes=1000 rss_bytes=-5")}) << "" << 1 << 1 << 0
            << L{2} << "tick: rss_bytes is negative (-5)";
        QTest::newRow("negative bytes (snapshot)")
            << "b.jsonl" << lines({snapshot(0, "-900"), snapshot(5)}) << "" << 1 << 1 << 0 << L{1}
            << "tick: rss_bytes is negative";
        QTest::newRow("negative cache bytes")
            << "b.log"
            << lines({tick(0), "2026-11-30T09:00:00Z  INFO memory_budget::budget: cache cache=\"c\" "
                               "current_bytes=-1 previous_max_bytes=0 new_max_bytes=0"})
            << "" << 1 << 1 << 0 << L{2} << "cache 'c': current_bytes is negative (-1)";
        QTest::newRow("wrong type (snapshot)")
            << "b.jsonl" << lines({snapshot(0, "\"lots\""), snapshot(5)}) << "" << 1 << 1 << 0 << L{1}
            << "tick: rss_bytes is not an integer ('lots')";
        QTest::newRow("object for a number (snapshot)")
            << "b.jsonl" << lines({snapshot(0, "{\"v\": 1}"), snapshot(5)}) << "" << 1 << 1 << 0 << L{1}
            << "tick: rss_bytes";
        QTest::newRow("duplicate keys: the last value is used")
            << "b.log" << lines({tick(0, "target_bytes=1000 rss_bytes=1 rss_bytes=900")}) << "" << 1 << 0 << 0
            << L{} << "";
        QTest::newRow("unknown keys are ignored")
            << "b.log" << lines({tick(0, "target_bytes=1000 rss_bytes=900 shard=7 zone=\"a b\"")}) << "" << 1
            << 0 << 0 << L{} << "";
        QTest::newRow("non-UTF-8 bytes (snapshot)")
            << "b.jsonl" << lines({snapshot(0), "{\"timestamp\": \"\xff\", \"rss_bytes\": 1}", snapshot(5)})
            << "" << 2 << 1 << 0 << L{2} << "invalid JSON";
        QTest::newRow("non-UTF-8 bytes in another crate's text line")
            << "b.log" << lines({tick(0), "2026-11-30T09:00:01Z  WARN other::x: \xff\xfe bytes"}) << "" << 1
            << 0 << 0 << L{} << "";
        QTest::newRow("UTF-8 BOM") << "b.log"
                                   << "\xEF\xBB\xBF" + lines({tick(0), tick(5)}) << "" << 2 << 0 << 0 << L{}
                                   << "";
        QTest::newRow("CRLF line ends")
            << "b.jsonl" << lines({snapshot(0), snapshot(5)}, "\r\n") << "" << 2 << 0 << 0 << L{} << "";
        QTest::newRow("per-cache line before any tick")
            << "b.log"
            << lines({"2026-11-30T09:00:00Z  INFO memory_budget::budget: cache cache=\"c\" current_bytes=1",
                      tick(0)})
            << "" << 1 << 1 << 0 << L{1} << "per-cache line of cache 'c' before any tick line";
        QTest::newRow("tick without a timestamp")
            << "b.log" << lines({tick(0), "INFO memory_budget::budget: tick target_bytes=1 rss_bytes=2"})
            << "" << 1 << 1 << 0 << L{2} << "no RFC 3339 timestamp";
    }

    void budgetFile()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, content);
        QFETCH(QString, fatal);
        QFETCH(int, loaded);
        QFETCH(int, errors);
        QFETCH(int, warnings);
        QFETCH(QList<qint64>, problemLines);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = writeFile(dir.filePath(fileName), content);
        const QStringList before = fingerprint(path);

        const BudgetLoadOutcome outcome = loadBudgetLog(path);
        QCOMPARE(fingerprint(path), before);
        QVERIFY(!outcome.cancelled);
        if (!fatal.isEmpty()) {
            QVERIFY(!outcome.data);
            QVERIFY2(outcome.fatalError.startsWith(path + ": "), qPrintable(outcome.fatalError));
            QVERIFY2(outcome.fatalError.contains(fatal), qPrintable(outcome.fatalError));
            return;
        }
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        const BudgetData& data = *outcome.data;
        QCOMPARE(int(data.ticks.size()), loaded);
        QCOMPARE(data.problems.errorCount(), qint64(errors));
        QCOMPARE(data.problems.warningCount(), qint64(warnings));
        QCOMPARE(::problemLines(data.problems), problemLines);
        if (!reason.isEmpty()) {
            const LoadProblem& first = data.problems.kept().front();
            QVERIFY2(first.reason.contains(reason), qPrintable(problemText(data.problems)));
            QVERIFY(first.toString().startsWith(QStringLiteral("%1:%2: ").arg(path).arg(first.line)));
        }
        // Nothing lost: every line is used, skipped, rejected, cut off or blank.
        qint64 cutOff = 0;
        for (const LoadProblem& problem : data.problems.kept())
            cutOff += problem.reason.startsWith("truncated last line ignored") ? 1 : 0;
        QList<QByteArray> contentLines = content.split('\n');
        if (content.endsWith('\n'))
            contentLines.removeLast(); // the empty piece after the last newline is no line
        const qint64 blank = std::count_if(contentLines.begin(), contentLines.end(),
                                           [](const QByteArray& line) { return line.trimmed().isEmpty(); });
        QCOMPARE(data.linesUsed + data.linesSkipped + errors + cutOff + blank, data.linesRead);
    }

    void budgetHugeLineWithoutNewline()
    {
        // A tick, then 100 MB without a newline: the line limit stops collecting it at 16 MB
        // (a tick line is about 1 KB), so memory stays bounded; the cut last line is reported.
        QTemporaryDir dir;
        const QString path = dir.filePath("huge.log");
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(tick(0) + "\n" + tick(5) + " message=\"");
            const QByteArray block(1 << 20, 'x');
            for (int i = 0; i < 100; ++i)
                file.write(block);
        }
        const QStringList before = fingerprint(path);
        const long rssBefore = peakRssKb();
        const BudgetLoadOutcome outcome = loadBudgetLog(path);
        const long grownMb = (peakRssKb() - rssBefore) / 1024;
        QCOMPARE(fingerprint(path), before);
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->ticks.size(), size_t(1));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(0));
        QCOMPARE(outcome.data->problems.warningCount(), qint64(1));
        QCOMPARE(::problemLines(outcome.data->problems), QList<qint64>{2});
        QVERIFY2(outcome.data->problems.kept().front().reason.contains("longer than"),
                 qPrintable(problemText(outcome.data->problems)));
        // Bounded by the windows, not by the line: two windows (one parsed, the next being
        // read) of 32 MB per thread, plus the 16 MB line limit and room for the allocator
        // (ASan's keeps freed blocks for a while).
        const long cores = std::max(1L, static_cast<long>(std::thread::hardware_concurrency()));
        const long limitMb = 2 * 32 * cores + 48;
        QVERIFY2(grownMb < limitMb,
                 qPrintable(QStringLiteral("peak RSS grew by %1 MB (limit %2)").arg(grownMb).arg(limitMb)));
    }

    // ------------------------------------------------------------------ fuzz regressions

    // Every input a fuzzer crashed on (tests/data/fuzz_regress_<target>-<what>.<ext>), with
    // the outcome it must have now. A new file without a row here fails the test.
    void fuzzRegressions_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<int>("loaded");
        QTest::addColumn<int>("errors");
        QTest::addColumn<qint64>("firstProblemLine");
        QTest::addColumn<QString>("reason");
        // parseRfc3339Ns multiplied seconds outside 1677..2262 into int64 nanoseconds.
        QTest::newRow("budget text, year 2626")
            << "fuzz_regress_budget_text-rfc3339-year-overflow.text" << 1 << 1 << qint64(1)
            << "no RFC 3339 timestamp at the start of the line";
        QTest::newRow("budget tracing JSON, year 13")
            << "fuzz_regress_budget_tracing_json-rfc3339-year-underflow.json" << 1 << 1 << qint64(1)
            << "timestamp is not RFC 3339 ('0013-11-30T09:00:00.5Z')";
        QTest::newRow("budget snapshot, year 1013")
            << "fuzz_regress_budget_snapshot_jsonl-rfc3339-year-underflow.jsonl" << 1 << 1 << qint64(1)
            << "timestamp is not RFC 3339 ('1013-11-30T09:00:00Z')";
    }

    void fuzzRegressions()
    {
        QFETCH(QString, fileName);
        QFETCH(int, loaded);
        QFETCH(int, errors);
        QFETCH(qint64, firstProblemLine);
        QFETCH(QString, reason);
        const QString path = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/" + fileName;
        QVERIFY2(QFileInfo(path).isFile(), qPrintable(path));
        const QStringList before = fingerprint(path);
        const ProblemLog* problems = nullptr;
        int rows = 0;
        LoadOutcome trace;
        BudgetLoadOutcome budget;
        if (fileName.startsWith("fuzz_regress_budget")) {
            budget = loadBudgetLog(path);
            QVERIFY2(budget.data, qPrintable(budget.fatalError));
            rows = int(budget.data->ticks.size());
            problems = &budget.data->problems;
        } else {
            trace = loadTrace(path);
            QVERIFY2(trace.data, qPrintable(trace.fatalError));
            rows = int(trace.data->store.size());
            problems = &trace.data->problems;
        }
        QCOMPARE(fingerprint(path), before);
        QCOMPARE(rows, loaded);
        QCOMPARE(problems->errorCount(), qint64(errors));
        QVERIFY(!problems->kept().empty());
        QCOMPARE(problems->kept().front().line, firstProblemLine);
        QVERIFY2(problems->kept().front().reason.contains(reason), qPrintable(problemText(*problems)));
    }

    // PyTorch snapshots the fuzzer found the snapshot reader wrong on (fuzz_snapshot_pickle): each
    // loads with the entries it can use, the others are problems.
    void snapshotRegressions_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<int>("entries");
        QTest::addColumn<int>("errors");
        QTest::addColumn<QString>("reason"); // of the first problem
        // A str among a stack's frames, the str already interned: the builder took the string id
        // its node map held for a frame index (a stack naming a frame past the table).
        QTest::newRow("a str given as a frame")
            << "fuzz_regress_snapshot_pickle-str-as-frame.pickle" << 2 << 1
            << "device_traces[0][2]: 'frames': a frame is a str, not a dict, entry left out";
    }

    void snapshotRegressions()
    {
        QFETCH(QString, fileName);
        QFETCH(int, entries);
        QFETCH(int, errors);
        QFETCH(QString, reason);
        const QString path = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/" + fileName;
        const SnapshotLoadOutcome loaded = loadSnapshotFile(path);
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        QCOMPARE(int(loaded.data->traceEntryCount()), entries);
        QCOMPARE(loaded.data->problems.errorCount(), qint64(errors));
        QCOMPARE(loaded.data->problems.kept().front().reason, reason);
        for (const uint32_t frame : loaded.data->frames.stackFrames)
            QVERIFY(frame < loaded.data->frames.frames.size());
    }

    // Python-literal metadata cells the converter turned into invalid JSON.
    void pyLiteralRegressions_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("json");
        // Lone surrogate escapes were written as CESU bytes: not UTF-8, the row was rejected.
        QTest::newRow("lone surrogates")
            << "fuzz_regress_pyliteral-lone-surrogate.txt"
            << QByteArray("{\"x\":\"\xEF\xBF\xBD\",\"y\":\"\xEF\xBF\xBD\",\"z\":\"\xEF\xBF\xBD\"}");
    }

    void pyLiteralRegressions()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, json);
        QFile file(QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/" + fileName);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray literal = file.readAll();
        std::string error;
        const auto converted =
            pythonLiteralToJson(std::string_view(literal.constData(), size_t(literal.size())), &error);
        QVERIFY2(converted, error.c_str());
        QCOMPARE(QByteArray::fromStdString(*converted), json);
        QJsonParseError parseError;
        QJsonDocument::fromJson(json, &parseError);
        QCOMPARE(parseError.error, QJsonParseError::NoError);
    }

    // Inputs on which following a growing file differed from reading it whole
    // (fuzz_trace_follower). The file grows a byte at a time, the follower reading after each;
    // at the end its rows and errors are those of a whole read of the same bytes as JSON lines.
    void followerRegressions_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<int>("loaded");
        QTest::addColumn<int>("errors");
        // A line that was a whole record until its writer added more to it ("}\xff\xff}"): the
        // follower had taken the record as soon as its '}' came, and then the rest of the line
        // as a line of its own; read whole, the line is one error.
        QTest::newRow("record continued on its line")
            << "fuzz_regress_trace_follower-record-continued-on-its-line.jsonl" << 0 << 2;
        // A byte order mark at the start of line 2: the reader of a range took any range
        // starting at byte 0 of its buffer for the start of the file and skipped it, so a look
        // of the follower (and a window of the loader) starting there loaded the record.
        QTest::newRow("byte order mark inside")
            << "fuzz_regress_trace_follower-byte-order-mark-inside.jsonl" << 0 << 1;
    }

    void followerRegressions()
    {
        QFETCH(QString, fileName);
        QFETCH(int, loaded);
        QFETCH(int, errors);
        QFile input(QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/" + fileName);
        QVERIFY(input.open(QIODevice::ReadOnly));
        QByteArray content = input.readAll();
        if (!content.endsWith('\n'))
            content += '\n'; // a cut last line waits in the follower, as in the fuzz target
        QTemporaryDir dir;
        const QString path = dir.filePath("live.jsonl");
        QFile live(path);
        QVERIFY(live.open(QIODevice::WriteOnly));
        TraceFollower follower;
        follower.setClock([] { return qint64(0); });
        follower.setPollInterval(3600 * 1000); // polled by hand
        QString error;
        QVERIFY2(follower.start(path, &error), qPrintable(error));
        for (const char byte : content) {
            QCOMPARE(live.write(&byte, 1), qint64(1));
            QVERIFY(live.flush());
            follower.poll();
        }
        follower.stop();
        const std::shared_ptr<const TraceData> followed = follower.snapshot();
        QVERIFY(followed);
        const LoadOutcome whole = loadTraceBytes(
            std::string_view(content.constData(), size_t(content.size())), TraceForm::JsonLines, path);
        QCOMPARE(int(followed->store.size()), loaded);
        QCOMPARE(followed->problems.errorCount(), qint64(errors));
        if (!whole.data) {
            QCOMPARE(loaded, 0);
            QVERIFY2(whole.fatalError.contains(QStringLiteral("%1 rejected").arg(errors)),
                     qPrintable(whole.fatalError));
            return;
        }
        QCOMPARE(followed->store.timestampNs, whole.data->store.timestampNs);
        QCOMPARE(whole.data->problems.errorCount(), qint64(errors));
    }

    void everyFuzzRegressionHasARow()
    {
        const QStringList files =
            QDir(QStringLiteral(GAPSCOPE_TEST_DATA_DIR)).entryList({"fuzz_regress_*"}, QDir::Files);
        QVERIFY(!files.isEmpty());
        QFile self(QStringLiteral(GAPSCOPE_SOURCE_DIR) + "/tests/tst_malformed.cpp");
        QVERIFY(self.open(QIODevice::ReadOnly));
        const QByteArray source = self.readAll();
        for (const QString& file : files)
            QVERIFY2(source.contains('"' + file.toUtf8() + '"'),
                     qPrintable(file + " has no row in fuzzRegressions_data()"));
    }

    // ------------------------------------------------------------------ both loaders

    void fifoIsRefusedWithoutHanging()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("pipe.jsonl");
        QVERIFY(mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        LoadOutcome trace;
        BudgetLoadOutcome budget;
        const bool finished = finishesWithin(std::chrono::seconds(20), [&] {
            trace = loadTrace(path);
            budget = loadBudgetLog(path);
        });
        if (!finished) {
            // Unblock the loader stuck in open() so the suite can end, then fail.
            const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0)
                ::close(fd);
            QFAIL("loading a FIFO blocked");
        }
        QVERIFY(!trace.data);
        QCOMPARE(trace.fatalError, path + ": not a regular file (a FIFO, socket or device); refused");
        QVERIFY(!budget.data);
        QCOMPARE(budget.fatalError, path + ": not a regular file (a FIFO, socket or device); refused");
    }

    void symlinkLoop()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath("a.jsonl"), b = dir.filePath("b.jsonl");
        QVERIFY(QFile::link(b, a));
        QVERIFY(QFile::link(a, b));
        const LoadOutcome trace = loadTrace(a);
        QVERIFY(!trace.data);
        QCOMPARE(trace.fatalError, a + ": dangling symbolic link or symbolic link loop");
        const BudgetLoadOutcome budget = loadBudgetLog(a);
        QVERIFY(!budget.data);
        QVERIFY2(budget.fatalError.startsWith(a + ": "), qPrintable(budget.fatalError));
        QVERIFY2(budget.fatalError.contains("symbolic link", Qt::CaseInsensitive),
                 qPrintable(budget.fatalError));
    }

    void pathThroughAFile()
    {
        // A path whose parent is a file: the unreadable-directory case that works as root too.
        QTemporaryDir dir;
        const QString parent = writeFile(dir.filePath("plain.txt"), "x");
        const QString path = parent + "/trace.jsonl";
        const LoadOutcome trace = loadTrace(path);
        QVERIFY(!trace.data);
        QCOMPARE(trace.fatalError, path + ": no such file or directory");
        const BudgetLoadOutcome budget = loadBudgetLog(path);
        QVERIFY(!budget.data);
        QVERIFY2(budget.fatalError.startsWith(path + ": "), qPrintable(budget.fatalError));
    }

    void directoryGivenAsBudgetLog()
    {
        QTemporaryDir dir;
        const BudgetLoadOutcome budget = loadBudgetLog(dir.path());
        QVERIFY(!budget.data);
        QVERIFY2(budget.fatalError.startsWith(dir.path() + ": "), qPrintable(budget.fatalError));
        QVERIFY2(budget.fatalError.contains("directory"), qPrintable(budget.fatalError));
    }

    void directoryWithoutReadPermission()
    {
        if (geteuid() == 0)
            QSKIP(
                "running as root: permissions are not enforced (pathThroughAFile covers an unreadable path)");
        QTemporaryDir dir;
        const QString sink = dir.filePath("sink");
        QVERIFY(QDir().mkpath(sink));
        writeFile(sink + "/manifest.json", "{}");
        QVERIFY(::chmod(QFile::encodeName(sink).constData(), 0) == 0);
        const LoadOutcome trace = loadTrace(sink);
        ::chmod(QFile::encodeName(sink).constData(), 0700);
        QVERIFY(!trace.data);
        QCOMPARE(trace.fatalError, sink + ": directory cannot be read (permission denied)");

        const QString file = writeFile(dir.filePath("locked.log"), tick(0) + "\n");
        QVERIFY(::chmod(QFile::encodeName(file).constData(), 0) == 0);
        const BudgetLoadOutcome budget = loadBudgetLog(file);
        QVERIFY(!budget.data);
        QVERIFY2(budget.fatalError.contains("ermission denied"), qPrintable(budget.fatalError));
    }

    void traceFileGrowingWhileRead()
    {
        // A writer appends whole lines while the trace loads: the result is a consistent
        // prefix of what was written (timestamps 1..n, none skipped), at most one cut line.
        QTemporaryDir dir;
        const QString path = dir.filePath("live.jsonl");
        QByteArray start;
        for (int i = 1; i <= 2000; ++i)
            start += eventLine(i) + "\n";
        writeFile(path, start);
        std::atomic<bool> stop{false};
        std::atomic<int> written{2000};
        std::thread writer([&] {
            const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND);
            for (int i = 2001; !stop && i <= 200000; ++i) {
                const QByteArray line = eventLine(i) + "\n";
                if (::write(fd, line.constData(), size_t(line.size())) != line.size())
                    break;
                written = i;
            }
            ::close(fd);
        });
        std::vector<LoadOutcome> outcomes;
        for (int round = 0; round < 5; ++round)
            outcomes.push_back(loadTrace(path));
        stop = true;
        writer.join();
        for (const LoadOutcome& outcome : outcomes) {
            QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
            const TraceData& data = *outcome.data;
            const size_t rows = data.store.size();
            QVERIFY(rows >= 2000 && rows <= size_t(written.load()));
            QCOMPARE(data.problems.errorCount(), qint64(0));
            QVERIFY(data.problems.warningCount() <= 1);
            for (size_t row = 0; row < rows; ++row)
                QCOMPARE(data.store.timestampNs[row], int64_t(row + 1));
        }
    }

    void budgetFileGrowingWhileRead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("live.log");
        auto line = [](int i) {
            return "2026-11-30T09:00:00." + QByteArray::number(i).rightJustified(9, '0') +
                   "Z  INFO memory_budget::budget: tick target_bytes=1000 rss_bytes=" +
                   QByteArray::number(i) + " verdict=\"hold\"\n";
        };
        QByteArray start;
        for (int i = 1; i <= 2000; ++i)
            start += line(i);
        writeFile(path, start);
        std::atomic<bool> stop{false};
        std::atomic<int> written{2000};
        std::thread writer([&] {
            const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND);
            for (int i = 2001; !stop && i <= 200000; ++i) {
                const QByteArray text = line(i);
                if (::write(fd, text.constData(), size_t(text.size())) != text.size())
                    break;
                written = i;
            }
            ::close(fd);
        });
        std::vector<BudgetLoadOutcome> outcomes;
        for (int round = 0; round < 5; ++round)
            outcomes.push_back(loadBudgetLog(path));
        stop = true;
        writer.join();
        for (const BudgetLoadOutcome& outcome : outcomes) {
            QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
            const BudgetTicks& ticks = outcome.data->ticks;
            QVERIFY(ticks.size() >= 2000 && ticks.size() <= size_t(written.load()));
            QCOMPARE(outcome.data->problems.errorCount(), qint64(0));
            QVERIFY(outcome.data->problems.warningCount() <= 1);
            for (size_t i = 0; i < ticks.size(); ++i)
                QCOMPARE(ticks.rssBytes[i], int64_t(i + 1));
        }
    }
};

QTEST_GUILESS_MAIN(TestMalformed)
#include "tst_malformed.moc"
