// A PyTorch memory snapshot on a trace's time axis (issue 34, "On the trace's time axis"), on the
// real pair capture (tests/data/snapshot/pair: stormlog's sink and the snapshot of the same
// process, ending in an OOM that the snapshot records as an `oom` entry; one clock):
//  (a) the folder pair/, and the sink given with the pickle, open as one trace with the
//      snapshot attached (OpenPlan::snapshot, LoadedDocument::snapshotBeside), in the window
//      and at once (screenshots); a reload keeps it;
//  (b) the chart's "Snapshot reserved" line equals the trace's allocator_reserved_bytes on every
//      one of the 563 rows inside the snapshot's span, exactly; allocated within a few MiB
//      at the median (stormlog's own rows lag the allocator by up to 1.3 GiB at phase edges);
//  (c) the snapshot's oom entry is an OOM marker where it is: 11.70 s into the trace, before
//      its last sample (the trace runs on 3.1 s after it);
//  (d) the cursor readout and the tooltip give the allocator's state at a moment;
//  (e) a snapshot that does not overlap the trace attaches and says so; a file that is no
//      snapshot is refused;
//  (f) `gapscope [--snapshot FILE] FILE...`.
#include "app/DocumentTab.h"
#include "app/Gui.h"
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/document/Document.h"
#include "model/document/Recognition.h"
#include "model/snapshot/SnapshotData.h"
#include "model/snapshot/SnapshotTimeline.h"
#include "model/text/Text.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/SnapshotOverlay.h"

#include <QAction>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

#include <algorithm>

using namespace gapscope;

namespace {

constexpr int kTimeoutMs = 60000;

const QString kPair = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/pair");
const QString kPairSink = kPair + QStringLiteral("/telemetry_sink");
const QString kPairPickle = kPair + QStringLiteral("/snapshot.pickle.gz");
const QString kDrift = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl");

// The pair's snapshot, from Python (pickle.load): the oom entry (the last of 100 000) and the
// counters after entry 50 000 (a free_completed), walked back from the snapshot's totals.
constexpr int64_t kOomNs = 1796407784020264000;
constexpr int64_t kOomRequested = 134217728;
constexpr int64_t kEntry50000Ns = 1796407782800823000;
constexpr int64_t kEntry50000Allocated = 737281288;
constexpr int64_t kEntry50000Reserved = 5639241728;

bool settled(const MainWindow& window)
{
    const TracePage* page = front(window).tracePage();
    return !window.isBusy() && page->analysis() && page->attachedSnapshot();
}

// The level a step line (points in time order, each level held until the next point) has at
// x: that of the last point at or before x.
double stepLevelAt(const QList<QPointF>& points, double x)
{
    const auto after = std::upper_bound(points.begin(), points.end(), x,
                                        [](double v, const QPointF& p) { return v < p.x(); });
    return after == points.begin() ? qQNaN() : std::prev(after)->y();
}

} // namespace

class TestSnapshotAttach : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_snapshotattach")); }
    void cleanupTestCase() { test::removeOwnSettings(); }

    // (a) what the paths are: one run, and the snapshot beside it
    void plan_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QString>("snapshot"); // OpenPlan::snapshot, "" none
        QTest::newRow("the pair's folder") << QStringList{kPair} << kPairPickle;
        QTest::newRow("sink and pickle") << QStringList{kPairSink, kPairPickle} << kPairPickle;
        QTest::newRow("pickle and sink") << QStringList{kPairPickle, kPairSink} << kPairPickle;
        QTest::newRow("trace file and pickle") << QStringList{kDrift, kPairPickle} << kPairPickle;
        QTest::newRow("the sink alone") << QStringList{kPairSink} << QString();
        QTest::newRow("a trace file alone") << QStringList{kDrift} << QString();
    }
    void plan()
    {
        QFETCH(QStringList, paths);
        QFETCH(QString, snapshot);
        const OpenPlan plan = planOpen(paths);
        QVERIFY(plan.kind == OpenKind::Document);
        QCOMPARE(plan.paths.size(), 1);
        QVERIFY(!plan.paths.front().endsWith(QStringLiteral(".gz")));
        QCOMPARE(plan.snapshot, snapshot);
        const InputRecognition input = recognizeInputs(paths);
        QCOMPARE(toString(input.kind), toString(InputKind::StormlogTrace));
        QCOMPARE(input.plan.snapshot, snapshot);
        if (!snapshot.isEmpty() && paths.size() == 1) {
            QVERIFY2(plan.notes.join(QLatin1Char(' ')).contains(QStringLiteral("snapshot beside it")),
                     qPrintable(plan.notes.join(QLatin1Char(' '))));
            // loadDocument of the folder (screenshots, Compare With) hands it on with the trace
            const DocumentOutcome loaded = loadDocument(paths.front());
            QVERIFY(loaded.trace);
            QCOMPARE(loaded.path, kPairSink);
            QCOMPARE(loaded.loaded().snapshotBeside, snapshot);
        }
    }

    // two snapshots with a trace are not one trace's: the job loader says what each is
    void twoSnapshotsAreNoPair()
    {
        const QString other = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/snapshot.pickle");
        const OpenPlan plan = planOpen({kPairSink, kPairPickle, other});
        QVERIFY(plan.snapshot.isEmpty());
    }

    // (a), (b), (c), (d) in the window, opened in the background as File > Open does
    void thePairOpensAsOneTraceWithItsSnapshot()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openPath(kPair);
        QVERIFY(QTest::qWaitFor([&] { return settled(window); }, kTimeoutMs));
        QCOMPARE(window.tabs()->count(), 1);
        TracePage* page = front(window).tracePage();
        QCOMPARE(front(window).documentPage(), static_cast<DocumentPage*>(page));
        QCOMPARE(page->trace()->path, kPairSink);
        QCOMPARE(page->attachedSnapshotPath(), kPairPickle);
        QVERIFY(front(window).attachSnapshotAction()->isEnabled());
        checkChart(*page);
        checkReadout(window, *page);

        // a reload reads the trace again and keeps the snapshot
        const auto snapshot = page->attachedSnapshot();
        reloadAction(window)->trigger();
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && page->analysis(); }, kTimeoutMs));
        QCOMPARE(page->attachedSnapshot(), snapshot);
        QVERIFY(front(window).chart()->snapshotOverlay()->drawable());

        // another trace drops it
        window.openPath(kDrift);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !window.isBusy() && front(window).trace() && front(window).trace()->path == kDrift;
            },
            kTimeoutMs));
        QVERIFY(!front(window).tracePage()->attachedSnapshot());
    }

    // the sink and the pickle given together, as `gapscope pair/telemetry_sink x.pickle.gz` does
    void theSinkAndThePickleTogether()
    {
        MainWindow window;
        window.openPaths({kPairSink, kPairPickle});
        QVERIFY(QTest::qWaitFor([&] { return settled(window); }, kTimeoutMs));
        QCOMPARE(window.tabs()->count(), 1);
        QCOMPARE(front(window).trace()->path, kPairSink);
        QCOMPARE(front(window).tracePage()->attachedSnapshotPath(), kPairPickle);
    }

    // at once, as the screenshot command opens it
    void thePairAtOnce()
    {
        MainWindow window;
        window.resize(1400, 900);
        QString error;
        QVERIFY2(window.showTraceNow(kPair, &error), qPrintable(error));
        TracePage* page = front(window).tracePage();
        QVERIFY(page->attachedSnapshot()); // read before showTraceNow returned
        QVERIFY(!page->isReadingSnapshot());
        checkChart(*page);
    }

    // (e) File > Attach Snapshot... on a trace of another time: attached, not drawn, said
    void aSnapshotThatDoesNotOverlap()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(!front(window).attachSnapshotAction()->isEnabled());
        QVERIFY(!window.attachSnapshot(kPairPickle)); // no trace shown
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("no trace is shown")));
        window.openPath(kDrift);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kTimeoutMs));
        QVERIFY(window.attachSnapshot(kPairPickle));
        QVERIFY(QTest::qWaitFor([&] { return settled(window); }, kTimeoutMs));
        GapChartView* chart = front(window).chart();
        const QString note = chart->snapshotNote();
        QVERIFY2(note.contains(QStringLiteral("does not overlap")), qPrintable(note));
        QVERIFY(chart->noteText().contains(note)); // drawn over the plot
        QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("does not overlap")),
                 qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(chart->drawnPoints(ChartLine::SnapshotReserved).isEmpty());
        QVERIFY(chart->drawnPoints(ChartLine::SnapshotAllocated).isEmpty());
        chart->grab();
        const QList<GapChartView::EventMarker> markers = chart->eventMarkers();
        QVERIFY(std::none_of(markers.begin(), markers.end(), [](const auto& m) { return m.oom; }));
    }

    void notASnapshotIsRefused()
    {
        MainWindow window;
        window.openPath(kDrift);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kTimeoutMs));
        QVERIFY(!window.attachSnapshot(kDrift));
        QVERIFY2(
            window.statusBar()->currentMessage().contains(QStringLiteral("not a PyTorch memory snapshot")),
            qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(!front(window).tracePage()->attachedSnapshot());
        QVERIFY(!front(window).tracePage()->isReadingSnapshot());
    }

    // (f) the desktop app's command line
    void commandLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("snapshot");
        QTest::addColumn<QString>("error"); // contained in GuiArguments::error, "" none
        QTest::newRow("snapshot and trace")
            << QStringList{QStringLiteral("--snapshot"), kPairPickle, kPairSink} << QStringList{kPairSink}
            << kPairPickle << QString();
        QTest::newRow("trace, then snapshot")
            << QStringList{kPairSink, QStringLiteral("--snapshot"), kPairPickle} << QStringList{kPairSink}
            << kPairPickle << QString();
        QTest::newRow("no snapshot") << QStringList{kDrift} << QStringList{kDrift} << QString() << QString();
        QTest::newRow("without its file")
            << QStringList{kDrift, QStringLiteral("--snapshot")} << QStringList{kDrift} << QString()
            << QStringLiteral("--snapshot needs a file name");
        QTest::newRow("not a snapshot")
            << QStringList{QStringLiteral("--snapshot"), kDrift, kPairSink} << QStringList{} << kDrift
            << QStringLiteral("not a PyTorch memory snapshot");
        QTest::newRow("no trace") << QStringList{QStringLiteral("--snapshot"), kPairPickle} << QStringList{}
                                  << kPairPickle << QStringLiteral("give the trace it is attached to");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--snap"), kPairPickle} << QStringList{}
                                        << QString() << QStringLiteral("unknown option --snap");
    }
    void commandLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, files);
        QFETCH(QString, snapshot);
        QFETCH(QString, error);
        const GuiArguments parsed = parseGuiArguments(args);
        QVERIFY2(error.isEmpty() ? parsed.error.isEmpty() : parsed.error.contains(error),
                 qPrintable(parsed.error));
        QCOMPARE(parsed.unknownOption, error.startsWith(QStringLiteral("unknown option")));
        if (!error.isEmpty())
            return;
        QCOMPARE(parsed.files, files);
        QCOMPARE(parsed.snapshot, snapshot);
    }

private:
    // (b), (c): the lines and the marker of the pair, at the zoom of the snapshot's span
    void checkChart(TracePage& page)
    {
        GapChartView* chart = page.chart();
        const SnapshotOverlay* overlay = chart->snapshotOverlay();
        QVERIFY(overlay && overlay->drawable());
        QCOMPARE(overlay->device(), int64_t(0));
        QVERIFY(chart->snapshotNote().isEmpty());
        const AnalysisResult& result = *page.analysis();
        const EventStore& store = result.trace->store;
        const int64_t first = store.timestampNs[result.partition.begin];
        const int64_t last = store.timestampNs[result.partition.end - 1];
        QVERIFY(first < overlay->beginNs() && overlay->endNs() < last); // inside the trace

        // the rows of the trace inside the snapshot's span that carry the allocator's counters
        page.viewState()->setVisibleRange(overlay->beginNs(), overlay->endNs());
        QCOMPARE(chart->visibleBeginNs(), overlay->beginNs());
        const QList<QPointF> reserved = chart->drawnPoints(ChartLine::SnapshotReserved);
        const QList<QPointF> allocated = chart->drawnPoints(ChartLine::SnapshotAllocated);
        QVERIFY(!reserved.isEmpty() && !allocated.isEmpty());
        const int64_t originNs = timeRangeOriginNs(result);
        int compared = 0;
        int drawnExact = 0;
        std::vector<double> allocatedDifference;
        for (uint32_t row = result.partition.begin; row < result.partition.end; ++row) {
            const int64_t t = store.timestampNs[row];
            if (t < overlay->beginNs() || t > overlay->endNs() || store.reserved[row] == kNullInt)
                continue;
            ++compared;
            const auto moment = overlay->momentAt(t);
            QVERIFY(moment);
            QCOMPARE(moment->state.reservedBytes, store.reserved[row]);
            allocatedDifference.push_back(
                std::abs(double(moment->state.allocatedBytes - store.allocated[row])));
            const double x = double(t - originNs) / 1e9;
            drawnExact += stepLevelAt(reserved, x) == double(store.reserved[row]) ? 1 : 0;
        }
        QCOMPARE(compared, 563); // as Python counts them (112 of them samples, the others events)
        QCOMPARE(drawnExact, compared);
        std::sort(allocatedDifference.begin(), allocatedDifference.end());
        QVERIFY2(allocatedDifference[allocatedDifference.size() / 2] < 8.0 * (1 << 20),
                 qPrintable(QString::number(allocatedDifference[allocatedDifference.size() / 2])));

        // the oom entry: a marker at its time, inside the trace, before its last sample
        QCOMPARE(overlay->oomEntries().size(), size_t(1));
        QCOMPARE(overlay->entryNs(overlay->oomEntries().front()), kOomNs);
        QVERIFY(kOomNs < store.timestampNs[result.usableRows.back()]);
        page.viewState()->setVisibleRange(kOomNs - 200'000'000, kOomNs + 200'000'000);
        chart->grab(); // paints: eventMarkers() are those painted
        const QList<GapChartView::EventMarker> markers = chart->eventMarkers();
        const auto oom = std::find_if(markers.begin(), markers.end(), [](const auto& m) { return m.oom; });
        QVERIFY(oom != markers.end());
        QCOMPARE(oom->timeNs, kOomNs);
        QCOMPARE(oom->label, QStringLiteral("OOM (snapshot): 128.00 MiB requested"));
        QVERIFY2(oom->toolTip.contains(QStringLiteral("device free: ")), qPrintable(oom->toolTip));
        QVERIFY2(oom->toolTip.contains(QStringLiteral(".py:")), qPrintable(oom->toolTip)); // a Python frame
        QCOMPARE(overlay->trace()->sizes[overlay->oomEntries().front()], kOomRequested);
    }

    // (d): the allocator at entry 50 000's moment, in the status bar's readout and the tooltip's model
    void checkReadout(const MainWindow& window, TracePage& page)
    {
        page.setCursorTime(kEntry50000Ns);
        const QString readout = window.cursorValuesText();
        QVERIFY2(readout.contains(QStringLiteral("snapshot: allocated %1 · reserved %2")
                                      .arg(bytesText(kEntry50000Allocated), bytesText(kEntry50000Reserved))),
                 qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("entry 50000 (free_completed) at this moment")),
                 qPrintable(readout));
        const auto moment = page.chart()->snapshotOverlay()->momentAt(kEntry50000Ns);
        QVERIFY(moment);
        QCOMPARE(moment->state.allocatedBytes, kEntry50000Allocated);
        QCOMPARE(moment->state.reservedBytes, kEntry50000Reserved);
        QVERIFY(moment->state.liveAllocations > 0);
        QVERIFY(readout.contains(
            QStringLiteral("%1 live allocations").arg(countText(moment->state.liveAllocations))));
        // 0.5 ms later: the nearest entry is named with its offset
        const auto later = page.chart()->snapshotOverlay()->momentAt(kEntry50000Ns + 500'000);
        QVERIFY(later && later->nearestOffsetNs != 0 && std::llabs(later->nearestOffsetNs) <= 500'000);
        QVERIFY(!page.chart()->snapshotOverlay()->momentAt(kOomNs + 1)); // after its last entry
    }

    static int64_t timeRangeOriginNs(const AnalysisResult& result) { return timeRangeOf(result).originNs; }

    static QAction* reloadAction(const MainWindow& window)
    {
        for (QAction* action : window.findChildren<QAction*>())
            if (action->text() == QStringLiteral("&Reload"))
                return action;
        return nullptr;
    }
};

QTEST_MAIN(TestSnapshotAttach)
#include "tst_snapshotattach.moc"
