#include "app/Gui.h"
#include "app/MainWindow.h"
#include "app/Version.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/cache/TraceCache.h"
#include "model/items/FindingsModel.h"
#include "model/items/PhasesModel.h"
#include "model/items/ProblemsModel.h"
#include "model/items/SessionsModel.h"
#include "model/report/ReportContent.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/common/ProblemsPanel.h"
#include "widgets/common/ThresholdsDialog.h"
#include "widgets/common/WelcomePage.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"
#include "widgets/trace/SessionPicker.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QAbstractItemModelTester>
#include <QAbstractProxyModel>
#include <QAction>
#include <QApplication>
#include <QCommandLinkButton>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFont>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString parityPath(const QString& name)
{
    return QString(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog/parity/") + name;
}

// The upstream reference output next to a parity fixture.
QJsonArray expectedFindings(const QString& name)
{
    QFile file(parityPath(name + QStringLiteral(".expected.json")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("gap_analysis")).toArray();
}

bool waitIdle(MainWindow& window)
{
    return QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis() != nullptr; },
                           kLoadTimeoutMs);
}

// The lines of a parity fixture, to be spoiled by a test.
QList<QByteArray> fixtureLines(const QString& name)
{
    QFile source(parityPath(name));
    return source.open(QIODevice::ReadOnly) ? source.readAll().split('\n') : QList<QByteArray>{};
}

bool writeLines(const QString& path, const QList<QByteArray>& lines)
{
    QFile out(path);
    return out.open(QIODevice::WriteOnly) && out.write(lines.join('\n')) >= 0 && out.flush();
}

QPoint rowCenter(QAbstractItemView* view, const QModelIndex& index)
{
    return view->visualRect(index).center();
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void init() { QSettings().clear(); }

    void welcomeWithoutFile()
    {
        MainWindow window;
        window.show();
        QVERIFY(window.isWelcomeShown());
        QVERIFY(!front(window).analysis());
        QVERIFY(window.windowBannerText().isEmpty());
    }

    // A newcomer with a memory-budget log learns from the welcome page, the Open dialog and
    // About that gapscope reads it; About names the version.
    void newcomerSeesBudgetLogs()
    {
        MainWindow window;
        window.show();
        QStringList texts;
        for (const QLabel* label : window.welcomePage()->findChildren<QLabel*>())
            texts << label->text();
        for (const QCommandLinkButton* button : window.welcomePage()->findChildren<QCommandLinkButton*>())
            texts << button->text() + QLatin1Char(' ') + button->description();
        const QString welcome = texts.join(QLatin1Char('\n'));
        QVERIFY2(welcome.contains(QStringLiteral("memory-budget tick log")), qPrintable(welcome));
        QVERIFY(welcome.contains(QStringLiteral("Open Trace or Budget Log...")));
        QVERIFY(welcome.contains(QStringLiteral("drop a trace, a budget log or a sink directory")));

        auto* open = window.findChild<QAction*>(QStringLiteral("openAction"));
        QVERIFY(open);
        QVERIFY(open->statusTip().contains(QStringLiteral("memory-budget log")));
        QString title;
        QStringList filters;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, [&] {
            for (QWidget* widget : QApplication::topLevelWidgets())
                if (auto* dialog = qobject_cast<QFileDialog*>(widget); dialog && dialog->isVisible()) {
                    title = dialog->windowTitle();
                    filters = dialog->nameFilters();
                    dialog->reject();
                }
        });
        poll.start(20);
        open->trigger(); // returns when the dialog is rejected
        poll.stop();
        QCOMPARE(title, QStringLiteral("Open Trace or Budget Log"));
        QVERIFY2(filters.value(0).contains(QStringLiteral("memory-budget logs")),
                 qPrintable(filters.join('|')));

        const QString about = MainWindow::aboutText();
        QVERIFY(QRegularExpression(QStringLiteral("^\\d+\\.\\d+\\.\\d+$"))
                    .match(QLatin1String(kGapscopeVersion))
                    .hasMatch());
        QVERIFY2(about.contains(QStringLiteral("<h3>gapscope %1</h3>").arg(QLatin1String(kGapscopeVersion))),
                 qPrintable(about));
        QVERIFY(about.contains(QStringLiteral("memory-budget tick logs")));

        // Help > About names the reopen cache's folder, or says it is off
        QVERIFY(window.cacheText().contains(QStringLiteral("off (--no-cache)")));
        QTemporaryDir cacheFolder;
        TraceCacheSettings cacheSettings;
        cacheSettings.folder = cacheFolder.path();
        window.setTraceCache(std::make_shared<const TraceCache>(cacheSettings));
        QVERIFY2(window.cacheText().contains(cacheFolder.path()), qPrintable(window.cacheText()));
        QVERIFY(window.cacheText().contains(QStringLiteral("0 entries")));
    }

    void findingsOfFixture_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("phasespike") << "phasespike";
        QTest::newRow("mixed") << "mixed";
    }

    void findingsOfFixture()
    {
        QFETCH(QString, name);
        const QJsonArray expected = expectedFindings(name);
        QVERIFY2(!expected.isEmpty(), "reference output missing");

        MainWindow window;
        window.resize(1200, 800);
        window.show();
        const QString path = parityPath(name + QStringLiteral(".jsonl"));
        window.openPath(path);
        QVERIFY(window.isLoading());
        QVERIFY(!window.progressBar()->isHidden());
        QVERIFY(waitIdle(window));
        QVERIFY(!window.isWelcomeShown());
        QVERIFY(window.progressBar()->isHidden());
        QVERIFY(window.windowTitle().contains(name));
        QCOMPARE(window.recentFiles().value(0), QFileInfo(path).absoluteFilePath());

        QTableView* view = front(window).findingsView();
        QCOMPARE(view->model()->rowCount(), int(expected.size()));
        for (int row = 0; row < expected.size(); ++row) {
            const QJsonObject e = expected[row].toObject();
            const QModelIndex severity = view->model()->index(row, FindingsModel::SeverityColumn);
            QCOMPARE(severity.data(FindingsModel::ClassificationKeyRole).toString(),
                     e.value(QStringLiteral("classification")).toString());
            QCOMPARE(severity.data().toString().toLower(), e.value(QStringLiteral("severity")).toString());
            QCOMPARE(severity.data(FindingsModel::EvidenceTimeRole).toLongLong(),
                     e.value(QStringLiteral("evidence_timestamp_ns")).toInteger());
            // the widgets side adds the severity icon and colour
            QVERIFY(severity.data(Qt::DecorationRole).isValid());
            QVERIFY(severity.data(Qt::ForegroundRole).isValid());
        }
        // the most severe finding of a new trace is selected and explained
        QCOMPARE(view->currentIndex().row(), 0);
        QCOMPARE(front(window).detailView()->findingIndex(), 0);
        QVERIFY(front(window).detailView()->plainText().contains(
            classificationTitle(front(window).analysis()->findings[0].classification)));
    }

    void clickFindingMovesCursor()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(parityPath(QStringLiteral("mixed.jsonl")));
        QVERIFY(waitIdle(window));
        const auto result = front(window).analysis();
        QVERIFY(result->findings.size() >= 2);

        GapChartView* chart = front(window).chart();
        // zoom to the first tenth so the evidence of the last finding is off screen
        const qint64 begin = chart->visibleBeginNs();
        const qint64 end = chart->visibleEndNs();
        chart->setVisibleRange(begin, begin + (end - begin) / 10);

        const int row = int(result->findings.size()) - 1;
        const qint64 evidence = result->findings[size_t(row)].evidenceTimestampNs;
        QTableView* view = front(window).findingsView();
        const QModelIndex index = view->model()->index(row, FindingsModel::ClassificationColumn);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rowCenter(view, index));
        QCOMPARE(view->currentIndex().row(), row);
        QCOMPARE(chart->cursorTime(), evidence);
        QCOMPARE(front(window).scrubber()->cursorTime(), evidence);
        QCOMPARE(chart->highlightedFinding(), row);
        QVERIFY(chart->visibleBeginNs() <= evidence);
        QVERIFY(chart->visibleEndNs() >= evidence);
        QCOMPARE(front(window).detailView()->findingIndex(), row);
        // the status bar shows the values at the cursor, in IEC units
        const QString values = window.cursorValuesText();
        QVERIFY2(values.contains(QStringLiteral("gap ")) && values.contains(QStringLiteral("iB")),
                 qPrintable(values));
        QVERIFY(values.contains(formatRelativeTimeForTest(result, evidence)));

        // Navigate > Previous Finding
        auto* previous = window.findChild<QAction*>(QStringLiteral("previousFindingAction"));
        QVERIFY(previous);
        previous->trigger();
        QCOMPARE(view->currentIndex().row(), row - 1);
        QCOMPARE(chart->cursorTime(), result->findings[size_t(row - 1)].evidenceTimestampNs);

        // stepping the cursor moves it to a neighbouring sample
        auto* step = window.findChild<QAction*>(QStringLiteral("stepForwardAction"));
        QVERIFY(step);
        const qint64 before = chart->cursorTime();
        step->trigger();
        QVERIFY(chart->cursorTime() != before);
        QCOMPARE(chart->cursorTime(), front(window).scrubber()->cursorTime());
    }

    void selectPhaseZoomsChart()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(parityPath(QStringLiteral("phasespike.jsonl")));
        QVERIFY(waitIdle(window));
        PhasesModel* phases = front(window).phasesModel();
        QVERIFY(phases->spanCount() > 0);

        // the span the reference attributes the spike to is marked in the tree
        const QJsonObject attribution = expectedFindings(QStringLiteral("phasespike"))[0]
                                            .toObject()
                                            .value(QStringLiteral("phase_attribution"))
                                            .toObject();
        const QString scope = attribution.value(QStringLiteral("scope_id")).toString();
        const qint64 evidence = expectedFindings(QStringLiteral("phasespike"))[0]
                                    .toObject()
                                    .value(QStringLiteral("evidence_timestamp_ns"))
                                    .toInteger();
        int marked = -1;
        for (size_t i = 0; i < phases->spanCount(); ++i) {
            const QModelIndex index = phases->indexOfSpan(i);
            const PhaseSpan* span = phases->spanAt(index);
            if (QString::fromStdString(span->scopeId) == scope && span->contains(evidence))
                marked = int(i);
            QCOMPARE(index.data(PhasesModel::FindingCountRole).toInt() > 0, marked == int(i));
        }
        QVERIFY(marked >= 0);
        auto* proxy = qobject_cast<QAbstractProxyModel*>(front(window).phasesView()->model());
        QVERIFY(proxy);
        const QModelIndex markedInView = proxy->mapFromSource(phases->indexOfSpan(size_t(marked)));
        QVERIFY(markedInView.data(Qt::FontRole).value<QFont>().bold());

        // click the marked span in the tree
        QTreeView* tree = front(window).phasesView();
        tree->expandAll();
        const QModelIndex viewIndex = markedInView;
        tree->scrollTo(viewIndex);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, rowCenter(tree, viewIndex));
        const PhaseSpan* span = phases->spanAt(phases->indexOfSpan(size_t(marked)));
        GapChartView* chart = front(window).chart();
        const qint64 duration = span->endNs - span->startNs;
        QVERIFY(chart->visibleBeginNs() <= span->startNs);
        QVERIFY(chart->visibleEndNs() >= span->endNs);
        // only a small margin either side
        QVERIFY2(chart->visibleEndNs() - chart->visibleBeginNs() <= duration + duration / 10 + 2'000'000,
                 qPrintable(QStringLiteral("%1..%2 for %3..%4")
                                .arg(chart->visibleBeginNs())
                                .arg(chart->visibleEndNs())
                                .arg(span->startNs)
                                .arg(span->endNs)));

        // Navigate > Next Phase walks the spans in time order
        auto* next = window.findChild<QAction*>(QStringLiteral("nextPhaseAction"));
        QVERIFY(next);
        next->trigger();
        if (size_t(marked) + 1 < phases->spanCount()) {
            const PhaseSpan* following = phases->spanAt(phases->indexOfSpan(size_t(marked) + 1));
            QVERIFY(chart->visibleBeginNs() <= following->startNs);
            QVERIFY(chart->visibleEndNs() >= following->endNs);
        }
    }

    // Issue 17 item 6: in a narrow dock every phase column is as wide as its content (no
    // "ev..." while another column has room) and a column empty in every row is hidden.
    void phaseColumnsSizedToContent()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(parityPath(QStringLiteral("phases.jsonl")));
        QVERIFY(waitIdle(window));
        QTreeView* tree = front(window).phasesView();
        // QTreeView makes sizeHintForColumn protected; QAbstractItemView has it public
        const QAbstractItemView* view = tree;
        tree->resize(260, 300);
        QCoreApplication::processEvents();
        QAbstractItemModel* model = tree->model();
        QVERIFY(model->rowCount() > 0);
        int hidden = 0;
        for (int column = 0; column < model->columnCount(); ++column) {
            bool filled = false;
            std::vector<QModelIndex> parents{QModelIndex()};
            while (!parents.empty()) {
                const QModelIndex parent = parents.back();
                parents.pop_back();
                for (int row = 0; row < model->rowCount(parent); ++row) {
                    filled = filled || !model->index(row, column, parent).data().toString().isEmpty();
                    parents.push_back(model->index(row, 0, parent));
                }
            }
            const QString name = model->headerData(column, Qt::Horizontal).toString();
            QCOMPARE(tree->isColumnHidden(column), !filled);
            if (!filled) {
                ++hidden;
                continue;
            }
            QVERIFY2(tree->columnWidth(column) >= view->sizeHintForColumn(column),
                     qPrintable(QStringLiteral("%1: %2 < %3")
                                    .arg(name)
                                    .arg(tree->columnWidth(column))
                                    .arg(view->sizeHintForColumn(column))));
        }
        QVERIFY(hidden >= 1); // no synthetic ends in this trace
    }

    // Issue 17 item 3: View > Chart Y Axis (fit data / from zero, logarithmic) is remembered.
    void yAxisChoiceRemembered()
    {
        {
            MainWindow window;
            window.restoreSettings();
            window.show();
            window.openPath(parityPath(QStringLiteral("quiet.jsonl")));
            QVERIFY(waitIdle(window));
            const std::vector<QAction*>& modes = front(window).tracePage()->yAxisActions();
            QCOMPARE(modes.size(), size_t(2));
            QVERIFY(modes[0]->isChecked());
            QCOMPARE(front(window).chart()->yRangeMode(), ByteRangeMode::FitData);
            modes[1]->trigger();
            QCOMPARE(front(window).chart()->yRangeMode(), ByteRangeMode::FromZero);
            QVERIFY(!modes[0]->isChecked());
            front(window).tracePage()->yLogAction()->trigger();
            QVERIFY(front(window).chart()->isLogScale());
            window.saveSettings();
        }
        MainWindow second;
        second.restoreSettings();
        QCOMPARE(front(second).chart()->yRangeMode(), ByteRangeMode::FromZero);
        QVERIFY(front(second).tracePage()->yAxisActions()[1]->isChecked());
        QVERIFY(front(second).chart()->isLogScale());
        // the chart's context menu choice reaches the View menu
        emit front(second).chart()->yRangeModeChanged(ByteRangeMode::FitData);
        QVERIFY(front(second).tracePage()->yAxisActions()[0]->isChecked());
    }

    void zoomBackAndForward()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(parityPath(QStringLiteral("phasespike.jsonl")));
        QVERIFY(waitIdle(window));
        GapChartView* chart = front(window).chart();
        auto* back = window.findChild<QAction*>(QStringLiteral("zoomBackAction"));
        auto* forward = window.findChild<QAction*>(QStringLiteral("zoomForwardAction"));
        QVERIFY(back && forward);
        const qint64 fullBegin = chart->visibleBeginNs();
        const qint64 fullEnd = chart->visibleEndNs();
        QVERIFY(front(window).phasesModel()->spanCount() >= 2);
        front(window).selectPhase(1); // a zoom step: the chart and the timeline show the phase
        const PhaseSpan* span =
            front(window).phasesModel()->spanAt(front(window).phasesModel()->indexOfSpan(1));
        QVERIFY(span);
        const qint64 phaseBegin = chart->visibleBeginNs();
        const qint64 phaseEnd = chart->visibleEndNs();
        QVERIFY(phaseBegin <= span->startNs && phaseEnd >= span->endNs);
        QVERIFY(phaseEnd - phaseBegin < fullEnd - fullBegin);
        QCOMPARE(front(window).tracePage()->viewState()->visibleRange(), (TimeRange{phaseBegin, phaseEnd}));
        QVERIFY(back->isEnabled());
        QVERIFY(!forward->isEnabled());

        back->trigger();
        QCOMPARE(chart->visibleBeginNs(), fullBegin);
        QCOMPARE(chart->visibleEndNs(), fullEnd);
        QVERIFY(!back->isEnabled());
        QVERIFY(forward->isEnabled());
        forward->trigger();
        QCOMPARE(chart->visibleBeginNs(), phaseBegin);
        QCOMPARE(chart->visibleEndNs(), phaseEnd);

        // Reset Zoom is a step too, and Back returns to the phase
        window.findChild<QAction*>(QStringLiteral("resetZoomAction"))->trigger();
        QCOMPARE(chart->visibleBeginNs(), fullBegin);
        back->trigger();
        QCOMPARE(chart->visibleBeginNs(), phaseBegin);
    }

    void windowAnalysisBanner()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(parityPath(QStringLiteral("mixed.jsonl")));
        QVERIFY(waitIdle(window));
        const auto full = front(window).analysis();
        const qint64 origin = FindingsModel::originNs(*full);
        const qint64 begin = origin + 5'000'000'000;
        const qint64 end = origin + 15'000'000'000;

        emit front(window).chart()->rangeSelected(begin, end);
        QVERIFY(window.isWindowAnalysis());
        QVERIFY(waitIdle(window));
        QVERIFY(front(window).analysis() != full);
        QVERIFY(front(window).analysis()->request.window.has_value());
        QCOMPARE(front(window).analysis()->request.window->beginNs, begin);
        QCOMPARE(front(window).analysis()->request.window->endNs, end);
        QVERIFY(front(window).analysis()->usableRows.size() < full->usableRows.size());
        const QString banner = window.windowBannerText();
        QVERIFY2(banner.startsWith(QStringLiteral("Window analysis: +5.000 s – +15.000 s")),
                 qPrintable(banner));
        QCOMPARE(front(window).findingsView()->model()->rowCount(),
                 int(front(window).analysis()->findings.size()));

        auto* reset = window.findChild<QPushButton*>(QStringLiteral("resetWindowButton"));
        QVERIFY(reset);
        QVERIFY(reset->isVisible());
        QTest::mouseClick(reset, Qt::LeftButton);
        QVERIFY(waitIdle(window));
        QVERIFY(!window.isWindowAnalysis());
        QVERIFY(window.windowBannerText().isEmpty());
        QVERIFY(!front(window).analysis()->request.window);
        QCOMPARE(front(window).findingsView()->model()->rowCount(), int(full->findings.size()));
    }

    void thresholdsRerunAndPersist()
    {
        MainWindow window;
        window.show();
        window.openPath(parityPath(QStringLiteral("mixed.jsonl")));
        QVERIFY(waitIdle(window));
        const size_t before = front(window).analysis()->findings.size();
        QVERIFY(before > 0);

        ThresholdsDialog dialog;
        QObject::connect(&dialog, &ThresholdsDialog::thresholdsChanged, &window, &MainWindow::setThresholds);
        dialog.setThresholds(window.thresholds());
        // a gap ratio no gap reaches: no findings at all
        QDoubleSpinBox* ratio = dialog.spinBox("gap_ratio_threshold");
        QVERIFY(ratio);
        ratio->setValue(1.0);
        QCOMPARE(window.thresholds().gapRatio, GapThresholds{}.gapRatio); // not before Apply
        QTest::mouseClick(dialog.applyButton(), Qt::LeftButton);
        QCOMPARE(window.thresholds().gapRatio, 1.0);
        QVERIFY(waitIdle(window));
        QCOMPARE(front(window).analysis()->request.thresholds.gapRatio, 1.0);
        QCOMPARE(front(window).findingsView()->model()->rowCount(), 0);
        QVERIFY(
            front(window).detailView()->plainText().contains(QStringLiteral("No hidden-memory findings")));
        {
            QSettings settings;
            QCOMPARE(ThresholdsDialog::loadThresholds(settings).gapRatio, 1.0);
        }
        // a new window starts with the persisted thresholds
        MainWindow second;
        QCOMPARE(second.thresholds().gapRatio, 1.0);

        dialog.restoreDefaults();
        QCOMPARE(ratio->value(), GapThresholds{}.gapRatio);
        QCOMPARE(window.thresholds().gapRatio, 1.0);
        QTest::mouseClick(dialog.applyButton(), Qt::LeftButton);
        QVERIFY(waitIdle(window));
        QCOMPARE(front(window).findingsView()->model()->rowCount(), int(before));
        QSettings settings;
        QVERIFY(ThresholdsDialog::loadThresholds(settings) == GapThresholds{});
    }

    void newerLoadSupersedesOlder()
    {
        MainWindow window;
        window.show();
        window.openPath(parityPath(QStringLiteral("mixed.jsonl")));
        window.openPath(parityPath(QStringLiteral("phasespike.jsonl")));
        QVERIFY(waitIdle(window));
        // give a stale result every chance to arrive
        QTest::qWait(200);
        QCOMPARE(QFileInfo(front(window).trace()->path).fileName(), QStringLiteral("phasespike.jsonl"));
        QCOMPARE(front(window).analysis()->trace, front(window).trace());
        QCOMPARE(front(window).findingsView()->model()->rowCount(),
                 int(expectedFindings(QStringLiteral("phasespike")).size()));
    }

    void cancelLoad()
    {
        // a large trace so the load is still running when Cancel is pressed
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile source(parityPath(QStringLiteral("mixed.jsonl")));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray lines = source.readAll();
        const QString bigPath = dir.filePath(QStringLiteral("big.jsonl"));
        QFile big(bigPath);
        QVERIFY(big.open(QIODevice::WriteOnly));
        for (int i = 0; i < 200; ++i)
            big.write(lines);
        big.close();

        MainWindow window;
        window.show();
        window.openPath(bigPath);
        QVERIFY(window.isLoading());
        auto* cancel = window.findChild<QToolButton*>(QStringLiteral("cancelLoadButton"));
        QVERIFY(cancel && !cancel->isHidden());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
        QVERIFY(window.progressBar()->isHidden());
        QVERIFY(!front(window).trace()); // nothing half-loaded is shown
        QVERIFY(window.isWelcomeShown());
    }

    void missingRecentFileIsCleared()
    {
        const QString missing = QDir::tempPath() + QStringLiteral("/gapscope-missing-trace.jsonl");
        QFile::remove(missing);
        QSettings().setValue(QStringLiteral("recentFiles"), QStringList{missing});
        MainWindow window;
        window.show();
        QCOMPARE(window.recentFiles(), QStringList{missing});
        window.openPath(missing);
        QVERIFY(window.recentFiles().isEmpty());
        QVERIFY(window.welcomePage()->message().contains(missing));
        QVERIFY(!window.isLoading());
    }

    void bundledSample()
    {
        MainWindow window;
        window.show();
        window.openSample();
        QVERIFY(waitIdle(window));
        QVERIFY(window.windowTitle().contains(QStringLiteral("sample")));
        QCOMPARE(front(window).findingsView()->model()->rowCount(),
                 int(expectedFindings(QStringLiteral("phasespike")).size()));
        // the temporary copy is not a recent file
        QVERIFY(window.recentFiles().isEmpty());
    }

    void rejectedRecordsInProblemsPanel()
    {
        QTemporaryDir dir;
        QList<QByteArray> lines = fixtureLines(QStringLiteral("phasespike.jsonl"));
        lines.insert(5, "this is not json");
        lines.insert(9, "{\"schema_version\": 3, \"event_type\": ");
        const QString path = dir.filePath(QStringLiteral("partly-bad.jsonl"));
        QVERIFY(writeLines(path, lines));

        MainWindow window;
        window.show();
        window.openPath(path);
        QVERIFY(waitIdle(window));
        const qint64 errors = front(window).trace()->problems.errorCount();
        QVERIFY(errors >= 2);
        QVERIFY2(
            window.problemsButtonText().startsWith(QString::number(errors) + QStringLiteral(" rejected")),
            qPrintable(window.problemsButtonText()));
        ProblemsModel* problems = window.problemsPanel()->problemsModel();
        QCOMPARE(problems->problems().size(), front(window).trace()->problems.kept().size());
        QList<qint64> lineNumbers;
        for (const LoadProblem& problem : problems->problems())
            lineNumbers << problem.line;
        QVERIFY(lineNumbers.contains(6));
        QCOMPARE(problems->index(0, ProblemsModel::FileColumn).data().toString(),
                 QStringLiteral("partly-bad.jsonl"));

        window.problemsPanel()->hide();
        auto* button = window.findChild<QToolButton*>(QStringLiteral("problemsButton"));
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(window.problemsPanel()->isVisible());
        QVERIFY(!window.problemsPanel()->isFloating() || window.problemsPanel()->isVisible());
    }

    // 302 identical errors are one group of 302 lines; a clean file opened next hides the
    // panel, which View > Load Problems still opens.
    void problemsPanelGroupsAndHidesForCleanFiles()
    {
        QTemporaryDir dir;
        QList<QByteArray> lines = fixtureLines(QStringLiteral("phasespike.jsonl"));
        QVERIFY(lines.size() > 302);
        for (int i = 0; i < 302; ++i)
            lines.insert(2 * i + 1, "this is not json");
        lines.insert(1, "{\"schema_version\": 3, \"event_type\": ");
        const QString path = dir.filePath(QStringLiteral("many-bad.jsonl"));
        QVERIFY(writeLines(path, lines));

        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPath(path);
        QVERIFY(waitIdle(window));
        QCOMPARE(front(window).trace()->problems.errorCount(), qint64(303));
        ProblemsPanel* panel = window.problemsPanel();
        QVERIFY(panel->isVisible());
        QTreeView* view = panel->view();
        QAbstractItemModelTester tester(view->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(view->model()->rowCount(), 2); // two reasons, not 303 rows
        int notJson = -1;
        for (int row = 0; row < 2; ++row)
            if (view->model()->index(row, ProblemsModel::CountColumn).data().toString() ==
                QStringLiteral("302"))
                notJson = row;
        QVERIFY(notJson >= 0);
        const QModelIndex group = view->model()->index(notJson, 0);
        QCOMPARE(view->model()->rowCount(group), 302);
        QVERIFY(!view->isExpanded(group));
        view->expand(group);
        QVERIFY(view->isExpanded(group));
        QVERIFY(panel->summaryText().contains(QStringLiteral("303 records rejected")));
        QVERIFY(panel->summaryText().contains(QStringLiteral("2 reasons")));

        window.openPath(parityPath(QStringLiteral("drift.jsonl")));
        QVERIFY(QTest::qWaitFor(
            [&] { return !window.isBusy() && front(window).trace() && front(window).trace()->path != path; },
            kLoadTimeoutMs));
        QVERIFY(waitIdle(window));
        QVERIFY(!panel->isVisible());
        QVERIFY(window.problemsButtonText().isEmpty());
        QAction* reopen = panel->toggleViewAction();
        QVERIFY(reopen->isEnabled());
        reopen->trigger();
        QVERIFY(panel->isVisible());
        QCOMPARE(panel->summaryText(), QStringLiteral("No problems"));
        QCOMPARE(view->model()->rowCount(), 0);
    }

    void sessionsOfSinkDirectory()
    {
        MainWindow window;
        window.show();
        const QString sink =
            QString(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog/real/cpu_sink");
        window.openPath(sink);
        QVERIFY(waitIdle(window));
        const auto trace = front(window).trace();
        QCOMPARE(front(window).sessionPicker()->sessionsModel()->rowCount(), int(trace->sessions.size()));
        QCOMPARE(size_t(front(window).sessionPicker()->sessionIndex()),
                 front(window).analysis()->sessionIndex);
        QCOMPARE(front(window).analysis()->sessionIndex, trace->defaultSessionIndex().value());
        // a CPU trace has no device total: no gap findings, and the detail says why and what
        // the capture shows instead (tst_cpucapture)
        QCOMPARE(front(window).findingsView()->model()->rowCount(), 0);
        QVERIFY(front(window).detailView()->plainText().contains(
            QStringLiteral("CPU capture: no hidden-memory gap")));
    }

    void screenshot()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("window.png"));
        QString error;
        QCOMPARE(
            renderScreenshot(parityPath(QStringLiteral("phasespike.jsonl")), png, QSize(1024, 700), &error),
            0);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1024, 700));
        // not a blank image: the window drew something
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
    }

    void screenshotBadInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QSize>("size");
        QTest::newRow("missing file") << "/nonexistent/trace.jsonl" << QSize(800, 600);
        QTest::newRow("size too small") << parityPath(QStringLiteral("phasespike.jsonl")) << QSize(10, 10);
        QTest::newRow("size invalid") << parityPath(QStringLiteral("phasespike.jsonl")) << QSize(-1, 600);
    }

    void screenshotBadInput()
    {
        QFETCH(QString, file);
        QFETCH(QSize, size);
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("bad.png"));
        QString error;
        QCOMPARE(renderScreenshot(file, png, size, &error), 2);
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(png));
    }

private:
    static QString formatRelativeTimeForTest(const std::shared_ptr<const AnalysisResult>& result, qint64 ns)
    {
        const double seconds = double(ns - FindingsModel::originNs(*result)) / 1e9;
        return QStringLiteral("+%1 s").arg(seconds, 0, 'f', 3);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
