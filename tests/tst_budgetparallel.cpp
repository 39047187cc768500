// Memory-budget logs parsed on several threads in small windows give exactly what one thread
// gives (every column, name table, problem, count), on every fixture and on generated logs
// with broken lines, CRLF, blank lines, ANSI colour codes, other targets, lines too long and
// cut last lines; and the window reader (WindowedReader) underneath hands over every line once,
// in order, with its number.

#include "model/budget/BudgetLoader.h"
#include "model/read/WindowedReader.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>
#include <random>

using namespace gapscope;

namespace {

QString fixture(const QString& name)
{
    return QString(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/budget/" + name;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    return file.write(bytes) == bytes.size();
}

QList<QByteArray> linesOf(const QByteArray& text)
{
    QList<QByteArray> lines = text.split('\n');
    if (!lines.isEmpty() && lines.back().isEmpty())
        lines.removeLast();
    return lines;
}

// A log made from a fixture's lines with everything a real capture can hold mixed in; the
// same seed gives the same bytes.
QByteArray mixedLog(const QByteArray& source, bool text, unsigned seed, const QByteArray& ending)
{
    std::mt19937 random(seed);
    const auto chance = [&](int percent) { return int(random() % 100) < percent; };
    QByteArray out("\xEF\xBB\xBF"); // a BOM before line 1
    // Rows of a target that has no tick line yet (errors), then of one that gets a tick later.
    if (text) {
        out +=
            "2026-11-30T08:59:59Z  INFO memory_budget::other: cache tick cache=\"early\" current_bytes=5\n";
        out += "2026-11-30T08:59:59Z  INFO memory_budget::other: reporter tick reporter=\"early\" "
               "current_bytes=6\n";
    } else {
        out +=
            "{\"timestamp\": \"2026-11-30T08:59:59Z\", \"level\": \"INFO\", \"fields\": {\"message\": \"c\", "
            "\"cache\": \"early\", \"current_bytes\": 5}, \"target\": \"memory_budget::other\"}\n";
    }
    bool otherTick = false;
    int index = 0;
    for (QByteArray line : linesOf(source)) {
        ++index;
        if (text && chance(20))
            line.replace(" INFO ", " \x1b[32mINFO\x1b[0m ")
                .replace("memory_budget::budget:", "\x1b[2mmemory_budget::budget\x1b[0m:");
        out += line;
        out += chance(30) ? "\r\n" : "\n";
        if (chance(5))
            out += chance(50) ? "\n" : "   \r\n";
        if (chance(4))
            out += "2026-11-30T09:00:01Z  INFO hyper::client::pool: reuse idle connection status=200\n";
        if (chance(3))
            out += "garbage line without a header\n";
        if (chance(3))
            out += text ? "2026-11-30T09:00:02Z  INFO memory_budget::budget: budget tick rss_bytes=x "
                          "target_bytes=1\n"
                        : "{\"timestamp\": \"2026-11-30T09:00:02Z\", \"target\": \"memory_budget::budget\", "
                          "\"fields\": {\"rss_bytes\": 1,\n";
        if (chance(2))
            out += "2026-11-30T09:00:03Z  INFO memory_budget::budget: cache tick cache=\"bad\" "
                   "current_bytes=-4\n";
        if (text && index % 37 == 0) { // a second target: its tick, then rows of both targets
            out +=
                "2026-11-30T09:00:04Z DEBUG memory_budget::other: budget tick target_bytes=100 rss_bytes=" +
                QByteArray::number(index) + " verdict=\"hold\" verdict_streak=" + QByteArray::number(index) +
                "\n";
            otherTick = true;
        }
        if (text && otherTick && chance(10))
            out += "2026-11-30T09:00:04Z DEBUG memory_budget::other: cache tick name=\"other_cache_" +
                   QByteArray::number(index % 5) + "\" current_bytes=" + QByteArray::number(index) +
                   " hit_rate=Some(0.5)\n";
    }
    return out + ending;
}

// Every field of two loads, names compared by id (the table must be the same too).
void compareOutcomes(const BudgetLoadOutcome& a, const BudgetLoadOutcome& b)
{
    QCOMPARE(a.fatalError, b.fatalError);
    QCOMPARE(a.cancelled, b.cancelled);
    QCOMPARE(bool(a.data), bool(b.data));
    if (!a.data)
        return;
    const BudgetData& x = *a.data;
    const BudgetData& y = *b.data;
    QCOMPARE(x.path, y.path);
    QVERIFY(x.form == y.form);
    QCOMPARE(x.linesRead, y.linesRead);
    QCOMPARE(x.linesUsed, y.linesUsed);
    QCOMPARE(x.linesSkipped, y.linesSkipped);
    QCOMPARE(x.tickPeriodNs, y.tickPeriodNs);
    QVERIFY(x.gaps == y.gaps);

    const BudgetTicks& s = x.ticks;
    const BudgetTicks& t = y.ticks;
    QCOMPARE(s.names.size(), t.names.size());
    for (uint32_t i = 0; i < s.names.size(); ++i)
        QCOMPARE(s.names.text(i), t.names.text(i));
    QCOMPARE(s.timestampNs, t.timestampNs);
    QCOMPARE(s.targetBytes, t.targetBytes);
    QCOMPARE(s.effectiveTargetBytes, t.effectiveTargetBytes);
    QCOMPARE(s.rssBytes, t.rssBytes);
    QCOMPARE(s.rssSysinfoBytes, t.rssSysinfoBytes);
    QCOMPARE(s.leaseBytesActive, t.leaseBytesActive);
    QCOMPARE(s.jeAllocatedBytes, t.jeAllocatedBytes);
    QCOMPARE(s.jeActiveBytes, t.jeActiveBytes);
    QCOMPARE(s.jeMetadataBytes, t.jeMetadataBytes);
    QCOMPARE(s.jeResidentBytes, t.jeResidentBytes);
    QCOMPARE(s.jeMappedBytes, t.jeMappedBytes);
    QCOMPARE(s.jeRetainedBytes, t.jeRetainedBytes);
    QCOMPARE(s.verdictLabel, t.verdictLabel);
    QCOMPARE(s.verdictDetail, t.verdictDetail);
    QCOMPARE(s.verdictStreak, t.verdictStreak);
    QCOMPARE(s.previousVerdictLabel, t.previousVerdictLabel);
    QCOMPARE(s.previousVerdictStreak, t.previousVerdictStreak);
    QVERIFY(s.level == t.level);
    QCOMPARE(s.sourceLine, t.sourceLine);
    QVERIFY(s.caches == t.caches);
    QVERIFY(s.reporters == t.reporters);
    QCOMPARE(s.runEnds.size(), t.runEnds.size());
    for (size_t i = 0; i < s.runEnds.size(); ++i) {
        QCOMPARE(s.runEnds[i].timestampNs, t.runEnds[i].timestampNs);
        QCOMPARE(s.runEnds[i].previousLabel, t.runEnds[i].previousLabel);
        QCOMPARE(s.runEnds[i].previousStreak, t.runEnds[i].previousStreak);
        QCOMPARE(s.runEnds[i].newLabel, t.runEnds[i].newLabel);
        QCOMPARE(s.runEnds[i].sourceLine, t.runEnds[i].sourceLine);
    }

    QCOMPARE(x.problems.errorCount(), y.problems.errorCount());
    QCOMPARE(x.problems.warningCount(), y.problems.warningCount());
    QCOMPARE(x.problems.kept().size(), y.problems.kept().size());
    for (size_t i = 0; i < x.problems.kept().size(); ++i) {
        const LoadProblem& p = x.problems.kept()[i];
        const LoadProblem& q = y.problems.kept()[i];
        QCOMPARE(p.toString(), q.toString());
        QVERIFY(p.level == q.level);
        QCOMPARE(p.line, q.line);
        QCOMPARE(p.index, q.index);
    }
}

BudgetLoadOutcome loadWith(const QString& path, int threads, size_t windowBytesPerThread, size_t maxLineBytes)
{
    LoadControl control;
    control.threads = threads;
    BudgetLoadTuning tuning;
    if (windowBytesPerThread > 0)
        tuning.windowBytesPerThread = windowBytesPerThread;
    if (maxLineBytes > 0)
        tuning.maxLineBytes = maxLineBytes;
    return loadBudgetLog(path, control, tuning);
}

struct SeenLine
{
    qint64 number = 0;
    QByteArray text; // without '\n'
    bool last = false;
    bool tooLong = false;
    qint64 bytes = 0;
};

// Every line the windowed reader hands over, in merge order.
std::vector<SeenLine> readWithWindowedReader(const QString& path, int threads, size_t window, size_t maxLine,
                                             WindowedReadResult* result)
{
    WindowedForm form;
    form.threads = threads;
    form.windowBytesPerThread = window;
    form.maxLineBytes = maxLine;
    form.numberLinesFirst = true;
    std::vector<std::vector<SeenLine>> perSlot;
    std::vector<SeenLine> seen;
    form.prepare = [&](size_t slotCount) { perSlot.resize(slotCount); };
    form.parse = [&](const WindowRange& range, qint64*) {
        size_t pos = range.begin;
        qint64 number = range.firstLine;
        while (pos < range.end) {
            if (!range.proceed(pos))
                return false;
            const char* found =
                static_cast<const char*>(std::memchr(range.data + pos, '\n', range.end - pos));
            const size_t end = found ? size_t(found - range.data) : range.end;
            perSlot[range.slot].push_back(
                {number++, QByteArray(range.data + pos, qsizetype(end - pos)), !found && range.endsFile});
            pos = found ? end + 1 : range.end;
        }
        return true;
    };
    form.merge = [&](const WindowMerge& merge) {
        for (auto& line : perSlot[merge.slot])
            seen.push_back(std::move(line));
        perSlot[merge.slot].clear();
    };
    form.longLine = [&](size_t, qint64 number, qint64 bytes, bool endsFile) {
        seen.push_back({number, {}, endsFile, true, bytes});
    };
    *result = readWindowed(path, form);
    return seen;
}

} // namespace

class TestBudgetParallel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // Generated inputs: (name, bytes, maxLineBytes used for both loads)
    QString generated(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_dir.filePath(name);
        if (!QFile::exists(path))
            writeFile(path, bytes);
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void sameForEveryThreadCount_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<size_t>("maxLine");
        QTest::addColumn<int>("threads");
        QTest::addColumn<size_t>("window");

        QList<QPair<QString, size_t>> inputs;
        for (const char* name :
             {"leak.text", "leak.json", "leak.jsonl", "retention.text", "wedge_info_only.text"})
            inputs.append({fixture(name), 0});
        const QByteArray text = readAll(fixture("leak.text"));
        const QByteArray json = readAll(fixture("leak.json"));
        const QByteArray jsonl = readAll(fixture("leak.jsonl"));
        QVERIFY(!text.isEmpty() && !json.isEmpty() && !jsonl.isEmpty());
        const QByteArray cutTick = "2026-11-30T10:00:00Z  INFO memory_budget::budget: budget tick "
                                   "target_bytes=4294967296 rss_bytes=29";
        inputs.append({generated("mixed.text", mixedLog(text, true, 1, {})), 0});
        inputs.append({generated("mixed-cut.text", mixedLog(text, true, 2, cutTick)), 0});
        inputs.append({generated("mixed-cut-crlf.text", mixedLog(text, true, 3, cutTick + "\r")), 0});
        inputs.append({generated("mixed-blank-end.text", mixedLog(text, true, 4, "   ")), 0});
        inputs.append({generated("mixed-garbage-end.text", mixedLog(text, true, 5, "garbage")), 0});
        inputs.append({generated("mixed.json", mixedLog(json, false, 6, {})), 0});
        inputs.append({generated("mixed-cut.json", mixedLog(json, false, 7, "{\"timestamp\": \"2026-")), 0});
        // A last JSON line without a newline that parses is kept.
        inputs.append({generated("mixed-whole-end.jsonl", jsonl + jsonl.left(jsonl.indexOf('\n'))), 0});
        // Lines too long: inside a window and longer than a window, and the last one.
        QByteArray longLines = mixedLog(text, true, 8, {});
        longLines.insert(longLines.indexOf('\n', 5000) + 1, QByteArray(3000, 'x') + "\n");
        longLines.insert(longLines.indexOf('\n', 20000) + 1, QByteArray(50000, 'y') + "\r\n");
        longLines.insert(longLines.indexOf('\n', 40000) + 1,
                         QByteArray(2001, 'z') + "\n" + QByteArray(2000, 'w') + "\n");
        inputs.append({generated("long-lines.text", longLines), 2000});
        inputs.append({generated("long-last-line.text", longLines + QByteArray(9000, 'v')), 2000});
        // More problems than the log keeps in detail, and rows of an unknown target among them.
        QByteArray many = text.left(text.indexOf('\n') + 1);
        for (int i = 0; i < 12000; ++i)
            many += i % 3 == 0
                        ? "2026-11-30T09:00:00Z INFO memory_budget: x rss_bytes=1\n"
                        : "2026-11-30T09:00:00Z INFO memory_budget::nobody: c cache=\"n\" current_bytes=1\n";
        inputs.append({generated("many-problems.text", many + text), 0});
        // No tick at all: the fatal error names the counts and the first problem.
        inputs.append({generated("no-tick.text", many.mid(many.indexOf('\n') + 1)), 0});

        for (const auto& [path, maxLine] : inputs) {
            for (int threads : {1, 2, 3, 4, 7}) {
                for (size_t window : {size_t(64), size_t(777), size_t(16384)}) {
                    QTest::addRow("%s/%d threads/%zu B", qPrintable(QFileInfo(path).fileName()), threads,
                                  window)
                        << path << maxLine << threads << window;
                }
            }
        }
    }

    void sameForEveryThreadCount()
    {
        QFETCH(QString, path);
        QFETCH(size_t, maxLine);
        QFETCH(int, threads);
        QFETCH(size_t, window);
        const BudgetLoadOutcome one = loadWith(path, 1, 0, maxLine);
        const BudgetLoadOutcome many = loadWith(path, threads, window, maxLine);
        compareOutcomes(one, many);
    }

    // The generated inputs hold what they should: the comparisons above are not vacuous.
    void generatedInputsExercise_data()
    {
        QTest::addColumn<int>("threads");
        QTest::newRow("1") << 1;
        QTest::newRow("3") << 3;
    }
    void generatedInputsExercise()
    {
        QFETCH(int, threads);
        const QString path =
            generated("mixed-cut.text", mixedLog(readAll(fixture("leak.text")), true, 2,
                                                 "2026-11-30T10:00:00Z  INFO memory_budget::budget: "
                                                 "budget tick target_bytes=4294967296 rss_bytes=29"));
        const BudgetLoadOutcome loaded = loadWith(path, threads, 64, 0);
        QVERIFY(loaded.data);
        const BudgetData& data = *loaded.data;
        bool early = false;
        bool broken = false;
        bool negative = false;
        bool cut = false;
        for (const LoadProblem& p : data.problems.kept()) {
            early |= p.line <= 2 && p.reason.contains("before any tick line of target memory_budget::other");
            broken |= p.reason.contains("rss_bytes is not an integer");
            negative |= p.reason.contains("is negative");
            cut |= p.level == LoadProblem::Level::Warning && p.reason.contains("truncated last line") &&
                   p.line == data.linesRead;
        }
        QVERIFY(early);
        QVERIFY(broken);
        QVERIFY(negative);
        QVERIFY(cut);
        QVERIFY(data.linesSkipped > 0);
        // Rows of the second target went to its own ticks.
        const auto other = data.ticks.names.find("other_cache_1");
        QVERIFY(other.has_value());
        bool attached = false;
        for (const auto& row : data.ticks.caches)
            if (row.name == *other)
                attached |= data.ticks.targetBytes[row.tick] == 100;
        QVERIFY(attached);
    }

    void longLinesAreReported_data()
    {
        QTest::addColumn<int>("threads");
        QTest::addColumn<size_t>("window");
        QTest::newRow("1 thread, big window") << 1 << (size_t(1) << 20);
        QTest::newRow("2 threads, small window") << 2 << size_t(100);
    }
    void longLinesAreReported()
    {
        QFETCH(int, threads);
        QFETCH(size_t, window);
        QByteArray bytes = readAll(fixture("leak.text"));
        const qsizetype at = bytes.indexOf('\n', 1000) + 1;
        const qint64 line = bytes.left(at).count('\n') + 1;
        bytes.insert(at, QByteArray(5000, 'x') + "\n");
        const QString path = generated("one-long-line.text", bytes);
        const BudgetLoadOutcome loaded = loadWith(path, threads, window, 4096);
        QVERIFY(loaded.data);
        bool found = false;
        for (const LoadProblem& p : loaded.data->problems.kept())
            found |= p.line == line &&
                     p.reason == "line of 5000 bytes is longer than the 4096 bytes a line may have";
        QVERIFY(found);
    }

    void cancelKeepsAPrefix_data()
    {
        QTest::addColumn<int>("threads");
        QTest::newRow("1") << 1;
        QTest::newRow("2") << 2;
        QTest::newRow("7") << 7;
    }
    void cancelKeepsAPrefix()
    {
        QFETCH(int, threads);
        const QByteArray text = readAll(fixture("leak.text"));
        QByteArray big;
        while (big.size() < 6 * 1024 * 1024)
            big += text;
        const QString path = generated("big.text", big);
        const BudgetLoadOutcome full = loadWith(path, 1, 0, 0);
        QVERIFY(full.data);

        std::atomic<bool> cancel{false};
        LoadControl control;
        control.threads = threads;
        control.cancel = &cancel;
        std::mutex mutex;
        qint64 last = 0;
        bool increasing = true;
        control.progress = [&](qint64 bytes, qint64 total) {
            const std::lock_guard lock(mutex);
            increasing &= bytes >= last && bytes <= total;
            last = bytes;
            if (bytes >= 2 * 1024 * 1024)
                cancel = true;
        };
        BudgetLoadTuning tuning;
        tuning.windowBytesPerThread = 64 * 1024;
        const BudgetLoadOutcome cancelled = loadBudgetLog(path, control, tuning);
        QVERIFY(cancelled.cancelled);
        QVERIFY(cancelled.data);
        QVERIFY(increasing);
        const BudgetTicks& part = cancelled.data->ticks;
        const BudgetTicks& all = full.data->ticks;
        QVERIFY(part.size() > 0);
        QVERIFY(part.size() < all.size());
        // A contiguous prefix of the file: the first ticks (by source line) of the full load.
        std::vector<int64_t> lines = part.sourceLine;
        std::sort(lines.begin(), lines.end());
        std::vector<int64_t> allLines = all.sourceLine;
        std::sort(allLines.begin(), allLines.end());
        allLines.resize(lines.size());
        QCOMPARE(lines, allLines);
    }

    void progressEndsAtTheFileSize_data()
    {
        QTest::addColumn<int>("threads");
        QTest::newRow("1") << 1;
        QTest::newRow("4") << 4;
    }
    void progressEndsAtTheFileSize()
    {
        QFETCH(int, threads);
        QByteArray big;
        const QByteArray json = readAll(fixture("leak.json"));
        while (big.size() < 3 * 1024 * 1024)
            big += json;
        const QString path = generated("big.json", big);
        std::mutex mutex;
        std::vector<qint64> reports;
        LoadControl control;
        control.threads = threads;
        bool totalRight = true;
        control.progress = [&](qint64 bytes, qint64 total) {
            const std::lock_guard lock(mutex);
            totalRight &= total == qint64(big.size());
            reports.push_back(bytes);
        };
        BudgetLoadTuning tuning;
        tuning.windowBytesPerThread = 100 * 1024;
        QVERIFY(loadBudgetLog(path, control, tuning).data);
        QVERIFY(totalRight);
        QVERIFY(reports.size() >= 3);
        QVERIFY(std::is_sorted(reports.begin(), reports.end()));
        QCOMPARE(reports.back(), qint64(big.size()));
    }

    // The window reader alone: every line once, in order, numbered, the last one flagged.
    void windowedReaderHandsOverEveryLine_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<size_t>("maxLine");
        QTest::addColumn<int>("threads");
        QTest::addColumn<size_t>("window");
        std::mt19937 random(42);
        QByteArray varied;
        for (int i = 0; i < 3000; ++i) {
            const int length = int(random() % 50) + (i % 97 == 0 ? 700 : 0);
            varied += QByteArray(length, char('a' + i % 26)) + (i % 11 == 0 ? "\r\n" : "\n");
            if (i % 13 == 0)
                varied += "\n";
        }
        const QList<QPair<const char*, QByteArray>> inputs{
            {"empty", {}},
            {"one newline", "\n"},
            {"no newline", "abc"},
            {"varied", varied},
            {"varied cut", varied + "tail"},
            {"long last line", varied + QByteArray(2000, 'q')},
        };
        for (const auto& [name, bytes] : inputs)
            for (size_t maxLine : {size_t(0), size_t(600)})
                for (int threads : {1, 2, 3, 7})
                    for (size_t window : {size_t(1), size_t(50), size_t(4096)})
                        QTest::addRow("%s/max %zu/%d threads/%zu B", name, maxLine, threads, window)
                            << bytes << maxLine << threads << window;
    }
    void windowedReaderHandsOverEveryLine()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(size_t, maxLine);
        QFETCH(int, threads);
        QFETCH(size_t, window);
        const QString path = m_dir.filePath("lines.txt");
        QVERIFY(writeFile(path, bytes));
        WindowedReadResult result;
        const std::vector<SeenLine> seen = readWithWindowedReader(path, threads, window, maxLine, &result);
        QVERIFY(result.error.isEmpty());
        QVERIFY(!result.cancelled);
        QCOMPARE(result.bytes, qint64(bytes.size()));

        QList<QByteArray> expected = bytes.split('\n');
        const bool endsWithNewline = bytes.isEmpty() || bytes.endsWith('\n');
        if (endsWithNewline)
            expected.removeLast();
        QCOMPARE(result.lines, qint64(expected.size()));
        QCOMPARE(seen.size(), size_t(expected.size()));
        for (size_t i = 0; i < seen.size(); ++i) {
            const QByteArray& want = expected[qsizetype(i)];
            QCOMPARE(seen[i].number, qint64(i + 1));
            QCOMPARE(seen[i].last, !endsWithNewline && i + 1 == seen.size());
            if (seen[i].tooLong) {
                // Only lines that did not fit a window are skipped, and only when too long.
                QVERIFY(maxLine > 0);
                QVERIFY(size_t(want.size()) > maxLine);
                QCOMPARE(seen[i].bytes, qint64(want.size()));
            } else {
                QCOMPARE(seen[i].text, want);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestBudgetParallel)
#include "tst_budgetparallel.moc"
