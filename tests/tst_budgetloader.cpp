#include "model/budget/BudgetLoader.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace gapscope;

namespace {

QString fixture(const char* name)
{
    return QString(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/budget/" + name;
}
QString testData(const char* name)
{
    return QString(GAPSCOPE_TEST_DATA_DIR) + "/" + name;
}

std::shared_ptr<const BudgetData> load(const QString& path)
{
    BudgetLoadOutcome outcome = loadBudgetLog(path);
    if (!outcome.data)
        qWarning("%s", qPrintable(outcome.fatalError));
    return outcome.data;
}

constexpr int64_t kSecond = 1'000'000'000;
// 2026-11-30T09:00:00Z: 20787 days after the epoch, plus nine hours.
constexpr int64_t kFixtureStartNs = (int64_t{20787} * 86400 + 9 * 3600) * kSecond;

const std::string& nameOf(const BudgetTicks& t, uint32_t id)
{
    return t.names.text(id);
}

// Every column of two tick sets, names compared as text (ids depend on first use), the
// form-specific columns (level, source line) left out.
void compareTicks(const BudgetTicks& a, const BudgetTicks& b)
{
    QCOMPARE(a.size(), b.size());
    QCOMPARE(a.timestampNs, b.timestampNs);
    QCOMPARE(a.targetBytes, b.targetBytes);
    QCOMPARE(a.effectiveTargetBytes, b.effectiveTargetBytes);
    QCOMPARE(a.rssBytes, b.rssBytes);
    QCOMPARE(a.rssSysinfoBytes, b.rssSysinfoBytes);
    QCOMPARE(a.leaseBytesActive, b.leaseBytesActive);
    QCOMPARE(a.jeAllocatedBytes, b.jeAllocatedBytes);
    QCOMPARE(a.jeActiveBytes, b.jeActiveBytes);
    QCOMPARE(a.jeMetadataBytes, b.jeMetadataBytes);
    QCOMPARE(a.jeResidentBytes, b.jeResidentBytes);
    QCOMPARE(a.jeMappedBytes, b.jeMappedBytes);
    QCOMPARE(a.jeRetainedBytes, b.jeRetainedBytes);
    QCOMPARE(a.verdictStreak, b.verdictStreak);
    QCOMPARE(a.previousVerdictStreak, b.previousVerdictStreak);
    for (size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(nameOf(a, a.verdictLabel[i]), nameOf(b, b.verdictLabel[i]));
        QCOMPARE(nameOf(a, a.verdictDetail[i]), nameOf(b, b.verdictDetail[i]));
        QCOMPARE(nameOf(a, a.previousVerdictLabel[i]), nameOf(b, b.previousVerdictLabel[i]));
    }
    QCOMPARE(a.caches.size(), b.caches.size());
    for (size_t i = 0; i < a.caches.size(); ++i) {
        const auto& x = a.caches[i];
        const auto& y = b.caches[i];
        QCOMPARE(x.tick, y.tick);
        QCOMPARE(nameOf(a, x.name), nameOf(b, y.name));
        QCOMPARE(x.currentBytes, y.currentBytes);
        QCOMPARE(x.previousMaxBytes, y.previousMaxBytes);
        QCOMPARE(x.newMaxBytes, y.newMaxBytes);
        QCOMPARE(x.deltaBytes, y.deltaBytes);
        QCOMPARE(x.hitRate, y.hitRate);
    }
    QCOMPARE(a.reporters.size(), b.reporters.size());
    for (size_t i = 0; i < a.reporters.size(); ++i) {
        QCOMPARE(a.reporters[i].tick, b.reporters[i].tick);
        QCOMPARE(nameOf(a, a.reporters[i].name), nameOf(b, b.reporters[i].name));
        QCOMPARE(a.reporters[i].currentBytes, b.reporters[i].currentBytes);
    }
    QCOMPARE(a.runEnds.size(), b.runEnds.size());
    for (size_t i = 0; i < a.runEnds.size(); ++i) {
        QCOMPARE(a.runEnds[i].timestampNs, b.runEnds[i].timestampNs);
        QCOMPARE(nameOf(a, a.runEnds[i].previousLabel), nameOf(b, b.runEnds[i].previousLabel));
        QCOMPARE(a.runEnds[i].previousStreak, b.runEnds[i].previousStreak);
        QCOMPARE(nameOf(a, a.runEnds[i].newLabel), nameOf(b, b.runEnds[i].newLabel));
    }
}

bool hasProblemAt(const BudgetData& data, qint64 line, const QString& reasonPart)
{
    for (const auto& p : data.problems.kept())
        if (p.line == line && p.reason.contains(reasonPart) && p.level == LoadProblem::Level::Error)
            return true;
    return false;
}

QByteArray headOf(const QString& path, qint64 bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.read(bytes);
}

} // namespace

class TestBudgetLoader : public QObject
{
    Q_OBJECT

private slots:
    void bytesLoadAsTheFile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("text") << fixture("leak.text");
        QTest::newRow("tracing JSON") << fixture("leak.json");
        QTest::newRow("snapshot JSON lines") << fixture("leak.jsonl");
        QTest::newRow("text, info only") << fixture("wedge_info_only.text");
    }

    void bytesLoadAsTheFile()
    {
        // loadBudgetBytes parses as loadBudgetLog does, in the calling thread.
        QFETCH(QString, file);
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const BudgetLoadOutcome fromFile = loadBudgetLog(file);
        const BudgetLoadOutcome fromBytes =
            loadBudgetBytes(std::string_view(bytes.constData(), size_t(bytes.size())), file);
        QVERIFY2(fromFile.data && fromBytes.data, qPrintable(fromFile.fatalError + fromBytes.fatalError));
        const BudgetData& a = *fromFile.data;
        const BudgetData& b = *fromBytes.data;
        QCOMPARE(b.linesRead, a.linesRead);
        QCOMPARE(b.linesUsed, a.linesUsed);
        QCOMPARE(b.linesSkipped, a.linesSkipped);
        QCOMPARE(b.ticks.size(), a.ticks.size());
        QVERIFY(b.ticks.timestampNs == a.ticks.timestampNs);
        QCOMPARE(b.ticks.caches.size(), a.ticks.caches.size());
        QCOMPARE(b.problems.errorCount(), a.problems.errorCount());
        QCOMPARE(b.problems.warningCount(), a.problems.warningCount());
    }

    void leakForms_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("form");
        QTest::newRow("text") << "leak.text" << int(BudgetLogForm::Text);
        QTest::newRow("tracing json") << "leak.json" << int(BudgetLogForm::TracingJson);
        QTest::newRow("snapshot jsonl") << "leak.jsonl" << int(BudgetLogForm::SnapshotJsonLines);
    }
    void leakForms()
    {
        QFETCH(QString, file);
        QFETCH(int, form);
        const auto data = load(fixture(file.toUtf8().constData()));
        QVERIFY(data);
        QCOMPARE(int(data->form), form);
        const BudgetTicks& t = data->ticks;
        QCOMPARE(t.size(), size_t(120));
        QVERIFY(data->problems.empty());
        QCOMPARE(data->linesSkipped, qint64(0));
        QCOMPARE(data->linesUsed, data->linesRead);
        QCOMPARE(t.timestampNs.front(), kFixtureStartNs);
        QCOMPARE(data->tickPeriodNs, 5 * kSecond);
        QVERIFY(data->gaps.empty());
        // three caches and one reporter on every tick
        for (size_t i = 0; i < t.size(); ++i) {
            QCOMPARE(t.cachesOf(i).size(), size_t(3));
            QCOMPARE(t.reportersOf(i).size(), size_t(1));
            QCOMPARE(nameOf(t, t.reportersOf(i)[0].name), std::string("reasoner"));
        }
        QCOMPARE(nameOf(t, t.cachesOf(0)[0].name), std::string("plan_cache"));
        QCOMPARE(t.cachesOf(0)[0].hitRate, std::optional<double>());
        QCOMPARE(t.cachesOf(1)[0].hitRate, std::optional<double>(0.935));
        // six label changes, announced by lines (text, json) or carried by ticks (jsonl)
        QCOMPARE(t.runEnds.size(), size_t(6));
        QCOMPARE(nameOf(t, t.runEnds[0].previousLabel), std::string("grow"));
        QCOMPARE(t.runEnds[0].previousStreak, int64_t(4));
        QCOMPARE(nameOf(t, t.runEnds[0].newLabel), std::string("hold"));
        QCOMPARE(t.runEnds[0].timestampNs, kFixtureStartNs + 20 * kSecond);
        QCOMPARE(nameOf(t, t.previousVerdictLabel[4]), std::string("grow"));
        QCOMPARE(t.previousVerdictStreak[4], int64_t(4));
        QCOMPARE(nameOf(t, t.verdictDetail[0]), std::string("headroom_bytes=1377355057"));
    }

    void leakFormsGiveIdenticalTicks()
    {
        const auto text = load(fixture("leak.text"));
        const auto json = load(fixture("leak.json"));
        const auto jsonl = load(fixture("leak.jsonl"));
        QVERIFY(text && json && jsonl);
        compareTicks(text->ticks, json->ticks);
        compareTicks(text->ticks, jsonl->ticks);
        QVERIFY(text->ticks.level == json->ticks.level);
    }

    void holdTicksAreDebugInLeakText()
    {
        const auto data = load(fixture("leak.text"));
        QVERIFY(data);
        const BudgetTicks& t = data->ticks;
        size_t holds = 0;
        for (size_t i = 0; i < t.size(); ++i) {
            const bool hold = t.labelOf(i) == "hold";
            holds += hold;
            QCOMPARE(int(t.level[i]), int(hold ? BudgetLogLevel::Debug : BudgetLogLevel::Info));
        }
        QCOMPARE(holds, size_t(103));
        // snapshot lines carry no level
        const auto jsonl = load(fixture("leak.jsonl"));
        QVERIFY(jsonl);
        QCOMPARE(int(jsonl->ticks.level.front()), int(BudgetLogLevel::Unknown));
    }

    void wedgeInfoOnlyHasGaps()
    {
        const auto data = load(fixture("wedge_info_only.text"));
        QVERIFY(data);
        const BudgetTicks& t = data->ticks;
        QCOMPARE(t.size(), size_t(25));
        QVERIFY(data->problems.empty());
        QCOMPARE(data->tickPeriodNs, 5 * kSecond);
        for (auto level : t.level)
            QCOMPARE(int(level), int(BudgetLogLevel::Info));
        // held ticks are missing: 09:00:40 .. 09:04:55 and 09:06:00 .. 09:06:10
        QCOMPARE(data->gaps.size(), size_t(2));
        QCOMPARE(data->gaps[0].beforeTick, uint32_t(7));
        QCOMPARE(data->gaps[0].startNs, kFixtureStartNs + 35 * kSecond);
        QCOMPARE(data->gaps[0].endNs, kFixtureStartNs + 300 * kSecond);
        QCOMPARE(data->gaps[0].missingTicks, int64_t(52));
        QCOMPARE(data->gaps[1].missingTicks, int64_t(3));
        QCOMPARE(data->gaps[1].endNs, kFixtureStartNs + 375 * kSecond);
        QCOMPARE(t.runEnds.size(), size_t(10));
        // the hold run that fills the first gap is known from its run-ended line
        QCOMPARE(nameOf(t, t.runEnds[1].previousLabel), std::string("hold"));
        QCOMPARE(t.runEnds[1].previousStreak, int64_t(52));
        QCOMPARE(t.runEnds[1].sourceLine, int64_t(42));
    }

    void mixedTextLines()
    {
        const auto data = load(testData("budget_mixed.text"));
        QVERIFY(data);
        const BudgetTicks& t = data->ticks;
        QCOMPARE(int(data->form), int(BudgetLogForm::Text));
        QCOMPARE(data->linesRead, qint64(18));
        QCOMPARE(data->linesSkipped, qint64(3)); // other target, garbage, other budget message
        QCOMPARE(data->linesUsed, qint64(9));
        QCOMPARE(t.size(), size_t(4));
        QCOMPARE(t.sourceLine, (std::vector<int64_t>{1, 6, 9, 16}));
        // ANSI codes, thread name/id and span prefixes did not hide the first tick
        QCOMPARE(int(t.level[0]), int(BudgetLogLevel::Info));
        QCOMPARE(int(t.level[1]), int(BudgetLogLevel::Debug));
        QCOMPARE(t.rssSysinfoBytes[0], int64_t(510000000));
        // RFC 3339 offsets: +02:00 and -05:30 land on the same 5 s clock
        QCOMPARE(t.timestampNs,
                 (std::vector<int64_t>{kFixtureStartNs, kFixtureStartNs + 5 * kSecond,
                                       kFixtureStartNs + 10 * kSecond, kFixtureStartNs + 15 * kSecond}));
        // je_, jemalloc_ and jemalloc. (with and without _bytes)
        QCOMPARE(t.jeAllocatedBytes, (std::vector<int64_t>{400000000, 401000000, 402000000, 0}));
        QCOMPARE(t.jeRetainedBytes, (std::vector<int64_t>{5000000, 6000000, 7000000, 0}));
        QCOMPARE(t.jeMappedBytes[2], int64_t(432000000));
        QVERIFY(!t.hasJemalloc(3));
        // fields missing on the third tick take their documented values
        QCOMPARE(t.effectiveTargetBytes[2], int64_t(1073741824 - 1000));
        QCOMPARE(t.rssSysinfoBytes[2], int64_t(502000000));
        // per-cache / per-reporter lines, named by name= or cache= / reporter=
        QCOMPARE(t.cachesOf(0).size(), size_t(1));
        QCOMPARE(nameOf(t, t.cachesOf(0)[0].name), std::string("plan_cache"));
        QCOMPARE(t.cachesOf(0)[0].hitRate, std::optional<double>(0.93));
        QCOMPARE(t.reportersOf(0).size(), size_t(1));
        QCOMPARE(nameOf(t, t.reportersOf(0)[0].name), std::string("reasoner"));
        QCOMPARE(t.cachesOf(1).size(), size_t(2));
        QCOMPARE(t.cachesOf(1)[0].hitRate, std::optional<double>(0.5));
        QCOMPARE(t.cachesOf(1)[1].hitRate, std::optional<double>());
        QCOMPARE(t.cachesOf(1)[1].deltaBytes, int64_t(-500)); // computed when not logged
        QCOMPARE(t.cachesOf(2).size(), size_t(0));
        // the verdict run ended line (behind a span prefix) and its tick
        QCOMPARE(t.runEnds.size(), size_t(1));
        QCOMPARE(t.runEnds[0].sourceLine, int64_t(15));
        QCOMPARE(nameOf(t, t.previousVerdictLabel[3]), std::string("hold"));
        QCOMPARE(t.previousVerdictStreak[3], int64_t(2));
        // quoted strings with escapes
        QCOMPARE(nameOf(t, t.verdictDetail[3]), std::string("factor=0.8 note=\"q\\u{e9}\xC3\xA9\""));
        // malformed budget lines are errors with their line numbers
        QCOMPARE(data->problems.errorCount(), qint64(5));
        QVERIFY(hasProblemAt(*data, 10, "current_bytes is not an integer"));
        QVERIFY(hasProblemAt(*data, 11, "unterminated quoted value"));
        QVERIFY(hasProblemAt(*data, 12, "tick without target_bytes"));
        QVERIFY(hasProblemAt(*data, 13, "no RFC 3339 timestamp"));
        QVERIFY(hasProblemAt(*data, 18, "before any tick line of target memory_budget::other"));
        QVERIFY(data->problems.kept().front().toString().contains("budget_mixed.text:10"));
    }

    void tracingJsonLines()
    {
        const auto data = load(testData("budget_tracing.json"));
        QVERIFY(data);
        const BudgetTicks& t = data->ticks;
        QCOMPARE(int(data->form), int(BudgetLogForm::TracingJson));
        QCOMPARE(t.size(), size_t(2));
        QCOMPARE(data->linesSkipped, qint64(3));
        QCOMPARE(data->problems.errorCount(), qint64(2));
        QVERIFY(hasProblemAt(*data, 7, "invalid JSON"));
        QVERIFY(hasProblemAt(*data, 8, "rss_bytes is not an integer"));
        QCOMPARE(t.timestampNs[0], kFixtureStartNs + kSecond / 2);
        QCOMPARE(int(t.level[0]), int(BudgetLogLevel::Info));
        QCOMPARE(int(t.level[1]), int(BudgetLogLevel::Debug));
        // nested "fields" and flattened events; jemalloc. and je_ prefixes
        QCOMPARE(t.jeAllocatedBytes, (std::vector<int64_t>{800, 850}));
        QCOMPARE(t.effectiveTargetBytes, (std::vector<int64_t>{1000, 1000}));
        QCOMPARE(t.rssSysinfoBytes, (std::vector<int64_t>{900, 950}));
        QCOMPARE(t.verdictStreak, (std::vector<int64_t>{3, 4}));
        QCOMPARE(t.cachesOf(0).size(), size_t(2));
        QCOMPARE(t.cachesOf(0)[0].hitRate, std::optional<double>(0.25)); // "Some(0.25)"
        QCOMPARE(t.cachesOf(0)[1].hitRate, std::optional<double>(0.75)); // a JSON number
    }

    void snapshotJsonLines()
    {
        const auto data = load(testData("budget_snapshot.jsonl"));
        QVERIFY(data);
        const BudgetTicks& t = data->ticks;
        QCOMPARE(int(data->form), int(BudgetLogForm::SnapshotJsonLines));
        QCOMPARE(t.size(), size_t(2));
        QCOMPARE(data->linesSkipped, qint64(1));
        QCOMPARE(data->problems.errorCount(), qint64(4));
        QVERIFY(hasProblemAt(*data, 3, "rss_bytes is not an integer"));
        QVERIFY(hasProblemAt(*data, 4, "cache 'x': current_bytes is not an integer"));
        QVERIFY(hasProblemAt(*data, 5, "invalid JSON"));
        QVERIFY(hasProblemAt(*data, 6, "timestamp is not RFC 3339"));
        QCOMPARE(t.cachesOf(0).size(), size_t(2));
        QCOMPARE(t.cachesOf(0)[0].hitRate, std::optional<double>());
        QCOMPARE(t.cachesOf(0)[1].deltaBytes, int64_t(-2));
        QCOMPARE(t.reportersOf(1).size(), size_t(1));
        QCOMPARE(t.reportersOf(1)[0].currentBytes, int64_t(7));
        QCOMPARE(nameOf(t, t.verdictDetail[0]), std::string());
        QCOMPARE(nameOf(t, t.verdictDetail[1]), std::string("factor=0.9"));
        QVERIFY(!t.hasJemalloc(0));
        // the label change on the tick becomes a verdict-run-ended event
        QCOMPARE(t.runEnds.size(), size_t(1));
        QCOMPARE(t.runEnds[0].timestampNs, kFixtureStartNs + 5 * kSecond);
        QCOMPARE(nameOf(t, t.runEnds[0].previousLabel), std::string("hold"));
        QCOMPARE(nameOf(t, t.runEnds[0].newLabel), std::string("shrink"));
        QCOMPARE(t.runEnds[0].sourceLine, int64_t(0));
    }

    void rfc3339_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("epoch") << "1970-01-01T00:00:00Z" << true << qint64(0);
        QTest::newRow("fixture start") << "2026-11-30T09:00:00Z" << true << qint64(kFixtureStartNs);
        QTest::newRow("micro") << "2026-11-30T09:00:00.000001Z" << true << qint64(kFixtureStartNs + 1000);
        QTest::newRow("nine digits") << "2026-11-30T09:00:00.123456789Z" << true
                                     << qint64(kFixtureStartNs + 123456789);
        QTest::newRow("one digit") << "2026-11-30T09:00:00.5Z" << true << qint64(kFixtureStartNs + 500000000);
        QTest::newRow("plus offset") << "2026-11-30T11:00:00+02:00" << true << qint64(kFixtureStartNs);
        QTest::newRow("minus offset") << "2026-11-30T03:30:00-05:30" << true << qint64(kFixtureStartNs);
        QTest::newRow("offset over midnight")
            << "2026-12-01T01:00:00+16:00" << true << qint64(kFixtureStartNs);
        QTest::newRow("lower case") << "2026-11-30t09:00:00z" << true << qint64(kFixtureStartNs);
        QTest::newRow("leap day") << "2024-02-29T00:00:00Z" << true
                                  << qint64(int64_t{19782} * 86400 * kSecond);
        QTest::newRow("before epoch") << "1969-12-31T23:59:59Z" << true << qint64(-kSecond);
        QTest::newRow("ten digits") << "2026-11-30T09:00:00.1234567890Z" << false << qint64(0);
        QTest::newRow("no zone") << "2026-11-30T09:00:00" << false << qint64(0);
        QTest::newRow("bad month") << "2026-13-30T09:00:00Z" << false << qint64(0);
        QTest::newRow("no leap day") << "2026-02-29T09:00:00Z" << false << qint64(0);
        QTest::newRow("empty fraction") << "2026-11-30T09:00:00.Z" << false << qint64(0);
        QTest::newRow("short offset") << "2026-11-30T09:00:00+02" << false << qint64(0);
        QTest::newRow("trailing") << "2026-11-30T09:00:00Zx" << false << qint64(0);
        QTest::newRow("garbage") << "yesterday" << false << qint64(0);
    }
    void rfc3339()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, ns);
        const std::string utf8 = text.toStdString();
        const std::optional<int64_t> parsed = parseRfc3339Ns(utf8);
        QCOMPARE(parsed.has_value(), valid);
        if (valid)
            QCOMPARE(qint64(*parsed), ns);
    }

    void hitRateSpellings_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<bool>("present");
        QTest::addColumn<double>("rate");
        QTest::newRow("number") << "0.93" << true << true << 0.93;
        QTest::newRow("some") << "Some(0.93)" << true << true << 0.93;
        QTest::newRow("none") << "None" << true << false << 0.0;
        QTest::newRow("quoted some") << "\"Some(1.0)\"" << true << true << 1.0;
        QTest::newRow("bad") << "Maybe(0.5)" << false << false << 0.0;
    }
    void hitRateSpellings()
    {
        QFETCH(QString, value);
        QFETCH(bool, valid);
        QFETCH(bool, present);
        QFETCH(double, rate);
        const std::string line = "2026-11-30T09:00:00Z  INFO memory_budget::budget: cache tick cache=\"c\" "
                                 "current_bytes=1 previous_max_bytes=2 new_max_bytes=2 hit_rate=" +
                                 value.toStdString();
        BudgetLineParser parser;
        const ParsedBudgetLine parsed = parser.parse(line);
        QCOMPARE(int(parsed.kind), int(valid ? BudgetLineKind::Cache : BudgetLineKind::Malformed));
        if (!valid)
            return;
        QCOMPARE(parsed.caches.front().hitRate.has_value(), present);
        if (present)
            QCOMPARE(*parsed.caches.front().hitRate, rate);
    }

    void classifiesByFieldNamesNotMessages_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("kind");
        const QString head = "2026-11-30T09:00:00Z  INFO memory_budget::budget: ";
        QTest::newRow("tick with odd message")
            << head + "whatever target_bytes=1 rss_bytes=1" << int(BudgetLineKind::Tick);
        QTest::newRow("message says tick") << head + "budget tick" << int(BudgetLineKind::Skipped);
        QTest::newRow("reporter by name")
            << head + "x name=\"r\" current_bytes=5" << int(BudgetLineKind::Reporter);
        QTest::newRow("cache by name")
            << head + "x name=\"c\" current_bytes=5 new_max_bytes=6" << int(BudgetLineKind::Cache);
        QTest::newRow("run ended")
            << head + "changed previous_verdict=\"a\" previous_verdict_streak=2 new_verdict=\"b\""
            << int(BudgetLineKind::RunEnded);
        QTest::newRow("nameless") << head + "x current_bytes=5" << int(BudgetLineKind::Malformed);
        QTest::newRow("other crate") << "2026-11-30T09:00:00Z  INFO other::budget: target_bytes=1 rss_bytes=1"
                                     << int(BudgetLineKind::Skipped);
        QTest::newRow("no target") << "2026-11-30T09:00:00Z  INFO target_bytes=1 rss_bytes=1"
                                   << int(BudgetLineKind::Skipped);
        QTest::newRow("fieldless span")
            << "2026-11-30T09:00:00Z  INFO outer: memory_budget: t target_bytes=1 rss_bytes=1"
            << int(BudgetLineKind::Tick);
    }
    void classifiesByFieldNamesNotMessages()
    {
        QFETCH(QString, line);
        QFETCH(int, kind);
        BudgetLineParser parser;
        QCOMPARE(int(parser.parse(line.toStdString()).kind), kind);
    }

    void detection()
    {
        for (const char* name : {"leak.text", "leak.json", "leak.jsonl", "wedge_info_only.text"})
            QVERIFY2(looksLikeBudgetLog(headOf(fixture(name), 4096)), name);
        QVERIFY(looksLikeBudgetLog(headOf(testData("budget_mixed.text"), 65536)));
        QVERIFY(!looksLikeBudgetLog(
            headOf(QString(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/stormlog/parity/drift.jsonl", 65536)));
        QVERIFY(!looksLikeBudgetLog(QByteArray("hello\nworld\n{\"a\": 1}\n")));
        QVERIFY(!looksLikeBudgetLog(QByteArray()));
    }

    void unusableFiles()
    {
        const BudgetLoadOutcome missing = loadBudgetLog(testData("budget_does_not_exist.text"));
        QVERIFY(!missing.data);
        QVERIFY(missing.fatalError.contains("budget_does_not_exist.text"));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("nothing.text");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            "garbage\n2026-11-30T09:00:00Z  INFO memory_budget: budget tick rss_bytes=x target_bytes=1\n");
        file.close();
        const BudgetLoadOutcome empty = loadBudgetLog(path);
        QVERIFY(!empty.data);
        QVERIFY(empty.fatalError.contains("no memory-budget tick"));
        QVERIFY(empty.fatalError.contains("nothing.text:2"));
    }

    void progressAndCancel()
    {
        qint64 lastBytes = 0;
        qint64 lastTotal = 0;
        LoadControl control;
        control.progress = [&](qint64 bytes, qint64 total) {
            lastBytes = bytes;
            lastTotal = total;
        };
        const BudgetLoadOutcome done = loadBudgetLog(fixture("leak.text"), control);
        QVERIFY(done.data);
        QVERIFY(lastTotal > 0);
        QCOMPARE(lastBytes, lastTotal);

        std::atomic<bool> cancel{true};
        control.cancel = &cancel;
        const BudgetLoadOutcome cancelled = loadBudgetLog(fixture("leak.text"), control);
        QVERIFY(cancelled.cancelled);
        QVERIFY(cancelled.fatalError.isEmpty());
    }

    void ticksOutOfOrderAreSorted()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("unordered.text");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("2026-11-30T09:00:05Z INFO memory_budget: t target_bytes=10 rss_bytes=2\n"
                   "2026-11-30T09:00:05Z INFO memory_budget: c cache=\"b\" current_bytes=2\n"
                   "2026-11-30T09:00:00Z INFO memory_budget: t target_bytes=10 rss_bytes=1\n"
                   "2026-11-30T09:00:00Z INFO memory_budget: c cache=\"a\" current_bytes=1\n");
        file.close();
        const auto data = load(path);
        QVERIFY(data);
        QCOMPARE(data->ticks.rssBytes, (std::vector<int64_t>{1, 2}));
        QCOMPARE(data->problems.warningCount(), qint64(1));
        QCOMPARE(nameOf(data->ticks, data->ticks.cachesOf(0)[0].name), std::string("a"));
        QCOMPARE(data->ticks.cachesOf(0)[0].currentBytes, int64_t(1));
        QCOMPARE(nameOf(data->ticks, data->ticks.cachesOf(1)[0].name), std::string("b"));
    }
};

QTEST_GUILESS_MAIN(TestBudgetLoader)
#include "tst_budgetloader.moc"
