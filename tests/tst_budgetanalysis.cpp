#include "analysis/BudgetAnalysis.h"
#include "model/budget/BudgetLoader.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace gapscope;

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kPeriod = 5 * kSecond;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kOrigin = int64_t{1'700'000'000} * kSecond;

// One tick as the tests describe it; the builder derives rss and jemalloc from the buckets.
struct TickSpec
{
    int64_t slot = 0; // tick period index (timestamp = origin + slot x 5 s)
    int64_t target = 4 * kGiB;
    int64_t lease = 0;
    int64_t cache = 1 * kGiB;
    int64_t capDelta = 0;
    std::optional<double> hitRate = 0.9;
    int64_t reporter = 500 * kMiB;
    int64_t other = 300 * kMiB;     // non_cache_other
    int64_t retention = 100 * kMiB; // non_cache - non_cache_live
    int64_t osGap = 0;              // rss_sysinfo - rss
    bool jemalloc = true;
    std::string verdict = "hold";
    int64_t streak = 1;
};

void addTick(BudgetTicks& t, const TickSpec& s)
{
    const auto tick = static_cast<uint32_t>(t.size());
    const int64_t live = s.reporter + s.other;
    const int64_t allocated = s.cache + s.lease + live;
    const int64_t rss = allocated + s.retention;
    t.timestampNs.push_back(kOrigin + s.slot * kPeriod);
    t.targetBytes.push_back(s.target);
    t.effectiveTargetBytes.push_back(std::max<int64_t>(s.target - s.lease, 0));
    t.rssBytes.push_back(rss);
    t.rssSysinfoBytes.push_back(rss + s.osGap);
    t.leaseBytesActive.push_back(s.lease);
    t.jeAllocatedBytes.push_back(s.jemalloc ? allocated : 0);
    t.jeActiveBytes.push_back(s.jemalloc ? allocated + 10 * kMiB : 0);
    t.jeMetadataBytes.push_back(s.jemalloc ? 30 * kMiB : 0);
    t.jeResidentBytes.push_back(s.jemalloc ? rss : 0);
    t.jeMappedBytes.push_back(s.jemalloc ? rss + 50 * kMiB : 0);
    t.jeRetainedBytes.push_back(s.jemalloc ? 50 * kMiB + s.retention / 2 : 0);
    t.verdictLabel.push_back(t.names.intern(s.verdict));
    t.verdictDetail.push_back(kEmptyName);
    t.verdictStreak.push_back(s.streak);
    t.previousVerdictLabel.push_back(kEmptyName);
    t.previousVerdictStreak.push_back(0);
    t.level.push_back(BudgetLogLevel::Info);
    t.sourceLine.push_back(static_cast<int64_t>(tick) + 1);
    t.caches.push_back(
        {tick, t.names.intern("c"), s.cache, 2 * kGiB, 2 * kGiB + s.capDelta, s.capDelta, s.hitRate});
    t.reporters.push_back({tick, t.names.intern("r"), s.reporter});
}

// Deterministic noise of +-8 MiB, so trends are not perfect lines.
int64_t noise(int64_t i)
{
    return ((i * 7919) % 17 - 8) * kMiB;
}

// 60 ticks (5 min) where each bucket grows by the given bytes per tick.
BudgetTicks growthScenario(int64_t reporterPerTick, int64_t otherPerTick, int64_t retentionPerTick,
                           bool jemalloc = true)
{
    BudgetTicks t;
    for (int64_t i = 0; i < 60; ++i) {
        TickSpec s;
        s.slot = i;
        s.reporter += reporterPerTick * i + noise(i);
        s.other += otherPerTick * i + noise(i + 5) / 2;
        s.retention += retentionPerTick * i + noise(i + 11) / 2;
        s.jemalloc = jemalloc;
        s.streak = i + 1;
        addTick(t, s);
    }
    return t;
}

// Enum values as their names, for QCOMPARE messages.
QString name(Severity s)
{
    return QString::fromUtf8(toString(s).data(), qsizetype(toString(s).size()));
}
QString name(Classification c)
{
    return QString::fromUtf8(toString(c).data(), qsizetype(toString(c).size()));
}

bool has(const std::vector<Finding>& findings, Classification c)
{
    return std::any_of(findings.begin(), findings.end(),
                       [&](const Finding& f) { return f.classification == c; });
}

const Finding* get(const std::vector<Finding>& findings, Classification c)
{
    for (const auto& f : findings)
        if (f.classification == c)
            return &f;
    return nullptr;
}

double evidence(const Finding& f, std::string_view key)
{
    const EvidenceValue* e = f.findEvidence(key);
    return e ? e->value : std::numeric_limits<double>::quiet_NaN();
}

// Ticks with the given verdicts at the given slots (a missing slot is a tick not logged).
struct VerdictTick
{
    int64_t slot;
    const char* label;
    int64_t streak;
};
BudgetTicks verdictScenario(const std::vector<VerdictTick>& verdicts)
{
    BudgetTicks t;
    for (const auto& v : verdicts) {
        TickSpec s;
        s.slot = v.slot;
        s.verdict = v.label;
        s.streak = v.streak;
        const bool acting = std::string_view(v.label) != "hold";
        s.other += acting ? 3 * kGiB : 0; // acting ticks are over the target
        addTick(t, s);
    }
    return t;
}

void addRunEnd(BudgetTicks& t, int64_t slot, const char* previous, int64_t streak, const char* next)
{
    t.runEnds.push_back(
        {kOrigin + slot * kPeriod, t.names.intern(previous), streak, t.names.intern(next), 0});
}

std::shared_ptr<const BudgetData> loadFixture(const char* name)
{
    const BudgetLoadOutcome outcome =
        loadBudgetLog(QString(GAPSCOPE_TEST_DATA_DIR) + "/fixtures/budget/" + name);
    if (!outcome.data)
        qWarning("%s", qPrintable(outcome.fatalError));
    return outcome.data;
}

} // namespace

class TestBudgetAnalysis : public QObject
{
    Q_OBJECT

private slots:
    // Id 0 is "" in a new table (which holds nothing until its first name), a copied one and
    // a moved-from one; names keep their ids.
    void nameTable()
    {
        BudgetNameTable empty;
        QCOMPARE(empty.size(), size_t(1));
        QVERIFY(empty.text(kEmptyName).empty());
        QCOMPARE(empty.find(""), std::optional<uint32_t>(kEmptyName));
        QCOMPARE(empty.find("grace"), std::optional<uint32_t>());
        QCOMPARE(empty.intern(""), kEmptyName);
        QCOMPARE(empty.size(), size_t(1));

        BudgetNameTable names;
        const uint32_t healthy = names.intern("healthy");
        const uint32_t leak = names.intern(std::string("leak_suspected"));
        QCOMPARE(healthy, 1u);
        QCOMPARE(leak, 2u);
        QCOMPARE(names.intern("healthy"), healthy);
        QCOMPARE(names.find("leak_suspected"), std::optional<uint32_t>(leak));
        QCOMPARE(names.size(), size_t(3));
        QCOMPARE(names.text(leak), std::string("leak_suspected"));
        QVERIFY(names.text(kEmptyName).empty());

        BudgetNameTable copy = names;
        QCOMPARE(copy.intern("new"), 3u);
        QCOMPARE(names.size(), size_t(3));
        BudgetNameTable moved = std::move(copy);
        QCOMPARE(moved.text(3), std::string("new"));
        QCOMPARE(moved.find("healthy"), std::optional<uint32_t>(healthy));
    }

    void bucketsSaturateAtZero()
    {
        BudgetTicks t;
        TickSpec normal;
        addTick(t, normal);
        TickSpec odd;
        odd.slot = 1;
        addTick(t, odd);
        // make the second tick inconsistent on purpose: every difference would go negative
        t.rssBytes[1] = 100 * kMiB;
        t.rssSysinfoBytes[1] = 50 * kMiB;
        t.jeAllocatedBytes[1] = 200 * kMiB;
        t.leaseBytesActive[1] = 10 * kMiB;
        const BudgetBuckets b = computeBudgetBuckets(t);
        QCOMPARE(b.cache, (std::vector<int64_t>{kGiB, kGiB}));
        QCOMPARE(b.capsAfter, (std::vector<int64_t>{2 * kGiB, 2 * kGiB}));
        QCOMPARE(b.reporter, (std::vector<int64_t>{500 * kMiB, 500 * kMiB}));
        QCOMPARE(b.nonCacheLive[0], 800 * kMiB);
        QCOMPARE(b.nonCacheOther[0], 300 * kMiB);
        QCOMPARE(b.nonCache[0], 900 * kMiB);
        QCOMPARE(b.allocatorRetention[0], 100 * kMiB);
        QCOMPARE(b.osGap[0], int64_t(0));
        QCOMPARE(b.nonCache[1], int64_t(0));
        QCOMPARE(b.nonCacheLive[1], int64_t(0));
        QCOMPARE(b.nonCacheOther[1], int64_t(0));
        QCOMPARE(b.allocatorRetention[1], int64_t(0));
        QCOMPARE(b.osGap[1], int64_t(0));
    }

    void periodAndGaps()
    {
        BudgetTicks t;
        for (int64_t slot : {0, 1, 2, 3, 10, 11, 13}) {
            TickSpec s;
            s.slot = slot;
            addTick(t, s);
        }
        QCOMPARE(budgetTickPeriodNs(t), kPeriod);
        const std::vector<TickGap> gaps = findTickGaps(t);
        QCOMPARE(gaps.size(), size_t(2));
        QCOMPARE(gaps[0], (TickGap{3, kOrigin + 3 * kPeriod, kOrigin + 10 * kPeriod, 6}));
        QCOMPARE(gaps[1], (TickGap{5, kOrigin + 11 * kPeriod, kOrigin + 13 * kPeriod, 1}));
        // an even count of deltas (5 s, 35 s): the lower median, not their average
        BudgetTicks sparse;
        for (int64_t slot : {0, 1, 8}) {
            TickSpec s;
            s.slot = slot;
            addTick(sparse, s);
        }
        QCOMPARE(budgetTickPeriodNs(sparse), kPeriod);
        BudgetTicks single;
        addTick(single, TickSpec{});
        QCOMPARE(budgetTickPeriodNs(single), int64_t(0));
        QVERIFY(findTickGaps(single).empty());
    }

    void leakOutsideCaches()
    {
        const auto findings = analyzeBudget(growthScenario(4 * kMiB, 0, 0));
        const Finding* leak = get(findings, Classification::LeakOutsideCaches);
        QVERIFY(leak);
        QVERIFY(!has(findings, Classification::AllocatorRetention));
        QVERIFY(!has(findings, Classification::UnattributedGrowth));
        QVERIFY(leak->confidence > 0.9);
        // 4 MiB per 5 s tick
        QVERIFY(std::fabs(evidence(*leak, "slope_bytes_per_sec") - 4.0 * kMiB / 5) < 0.05 * kMiB);
        QVERIFY(evidence(*leak, "non_cache_live_growth_bytes") > 200 * kMiB);
        QCOMPARE(leak->evidenceRow, uint32_t(59));
        QCOMPARE(leak->evidenceTimestampNs, kOrigin + 59 * kPeriod);
        QVERIFY(leak->description.find("reporter 'r'") != std::string::npos);
        QVERIFY(leak->description.find("MiB") != std::string::npos);
        QVERIFY(!leak->remediation.empty());
    }

    void noLeakWhenFlatOrSmall_data()
    {
        QTest::addColumn<qint64>("perTick");
        QTest::newRow("flat") << qint64(0);
        QTest::newRow("below min growth") << qint64(kMiB / 2);
        QTest::newRow("shrinking") << qint64(-4 * kMiB);
    }
    void noLeakWhenFlatOrSmall()
    {
        QFETCH(qint64, perTick);
        const auto findings = analyzeBudget(growthScenario(perTick, 0, 0));
        QVERIFY(!has(findings, Classification::LeakOutsideCaches));
        QVERIFY(!has(findings, Classification::AllocatorRetention));
        QVERIFY(!has(findings, Classification::UnattributedGrowth));
    }

    void leakNeedsEnoughTicks()
    {
        BudgetTicks t = growthScenario(20 * kMiB, 0, 0);
        BudgetThresholds th;
        QVERIFY(findLeakOutsideCaches(t, computeBudgetBuckets(t), th));
        th.minTrendTicks = 61;
        QVERIFY(!findLeakOutsideCaches(t, computeBudgetBuckets(t), th));
    }

    void leakWithoutJemalloc()
    {
        const auto findings = analyzeBudget(growthScenario(4 * kMiB, 0, 0, false));
        const Finding* leak = get(findings, Classification::LeakOutsideCaches);
        QVERIFY(leak);
        QVERIFY(leak->findEvidence("non_cache_growth_bytes"));
        QVERIFY(leak->confidence <= 0.5);
        QVERIFY(leak->description.find("no jemalloc statistics") != std::string::npos);
        QVERIFY(!has(findings, Classification::AllocatorRetention)); // would be all of non_cache
        QVERIFY(!has(findings, Classification::UnattributedGrowth));
    }

    void allocatorRetention()
    {
        const auto findings = analyzeBudget(growthScenario(0, 0, 4 * kMiB));
        const Finding* retention = get(findings, Classification::AllocatorRetention);
        QVERIFY(retention);
        QVERIFY(!has(findings, Classification::LeakOutsideCaches));
        QVERIFY(retention->confidence > 0.9);
        QVERIFY(evidence(*retention, "allocator_retention_growth_bytes") > 200 * kMiB);
        QVERIFY(std::fabs(evidence(*retention, "non_cache_live_growth_bytes")) < 32 * kMiB);
        QVERIFY(evidence(*retention, "jemalloc_retained_growth_bytes") > 100 * kMiB);
        QVERIFY(retention->description.find("not a leak") != std::string::npos);
        const auto& advice = retention->remediation;
        QVERIFY(std::any_of(advice.begin(), advice.end(), [](const std::string& s) {
            return s.find("dirty_decay_ms") != std::string::npos;
        }));
    }

    void leakIsNotRetention()
    {
        // non_cache grows, but all of it is live: not retention
        const auto t = growthScenario(4 * kMiB, 0, 0);
        QVERIFY(!findAllocatorRetention(t, computeBudgetBuckets(t), BudgetThresholds{}));
        // retention dominating a smaller leak is both
        const auto both = growthScenario(2 * kMiB, 0, 6 * kMiB);
        const auto findings = analyzeBudget(both);
        QVERIFY(has(findings, Classification::AllocatorRetention));
        QVERIFY(has(findings, Classification::LeakOutsideCaches));
        QVERIFY(get(findings, Classification::AllocatorRetention)->description.find("leak may come on top") !=
                std::string::npos);
    }

    void unattributedGrowth()
    {
        const auto findings = analyzeBudget(growthScenario(0, 4 * kMiB, 0));
        const Finding* unattributed = get(findings, Classification::UnattributedGrowth);
        QVERIFY(unattributed);
        QVERIFY(has(findings, Classification::LeakOutsideCaches)); // the same bytes are live
        QVERIFY(std::fabs(evidence(*unattributed, "reporter_growth_bytes")) < 32 * kMiB);
        QCOMPARE(evidence(*unattributed, "reporter_count"), 1.0);
        QVERIFY(unattributed->description.find("stayed flat") != std::string::npos);
        const Finding* leak = get(findings, Classification::LeakOutsideCaches);
        QVERIFY(leak->description.find("not covered by any registered reporter") != std::string::npos);
    }

    void reportedGrowthIsNotUnattributed()
    {
        const auto t = growthScenario(4 * kMiB, 0, 0);
        QVERIFY(!findUnattributedGrowth(t, computeBudgetBuckets(t), BudgetThresholds{}));
    }

    void wedgedLongSkipRun()
    {
        std::vector<VerdictTick> v;
        for (int64_t i = 0; i < 20; ++i)
            v.push_back({i, "hold", i + 1});
        for (int64_t i = 0; i < 8; ++i)
            v.push_back({20 + i, "skip-shrink-flat-caches", i + 1});
        for (int64_t i = 0; i < 10; ++i)
            v.push_back({28 + i, "hold", i + 1});
        const BudgetTicks t = verdictScenario(v);
        const auto f = findWedgedBudget(t, computeBudgetBuckets(t), BudgetThresholds{});
        QVERIFY(f);
        QCOMPARE(evidence(*f, "skip_shrink_ticks"), 8.0);
        QCOMPARE(evidence(*f, "episode_ticks"), 8.0);
        QCOMPARE(evidence(*f, "duration_seconds"), 40.0);
        QCOMPARE(f->evidenceRow, uint32_t(20));
        QCOMPARE(name(f->severity), name(Severity::Warning));
        QVERIFY(evidence(*f, "max_overshoot_bytes") > 0);
        QVERIFY(f->description.find("40 s") != std::string::npos);
    }

    void shortSkipRunIsNotWedged()
    {
        std::vector<VerdictTick> v;
        for (int64_t i = 0; i < 5; ++i)
            v.push_back({i, "skip-shrink-lean-caches", i + 1});
        v.push_back({5, "hold", 1});
        const BudgetTicks t = verdictScenario(v);
        QVERIFY(!findWedgedBudget(t, computeBudgetBuckets(t), BudgetThresholds{}));
        BudgetThresholds lower;
        lower.wedgeSkipTicks = 5;
        QVERIFY(findWedgedBudget(t, computeBudgetBuckets(t), lower));
    }

    void gapInsideRunWhenStreakContinues()
    {
        // INFO capture that lost slots 13..16: the streak 8 at slot 17 says the run went on
        std::vector<VerdictTick> v;
        for (int64_t i = 0; i < 10; ++i)
            v.push_back({i, "hold", i + 1});
        v.push_back({10, "skip-shrink-flat-caches", 1});
        v.push_back({11, "skip-shrink-flat-caches", 2});
        v.push_back({12, "skip-shrink-flat-caches", 3});
        v.push_back({17, "skip-shrink-flat-caches", 8});
        v.push_back({18, "skip-shrink-flat-caches", 9});
        v.push_back({19, "hold", 1});
        const BudgetTicks t = verdictScenario(v);
        const auto episodes = findWedgeEpisodes(t);
        QCOMPARE(episodes.size(), size_t(1));
        QCOMPARE(episodes[0].firstSlot, int64_t(10));
        QCOMPARE(episodes[0].lastSlot, int64_t(18));
        QCOMPARE(episodes[0].loggedTicks.size(), size_t(5));
        const auto f = findWedgedBudget(t, computeBudgetBuckets(t), BudgetThresholds{});
        QVERIFY(f);
        QCOMPARE(evidence(*f, "skip_shrink_ticks"), 9.0);
    }

    void gapOfHeldTicksBreaksRun()
    {
        // the same capture, but the run-ended lines say the missing slots held
        std::vector<VerdictTick> v;
        v.push_back({10, "skip-shrink-flat-caches", 1});
        v.push_back({11, "skip-shrink-flat-caches", 2});
        v.push_back({12, "skip-shrink-flat-caches", 3});
        v.push_back({17, "skip-shrink-flat-caches", 1});
        v.push_back({18, "skip-shrink-flat-caches", 2});
        v.push_back({19, "skip-shrink-flat-caches", 3});
        BudgetTicks t = verdictScenario(v);
        addRunEnd(t, 13, "skip-shrink-flat-caches", 3, "hold");
        addRunEnd(t, 17, "hold", 4, "skip-shrink-flat-caches");
        QVERIFY(!findWedgedBudget(t, computeBudgetBuckets(t), BudgetThresholds{}));
        // without run-ended lines the missing slots are unknown: still no evidence of a wedge
        BudgetTicks unknown = verdictScenario(v);
        QCOMPARE(findWedgeEpisodes(unknown).size(), size_t(2));
        QVERIFY(!findWedgedBudget(unknown, computeBudgetBuckets(unknown), BudgetThresholds{}));
    }

    void runEndedLineRevealsRunLength()
    {
        // only the first skip tick is logged; the run-ended line says it lasted 7 ticks
        std::vector<VerdictTick> v{{0, "hold", 1}, {1, "skip-shrink-flat-caches", 1}, {8, "hold", 1}};
        BudgetTicks t = verdictScenario(v);
        addRunEnd(t, 8, "skip-shrink-flat-caches", 7, "hold");
        const auto f = findWedgedBudget(t, computeBudgetBuckets(t), BudgetThresholds{});
        QVERIFY(f);
        QCOMPARE(evidence(*f, "skip_shrink_ticks"), 7.0);
    }

    void shrinksBetweenSkipsDoNotEndTheWedge()
    {
        std::vector<VerdictTick> v{{0, "hold", 1},
                                   {1, "skip-shrink-flat-caches", 1},
                                   {2, "shrink", 1},
                                   {3, "skip-shrink-flat-caches", 1},
                                   {4, "shrink", 1},
                                   {5, "skip-shrink-flat-caches", 1},
                                   {6, "skip-shrink-flat-caches", 2},
                                   {7, "skip-shrink-flat-caches", 3},
                                   {8, "skip-shrink-flat-caches", 4}};
        const BudgetTicks t = verdictScenario(v);
        const auto f = findWedgedBudget(t, computeBudgetBuckets(t), BudgetThresholds{});
        QVERIFY(f);
        QCOMPARE(evidence(*f, "skip_shrink_ticks"), 6.0);
        QCOMPARE(evidence(*f, "shrink_ticks"), 2.0);
        QCOMPARE(name(f->severity), name(Severity::Critical)); // still wedged when the log ends
        QVERIFY(f->description.find("still wedged") != std::string::npos);
    }

    // A lease over a healthy run: the effective target drops by the lease, the caches stay flat,
    // the budget skips shrinking; whether that is lease pressure or a wedge depends on what the
    // log shows around the episode.
    void leaseExplainsEpisode_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("expected"); // classification found, "" for none
        QTest::addColumn<double>("confidence");
        QTest::newRow("released with the episode") << "released"
                                                   << "lease_pressure" << 1.0;
        QTest::newRow("release seen after unlogged ticks") << "release after gap"
                                                           << "lease_pressure" << 0.75;
        QTest::newRow("lease taken before the policy reacted") << "early lease"
                                                               << "lease_pressure" << 1.0;
        QTest::newRow("lease never released") << "log ends"
                                              << "wedged_budget" << 0.0;
        QTest::newRow("lease outlives the episode") << "lease outlives"
                                                    << "wedged_budget" << 0.0;
        QTest::newRow("rss above the configured target too") << "over target"
                                                             << "wedged_budget" << 0.0;
        QTest::newRow("lease taken inside the episode") << "late lease"
                                                        << "wedged_budget" << 0.0;
        QTest::newRow("too short for either") << "short"
                                              << "" << 0.0;
        // the lease is never released, but the budget's own shrinks end the episode
        QTest::newRow("shrinks end it, lease still held") << "shrunk back"
                                                          << "lease_pressure" << 1.0;
        // the same shrinks with rss still above the band afterwards: the wedge goes on
        QTest::newRow("shrinks do not bring rss back") << "shrinks fail"
                                                       << "wedged_budget" << 0.0;
    }
    void leaseExplainsEpisode()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, expected);
        QFETCH(double, confidence);
        constexpr int64_t kLease = 768 * kMiB;
        // 5 minutes at 3.25 GiB; a 768 MiB lease on slots 20..30 lifts rss to 4 GiB, above the
        // shrink band of the lowered target (3.41 GiB) but within the configured one (4.2 GiB)
        const int64_t leaseFirst = scenario == "early lease" ? 18 : 20;
        const bool shrinks = scenario == "shrunk back" || scenario == "shrinks fail";
        const int64_t leaseLast = scenario == "lease outlives" || shrinks ? 59 : 30;
        const int64_t episodeLast = scenario == "short" ? 23 : 30;
        const int64_t lastSlot = scenario == "log ends" ? 30 : 59;
        BudgetTicks t;
        int64_t streak = 0;
        std::string previous;
        for (int64_t slot = 0; slot <= lastSlot; ++slot) {
            if (scenario == "release after gap" && slot >= 31 && slot <= 33)
                continue; // hold ticks of a capture at INFO: not in the log
            TickSpec s;
            s.slot = slot;
            s.other += 1400 * kMiB;
            s.lease = slot >= leaseFirst && slot <= leaseLast ? kLease : 0;
            if (scenario == "lease outlives" && slot > 30)
                s.other -= 700 * kMiB; // the program freed memory: rss back under the band
            if (scenario == "over target" && slot >= 20 && slot <= 30)
                s.other += 256 * kMiB; // 4.25 GiB: above 1.05 x the configured 4 GiB
            if (scenario == "late lease" && slot == 20) {
                s.lease = 0;
                s.other += 1000 * kMiB; // over the band before any lease
            }
            s.verdict = slot >= 20 && slot <= episodeLast ? "skip-shrink-flat-caches" : "hold";
            if (shrinks && slot >= 28 && slot <= 32) {
                // 8 refusals (20..27), then 5 shrinks while the lease is held: they ran while the
                // leased operation filled the cache, and the last one took it back
                s.verdict = "shrink";
                s.cache += (slot - 27) * 40 * kMiB;
            }
            if (scenario == "shrunk back" && slot > 32)
                s.cache -= 800 * kMiB; // rss 3.21 GiB: under the lowered target (3.25 GiB)
            if (scenario == "shrinks fail" && slot > 32)
                s.verdict = "skip-shrink-flat-caches"; // still over the band: refused again
            streak = s.verdict == previous ? streak + 1 : 1;
            previous = s.verdict;
            s.streak = streak;
            addTick(t, s);
        }
        const auto findings = analyzeBudget(t);
        if (expected.isEmpty()) {
            QCOMPARE(findings.size(), size_t(0));
            return;
        }
        const bool lease = expected == name(Classification::LeasePressure);
        QVERIFY(has(findings, lease ? Classification::LeasePressure : Classification::WedgedBudget));
        QVERIFY(!has(findings, lease ? Classification::WedgedBudget : Classification::LeasePressure));
        if (!lease) {
            const Finding* wedge = get(findings, Classification::WedgedBudget);
            // only shrinks followed by more refusals are said not to have brought rss back
            QCOMPARE(wedge->description.find("did not bring rss back") != std::string::npos,
                     scenario == "shrinks fail");
            return;
        }
        if (shrinks) {
            QCOMPARE(findings.size(), size_t(1));
            const Finding& f = findings.front();
            QCOMPARE(name(f.severity), name(Severity::Info));
            QCOMPARE(f.confidence, confidence);
            QCOMPARE(evidence(f, "skip_shrink_ticks"), 8.0);
            QCOMPARE(evidence(f, "shrink_ticks"), 5.0);
            QCOMPARE(evidence(f, "episode_ticks"), 13.0);
            // seen held from slot 20 to the end of the log (slot 59)
            QCOMPARE(evidence(f, "lease_seconds"), 195.0);
            QVERIFY(f.description.find("5 shrinks brought rss back") != std::string::npos);
            QVERIFY(f.description.find("still held") != std::string::npos);
            QVERIFY(f.description.find("did not bring rss back") == std::string::npos);
            return;
        }
        QCOMPARE(findings.size(), size_t(1)); // the lease is the only event of the run
        const Finding& f = findings.front();
        QCOMPARE(name(f.severity), name(Severity::Info));
        QCOMPARE(f.confidence, confidence);
        QCOMPARE(evidence(f, "lease_bytes"), double(kLease));
        QCOMPARE(evidence(f, "skip_shrink_ticks"), 11.0);
        QCOMPARE(evidence(f, "episode_ticks"), 11.0);
        QCOMPARE(evidence(f, "lease_episodes"), 1.0);
        // from the first tick the lease is seen to the first it is seen gone
        const double leaseSeconds = scenario == "release after gap" ? 70.0
                                    : scenario == "early lease"     ? 65.0
                                                                    : 55.0;
        QCOMPARE(evidence(f, "lease_seconds"), leaseSeconds);
        QVERIFY(evidence(f, "max_rss_share_of_target") <= 1.05);
        QCOMPARE(f.evidenceRow, uint32_t(20));
        QVERIFY(f.description.find("768.00 MiB") != std::string::npos);
        QVERIFY(f.description.find(confidence < 1 ? "at most 70 s" : "about") != std::string::npos);
        QVERIFY(f.description.find("not a wedged budget") != std::string::npos);
        QVERIFY(!f.remediation.empty());
    }

    void overTarget()
    {
        BudgetTicks t;
        for (int64_t i = 0; i < 60; ++i) {
            TickSpec s;
            s.slot = i;
            s.other += i >= 20 ? 3 * kGiB : 0; // rss above the 4 GiB target from tick 20
            addTick(t, s);
        }
        const auto f = findOverTarget(t, BudgetThresholds{});
        QVERIFY(f);
        QCOMPARE(evidence(*f, "over_target_ticks"), 40.0);
        QCOMPARE(evidence(*f, "tick_slots"), 60.0);
        QCOMPARE(evidence(*f, "longest_over_target_ticks"), 40.0);
        QCOMPARE(name(f->severity), name(Severity::Warning));
        QVERIFY(f->evidenceRow >= 20);
    }

    void briefOvershootIsNotOverTarget()
    {
        BudgetTicks t;
        for (int64_t i = 0; i < 60; ++i) {
            TickSpec s;
            s.slot = i;
            s.other += i < 5 ? 3 * kGiB : 0;
            addTick(t, s);
        }
        QVERIFY(!findOverTarget(t, BudgetThresholds{}));
        // but near a known hard ceiling it is critical
        BudgetThresholds th;
        th.hardCeilingBytes = 5 * kGiB;
        const auto f = findOverTarget(t, th);
        QVERIFY(f);
        QCOMPARE(name(f->severity), name(Severity::Critical));
        QVERIFY(evidence(*f, "max_rss_share_of_ceiling") >= 0.9);
        QCOMPARE(evidence(*f, "hard_ceiling_bytes"), double(5 * kGiB));
        th.hardCeilingBytes = 16 * kGiB;
        QVERIFY(!findOverTarget(t, th));
    }

    void osAllocatorSpike()
    {
        BudgetTicks t;
        for (int64_t i = 0; i < 40; ++i) {
            TickSpec s;
            s.slot = i;
            s.osGap = (i % 3) * 4 * kMiB + (i == 25 ? kGiB : 0);
            addTick(t, s);
        }
        const auto findings = findOsAllocatorGap(t, BudgetThresholds{});
        QCOMPARE(findings.size(), size_t(1));
        QCOMPARE(name(findings[0].classification), name(Classification::OsAllocatorSpike));
        QCOMPARE(findings[0].evidenceRow, uint32_t(25));
        QVERIFY(!findings[0].description.empty());
    }

    void osAllocatorDrift()
    {
        BudgetTicks t;
        for (int64_t i = 0; i < 40; ++i) {
            TickSpec s;
            s.slot = i;
            s.osGap = i * 16 * kMiB + noise(i) / 4;
            addTick(t, s);
        }
        const auto findings = findOsAllocatorGap(t, BudgetThresholds{});
        QVERIFY(has(findings, Classification::OsAllocatorDrift));
        QVERIFY(!has(findings, Classification::OsAllocatorSpike));
        QVERIFY(!get(findings, Classification::OsAllocatorDrift)->remediation.empty());
    }

    void noOsGapWhenReadingsAgree()
    {
        const BudgetTicks t = growthScenario(4 * kMiB, 0, 0);
        QVERIFY(findOsAllocatorGap(t, BudgetThresholds{}).empty());
    }

    void cacheThrash()
    {
        BudgetTicks t;
        for (int64_t i = 0; i < 30; ++i) {
            TickSpec s;
            s.slot = i;
            s.capDelta = (i >= 10 && i < 20) ? ((i % 2) ? 100 * kMiB : -100 * kMiB) : 0;
            addTick(t, s);
        }
        const auto findings = findCacheThrash(t, BudgetThresholds{});
        QCOMPARE(findings.size(), size_t(1));
        QCOMPARE(name(findings[0].classification), name(Classification::CacheThrash));
        QVERIFY(evidence(findings[0], "cap_reversals") >= 4);
        QVERIFY(findings[0].description.find("'c'") != std::string::npos);
    }

    void steadyCapsAreNotThrash()
    {
        BudgetTicks t;
        for (int64_t i = 0; i < 30; ++i) {
            TickSpec s;
            s.slot = i;
            s.capDelta = i < 15 ? 50 * kMiB : -50 * kMiB; // one reversal only
            addTick(t, s);
        }
        QVERIFY(findCacheThrash(t, BudgetThresholds{}).empty());
    }

    void lowHitRateCache_data()
    {
        QTest::addColumn<double>("hitRate");
        QTest::addColumn<qint64>("cacheBytes");
        QTest::addColumn<bool>("expected");
        QTest::newRow("low hit, large") << 0.3 << qint64(1536 * kMiB) << true;
        QTest::newRow("high hit, large") << 0.9 << qint64(1536 * kMiB) << false;
        QTest::newRow("low hit, small") << 0.3 << qint64(100 * kMiB) << false;
    }
    void lowHitRateCache()
    {
        QFETCH(double, hitRate);
        QFETCH(qint64, cacheBytes);
        QFETCH(bool, expected);
        BudgetTicks t;
        for (int64_t i = 0; i < 20; ++i) {
            TickSpec s;
            s.slot = i;
            s.cache = cacheBytes;
            s.hitRate = i == 0 ? std::nullopt : std::optional<double>(hitRate);
            addTick(t, s);
        }
        const auto findings = findCacheThrash(t, BudgetThresholds{});
        QCOMPARE(findings.size(), size_t(expected ? 1 : 0));
        if (expected) {
            QVERIFY(std::fabs(evidence(findings[0], "mean_hit_rate") - hitRate) < 1e-9);
            QVERIFY(evidence(findings[0], "budget_share") > 0.25);
            QCOMPARE(evidence(findings[0], "tick_count"), 19.0);
        }
    }

    void findingsAreOrdered()
    {
        const auto findings = analyzeBudget(growthScenario(kMiB, 4 * kMiB, 8 * kMiB));
        QVERIFY(findings.size() >= 3);
        const auto rank = [](Severity s) {
            return s == Severity::Critical ? 0 : s == Severity::Warning ? 1 : 2;
        };
        for (size_t i = 1; i < findings.size(); ++i) {
            QVERIFY(rank(findings[i - 1].severity) <= rank(findings[i].severity));
            if (findings[i - 1].severity == findings[i].severity)
                QVERIFY(findings[i - 1].confidence >= findings[i].confidence);
        }
        QVERIFY(analyzeBudget(BudgetTicks{}).empty());
    }

    void leakFixturesInAllForms()
    {
        const auto text = loadFixture("leak.text");
        const auto json = loadFixture("leak.json");
        const auto jsonl = loadFixture("leak.jsonl");
        QVERIFY(text && json && jsonl);
        const auto fromText = analyzeBudget(text->ticks);
        const auto fromJson = analyzeBudget(json->ticks);
        const auto fromJsonl = analyzeBudget(jsonl->ticks);
        QVERIFY(has(fromText, Classification::LeakOutsideCaches));
        QVERIFY(!has(fromText, Classification::AllocatorRetention));
        for (const auto* other : {&fromJson, &fromJsonl}) {
            QCOMPARE(other->size(), fromText.size());
            for (size_t i = 0; i < fromText.size(); ++i) {
                const Finding& a = fromText[i];
                const Finding& b = (*other)[i];
                QCOMPARE(name(a.classification), name(b.classification));
                QCOMPARE(name(a.severity), name(b.severity));
                QCOMPARE(a.confidence, b.confidence);
                QCOMPARE(a.evidenceRow, b.evidenceRow);
                QCOMPARE(a.evidenceTimestampNs, b.evidenceTimestampNs);
                QCOMPARE(a.description, b.description);
                QCOMPARE(a.remediation, b.remediation);
                QCOMPARE(a.evidence.size(), b.evidence.size());
                for (size_t k = 0; k < a.evidence.size(); ++k) {
                    QCOMPARE(a.evidence[k].key, b.evidence[k].key);
                    QCOMPARE(a.evidence[k].value, b.evidence[k].value);
                }
            }
        }
    }

    void retentionFixture()
    {
        const auto data = loadFixture("retention.text");
        QVERIFY(data);
        const auto findings = analyzeBudget(data->ticks);
        QVERIFY(has(findings, Classification::AllocatorRetention));
        QVERIFY(!has(findings, Classification::LeakOutsideCaches));
        QVERIFY(!has(findings, Classification::UnattributedGrowth));
        // the 512 MiB lease of 09:05:00 .. 09:06:35 ends with its episode: not a wedge, and
        // the retention finding is what needs action
        QVERIFY(!has(findings, Classification::WedgedBudget));
        QCOMPARE(name(findings.front().classification), name(Classification::AllocatorRetention));
        const Finding* lease = get(findings, Classification::LeasePressure);
        QVERIFY(lease);
        QCOMPARE(evidence(*lease, "lease_bytes"), double(512 * kMiB));
        QCOMPARE(evidence(*lease, "lease_seconds"), 100.0);
    }

    // tests/data/fixtures/budget/README.md says how the two lease fixtures were made.
    void leaseFixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("expected"); // classifications, in the order reported
        QTest::addColumn<qint64>("leaseBytes");
        QTest::addColumn<double>("leaseSeconds");
        QTest::addColumn<double>("skipShrinkTicks");
        // a healthy run whose only event is a 768 MiB lease held 10:04:10 .. 10:05:05
        QTest::newRow("healthy run, one lease")
            << "lease_healthy.text" << QStringList{"lease_pressure"} << qint64(768 * kMiB) << 55.0 << 11.0;
        // allocator retention, and a 512 MiB lease held 11:06:40 .. 11:08:20
        QTest::newRow("retention run with a lease window")
            << "lease_retention.jsonl" << QStringList{"allocator_retention", "lease_pressure"}
            << qint64(512 * kMiB) << 100.0 << 20.0;
    }
    void leaseFixtures()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, expected);
        QFETCH(qint64, leaseBytes);
        QFETCH(double, leaseSeconds);
        QFETCH(double, skipShrinkTicks);
        const auto data = loadFixture(qPrintable(file));
        QVERIFY(data);
        QCOMPARE(data->problems.errorCount(), qint64(0));
        const auto findings = analyzeBudget(data->ticks);
        QStringList classes;
        for (const Finding& f : findings)
            classes << name(f.classification);
        QCOMPARE(classes, expected);
        const Finding* lease = get(findings, Classification::LeasePressure);
        QVERIFY(lease);
        QCOMPARE(name(lease->severity), name(Severity::Info));
        QCOMPARE(lease->confidence, 1.0);
        QCOMPARE(evidence(*lease, "lease_bytes"), double(leaseBytes));
        QCOMPARE(evidence(*lease, "lease_seconds"), leaseSeconds);
        QCOMPARE(evidence(*lease, "skip_shrink_ticks"), skipShrinkTicks);
        QCOMPARE(evidence(*lease, "episode_ticks"), skipShrinkTicks);
        QVERIFY(evidence(*lease, "max_rss_share_of_target") < 1.05);
        // the finding points at the first tick of the episode, where the lease was taken
        QCOMPARE(data->ticks.leaseBytesActive[lease->evidenceRow], int64_t(leaseBytes));
        QCOMPARE(data->ticks.leaseBytesActive[lease->evidenceRow - 1], int64_t(0));
    }

    // A lease that is never released: 8 refusals, then the budget's shrinks bring rss back within
    // the lowered target's band while the lease is still held (scripts/make-lease-fixtures.py).
    void leaseShrinksFixture()
    {
        const auto data = loadFixture("lease_shrinks.text");
        QVERIFY(data);
        QCOMPARE(data->problems.errorCount(), qint64(0));
        const auto findings = analyzeBudget(data->ticks);
        QVERIFY(!has(findings, Classification::WedgedBudget));
        const Finding* lease = get(findings, Classification::LeasePressure);
        QVERIFY(lease);
        QCOMPARE(name(lease->severity), name(Severity::Info));
        QCOMPARE(evidence(*lease, "lease_bytes"), double(512 * kMiB));
        QCOMPARE(evidence(*lease, "skip_shrink_ticks"), 8.0);
        QCOMPARE(evidence(*lease, "shrink_ticks"), 4.0);
        // held from 12:05:00 to the last tick, 12:09:55
        QCOMPARE(evidence(*lease, "lease_seconds"), 295.0);
        QCOMPARE(data->ticks.leaseBytesActive.back(), int64_t(512 * kMiB));
        QVERIFY(lease->description.find("still held") != std::string::npos);
        // rss stays above the lowered target (within its band) while the lease lasts: that
        // chronic overshoot is reported on its own
        QVERIFY(has(findings, Classification::OverTarget));
    }

    void wedgeFixture()
    {
        const auto data = loadFixture("wedge_info_only.text");
        QVERIFY(data);
        const auto findings = analyzeBudget(data->ticks);
        const Finding* wedge = get(findings, Classification::WedgedBudget);
        QVERIFY(wedge);
        // the first over-target episode, 09:05:00 .. 09:05:55, refused to shrink 6 times
        QCOMPARE(evidence(*wedge, "skip_shrink_ticks"), 6.0);
        QCOMPARE(evidence(*wedge, "episode_ticks"), 12.0);
        QCOMPARE(wedge->evidenceRow, uint32_t(8));
        // the non-cache growth of this run has no reporter
        QVERIFY(has(findings, Classification::UnattributedGrowth));
    }

    // Timestamps and streaks from a file may be anywhere in the int64 range: the tick clock,
    // the slot timeline and every rule must neither overflow nor index outside a vector (a
    // wrapped slot once wrote before the timeline; UBSan in CI flags any overflow).
    void extremeTimestamps_data()
    {
        constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
        QTest::addColumn<std::vector<int64_t>>("timestamps");
        QTest::addColumn<std::vector<int64_t>>("streaks");
        QTest::addColumn<qint64>("period");
        QTest::addColumn<int>("gaps");
        // 1800, 2000 and 2200 (the reported crash): two deltas of 200 years
        QTest::newRow("centuries apart")
            << std::vector<int64_t>{-5'364'662'400 * kSecond, 946'684'800 * kSecond, 7'258'118'400 * kSecond}
            << std::vector<int64_t>{1, 2, 3} << qint64(6'311'347'200 * kSecond) << 0;
        QTest::newRow("int64 extremes")
            << std::vector<int64_t>{kMin, 0, kMax} << std::vector<int64_t>{1, 1, 1} << qint64(kMax) << 0;
        QTest::newRow("out of order")
            << std::vector<int64_t>{kOrigin + 10 * kPeriod, kOrigin, kOrigin + 5 * kPeriod}
            << std::vector<int64_t>{1, 1, 1} << qint64(5 * kPeriod) << 0;
        QTest::newRow("huge streaks")
            << std::vector<int64_t>{kOrigin, kOrigin + kPeriod, kOrigin + 2 * kPeriod}
            << std::vector<int64_t>{kMax, kMin, kMax} << qint64(kPeriod) << 0;
        QTest::newRow("minimum then period") << std::vector<int64_t>{kMin, kMin + kPeriod, kMin + 2 * kPeriod}
                                             << std::vector<int64_t>{1, 2, 3} << qint64(kPeriod) << 0;
    }

    void extremeTimestamps()
    {
        QFETCH(std::vector<int64_t>, timestamps);
        QFETCH(std::vector<int64_t>, streaks);
        QFETCH(qint64, period);
        QFETCH(int, gaps);
        BudgetTicks t;
        for (size_t i = 0; i < timestamps.size(); ++i) {
            TickSpec s;
            s.verdict = i % 2 ? "skip-shrink-cooldown" : "shrink";
            s.streak = streaks[i];
            s.other += 3 * kGiB; // over the target, so the wedge and over-target rules run
            s.capDelta = i % 2 ? kMiB : -kMiB;
            addTick(t, s);
            t.timestampNs.back() = timestamps[i];
        }
        addRunEnd(t, 0, "shrink", std::numeric_limits<int64_t>::max(), "hold");
        t.runEnds.back().timestampNs = timestamps.back();
        QCOMPARE(budgetTickPeriodNs(t), period);
        QCOMPARE(int(findTickGaps(t).size()), gaps);
        const auto findings = analyzeBudget(t);
        for (const Finding& f : findings)
            for (const auto& e : f.evidence)
                QVERIFY2(std::isfinite(e.value), e.key.c_str());
        (void)findWedgeEpisodes(t);
    }

    // The reported reproduction, through the loader: three ordinary ticks in 1800, 2000, 2200.
    void centuriesApartLog()
    {
        const BudgetLoadOutcome outcome =
            loadBudgetLog(QString(GAPSCOPE_TEST_DATA_DIR) + "/budget_centuries_apart.jsonl");
        QVERIFY2(outcome.data, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.data->ticks.size(), size_t(3));
        QCOMPARE(outcome.data->problems.errorCount(), qint64(0));
        QVERIFY(outcome.data->gaps.empty());
        const auto findings = analyzeBudget(outcome.data->ticks);
        for (const Finding& f : findings)
            QVERIFY(std::isfinite(f.confidence));
    }

    void otherFixturesAreNotWedged()
    {
        const auto data = loadFixture("leak.text");
        QVERIFY(data);
        QVERIFY(!has(analyzeBudget(data->ticks), Classification::WedgedBudget));
    }
};

QTEST_GUILESS_MAIN(TestBudgetAnalysis)
#include "tst_budgetanalysis.moc"
