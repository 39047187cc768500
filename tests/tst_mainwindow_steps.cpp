// Training steps in the main window (issue 31 item 2), on the real H200 captures (tests/data/
// fixtures/real-gpu/README.md): Navigate > Next Phase Kind (Ctrl+F7) goes from warm-up to train
// in one press where F7 walks every occurrence, the cursor readout and the measured span name
// the steps, and View > Chart X Axis > Training Steps labels the time axis with step numbers
// and is remembered.
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/items/PhasesModel.h"
#include "model/store/EventStore.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/common/ShortcutSheet.h"
#include "widgets/trace/GapChartView.h"

#include <QAbstractProxyModel>
#include <QAction>
#include <QChart>
#include <QChartView>
#include <QHelpEvent>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTest>
#include <QToolTip>
#include <QTreeView>

using namespace gapscope;

namespace {

const QString kSteps = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/steps/");

QAction* action(const MainWindow& window, const char* name)
{
    return window.findChild<QAction*>(QLatin1String(name));
}

// The phase the phases view has current, as "train 150" (name and step attribute).
QString currentPhase(const MainWindow& window)
{
    const QModelIndex current = front(window).phasesView()->currentIndex();
    if (!current.isValid())
        return {};
    const auto result = front(window).tracePage()->analysis();
    const PhaseSpan& span = result->phases[size_t(current.data(PhasesModel::SpanIndexRole).toInt())];
    const auto step = integerAttribute(span.attributesJson, "step");
    return QString::fromStdString(span.name) + (step ? QStringLiteral(" %1").arg(*step) : QString());
}

// The start of the step with this number (and epoch, where given) of the page's steps.
const TrainingStep* stepNumbered(const TracePage& page, int step, int epoch = -1)
{
    for (const TrainingStep& s : page.steps()->steps())
        if (s.step == step && (epoch < 0 || s.epoch == std::optional<int64_t>(epoch)))
            return &s;
    return nullptr;
}

// The window shown (1200x800) with path open; false with *error when it is not.
bool showWith(MainWindow& window, const QString& path, QString* error)
{
    window.resize(1200, 800);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) {
        *error = QStringLiteral("the window was not shown");
        return false;
    }
    return window.showTraceNow(path, error);
}

} // namespace

class TestMainWindowSteps : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_steps")); }
    void cleanupTestCase() { test::removeOwnSettings(); }
    void init() { QSettings().clear(); }

    // F7 from nothing selects the first phase; Ctrl+F7 then skips the run of its name.
    void nextPhaseKind_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QStringList>("presses"); // action object names, in order
        QTest::addColumn<QString>("phase");       // current afterwards
        QTest::addColumn<QString>("readout");     // in the cursor readout afterwards
        const QString warmup = kSteps + "truth_warmup_to_train.jsonl";
        QTest::newRow("warm-up to train in one press")
            << warmup << QStringList{"nextPhaseAction", "nextPhaseKindAction"} << "train 150"
            << "step 150 · train";
        QTest::newRow("F7 moves by occurrence")
            << warmup << QStringList{"nextPhaseAction", "nextPhaseAction"} << "warmup 128"
            << "step 128 · warmup";
        QTest::newRow("nothing after train here")
            << warmup << QStringList{"nextPhaseAction", "nextPhaseKindAction", "nextPhaseKindAction"}
            << "train 150"
            << "step 150 · train";
        QTest::newRow("back to warm-up's start")
            << warmup
            << QStringList{"nextPhaseAction", "nextPhaseKindAction", "nextPhaseAction",
                           "previousPhaseKindAction", "previousPhaseKindAction"}
            << "warmup 127"
            << "step 127 · warmup";
        QTest::newRow("train to eval") << kSteps + "truth_train_to_eval.jsonl"
                                       << QStringList{"nextPhaseAction", "nextPhaseKindAction"} << "eval 750"
                                       << "step 750 · eval";
        QTest::newRow("no phase selected: back to the last run")
            << kSteps + "truth_train_to_eval.jsonl" << QStringList{"previousPhaseKindAction"} << "eval 750"
            << "step 750 · eval";
    }
    void nextPhaseKind()
    {
        QFETCH(QString, path);
        QFETCH(QStringList, presses);
        QFETCH(QString, phase);
        QFETCH(QString, readout);
        MainWindow window;
        QString error;
        QVERIFY2(showWith(window, path, &error), qPrintable(error));
        for (const QString& name : presses) {
            QAction* a = action(window, name.toLatin1().constData());
            QVERIFY2(a && a->isEnabled(), qPrintable(name));
            a->trigger();
        }
        QCOMPARE(currentPhase(window), phase);
        // the cursor on the phase's start, the chart showing it, the readout naming its step
        const auto result = front(window).tracePage()->analysis();
        const PhaseSpan& span = result->phases[size_t(
            front(window).phasesView()->currentIndex().data(PhasesModel::SpanIndexRole).toInt())];
        QCOMPARE(front(window).tracePage()->viewState()->cursorNs(), span.startNs);
        QVERIFY(front(window).chart()->visibleBeginNs() <= span.startNs &&
                span.endNs <= front(window).chart()->visibleEndNs());
        QVERIFY2(window.cursorValuesText().contains(readout), qPrintable(window.cursorValuesText()));
    }

    // The keys, the menu and the F1 sheet.
    void phaseKindKeys()
    {
        MainWindow window;
        QAction* next = action(window, "nextPhaseKindAction");
        QAction* previous = action(window, "previousPhaseKindAction");
        QVERIFY(next && previous);
        QCOMPARE(next->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_F7));
        QCOMPARE(previous->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F7));
        QVERIFY(!next->isEnabled()); // no trace: no phases
        bool listed = false, inNavigate = false;
        for (const ShortcutEntry& entry : shortcutEntries(&window))
            if (entry.source == next)
                listed =
                    entry.action == QStringLiteral("Next Phase Kind") &&
                    entry.group == QStringLiteral("Navigate") &&
                    entry.keys ==
                        QStringList{QKeySequence(Qt::CTRL | Qt::Key_F7).toString(QKeySequence::NativeText)};
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu() && menu->menu()->actions().contains(next))
                inNavigate = textWithoutMnemonics(menu->text()) == QStringLiteral("Navigate");
        QVERIFY(listed);
        QVERIFY(inNavigate);
    }

    // The status bar's cursor readout names the step under the cursor and its phase.
    void cursorReadout_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("epoch"); // -1: none
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("readout");
        QTest::newRow("train") << kSteps + "truth_warmup_to_train.jsonl" << -1 << 160 << "step 160 · train";
        QTest::newRow("warm-up") << kSteps + "truth_warmup_to_train.jsonl" << -1 << 149
                                 << "step 149 · warmup";
        // the step restarts each epoch: the epoch is named; the deepest phase is the batch's
        QTest::newRow("ddp, epoch 2") << kSteps + "ddp_rank2_epoch_change.jsonl" << 2 << 3
                                      << "epoch 2, step 3 · reference_run / epoch / batch";
        QTest::newRow("ddp, epoch 1") << kSteps + "ddp_rank2_epoch_change.jsonl" << 1 << 55
                                      << "epoch 1, step 55 · reference_run / epoch / batch";
    }
    void cursorReadout()
    {
        QFETCH(QString, path);
        QFETCH(int, epoch);
        QFETCH(int, step);
        QFETCH(QString, readout);
        MainWindow window;
        QString error;
        QVERIFY2(window.showTraceNow(path, &error), qPrintable(error));
        const TrainingStep* s = stepNumbered(*front(window).tracePage(), step, epoch);
        QVERIFY(s);
        front(window).tracePage()->setCursorTime(s->startNs);
        QVERIFY2(window.cursorValuesText().contains(readout), qPrintable(window.cursorValuesText()));
    }

    // The chart's hover names the step under the mouse before its phase.
    void hoverNamesStep()
    {
        MainWindow window;
        QString error;
        QVERIFY2(showWith(window, kSteps + "truth_warmup_to_train.jsonl", &error), qPrintable(error));
        GapChartView* chart = front(window).chart();
        auto* view = chart->findChild<QChartView*>();
        QVERIFY(view);
        // a sample inside a train step (samples come every 20 ms, steps take ~12 ms: not every
        // step holds one), zoomed to that step for the mouse to land on the sample
        const auto result = front(window).tracePage()->analysis();
        const EventStore& store = result->trace->store;
        std::optional<qint64> sampleNs;
        const TrainingStep* step = nullptr;
        for (uint32_t row : result->usableRows)
            for (const TrainingStep& s : front(window).tracePage()->steps()->steps())
                if (!sampleNs && s.step >= 150 && s.startNs <= store.timestampNs[row] &&
                    store.timestampNs[row] <= s.endNs) {
                    sampleNs = store.timestampNs[row];
                    step = &s;
                }
        QVERIFY(sampleNs && step);
        chart->setVisibleRange(step->startNs - 1'000'000, step->endNs + 1'000'000);
        const QRectF plot = view->chart()->plotArea();
        const double f = double(*sampleNs - chart->visibleBeginNs()) /
                         double(chart->visibleEndNs() - chart->visibleBeginNs());
        const QPoint at = view->mapFromScene(
            view->chart()->mapToScene(QPointF(plot.left() + f * plot.width(), plot.center().y())));
        QHelpEvent help(QEvent::ToolTip, at, view->viewport()->mapToGlobal(at));
        QTest::ignoreMessage(QtWarningMsg, "This plugin does not support raise()"); // offscreen
        QCoreApplication::sendEvent(view->viewport(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString text = QToolTip::text();
        QVERIFY2(text.contains(QStringLiteral("<b>step %1</b> · Phase: train").arg(step->step)),
                 qPrintable(text));
        QToolTip::hideText();
    }

    // One click on a group of the phase list ("train ×24, steps 150-173") goes to its first step.
    void phaseGroupClick()
    {
        MainWindow window;
        QString error;
        QVERIFY2(showWith(window, kSteps + "truth_warmup_to_train.jsonl", &error), qPrintable(error));
        PhasesModel* model = front(window).phasesModel();
        QModelIndex train;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, PhasesModel::NameColumn).data().toString() == QStringLiteral("train"))
                train = model->index(r, PhasesModel::NameColumn);
        QVERIFY(model->isGroup(train));
        QCOMPARE(model->index(train.row(), PhasesModel::StepsColumn).data().toString(),
                 QStringLiteral("steps 150-173"));
        auto* proxy = qobject_cast<QAbstractProxyModel*>(front(window).phasesView()->model());
        QVERIFY(proxy);
        front(window).phasesView()->setCurrentIndex(proxy->mapFromSource(train));
        const TrainingStep* first = stepNumbered(*front(window).tracePage(), 150);
        QVERIFY(first);
        QCOMPARE(front(window).tracePage()->viewState()->cursorNs(), first->startNs);
        QVERIFY2(window.cursorValuesText().contains(QStringLiteral("step 150 · train")),
                 qPrintable(window.cursorValuesText()));
        // the chart shows the whole group, and the status bar its steps
        const TrainingStep* last = stepNumbered(*front(window).tracePage(), 173);
        QVERIFY(front(window).chart()->visibleBeginNs() <= first->startNs &&
                last->endNs <= front(window).chart()->visibleEndNs());
        QVERIFY2(window.statusBar()->currentMessage().endsWith(QStringLiteral(", steps 150-173")),
                 qPrintable(window.statusBar()->currentMessage()));
    }

    // A measured span names its steps in the status bar and on the chart.
    void measuredSteps()
    {
        MainWindow window;
        QString error;
        QVERIFY2(window.showTraceNow(kSteps + "truth_leak_steps_250_310.jsonl", &error), qPrintable(error));
        TracePage* page = front(window).tracePage();
        const TrainingStep* from = stepNumbered(*page, 255);
        const TrainingStep* to = stepNumbered(*page, 300);
        QVERIFY(from && to);
        front(window).chart()->measureRange(from->startNs, to->endNs);
        const QString text = window.statusBar()->currentMessage();
        QVERIFY2(text.contains(QStringLiteral(" · steps 255-300, 46 steps · ")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral(" per step")), qPrintable(text));
    }

    // View > Chart X Axis > Training Steps: step numbers on the x axis, remembered; disabled on a
    // trace whose phases carry no step.
    void stepAxis()
    {
        {
            MainWindow window;
            window.restoreSettings();
            window.resize(1200, 800);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QString error;
            QAction* toggle = front(window).tracePage()->stepAxisAction();
            QVERIFY(!toggle->isEnabled());
            // in View > Chart X Axis
            QMenu* xAxis = nullptr;
            for (QAction* menu : window.menuBar()->actions())
                if (menu->menu() && textWithoutMnemonics(menu->text()) == QStringLiteral("View"))
                    for (QAction* sub : menu->menu()->actions())
                        if (sub->menu() &&
                            textWithoutMnemonics(sub->text()) == QStringLiteral("Chart X Axis"))
                            xAxis = sub->menu();
            QVERIFY(xAxis && xAxis->actions().contains(toggle));
            QVERIFY2(window.showTraceNow(kSteps + "truth_warmup_to_train.jsonl", &error), qPrintable(error));
            QVERIFY(toggle->isEnabled());
            QVERIFY(!toggle->isChecked());
            const QStringList timeLabels = front(window).chart()->xAxisLabels();
            QVERIFY(timeLabels.size() >= 2 && timeLabels.front().endsWith(QStringLiteral(" s")));
            toggle->trigger();
            QVERIFY(front(window).chart()->showsStepAxis());
            // step numbers at step boundaries, a 1-2-5 stride: in the cut steps 127-173
            const QStringList labels = front(window).chart()->xAxisLabels();
            QVERIFY2(labels.size() >= 4, qPrintable(labels.join(u',')));
            bool ok = false;
            const int first = labels.front().toInt(&ok);
            QVERIFY2(ok && first >= 127 && first <= 173, qPrintable(labels.join(u',')));
            const int stride = labels[1].toInt() - first;
            QVERIFY(stride == 1 || stride == 2 || stride == 5 || stride == 10 || stride == 20);
            for (const QString& label : labels)
                QCOMPARE(label.toInt() % stride, 0);
            QVERIFY2(front(window).chart()->visibleSpanText().startsWith(
                         QStringLiteral("Training step  ·  showing ")),
                     qPrintable(front(window).chart()->visibleSpanText()));
            // the chart's context menu choice reaches the View menu
            emit front(window).chart()->stepAxisChanged(false);
            QVERIFY(!toggle->isChecked());
            QVERIFY(!front(window).chart()->showsStepAxis());
            toggle->trigger();
            // a trace without steps: the toggle stays on, the axis shows time, nothing to choose
            QVERIFY2(
                window.showTraceNow(
                    QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/drift.jsonl"), &error),
                qPrintable(error));
            // (opened in a tab of its own, which starts with the choices of the tab in front)
            QVERIFY(front(window).tracePage()->stepAxisAction() != toggle);
            toggle = front(window).tracePage()->stepAxisAction();
            QVERIFY(xAxis->actions().contains(toggle)); // the menu follows the tab in front
            QVERIFY(!toggle->isEnabled());
            QVERIFY(toggle->isChecked());
            QVERIFY(!front(window).chart()->showsStepAxis());
            QVERIFY(front(window).chart()->xAxisLabels().front().endsWith(QStringLiteral(" s")));
            window.saveSettings();
        }
        MainWindow second;
        second.restoreSettings();
        QVERIFY(front(second).tracePage()->stepAxisAction()->isChecked());
        QVERIFY(front(second).chart()->isStepAxis());
    }
};

QTEST_MAIN(TestMainWindowSteps)
#include "tst_mainwindow_steps.moc"
