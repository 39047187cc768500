// Loading on N threads gives exactly what one thread gives: the same rows in the same order,
// the same strings, sources, sessions, phases and problems (same lines, same reasons).

#include "model/trace/TraceLoader.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <set>
#include <string>

using namespace gapscope;

namespace {

QString problemText(const ProblemLog& log)
{
    QStringList lines;
    for (const LoadProblem& problem : log.kept())
        lines << QStringLiteral("%1 %2")
                     .arg(problem.level == LoadProblem::Level::Error ? 'E' : 'W')
                     .arg(problem.toString());
    lines << QStringLiteral("errors %1 warnings %2").arg(log.errorCount()).arg(log.warningCount());
    return lines.join(QLatin1Char('\n'));
}

QString spanText(const PhaseSpan& span)
{
    return QStringLiteral("%1/%2/%3/%4/%5/%6/%7/%8/%9")
        .arg(QString::fromStdString(span.sessionId))
        .arg(span.rank)
        .arg(QString::fromStdString(span.scopeId), QString::fromStdString(span.label))
        .arg(span.startNs)
        .arg(span.endNs)
        .arg(span.sequence)
        .arg(span.syntheticEnd)
        .arg(QString::fromStdString(span.attributesJson));
}

// First difference between two loads, or an empty string.
QString difference(const TraceData& a, const TraceData& b)
{
    if (a.form != b.form || a.recordsRead != b.recordsRead || a.bytesRead != b.bytesRead)
        return QStringLiteral("form/records/bytes");
    const QString problemsA = problemText(a.problems), problemsB = problemText(b.problems);
    if (problemsA != problemsB)
        return QStringLiteral("problems:\n%1\n--- vs ---\n%2").arg(problemsA, problemsB);
    const EventStore& s = a.store;
    const EventStore& t = b.store;
    if (s.size() != t.size())
        return QStringLiteral("rows %1 vs %2").arg(s.size()).arg(t.size());
    if (s.strings.size() != t.strings.size())
        return QStringLiteral("string pool size");
    for (uint32_t id = 0; id < s.strings.size(); ++id) {
        if (s.str(id) != t.str(id))
            return QStringLiteral("string %1").arg(id);
    }
    if (!(s.sources == t.sources))
        return QStringLiteral("sources");
    for (size_t row = 0; row < s.size(); ++row) {
        const bool same = s.timestampNs[row] == t.timestampNs[row] && s.allocated[row] == t.allocated[row] &&
                          s.reserved[row] == t.reserved[row] && s.active[row] == t.active[row] &&
                          s.inactive[row] == t.inactive[row] && s.change[row] == t.change[row] &&
                          s.used[row] == t.used[row] && s.free[row] == t.free[row] &&
                          s.total[row] == t.total[row] && s.type[row] == t.type[row] &&
                          s.typeName[row] == t.typeName[row] && s.source[row] == t.source[row] &&
                          s.context[row] == t.context[row] && s.metadata[row] == t.metadata[row];
        if (!same)
            return QStringLiteral("row %1").arg(row);
    }
    if (s.origins.size() != t.origins.size())
        return QStringLiteral("origin count");
    for (const auto& [row, origin] : s.origins) {
        const auto other = t.origins.find(row);
        if (other == t.origins.end() || other->second.phaseScopeId != origin.phaseScopeId ||
            other->second.threadId != origin.threadId)
            return QStringLiteral("origin of row %1").arg(row);
    }
    if (a.partitions.size() != b.partitions.size())
        return QStringLiteral("partition count");
    for (size_t i = 0; i < a.partitions.size(); ++i) {
        const Partition &p = a.partitions[i], &q = b.partitions[i];
        if (p.sessionIndex != q.sessionIndex || p.rank != q.rank || p.begin != q.begin || p.end != q.end)
            return QStringLiteral("partition %1").arg(i);
    }
    if (a.sessions.size() != b.sessions.size())
        return QStringLiteral("session count");
    for (size_t i = 0; i < a.sessions.size(); ++i) {
        const SessionInfo &p = a.sessions[i], &q = b.sessions[i];
        if (p.id != q.id || p.status != q.status || p.host != q.host || p.pid != q.pid ||
            p.jobId != q.jobId || p.ranks != q.ranks || p.eventCount != q.eventCount ||
            p.manifestEventCount != q.manifestEventCount || p.startedNs != q.startedNs ||
            p.endedNs != q.endedNs || p.collector != q.collector || p.backend != q.backend)
            return QStringLiteral("session %1").arg(i);
    }
    if (a.phases.size() != b.phases.size())
        return QStringLiteral("phase count");
    for (size_t i = 0; i < a.phases.size(); ++i) {
        if (spanText(a.phases[i]) != spanText(b.phases[i]))
            return QStringLiteral("phase %1: %2 vs %3")
                .arg(i)
                .arg(spanText(a.phases[i]), spanText(b.phases[i]));
    }
    return {};
}

LoadOutcome loadWith(const QString& path, int threads, size_t windowBytesPerThread = 0)
{
    LoadControl control;
    control.threads = threads;
    control.windowBytesPerThread = windowBytesPerThread;
    return loadTrace(path, control);
}

// A deterministic trace of `lines` lines: two sessions, two ranks, phases, out-of-order
// timestamps, CRLF, blank lines, and every few lines a broken or rejected record.
QByteArray generatedTrace(int lines)
{
    QByteArray text;
    uint32_t state = 12345;
    auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    };
    int scope = 0;
    for (int i = 0; i < lines; ++i) {
        const uint32_t r = next();
        const QByteArray session = (i / 997) % 2 ? "beta" : "alpha";
        const int rank = int(r % 2);
        const qint64 ts = 1'000'000'000LL + qint64(i) * 1000 - qint64(r % 3) * 1500;
        const qint64 reserved = 1'000'000 + qint64(r % 50'000);
        QByteArray type = "sample";
        QByteArray metadata = "{}";
        if (i % 41 == 5) {
            type = "phase_enter";
            metadata = "{\"phase_scope\":{\"action\":\"enter\",\"scope_id\":\"sc" +
                       QByteArray::number(++scope) + "\",\"sequence\":" + QByteArray::number(i) +
                       ",\"path\":[\"step\"],\"depth\":1}}";
        } else if (i % 41 == 30) {
            type = "phase_exit";
            metadata = "{\"phase_scope\":{\"action\":\"exit\",\"scope_id\":\"sc" + QByteArray::number(scope) +
                       "\",\"sequence\":" + QByteArray::number(i) + ",\"path\":[\"step\"],\"depth\":1}}";
        } else if (i % 53 == 7) {
            metadata = "{\"backend\":\"cuda\",\"origin_thread_id\":" + QByteArray::number(i) + "}";
        }
        QByteArray line =
            "{\"schema_version\":3,\"session_id\":\"" + session +
            "\",\"timestamp_ns\":" + QByteArray::number(ts) + ",\"event_type\":\"" + type +
            "\",\"collector\":\"gpu\",\"pid\":7,\"host\":\"h" + QByteArray::number(rank) +
            "\",\"rank\":" + QByteArray::number(rank) +
            ",\"world_size\":2,\"allocator_allocated_bytes\":" + QByteArray::number(reserved / 2) +
            ",\"allocator_reserved_bytes\":" + QByteArray::number(reserved) +
            ",\"device_used_bytes\":" + QByteArray::number(reserved + qint64(r % 999)) +
            ",\"device_total_bytes\":8000000,\"context\":\"c" + QByteArray::number(r % 5) +
            "\",\"metadata\":" + metadata + "}";
        switch (i % 97) {
        case 11:
            line.chop(9); // broken JSON
            break;
        case 23:
            line.replace("\"rank\":", "\"rank\":\"x\",\"r\":"); // rejected + unknown key
            break;
        case 37:
            line = "[1,2,3]";
            break;
        case 51:
            line = "   ";
            break;
        case 64:
            line += "\r";
            break;
        case 80:
            line.replace("\"timestamp_ns\"", "\"timestamp_ns\":null,\"ts\"");
            break;
        case 90:
            line.replace("\"pid\":", "\"extra\":1,\"pid\":"); // loaded with a warning
            break;
        default:
            break;
        }
        text += line + "\n";
    }
    text += "{\"schema_version\":3,\"session_id\":\"alpha\",\"timestamp_ns\":5"; // live writer
    return text;
}

// The generated trace as one JSON array: its broken lines dropped, every 13th element
// spread over several lines, a non-object element; with `nested`, metadata holding arrays of
// objects (separators inside a value, where a slice cut must not be trusted); with
// `broken`, a syntax error two thirds in (the array stops there).
QByteArray generatedArray(int elements, bool nested, bool broken)
{
    const QList<QByteArray> lines = generatedTrace(elements).split('\n');
    QByteArray text = "[\n";
    int written = 0;
    for (int i = 0; i + 1 < lines.size(); ++i) {
        QByteArray element = lines[i].trimmed();
        if (element.isEmpty() || !(element.endsWith('}') || element.endsWith(']')))
            continue;
        if (i % 97 == 11)
            continue; // the broken line of the JSON lines form
        if (i % 13 == 0)
            element.replace(",\"", ",\n    \"");
        if (nested && i % 7 == 0)
            element.replace("\"metadata\":{}", "\"metadata\":{\"list\":[{\"a\":1},\n{\"b\":2}]}");
        if (broken && written == elements * 2 / 3)
            element.insert(element.size() / 2, "}}");
        text += (written ? ",\n" : "") + element;
        ++written;
    }
    return text + "\n]\n";
}

// A deterministic CSV trace of `rows` records, columns in an unusual order: quoted cells
// holding commas, line breaks (a record over several lines) and doubled quotes, Python-repr
// and JSON metadata, CRLF ends, blank lines, text after a closing quote, a quote inside a
// cell, phases, and every few records a broken one. *errorLines gets the line of every
// record that must be reported as an error. With `openQuote` the file ends in a quote that
// never closes (one error at its line); otherwise its last record has no line break.
QByteArray generatedCsv(int rows, bool openQuote, QList<qint64>* errorLines)
{
    QByteArray text = "timestamp_ns,schema_version,session_id,event_type,collector,pid,host,rank,world_size,"
                      "allocator_allocated_bytes,allocator_reserved_bytes,device_used_bytes,"
                      "device_total_bytes,context,metadata\n";
    uint32_t state = 777;
    auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    };
    int scope = 0;
    for (int i = 0; i < rows; ++i) {
        const qint64 line = text.count('\n') + 1;
        const uint32_t r = next();
        const QByteArray session = (i / 499) % 2 ? "beta" : "alpha";
        const int rank = int(r % 2);
        const qint64 ts = 1'000'000'000LL + qint64(i) * 1000 - qint64(r % 3) * 1500;
        const qint64 reserved = 1'000'000 + qint64(r % 50'000);
        QByteArray type = "sample";
        QByteArray context = "c" + QByteArray::number(r % 5);
        QByteArray metadata = "{}";
        QByteArray end = "\n";
        bool error = false;
        if (i % 41 == 5) {
            type = "phase_enter";
            metadata = "\"{'phase_scope': {'action': 'enter', 'scope_id': 'sc" + QByteArray::number(++scope) +
                       "', 'sequence': " + QByteArray::number(i) + ", 'path': ['step'], 'depth': 1}}\"";
        } else if (i % 41 == 30) {
            type = "phase_exit";
            metadata = "\"{\"\"phase_scope\"\": {\"\"action\"\": \"\"exit\"\", \"\"scope_id\"\": \"\"sc" +
                       QByteArray::number(scope) + "\"\", \"\"sequence\"\": " + QByteArray::number(i) +
                       ", \"\"path\"\": [\"\"step\"\"], \"\"depth\"\": 1}}\"";
        }
        switch (i % 29) {
        case 1:
            context = "\"a, quoted, comma\"";
            break;
        case 2:
            context = "\"two\nlines\"";
            break;
        case 3:
            context = "\"say \"\"hi\"\"\nthen,\r\n\n\"\"bye\"\"\"";
            break;
        case 4:
            if (type == "sample")
                metadata = "\"{'backend': 'cuda',\n 'origin_thread_id': " + QByteArray::number(i) + "}\"";
            break;
        case 5:
            end = "\r\n";
            break;
        case 6:
            end = "\n\n  \r\n\n";
            break;
        case 7:
            context = "\"closed\"after";
            break;
        case 8:
            context = "in\"side";
            break;
        case 9:
            context = "\"\"";
            break;
        case 10:
            context = "\"ends in a quote \"\"\"";
            break;
        default:
            break;
        }
        QByteArray record = QByteArray::number(ts) + ",3," + session + "," + type + ",gpu,7,h" +
                            QByteArray::number(rank) + "," + QByteArray::number(rank) + ",2," +
                            QByteArray::number(reserved / 2) + "," + QByteArray::number(reserved) + "," +
                            QByteArray::number(reserved + qint64(r % 999)) + ",8000000," + context;
        if (i % 97 != 13) // a cell short
            record += "," + metadata;
        switch (i % 97) {
        case 13:
            error = true;
            break;
        case 27:
            record += ",\"extra, cell\""; // a cell too many
            error = true;
            break;
        case 44:
            record.replace(",{}", ",\"{'a': }\""); // metadata neither JSON nor Python
            error = metadata == "{}";
            break;
        case 58:
            record.replace(",gpu,7,", ",gpu,\"7\nx\","); // pid not an integer, over two lines
            error = true;
            break;
        case 71:
            record = record.mid(record.indexOf(',')); // empty timestamp
            error = true;
            break;
        default:
            break;
        }
        if (error)
            errorLines->append(line);
        text += record + end;
    }
    if (openQuote) {
        errorLines->append(text.count('\n') + 1);
        text += "5,3,alpha,sample,gpu,7,h0,0,2,1,2,3,8000000,\"never closed\n,,,\n";
    } else {
        text.chop(1); // the last record has no line break
    }
    return text;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

} // namespace

class TestParallelLoad : public QObject
{
    Q_OBJECT

private slots:
    void sameResultOnAnyThreadCount_data()
    {
        QTest::addColumn<QString>("path");
        const QString shared = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/";
        for (const QString& name : QDir(shared + "parity").entryList({"*.jsonl"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(name)) << shared + "parity/" + name;
        QTest::newRow("cpu_sink") << shared + "real/cpu_sink";
        QTest::newRow("cpu_phases.json") << shared + "real/cpu_phases.json";
        QTest::newRow("generated") << QStringLiteral("generated"); // written by the test
        QTest::newRow("generated array") << QStringLiteral("array");
        QTest::newRow("generated array, nested") << QStringLiteral("nested");
        QTest::newRow("generated array, broken") << QStringLiteral("broken");
    }

    void sameResultOnAnyThreadCount()
    {
        QFETCH(QString, path);
        QTemporaryDir dir;
        if (path == QLatin1String("generated"))
            path = writeFile(dir, QStringLiteral("generated.jsonl"), generatedTrace(20000));
        else if (path == QLatin1String("array"))
            path = writeFile(dir, QStringLiteral("generated.json"), generatedArray(20000, false, false));
        else if (path == QLatin1String("nested"))
            path = writeFile(dir, QStringLiteral("generated.json"), generatedArray(20000, true, false));
        else if (path == QLatin1String("broken"))
            path = writeFile(dir, QStringLiteral("generated.json"), generatedArray(20000, false, true));
        QVERIFY(!path.isEmpty());
        const LoadOutcome single = loadWith(path, 1);
        QVERIFY2(single.data, qPrintable(single.fatalError));
        QVERIFY(single.data->store.size() > 0);
        for (int threads : {2, 3, 4, 7}) {
            const LoadOutcome parallel = loadWith(path, threads);
            QVERIFY2(parallel.data, qPrintable(parallel.fatalError));
            QVERIFY(!parallel.cancelled);
            const QString diff = difference(*single.data, *parallel.data);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("%1 threads: %2").arg(threads).arg(diff)));
        }
    }

    // JSON lines are read in windows parsed while the next is read and the last merged: tiny
    // windows put many lines (and CRLF pairs, broken lines, a line longer than a window)
    // across window boundaries.
    void jsonLinesSameResultAcrossWindows_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("windowBytes"); // per thread
        const QString parity = QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/parity/";
        for (int window : {65536, 4096, 700, 100, 1}) {
            QTest::newRow(qPrintable(QStringLiteral("phasespike.jsonl, window %1").arg(window)))
                << parity + "phasespike.jsonl" << window;
            QTest::newRow(qPrintable(QStringLiteral("generated, window %1").arg(window)))
                << QStringLiteral("generated") << window;
            // A byte order mark is one only at the start of the file: inside, it is part of
            // its line (an error), also when the line starts a window.
            QTest::newRow(qPrintable(QStringLiteral("byte order mark inside, window %1").arg(window)))
                << QStringLiteral("bom inside") << window;
        }
    }

    void jsonLinesSameResultAcrossWindows()
    {
        QFETCH(QString, path);
        QFETCH(int, windowBytes);
        QTemporaryDir dir;
        if (path == QLatin1String("generated"))
            path = writeFile(dir, QStringLiteral("generated.jsonl"), generatedTrace(3000));
        if (path == QLatin1String("bom inside")) {
            QList<QByteArray> lines = generatedTrace(40).split('\n');
            for (qsizetype line = 5; line < lines.size(); line += 7)
                lines[line].prepend("\xEF\xBB\xBF");
            path = writeFile(dir, QStringLiteral("bom.jsonl"), "\xEF\xBB\xBF" + lines.join('\n'));
        }
        QVERIFY(!path.isEmpty());
        const LoadOutcome whole = loadWith(path, 1);
        QVERIFY2(whole.data, qPrintable(whole.fatalError));
        QVERIFY(whole.data->store.size() > 0);
        for (int threads : {1, 2, 3}) {
            LoadControl control;
            control.threads = threads;
            control.windowBytesPerThread = static_cast<size_t>(windowBytes);
            const LoadOutcome windowed = loadTrace(path, control);
            QVERIFY2(windowed.data, qPrintable(windowed.fatalError));
            QVERIFY(!windowed.cancelled);
            const QString diff = difference(*whole.data, *windowed.data);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("%1 threads: %2").arg(threads).arg(diff)));
        }
    }

    // The segments of a sink are one stream of windows: a window never holds two segments'
    // lines, each segment numbers its own lines, and a segment's partial last line is its own
    // truncated last line. The problems of the sink are those of its segments read one by one.
    void sinkSegmentsAcrossWindows_data()
    {
        QTest::addColumn<int>("windowBytes"); // per thread; 0 = the default
        for (int window : {0, 65536, 700, 100, 1})
            QTest::newRow(qPrintable(QStringLiteral("window %1").arg(window))) << window;
    }

    void sinkSegmentsAcrossWindows()
    {
        QFETCH(int, windowBytes);
        QTemporaryDir dir;
        const QList<QByteArray> lines = generatedTrace(3000).split('\n');
        auto slice = [&lines](qsizetype from, qsizetype to) {
            QByteArray text;
            for (qsizetype i = from; i < to; ++i)
                text += lines[i] + '\n';
            return text;
        };
        const QStringList names{"segment-000001.jsonl", "segment-000002.jsonl", "segment-000003.jsonl"};
        QStringList segments{
            writeFile(dir, names[0], slice(0, 1000) + "{\"schema_version\": 3, \"sess"), // cut mid-line
            writeFile(dir, names[1], slice(1000, 2000)),
            writeFile(dir, names[2], slice(2000, lines.size() - 1) + lines.last())};
        QVERIFY(!segments.contains(QString()));
        QVERIFY(
            !writeFile(dir, "manifest.json",
                       "{\"format\": \"stormlog.append_only_telemetry_sink\", \"sessions\": [], "
                       "\"segments\": [{\"filename\": \"segment-000001.jsonl\"}, "
                       "{\"filename\": \"segment-000002.jsonl\"}, {\"filename\": \"segment-000003.jsonl\"}]}")
                 .isEmpty());
        QStringList expected;
        size_t expectedRows = 0;
        for (const QString& segment : segments) {
            const LoadOutcome alone = loadWith(segment, 1);
            QVERIFY2(alone.data, qPrintable(alone.fatalError));
            expectedRows += alone.data->store.size();
            for (const LoadProblem& problem : alone.data->problems.kept())
                expected << problem.toString();
        }
        QVERIFY(expected.size() > 10);
        QVERIFY(expected.filter(QStringLiteral("segment-000001.jsonl:1001: warning: truncated last line"))
                    .size() == 1);
        for (int threads : {1, 2, 3}) {
            const LoadOutcome sink = loadWith(dir.path(), threads, size_t(windowBytes));
            QVERIFY2(sink.data, qPrintable(sink.fatalError));
            QVERIFY(!sink.cancelled);
            QCOMPARE(sink.data->store.size(), expectedRows);
            QStringList problems;
            for (const LoadProblem& problem : sink.data->problems.kept()) {
                if (segments.contains(problem.file))
                    problems << problem.toString();
            }
            QCOMPARE(problems, expected);
        }
    }

    void csvSameResultOnAnyThreadCountAndWindow_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("windowBytes"); // per thread; 0 = the default
        const QString real =
            QStringLiteral(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/real/cpu_phases.csv";
        QTest::newRow("cpu_phases.csv") << real << 0;
        QTest::newRow("cpu_phases.csv, 4 KB windows") << real << 4096;
        QTest::newRow("cpu_phases.csv, 100-byte windows") << real << 100; // a record longer than a window
        for (int window : {0, 8192, 1000, 37}) {
            QTest::newRow(qPrintable(QStringLiteral("generated, window %1").arg(window)))
                << QStringLiteral("generated") << window;
            QTest::newRow(qPrintable(QStringLiteral("generated, open quote, window %1").arg(window)))
                << QStringLiteral("open") << window;
        }
    }

    void csvSameResultOnAnyThreadCountAndWindow()
    {
        QFETCH(QString, path);
        QFETCH(int, windowBytes);
        QTemporaryDir dir;
        QList<qint64> errorLines;
        const int rows = windowBytes > 0 && windowBytes < 1000 ? 2000 : 6000;
        if (path == QLatin1String("generated") || path == QLatin1String("open"))
            path = writeFile(dir, QStringLiteral("generated.csv"),
                             generatedCsv(rows, path == QLatin1String("open"), &errorLines));
        QVERIFY(!path.isEmpty());
        const LoadOutcome single = loadWith(path, 1);
        QVERIFY2(single.data, qPrintable(single.fatalError));
        QVERIFY(single.data->store.size() > 0);
        QVERIFY(single.data->form == TraceForm::Csv);
        for (int threads : {1, 2, 3, 4, 7}) {
            const LoadOutcome parallel = loadWith(path, threads, static_cast<size_t>(windowBytes));
            QVERIFY2(parallel.data, qPrintable(parallel.fatalError));
            QVERIFY(!parallel.cancelled);
            const QString diff = difference(*single.data, *parallel.data);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("%1 threads: %2").arg(threads).arg(diff)));
        }
        if (!errorLines.isEmpty()) {
            // Every broken record is reported once, at the line where it starts; nothing else is.
            QList<qint64> reported;
            for (const LoadProblem& problem : single.data->problems.kept()) {
                QVERIFY2(problem.level == LoadProblem::Level::Error, qPrintable(problem.toString()));
                QVERIFY(problem.file == path);
                reported << problem.line;
            }
            QCOMPARE(reported, errorLines);
            QCOMPARE(single.data->problems.errorCount(), qint64(errorLines.size()));
        }
    }

    void generatedCsvExercisesTheCases()
    {
        QTemporaryDir dir;
        QList<qint64> errorLines;
        const QString path =
            writeFile(dir, QStringLiteral("generated.csv"), generatedCsv(6000, true, &errorLines));
        const LoadOutcome outcome = loadWith(path, 4);
        QVERIFY(outcome.data);
        const TraceData& data = *outcome.data;
        QVERIFY(errorLines.size() > 250);
        QCOMPARE(data.sessions.size(), size_t(2));
        QVERIFY(data.phases.size() > 100);
        QVERIFY(!data.store.origins.empty());
        QCOMPARE(data.recordsRead, qint64(6001));
        QCOMPARE(qint64(data.store.size()) + data.problems.errorCount(), data.recordsRead);
        QVERIFY(data.problems.kept().back().reason.contains(QStringLiteral("unterminated")));
        // Quoted cells come back whole: commas, line breaks and doubled quotes.
        std::set<std::string> contexts;
        for (size_t row = 0; row < data.store.size(); ++row)
            contexts.insert(std::string(data.store.str(data.store.context[row])));
        QVERIFY(contexts.count("a, quoted, comma"));
        QVERIFY(contexts.count("two\nlines"));
        QVERIFY(contexts.count("say \"hi\"\nthen,\r\n\n\"bye\""));
        QVERIFY(contexts.count("closedafter"));
        QVERIFY(contexts.count("in\"side"));
        QVERIFY(contexts.count("ends in a quote \""));
    }

    void generatedTraceExercisesTheProblems()
    {
        // The generated trace must really hold what the comparison is meant to cover.
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("generated.jsonl"), generatedTrace(20000));
        const LoadOutcome outcome = loadWith(path, 4);
        QVERIFY(outcome.data);
        const TraceData& data = *outcome.data;
        QVERIFY(data.problems.errorCount() > 500);
        QVERIFY(data.problems.warningCount() > 150);
        QCOMPARE(data.sessions.size(), size_t(2));
        QCOMPARE(data.partitions.size(), size_t(4));
        QVERIFY(data.phases.size() > 100);
        QVERIFY(!data.store.origins.empty());
        const LoadProblem& last = data.problems.kept().back();
        QVERIFY(last.level == LoadProblem::Level::Warning);
        QCOMPARE(last.line, qint64(20001));
        QVERIFY(last.reason.startsWith(QStringLiteral("truncated last line ignored")));
    }

    void cancelKeepsAContiguousPrefix_data()
    {
        QTest::addColumn<bool>("csv");
        QTest::newRow("JSON lines") << false;
        QTest::newRow("CSV") << true;
    }

    void cancelKeepsAContiguousPrefix()
    {
        QFETCH(bool, csv);
        QTemporaryDir dir;
        QList<qint64> errorLines;
        const QString path =
            csv ? writeFile(dir, QStringLiteral("generated.csv"), generatedCsv(20000, false, &errorLines))
                : writeFile(dir, QStringLiteral("generated.jsonl"), generatedTrace(20000));
        std::atomic<bool> cancel{false};
        LoadControl control;
        control.threads = 2;
        control.windowBytesPerThread = csv ? 100'000 : 0;
        control.cancel = &cancel;
        control.progress = [&](qint64, qint64) { cancel = true; };
        const LoadOutcome cancelled = loadTrace(path, control);
        QVERIFY(cancelled.cancelled);
        QVERIFY(cancelled.data);
        const LoadOutcome full = loadWith(path, 1);
        QVERIFY(full.data);
        // Every loaded record comes from the start of the file: its problems are a prefix of the full list.
        const auto& some = cancelled.data->problems.kept();
        const auto& all = full.data->problems.kept();
        QVERIFY(some.size() < all.size());
        for (size_t i = 0; i < some.size(); ++i)
            QCOMPARE(some[i].toString(), all[i].toString());
    }
};

QTEST_GUILESS_MAIN(TestParallelLoad)
#include "tst_parallelload.moc"
