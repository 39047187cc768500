// CompareWindow offscreen: what the tables and the chart show for the parity vectors, the
// alignment choices, loading B in the background, and an error for an unusable B.
// GAPSCOPE_COMPARE_PNG=path saves the rendered window there (for looking at it).
#include "model/text/Text.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/CompareWindow.h"

#include "model/trace/TraceLoader.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLegend>
#include <QLineSeries>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QValueAxis>

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

QList<QLineSeries*> lineSeries(QChartView* view)
{
    QList<QLineSeries*> out;
    for (QAbstractSeries* s : view->chart()->series()) {
        if (auto* line = qobject_cast<QLineSeries*>(s))
            out << line;
    }
    return out;
}

} // namespace

class TestCompareWindow : public QObject
{
    Q_OBJECT

private slots:
    void driftVersusMixed()
    {
        CompareWindow window;
        window.setTrace(CompareWindow::Side::A, load(QStringLiteral("drift")));
        window.setTrace(CompareWindow::Side::B, load(QStringLiteral("mixed")));
        window.waitForIdle();
        QVERIFY(window.comparison());
        const TraceComparison& c = *window.comparison();
        QCOMPARE(window.findingsView()->topLevelItemCount(), int(c.findings.size()));

        QTreeWidgetItem* spike = rowOf(window.findingsView(), QStringLiteral("transient_spike"));
        QVERIFY(spike);
        QCOMPARE(spike->text(1), QStringLiteral("new"));
        QTreeWidgetItem* drift = rowOf(window.findingsView(), QStringLiteral("persistent_drift"));
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
        QVERIFY(window.statusText().startsWith(QStringLiteral("1 new, 0 gone, 1 changed, 0 unchanged")));

        // two overlaid series with legend A/B, each with the samples' time span from zero
        const auto series = lineSeries(window.chartView());
        QCOMPARE(series.size(), 2);
        QVERIFY(series[0]->name().startsWith(QStringLiteral("A: drift.jsonl")));
        QVERIFY(series[1]->name().startsWith(QStringLiteral("B: mixed.jsonl")));
        QVERIFY(series[0]->pen().color() != series[1]->pen().color());
        QVERIFY(window.chartView()->chart()->legend()->isVisible());
        for (int i = 0; i < 2; ++i) {
            const ComparedSide& side = i == 0 ? c.a : c.b;
            QVERIFY(series[i]->count() > 0);
            QVERIFY(series[i]->count() <= int(side.result->usableRows.size()));
            const EventStore& store = side.result->trace->store;
            QCOMPARE(series[i]->at(0).x(),
                     double(store.timestampNs[side.result->usableRows.front()] - side.originNs) / 1e9);
            QCOMPARE(series[i]->at(0).y(),
                     double(store.gapAt(side.result->usableRows.front())) / double(1ull << 30));
        }
        QCOMPARE(window.phasesView()->rowCount(), 0);
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
        QCOMPARE(rowOf(window.findingsView(), QStringLiteral("persistent_drift"))->text(1),
                 QStringLiteral("gone"));
        QCOMPARE(rowOf(window.findingsView(), QStringLiteral("transient_spike"))->text(1),
                 QStringLiteral("new"));

        QCOMPARE(window.phasesView()->rowCount(), 3);
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
        const auto series = lineSeries(window.chartView());
        QCOMPARE(series.size(), 3);        // A, B and the dashed line where both enter the phase
        QVERIFY(series[0]->at(0).x() < 0); // samples before the phase are left of zero
        QCOMPARE(series[2]->at(0).x(), 0.0);
        QCOMPARE(series[2]->at(1).x(), 0.0);
        // the whole of both series is inside the plot (spikes are not cut off)
        auto* y = qobject_cast<QValueAxis*>(window.chartView()->chart()->axes(Qt::Vertical).value(0));
        QVERIFY(y);
        for (int i = 0; i < 2; ++i) {
            for (const QPointF& p : series[i]->points())
                QVERIFY(p.y() >= y->min() && p.y() <= y->max());
        }
        auto* x = qobject_cast<QValueAxis*>(window.chartView()->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        QVERIFY(x->min() < 0 && x->max() > 0);
        QVERIFY(x->titleText().contains(QStringLiteral("train / step")));
        QVERIFY(window.statusText().contains(QStringLiteral("phase “train / step”")));

        if (const QByteArray png = qgetenv("GAPSCOPE_COMPARE_PNG"); !png.isEmpty()) {
            window.resize(1200, 800);
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
        const auto series = lineSeries(window.chartView());
        QCOMPARE(series[0]->points(), series[1]->points());
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
