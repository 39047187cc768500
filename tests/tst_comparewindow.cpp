// CompareWindow offscreen: what the tables and the two gap charts show for the parity vectors
// (display names, wrapped evidence, the phase table or why it is hidden, B − A), zoom and
// cursor kept in step on the aligned axis, the wheel, Esc and Ctrl+W, the alignment choices,
// loading B in the background, and an error for an unusable B.
// GAPSCOPE_COMPARE_PNG=path saves the rendered window there (for looking at it).
#include "model/text/Text.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/CompareWindow.h"
#include "widgets/trace/GapChartView.h"

#include "model/trace/TraceLoader.h"

#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QWheelEvent>

#include <algorithm>

using namespace gapscope;

namespace {

QString parity(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name +
           QStringLiteral(".jsonl");
}

std::shared_ptr<const TraceData> load(const QString& name)
{
    return loadTrace(parity(name)).data;
}

QTreeWidgetItem* rowOf(QTreeWidget* view, const QString& classification)
{
    for (int i = 0; i < view->topLevelItemCount(); ++i) {
        if (view->topLevelItem(i)->text(0) == classification)
            return view->topLevelItem(i);
    }
    return nullptr;
}

using Side = CompareWindow::Side;

std::shared_ptr<const TraceData> loadReal(const QString& relative)
{
    return loadTrace(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/") + relative +
                     QStringLiteral("/telemetry_sink"))
        .data;
}

} // namespace

class TestCompareWindow : public QObject
{
    Q_OBJECT

private slots:
    // The truth trace (A) against the blind stock trace (B): B's notice over B's chart, A's
    // below-gate notice over A's, and what the counts cannot say under them; with the gate
    // lowered, A's findings are "not comparable", not "gone".
    // GAPSCOPE_SHOT_DIR=folder saves the window (compare_stock_truth_<gate>.png).
    void blindSide_data()
    {
        QTest::addColumn<double>("gate");
        QTest::addColumn<int>("notComparable");
        QTest::addColumn<QString>("statusSays");
        QTest::newRow("default gate")
            << 0.05 << 0
            << QStringLiteral("A's gap analysis finds transient_spike only below the 5 % ratio gate");
        QTest::newRow("gate 0.01") << 0.01 << 1
                                   << QStringLiteral("1 finding of A is not comparable, not gone or new.");
    }
    void blindSide()
    {
        QFETCH(double, gate);
        QFETCH(int, notComparable);
        QFETCH(QString, statusSays);
        CompareWindow window;
        GapThresholds thresholds;
        thresholds.gapRatio = gate;
        window.setThresholds(thresholds);
        window.setTrace(Side::A, loadReal(QStringLiteral("single/truth_spike")));
        window.setTrace(Side::B, loadReal(QStringLiteral("single/stock")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        QCOMPARE(int(window.comparison()->count(FindingChange::NotComparable)), notComparable);
        QCOMPARE(int(window.comparison()->count(FindingChange::Gone)), 0);
        const QString status = window.statusText();
        QVERIFY2(status.contains(QStringLiteral("B cannot observe the gap (device used is recorded as "
                                                "max(allocated, reserved))")),
                 qPrintable(status));
        QVERIFY2(status.contains(statusSays), qPrintable(status));
        if (notComparable > 0) {
            QVERIFY2(
                status.startsWith(QStringLiteral("0 new, 0 gone, 0 changed, 0 unchanged, 1 not comparable")),
                qPrintable(status));
            QTreeWidgetItem* spike = rowOf(window.findingsView(), QStringLiteral("Transient spike"));
            QVERIFY(spike);
            QCOMPARE(spike->text(1), QStringLiteral("not_comparable"));
            QVERIFY(spike->toolTip(1).contains(QStringLiteral("Only A can observe the gap")));
        }
        // each side's notices over its chart
        QVERIFY(window.chartTitle(Side::B)->text().contains(QStringLiteral("The gap cannot be observed")));
        QVERIFY(!window.chartTitle(Side::A)->text().contains(QStringLiteral("The gap cannot be observed")));
        QCOMPARE(window.chartTitle(Side::A)->text().contains(QStringLiteral("hidden by the 5")),
                 gate == 0.05);

        if (const QByteArray folder = qgetenv("GAPSCOPE_SHOT_DIR"); !folder.isEmpty()) {
            window.resize(1400, 950);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.grab().save(QStringLiteral("%1/compare_truth_stock_gate_%2.png")
                                           .arg(QString::fromLocal8Bit(folder))
                                           .arg(gate)));
        }
    }

    void driftVersusMixed()
    {
        CompareWindow window;
        window.setTrace(CompareWindow::Side::A, load(QStringLiteral("drift")));
        window.setTrace(CompareWindow::Side::B, load(QStringLiteral("mixed")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        const TraceComparison& c = *window.comparison();
        QCOMPARE(window.findingsView()->topLevelItemCount(), int(c.findings.size()));

        // display names, as the findings table of the main window shows them; the key in the tooltip
        QVERIFY(!rowOf(window.findingsView(), QStringLiteral("transient_spike")));
        QTreeWidgetItem* spike = rowOf(window.findingsView(), QStringLiteral("Transient spike"));
        QVERIFY(spike);
        QCOMPARE(spike->toolTip(0), QStringLiteral("transient_spike"));
        QCOMPARE(spike->text(1), QStringLiteral("new"));
        QTreeWidgetItem* drift = rowOf(window.findingsView(), QStringLiteral("Persistent drift"));
        QVERIFY(drift);
        QCOMPARE(drift->text(1), QStringLiteral("changed"));
        QCOMPARE(drift->text(2), QStringLiteral("critical → warning"));
        const FindingComparison* f = nullptr;
        for (const auto& candidate : c.findings) {
            if (candidate.classification == Classification::PersistentDrift)
                f = &candidate;
        }
        QVERIFY(f);
        // the one confidence format (model/text/Text.h), the change in percent too
        QVERIFY(*f->confidenceDelta() < 0);
        QCOMPARE(drift->text(3), QStringLiteral("%1 → %2 (%3)")
                                     .arg(confidenceText(f->a->confidence), confidenceText(f->b->confidence),
                                          percentText(*f->confidenceDelta())));
        QVERIFY(drift->text(4).contains(QStringLiteral("r_squared -")));
        // every evidence delta on a line of its own, none cut off at the column's edge
        QVERIFY(!drift->text(4).contains(QStringLiteral("; ")));
        QCOMPARE(
            drift->text(4).count(QLatin1Char('\n')) + 1, int(f->evidence.size()) - [&] {
                int unchanged = 0;
                for (const EvidenceDelta& d : f->evidence)
                    unchanged += d.delta() && *d.delta() == 0 ? 1 : 0;
                return unchanged;
            }());
        QVERIFY(window.findingsView()->wordWrap());
        QVERIFY(window.statusText().startsWith(QStringLiteral("1 new, 0 gone, 1 changed, 0 unchanged")));

        // the main window's gap chart for each side; B − A drawn on B's only
        QCOMPARE(window.chartView(Side::A)->analysis(), c.a.result);
        QCOMPARE(window.chartView(Side::B)->analysis(), c.b.result);
        QVERIFY(window.chartView(Side::A)->drawnGapPointCount() > 0);
        QVERIFY(window.chartView(Side::B)->drawnGapPointCount() > 0);
        QVERIFY(window.chartView(Side::A)->drawnPoints(ChartLine::Comparison).isEmpty());
        QVERIFY(!window.chartView(Side::B)->drawnPoints(ChartLine::Comparison).isEmpty());
        // no phases on either side: the empty table is hidden and the note says why
        QCOMPARE(window.phasesView()->rowCount(), 0);
        QVERIFY(window.phasesView()->isHidden());
        QVERIFY(window.phasesNote()->text().startsWith(QStringLiteral("Neither run records phases")));
        QCOMPARE(window.alignmentBox()->count(), 1);                        // neither has phases: start only
        QVERIFY(!window.partitionBox(CompareWindow::Side::A)->isEnabled()); // one session, one rank
    }

    void phasesVersusPhasespikeAlignedAtPhase()
    {
        CompareWindow window;
        window.setTrace(CompareWindow::Side::A, load(QStringLiteral("phases")));
        window.setTrace(CompareWindow::Side::B, load(QStringLiteral("phasespike")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        QCOMPARE(window.alignmentBox()->count(), 4); // start + train, train / step, evaluate
        QCOMPARE(window.alignmentBox()->itemData(2).toString(), QStringLiteral("phase:train / step"));
        QCOMPARE(rowOf(window.findingsView(), QStringLiteral("Persistent drift"))->text(1),
                 QStringLiteral("gone"));
        QCOMPARE(rowOf(window.findingsView(), QStringLiteral("Transient spike"))->text(1),
                 QStringLiteral("new"));

        QCOMPARE(window.phasesView()->rowCount(), 3);
        QVERIFY(!window.phasesView()->isHidden());
        QVERIFY(window.phasesNote()->text().startsWith(QStringLiteral("The largest gap inside each phase")));
        const auto& phases = window.comparison()->phases;
        for (int row = 0; row < 3; ++row) {
            const PhasePeakDelta& p = phases[size_t(row)];
            QCOMPARE(window.phasesView()->item(row, 0)->text(), p.label);
            QCOMPARE(window.phasesView()->item(row, 1)->text(), bytesText(double(*p.peakGapA)));
            QCOMPARE(window.phasesView()->item(row, 2)->text(), bytesText(double(*p.peakGapB)));
            QCOMPARE(window.phasesView()->item(row, 3)->text(),
                     (*p.delta() > 0 ? QStringLiteral("+") : QString()) + bytesText(double(*p.delta())));
        }

        window.setAlignment(CompareAlignment{CompareAlignment::Mode::Phase, QStringLiteral("train / step")});
        QVERIFY(window.comparison());
        QVERIFY(window.comparison()->alignment.mode == CompareAlignment::Mode::Phase);
        QCOMPARE(window.alignmentBox()->currentData().toString(), QStringLiteral("phase:train / step"));
        GapChartView* chartA = window.chartView(Side::A);
        GapChartView* chartB = window.chartView(Side::B);
        const TraceComparison& c = *window.comparison();
        QCOMPARE(window.otherSideTime(Side::A, c.a.originNs), c.b.originNs);
        QCOMPARE(window.otherSideTime(Side::B, c.b.originNs + 7), c.a.originNs + 7);

        // zoom on A: B shows the same aligned range (two seconds after both enter the phase)
        chartA->setVisibleRange(c.a.originNs, c.a.originNs + 2'000'000'000);
        QCOMPARE(chartA->visibleBeginNs(), c.a.originNs);
        QCOMPARE(chartB->visibleBeginNs(), c.b.originNs);
        QCOMPARE(chartB->visibleEndNs(), c.b.originNs + 2'000'000'000);
        // and the other way round
        chartB->setVisibleRange(c.b.originNs + 1'000'000'000, c.b.originNs + 3'000'000'000);
        QCOMPARE(chartA->visibleBeginNs(), c.a.originNs + 1'000'000'000);
        QCOMPARE(chartA->visibleEndNs(), c.a.originNs + 3'000'000'000);
        // a click on one chart puts both cursors at the same aligned time
        emit chartB->cursorRequested(c.b.originNs + 1'500'000'000);
        QCOMPARE(chartB->cursorTime(), c.b.originNs + 1'500'000'000);
        QCOMPARE(chartA->cursorTime(), c.a.originNs + 1'500'000'000);

        // B − A: the model's difference series on B's clock
        const auto difference = c.gapDifference();
        QVERIFY(!difference.empty());
        chartB->resetZoom();
        const QList<QPointF> drawn = chartB->drawnPoints(ChartLine::Comparison);
        QVERIFY(!drawn.isEmpty());
        QVERIFY(drawn.size() <= int(difference.size()));
        QVERIFY(std::any_of(drawn.begin(), drawn.end(), [](const QPointF& p) { return p.y() != 0; }));
        QVERIFY(window.statusText().contains(QStringLiteral("phase “train / step”")));

        if (const QByteArray png = qgetenv("GAPSCOPE_COMPARE_PNG"); !png.isEmpty()) {
            window.resize(1200, 900);
            chartA->resetZoom();
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png)));
        }
    }

    void traceVersusItself()
    {
        CompareWindow window;
        const auto trace = load(QStringLiteral("phasespike"));
        window.setTrace(CompareWindow::Side::A, trace);
        window.setTrace(CompareWindow::Side::B, trace);
        window.waitForIdle();
        QVERIFY(window.comparison());
        for (int i = 0; i < window.findingsView()->topLevelItemCount(); ++i) {
            QCOMPARE(window.findingsView()->topLevelItem(i)->text(1), QStringLiteral("unchanged"));
            QCOMPARE(window.findingsView()->topLevelItem(i)->text(4), QString());
        }
        for (int row = 0; row < window.phasesView()->rowCount(); ++row)
            QCOMPARE(window.phasesView()->item(row, 3)->text(), bytesText(0));
        // B − A of a run against itself is zero everywhere
        const QList<QPointF> drawn = window.chartView(Side::B)->drawnPoints(ChartLine::Comparison);
        QVERIFY(!drawn.isEmpty());
        for (const QPointF& p : drawn)
            QCOMPARE(p.y(), 0.0);
    }

    // The mouse wheel zooms a chart as in the main window, and the other follows.
    void wheelZoomsBothCharts()
    {
        CompareWindow window;
        window.setTrace(Side::A, load(QStringLiteral("drift")));
        window.setTrace(Side::B, load(QStringLiteral("drift")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        window.resize(1200, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        GapChartView* chartA = window.chartView(Side::A);
        GapChartView* chartB = window.chartView(Side::B);
        const qint64 spanBefore = chartA->visibleEndNs() - chartA->visibleBeginNs();
        auto* canvas = chartA->findChild<QChartView*>();
        QVERIFY(canvas);
        const QPoint at = canvas->viewport()->rect().center();
        QWheelEvent wheel(at, canvas->viewport()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(canvas->viewport(), &wheel);
        const qint64 spanAfter = chartA->visibleEndNs() - chartA->visibleBeginNs();
        QVERIFY(spanAfter < spanBefore);
        QCOMPARE(chartB->visibleBeginNs(), window.otherSideTime(Side::A, chartA->visibleBeginNs()));
        QCOMPARE(chartB->visibleEndNs(), window.otherSideTime(Side::A, chartA->visibleEndNs()));
    }

    void closesOnKey_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<int>("modifiers");
        QTest::newRow("Esc") << int(Qt::Key_Escape) << int(Qt::NoModifier);
        QTest::newRow("Ctrl+W") << int(Qt::Key_W) << int(Qt::ControlModifier);
    }

    void closesOnKey()
    {
        QFETCH(int, key);
        QFETCH(int, modifiers);
        QWidget owner; // File > Compare With... opens it as a window of the main window
        auto* window = new CompareWindow(&owner);
        window->setWindowFlag(Qt::Window);
        window->setTrace(Side::A, load(QStringLiteral("drift")));
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window));
        QTest::keyClick(window->chartView(Side::A), Qt::Key(key), Qt::KeyboardModifiers(modifiers));
        QTRY_VERIFY(!window->isVisible());
    }

    void opensBInTheBackground()
    {
        CompareWindow window;
        window.setTrace(CompareWindow::Side::A, load(QStringLiteral("drift")));
        window.openTrace(CompareWindow::Side::B, parity(QStringLiteral("spikes")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        QCOMPARE(window.comparison()->b.path, parity(QStringLiteral("spikes")));

        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("gone.jsonl"));
        window.openTrace(CompareWindow::Side::B, missing);
        window.waitForIdle();
        QVERIFY(!window.comparison());
        QVERIFY2(window.statusText().startsWith(QStringLiteral("B: ") + missing),
                 qPrintable(window.statusText()));
    }

    void loadsThroughLoadJob()
    {
        CompareWindow window;
        window.setTrace(CompareWindow::Side::A, load(QStringLiteral("drift")));
        // a second load of B supersedes the first: only its result arrives
        window.openTrace(CompareWindow::Side::B, parity(QStringLiteral("spikes")));
        window.openTrace(CompareWindow::Side::B, parity(QStringLiteral("mixed")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        QCOMPARE(window.comparison()->b.path, parity(QStringLiteral("mixed")));

        // a memory-budget log is recognised and refused: it has no gap series to compare
        const QString budget = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl");
        window.openTrace(CompareWindow::Side::B, budget);
        window.waitForIdle();
        QVERIFY(!window.comparison());
        QVERIFY2(window.statusText().startsWith(QStringLiteral("B: ") + budget) &&
                     window.statusText().contains(QStringLiteral("memory-budget log")),
                 qPrintable(window.statusText()));

        // a cancelled load (or one done before the cancel arrived) leaves B comparable
        window.openTrace(CompareWindow::Side::B, parity(QStringLiteral("mixed")));
        window.cancelLoad(CompareWindow::Side::B);
        window.waitForIdle();
        QVERIFY2(window.comparison(), qPrintable(window.statusText()));
        QCOMPARE(window.comparison()->b.path, parity(QStringLiteral("mixed")));
    }
};

QTEST_MAIN(TestCompareWindow)
#include "tst_comparewindow.moc"
