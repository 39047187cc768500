// A CPU capture (no device total, so no gap) in the main window: the status bar, the finding
// detail and the timeline say and show what it has (the process's RSS) instead of "No usable
// samples", "Mean gap 0 B" and an empty strip; the cursor steps through its samples; the 64
// "step" spans are one row of the Phases panel that expands to them.
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "model/items/PhasesModel.h"
#include "model/trace/CounterCapture.h"
#include "tests/WindowAccess.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/TimelineScrubber.h"

#include "tests/PictureChecks.h"

#include <QAbstractItemModelTester>
#include <QAbstractProxyModel>
#include <QImage>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>

using namespace gapscope;
using namespace gapscope::test;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/real/") + name;
}

} // namespace

class TestCpuCapture : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void saysWhatItShows_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("cpu_sink") << "cpu_sink";
        QTest::newRow("cpu_phases.json") << "cpu_phases.json";
        QTest::newRow("cpu_phases.csv") << "cpu_phases.csv";
    }

    void saysWhatItShows()
    {
        QFETCH(QString, name);
        MainWindow window;
        window.resize(1400, 900);
        QString error;
        QVERIFY2(window.showTraceNow(fixture(name), &error), qPrintable(error));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto result = front(window).analysis();
        QVERIFY(result);
        QVERIFY(isCounterOnly(*result));
        QVERIFY(result->backend == Backend::Cpu);

        // the status bar: RSS at the cursor, not "No usable samples"
        QVERIFY2(!window.cursorValuesText().contains(QStringLiteral("No usable samples")),
                 qPrintable(window.cursorValuesText()));
        QVERIFY2(window.cursorValuesText().contains(QStringLiteral("RSS ")),
                 qPrintable(window.cursorValuesText()));
        QVERIFY(window.cursorValuesText().contains(QStringLiteral("no gap: no device total")));

        // the detail: what a CPU capture is and its RSS, no gap statistics that read zero
        const QString detail = front(window).detailView()->plainText();
        QVERIFY2(detail.contains(QStringLiteral("CPU capture: no hidden-memory gap")), qPrintable(detail));
        QVERIFY(detail.contains(QStringLiteral("Peak RSS")));
        QVERIFY(!detail.contains(QStringLiteral("Mean gap")));
        QVERIFY(!detail.contains(QStringLiteral("0 usable samples")));

        // the timeline strip draws the RSS and steps through the samples
        TimelineScrubber* scrubber = front(window).scrubber();
        const QImage strip = scrubber->grab().toImage();
        QVERIFY2(pixelsNear(strip, chartColors(scrubber->palette()).deviceUsed, 30) > 50,
                 "no RSS line in the timeline strip");
        const auto& rows = timelineRows(*result);
        QVERIFY(rows.size() > 20);
        front(window).setCursorTime(result->trace->store.timestampNs[rows[0]]);
        scrubber->stepCursor(+1);
        QCOMPARE(scrubber->cursorTime(), result->trace->store.timestampNs[rows[1]]);
        front(window).tracePage()->stepCursor(+10);
        QCOMPARE(scrubber->cursorTime(), result->trace->store.timestampNs[rows[11]]);
    }

    void repeatedPhasesAreGrouped()
    {
        MainWindow window;
        QString error;
        QVERIFY2(window.showTraceNow(fixture(QStringLiteral("cpu_phases.json")), &error), qPrintable(error));
        PhasesModel* model = front(window).phasesModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // warmup, train, evaluate at the top; train holds one row for its 64 steps
        QCOMPARE(model->rowCount(), 3);
        const QModelIndex train = model->index(1, 0);
        QCOMPARE(train.data().toString(), QStringLiteral("train"));
        QCOMPARE(model->rowCount(train), 1);
        const QModelIndex steps = model->index(0, 0, train);
        QVERIFY(model->isGroup(steps));
        QCOMPARE(steps.data(PhasesModel::OccurrenceCountRole).toInt(), 64);
        QCOMPARE(model->rowCount(steps), 64);
        QCOMPARE(model->index(0, PhasesModel::CountColumn, train).data().toString(), QStringLiteral("×64"));
        // the view shows the group folded: 3 + 1 rows instead of 67
        QTreeView* view = front(window).phasesView();
        const QModelIndex stepsInView =
            static_cast<QAbstractProxyModel*>(view->model())->mapFromSource(steps);
        QVERIFY(!view->isExpanded(stepsInView));
        QVERIFY(view->isExpanded(static_cast<QAbstractProxyModel*>(view->model())->mapFromSource(train)));
        // choosing the group zooms to its first start .. last end
        view->setCurrentIndex(stepsInView);
        const auto& spans = front(window).analysis()->phases;
        const auto occurrences = model->occurrencesAt(steps);
        QVERIFY(front(window).chart()->visibleBeginNs() <= spans[occurrences.front()].startNs);
        QVERIFY(front(window).chart()->visibleEndNs() >= spans[occurrences.back()].endNs);
    }
};

QTEST_MAIN(TestCpuCapture)
#include "tst_cpucapture.moc"
