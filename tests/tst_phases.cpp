// Phase replay and attribution (stormlog-telemetry.md section 5) on hand-made boundaries.
// The parity vectors phases/phasespike are checked in tst_gapanalysis.

#include "analysis/Phases.h"

#include <QtTest>

#include <algorithm>
#include <random>

using namespace gapscope;

namespace {

const std::string kSession = "session-a";

PhaseBoundary boundary(PhaseAction action, int64_t ts, int64_t sequence, const std::string& scopeId,
                       std::vector<std::string> path, int64_t threadId = 1,
                       const std::string& threadName = "MainThread", int64_t rank = 0,
                       const std::string& session = kSession)
{
    PhaseBoundary b;
    b.sessionId = session;
    b.rank = rank;
    b.timestampNs = ts;
    b.action = action;
    b.sequence = sequence;
    b.scopeId = scopeId;
    b.name = path.empty() ? std::string() : path.back();
    b.depth = static_cast<int64_t>(path.size());
    b.path = std::move(path);
    b.threadId = threadId;
    b.threadName = threadName;
    return b;
}

PhaseBoundary enter(int64_t ts, int64_t sequence, const std::string& scopeId, std::vector<std::string> path,
                    int64_t threadId = 1, const std::string& threadName = "MainThread")
{
    return boundary(PhaseAction::Enter, ts, sequence, scopeId, std::move(path), threadId, threadName);
}

PhaseBoundary exit(int64_t ts, int64_t sequence, const std::string& scopeId, std::vector<std::string> path,
                   int64_t threadId = 1, const std::string& threadName = "MainThread")
{
    return boundary(PhaseAction::Exit, ts, sequence, scopeId, std::move(path), threadId, threadName);
}

const PhaseSpan* spanOf(const std::vector<PhaseSpan>& spans, const std::string& scopeId)
{
    for (const auto& span : spans)
        if (span.scopeId == scopeId)
            return &span;
    return nullptr;
}

QStringList paths(const PhaseAttribution& attribution)
{
    QStringList list;
    for (const auto& path : attribution.phasePaths)
        list << QString::fromStdString(path);
    return list;
}

// train (seq 1, 10..40) containing train / step (seq 2, 20..30) on the main thread.
std::vector<PhaseSpan> nestedSpans()
{
    return replayPhases({enter(10, 1, "s:0", {"train"}), enter(20, 2, "s:1", {"train", "step"}),
                         exit(30, 3, "s:1", {"train", "step"}), exit(40, 4, "s:0", {"train"})},
                        {SessionRankEnd{kSession, 0, 50}});
}

} // namespace

class TestPhases : public QObject
{
    Q_OBJECT

private slots:
    void nestedSpansAreInclusive();
    void inputOrderDoesNotMatter();
    void equalTimestampsOrderBySequence();
    void unmatchedExitIsIgnored();
    void exitOfNonTopScopeIsIgnored();
    void syntheticEndUsesLastTimestamp();
    void syntheticEndWithoutCallerEnd();
    void stacksAreSeparatePerSessionRankThread();
    void spanDepthIsPathLength();
    void spanTakesThreadNameOfExit();
    void deepestSpanIsUniqueHeuristic();
    void outsideAnySpanIsUnattributed();
    void sameDepthTwoLabelsIsAmbiguousWithSummary();
    void twoThreadsTwoLabelsAmbiguous();
    void twoThreadsOneLabelHasNoSummary();
    void originScopeIsExact();
    void originScopeNotActiveFallsBack();
    void originThreadIsThreadLocal();
    void originThreadWithoutSpansFallsBack();
    void spanIndexAgreesWithScan();
    void mergeAttributions();
};

void TestPhases::nestedSpansAreInclusive()
{
    const auto spans = nestedSpans();
    QCOMPARE(spans.size(), size_t{2});
    // Sorted by start.
    QCOMPARE(spans[0].scopeId, std::string("s:0"));
    QCOMPARE(spans[0].startNs, int64_t{10});
    QCOMPARE(spans[0].endNs, int64_t{40});
    QCOMPARE(spans[0].label, std::string("train"));
    QVERIFY(!spans[0].syntheticEnd);
    QCOMPARE(spans[1].label, std::string("train / step"));
    QCOMPARE(spans[1].sequence, int64_t{2});
    QVERIFY(spans[1].contains(20));
    QVERIFY(spans[1].contains(30));
    QVERIFY(!spans[1].contains(31));
}

void TestPhases::inputOrderDoesNotMatter()
{
    std::vector<PhaseBoundary> boundaries{
        enter(10, 1, "s:0", {"train"}), enter(20, 2, "s:1", {"train", "step"}),
        exit(30, 3, "s:1", {"train", "step"}), exit(40, 4, "s:0", {"train"})};
    std::mt19937 generator(7);
    for (int round = 0; round < 5; ++round) {
        std::shuffle(boundaries.begin(), boundaries.end(), generator);
        const auto spans = replayPhases(boundaries, {});
        QCOMPARE(spans.size(), size_t{2});
        QCOMPARE(spans[0].endNs, int64_t{40});
        QCOMPARE(spans[1].startNs, int64_t{20});
        QCOMPARE(spans[1].endNs, int64_t{30});
    }
}

void TestPhases::equalTimestampsOrderBySequence()
{
    // An empty scope entered and left within one timestamp: the sequence orders them.
    const auto spans = replayPhases({exit(10, 2, "s:0", {"warmup"}), enter(10, 1, "s:0", {"warmup"})},
                                    {SessionRankEnd{kSession, 0, 99}});
    QCOMPARE(spans.size(), size_t{1});
    QCOMPARE(spans[0].startNs, int64_t{10});
    QCOMPARE(spans[0].endNs, int64_t{10});
    QVERIFY(!spans[0].syntheticEnd);
}

void TestPhases::unmatchedExitIsIgnored()
{
    const auto spans = replayPhases(
        {exit(5, 1, "s:9", {"ghost"}), enter(10, 2, "s:0", {"train"}), exit(20, 3, "s:0", {"train"})}, {});
    QCOMPARE(spans.size(), size_t{1});
    QCOMPARE(spans[0].scopeId, std::string("s:0"));
}

void TestPhases::exitOfNonTopScopeIsIgnored()
{
    // train's exit arrives while step is on top: ignored, so train stays open to the end.
    const auto spans = replayPhases({enter(10, 1, "s:0", {"train"}), enter(20, 2, "s:1", {"train", "step"}),
                                     exit(25, 3, "s:0", {"train"}), exit(30, 4, "s:1", {"train", "step"})},
                                    {SessionRankEnd{kSession, 0, 70}});
    QCOMPARE(spans.size(), size_t{2});
    const PhaseSpan* train = spanOf(spans, "s:0");
    QVERIFY(train);
    QCOMPARE(train->endNs, int64_t{70});
    QVERIFY(train->syntheticEnd);
    const PhaseSpan* step = spanOf(spans, "s:1");
    QVERIFY(step);
    QCOMPARE(step->endNs, int64_t{30});
    QVERIFY(!step->syntheticEnd);
}

void TestPhases::syntheticEndUsesLastTimestamp()
{
    const auto spans = replayPhases({enter(10, 1, "s:0", {"train"}), enter(20, 2, "s:1", {"train", "step"})},
                                    {SessionRankEnd{kSession, 0, 500}, SessionRankEnd{"other", 0, 900}});
    QCOMPARE(spans.size(), size_t{2});
    for (const auto& span : spans) {
        QVERIFY(span.syntheticEnd);
        QCOMPARE(span.endNs, int64_t{500});
    }
}

void TestPhases::syntheticEndWithoutCallerEnd()
{
    // The boundaries are events of the session too: the last of them ends open scopes.
    const auto spans = replayPhases(
        {enter(10, 1, "s:0", {"train"}), enter(20, 2, "s:1", {"eval"}, 2), exit(35, 3, "s:1", {"eval"}, 2)},
        {});
    const PhaseSpan* train = spanOf(spans, "s:0");
    QVERIFY(train);
    QVERIFY(train->syntheticEnd);
    QCOMPARE(train->endNs, int64_t{35});
}

void TestPhases::stacksAreSeparatePerSessionRankThread()
{
    // The same scope id exiting on another thread, rank or session closes nothing here.
    std::vector<PhaseBoundary> boundaries{enter(10, 1, "s:0", {"train"})};
    boundaries.push_back(exit(20, 2, "s:0", {"train"}, 2));
    boundaries.push_back(boundary(PhaseAction::Exit, 21, 3, "s:0", {"train"}, 1, "MainThread", 1));
    boundaries.push_back(
        boundary(PhaseAction::Exit, 22, 4, "s:0", {"train"}, 1, "MainThread", 0, "session-b"));
    const auto spans = replayPhases(boundaries, {SessionRankEnd{kSession, 0, 80}});
    QCOMPARE(spans.size(), size_t{1});
    QVERIFY(spans[0].syntheticEnd);
    QCOMPARE(spans[0].endNs, int64_t{80});
}

void TestPhases::spanDepthIsPathLength()
{
    PhaseBoundary opened = enter(10, 1, "s:0", {"train", "step"});
    opened.depth = 7; // a writer's wrong depth
    const auto spans = replayPhases({opened, exit(20, 2, "s:0", {"train", "step"})}, {});
    QCOMPARE(spans.size(), size_t{1});
    QCOMPARE(spans[0].depth, int64_t{2});
}

void TestPhases::spanTakesThreadNameOfExit()
{
    // Upstream builds the span from the exit record's thread name (a thread may be renamed).
    const auto spans = replayPhases(
        {enter(10, 1, "s:0", {"load"}, 3, "Thread-3"), exit(20, 2, "s:0", {"load"}, 3, "DataLoader")}, {});
    QCOMPARE(spans.size(), size_t{1});
    QCOMPARE(spans[0].threadName, std::string("DataLoader"));
    QCOMPARE(spans[0].threadId, int64_t{3});
}

void TestPhases::deepestSpanIsUniqueHeuristic()
{
    const auto spans = nestedSpans();
    const auto attribution = attributePhase(spans, 25, {});
    QVERIFY(attribution);
    QVERIFY(attribution->resolution == PhaseResolution::Unique);
    QCOMPARE(attribution->source, std::optional<std::string>("heuristic"));
    QCOMPARE(attribution->phasePath, std::optional<std::string>("train / step"));
    QCOMPARE(paths(*attribution), QStringList{"train / step"});
    QCOMPARE(attribution->scopeId, std::optional<std::string>("s:1"));
    QCOMPARE(attribution->threadId, std::optional<int64_t>(1));
    QCOMPARE(attribution->threadName, std::optional<std::string>("MainThread"));
    QVERIFY(!attribution->summary);
    // After step closed, only train is active; the end timestamp is inclusive.
    QCOMPARE(attributePhase(spans, 40, {})->phasePath, std::optional<std::string>("train"));
}

void TestPhases::outsideAnySpanIsUnattributed()
{
    const auto spans = nestedSpans();
    QVERIFY(!attributePhase(spans, 9, {}));
    QVERIFY(!attributePhase(spans, 41, {}));
    QVERIFY(!attributePhase({}, 20, {}));
}

void TestPhases::sameDepthTwoLabelsIsAmbiguousWithSummary()
{
    // The shape of the phases parity vector: evaluate (depth 1) entered inside train
    // (depth 1) on one thread. Both are deepest with different labels.
    const auto spans = replayPhases({enter(10, 1, "s:0", {"train"}), enter(20, 4, "s:2", {"evaluate"}),
                                     exit(30, 5, "s:2", {"evaluate"}), exit(31, 6, "s:0", {"train"})},
                                    {});
    const auto attribution = attributePhase(spans, 25, {});
    QVERIFY(attribution);
    QVERIFY(attribution->resolution == PhaseResolution::Ambiguous);
    QCOMPARE(paths(*attribution), (QStringList{"evaluate", "train"}));
    QVERIFY(attribution->summary);
    QCOMPARE(attribution->summary->phasePath, std::string("evaluate"));
    QCOMPARE(attribution->summary->source, std::string("heuristic"));
    QVERIFY(!attribution->source);
    QVERIFY(!attribution->phasePath);
    QVERIFY(!attribution->scopeId);
    QVERIFY(!attribution->threadId);
}

void TestPhases::twoThreadsTwoLabelsAmbiguous()
{
    // Main thread in train / step, a loader thread in prefetch; prefetch entered last.
    const auto spans =
        replayPhases({enter(10, 1, "s:0", {"train"}), enter(12, 2, "s:1", {"train", "step"}),
                      enter(15, 3, "s:2", {"prefetch"}, 2, "Loader"), exit(30, 4, "s:1", {"train", "step"}),
                      exit(31, 5, "s:2", {"prefetch"}, 2, "Loader"), exit(40, 6, "s:0", {"train"})},
                     {});
    const auto attribution = attributePhase(spans, 20, {});
    QVERIFY(attribution);
    QVERIFY(attribution->resolution == PhaseResolution::Ambiguous);
    QCOMPARE(paths(*attribution), (QStringList{"prefetch", "train / step"}));
    QVERIFY(attribution->summary);
    QCOMPARE(attribution->summary->phasePath, std::string("prefetch"));
}

void TestPhases::twoThreadsOneLabelHasNoSummary()
{
    // Two threads each in "train": two matches but one label, so no summary to offer.
    const auto spans =
        replayPhases({enter(10, 1, "s:0", {"train"}), enter(11, 2, "s:1", {"train"}, 2, "Worker"),
                      exit(30, 3, "s:1", {"train"}, 2, "Worker"), exit(31, 4, "s:0", {"train"})},
                     {});
    const auto attribution = attributePhase(spans, 20, {});
    QVERIFY(attribution);
    QVERIFY(attribution->resolution == PhaseResolution::Ambiguous);
    QCOMPARE(paths(*attribution), QStringList{"train"});
    QVERIFY(!attribution->summary);
}

void TestPhases::originScopeIsExact()
{
    const auto spans = nestedSpans();
    EventOrigin origin;
    origin.phaseScopeId = "s:0"; // names the outer scope although step is deeper
    origin.threadId = 1;
    const auto attribution = attributePhase(spans, 25, origin);
    QVERIFY(attribution);
    QVERIFY(attribution->resolution == PhaseResolution::Unique);
    QCOMPARE(attribution->source, std::optional<std::string>("exact"));
    QCOMPARE(attribution->phasePath, std::optional<std::string>("train"));
    QCOMPARE(attribution->scopeId, std::optional<std::string>("s:0"));
}

void TestPhases::originScopeNotActiveFallsBack()
{
    const auto spans = nestedSpans();
    EventOrigin origin;
    origin.phaseScopeId = "s:1"; // step, closed at 30
    const auto attribution = attributePhase(spans, 35, origin);
    QVERIFY(attribution);
    QCOMPARE(attribution->source, std::optional<std::string>("heuristic"));
    QCOMPARE(attribution->phasePath, std::optional<std::string>("train"));
    origin.phaseScopeId = std::string(); // empty counts as absent
    QCOMPARE(attributePhase(spans, 25, origin)->source, std::optional<std::string>("heuristic"));
}

void TestPhases::originThreadIsThreadLocal()
{
    // Thread 2 has two active spans; the most recent (largest sequence) wins even though
    // it is not the deepest, and thread 1's deeper span does not matter.
    const auto spans = replayPhases({enter(10, 1, "s:0", {"train"}), enter(11, 2, "s:1", {"train", "step"}),
                                     enter(12, 3, "s:2", {"io", "read"}, 2, "Loader"),
                                     enter(13, 4, "s:3", {"decode"}, 2, "Loader")},
                                    {SessionRankEnd{kSession, 0, 100}});
    EventOrigin origin;
    origin.threadId = 2;
    const auto attribution = attributePhase(spans, 50, origin);
    QVERIFY(attribution);
    QVERIFY(attribution->resolution == PhaseResolution::Unique);
    QCOMPARE(attribution->source, std::optional<std::string>("thread_local"));
    QCOMPARE(attribution->phasePath, std::optional<std::string>("decode"));
    QCOMPARE(attribution->threadName, std::optional<std::string>("Loader"));
    QCOMPARE(attribution->threadId, std::optional<int64_t>(2));
}

void TestPhases::originThreadWithoutSpansFallsBack()
{
    const auto spans = nestedSpans();
    EventOrigin origin;
    origin.threadId = 42;
    const auto attribution = attributePhase(spans, 25, origin);
    QVERIFY(attribution);
    QCOMPARE(attribution->source, std::optional<std::string>("heuristic"));
    QCOMPARE(attribution->phasePath, std::optional<std::string>("train / step"));
}

// PhaseSpanIndex finds the same active spans, in the same order, as a scan of spans sorted by
// start, and so the same attribution: random nested and overlapping spans on three threads.
void TestPhases::spanIndexAgreesWithScan()
{
    std::mt19937 generator(11);
    for (int round = 0; round < 20; ++round) {
        std::vector<PhaseSpan> spans;
        const int count = round == 0 ? 0 : int(generator() % 200) + 1;
        for (int i = 0; i < count; ++i) {
            PhaseSpan span;
            span.sessionId = kSession;
            span.scopeId = "s:" + std::to_string(i);
            span.threadId = int64_t(generator() % 3);
            span.path = {"train", "p" + std::to_string(generator() % 5)};
            if (generator() % 2)
                span.path.push_back("leaf");
            span.sequence = i;
            span.startNs = int64_t(generator() % 1000);
            span.endNs = span.startNs + int64_t(generator() % 300);
            spans.push_back(span);
        }
        std::stable_sort(spans.begin(), spans.end(),
                         [](const PhaseSpan& a, const PhaseSpan& b) { return a.startNs < b.startNs; });
        const PhaseSpanIndex index(spans);
        for (int64_t ts = -5; ts < 1310; ts += 7) {
            std::vector<std::string> scanned, indexed;
            for (const PhaseSpan& span : spans)
                if (span.contains(ts))
                    scanned.push_back(span.scopeId);
            for (const PhaseSpan* span : index.activeAt(ts))
                indexed.push_back(span->scopeId);
            QCOMPARE(indexed, scanned);
            const auto fromScan = attributePhase(spans, ts, {});
            const auto fromIndex = index.attribute(ts);
            QCOMPARE(fromIndex.has_value(), fromScan.has_value());
            if (fromScan) {
                QCOMPARE(fromIndex->phasePaths, fromScan->phasePaths);
                QCOMPARE(fromIndex->scopeId, fromScan->scopeId);
                QVERIFY(fromIndex->summary.has_value() == fromScan->summary.has_value());
            }
        }
    }
}

// upstream's merge_phase_attributions
void TestPhases::mergeAttributions()
{
    PhaseAttribution a;
    a.phasePaths = {"train / step"};
    a.source = "heuristic";
    a.phasePath = "train / step";
    a.scopeId = "s:1";
    a.threadId = 1;
    PhaseAttribution sameScope = a;
    sameScope.threadName = "other"; // not compared
    PhaseAttribution otherScope = a;
    otherScope.scopeId = "s:2";
    PhaseAttribution otherPath = a;
    otherPath.phasePaths = {"train / all_reduce"};
    otherPath.phasePath = "train / all_reduce";
    PhaseAttribution empty;
    empty.resolution = PhaseResolution::Ambiguous;

    QVERIFY(!mergePhaseAttributions(std::nullopt, std::nullopt));
    QCOMPARE(mergePhaseAttributions(std::nullopt, a)->scopeId, a.scopeId);
    QCOMPARE(mergePhaseAttributions(a, std::nullopt)->scopeId, a.scopeId);
    // the same unique scope: the first
    auto merged = mergePhaseAttributions(a, sameScope);
    QVERIFY(merged->resolution == PhaseResolution::Unique);
    QVERIFY(!merged->threadName);
    // one label of two scopes: ambiguous over that one label, nothing else
    merged = mergePhaseAttributions(a, otherScope);
    QVERIFY(merged->resolution == PhaseResolution::Ambiguous);
    QCOMPARE(merged->phasePaths, std::vector<std::string>{"train / step"});
    QVERIFY(!merged->source && !merged->phasePath && !merged->scopeId && !merged->summary);
    // two labels: ambiguous over both, sorted
    merged = mergePhaseAttributions(a, otherPath);
    QCOMPARE(merged->phasePaths, (std::vector<std::string>{"train / all_reduce", "train / step"}));
    // one without paths gives way to the other
    QCOMPARE(mergePhaseAttributions(empty, a)->scopeId, a.scopeId);
    QCOMPARE(mergePhaseAttributions(a, empty)->scopeId, a.scopeId);
}

QTEST_GUILESS_MAIN(TestPhases)
#include "tst_phases.moc"
