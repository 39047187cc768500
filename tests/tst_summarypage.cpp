// The summary page a document opens on: for a GPU trace (peak gap, duration, samples, the top
// findings, phases), a CPU capture (what it shows instead of the gap, the repeated phases
// grouped) and a budget log (ticks, verdict counts); a finding clicked goes to the chart with
// it selected; F9 and the tab bar switch; screenshots stay on the chart.
// GAPSCOPE_SUMMARY_PNG=path saves the summary of phasespike.jsonl.
#include "app/MainWindow.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/TracePage.h"
#include "model/items/FindingsModel.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/text/Text.h"
#include "tests/WindowAccess.h"
#include "widgets/common/SummaryView.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableView>
#include <QTest>

#include <numeric>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString fixture(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/") + relative;
}

const SummaryFigure* figure(const SummaryContent& content, const QString& label)
{
    for (const SummaryFigure& f : content.figures) {
        if (f.label == label)
            return &f;
    }
    return nullptr;
}

} // namespace

class TestSummaryPage : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // recent files go to a test folder
    }

    void traceOpensOnItsSummary_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("phasespike") << fixture(QStringLiteral("stormlog/parity/phasespike.jsonl"));
        QTest::newRow("mixed") << fixture(QStringLiteral("stormlog/parity/mixed.jsonl"));
        QTest::newRow("quiet (no findings)") << fixture(QStringLiteral("stormlog/parity/quiet.jsonl"));
    }

    void traceOpensOnItsSummary()
    {
        QFETCH(QString, path);
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openPath(path);
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        TracePage* page = front(window).tracePage();
        QVERIFY(page->isSummaryShown());
        QVERIFY(page->summaryView()->isVisible());
        QVERIFY(page->viewTabs()->isVisible());
        if (const QByteArray png = qgetenv("GAPSCOPE_SUMMARY_PNG");
            !png.isEmpty() && QTest::currentDataTag() == QByteArray("phasespike"))
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png)));

        // the report's figures: the same numbers every report of this analysis prints
        const SummaryContent& content = page->summaryView()->content();
        const ReportContent report = buildReportContent(*front(window).analysis(), false);
        QCOMPARE(content.title, QStringLiteral("%1").arg(path.section(QLatin1Char('/'), -1)));
        QVERIFY(figure(content, QStringLiteral("Duration")));
        QCOMPARE(figure(content, QStringLiteral("Duration"))->value,
                 formatReportDuration(*report.durationNs()));
        if (report.peakGapBytes)
            QCOMPARE(figure(content, QStringLiteral("Peak gap"))->value,
                     bytesText(double(*report.peakGapBytes)));
        QCOMPARE(figure(content, QStringLiteral("Samples analysed"))->value,
                 QLocale::c().toString(qulonglong(report.samples)));

        // the top findings in the findings table's order, with their display names
        const auto& findings = front(window).analysis()->findings;
        QCOMPARE(content.findingCount, findings.size());
        QListWidget* list = page->summaryView()->findingsList();
        QCOMPARE(size_t(list->count()), std::min<size_t>(findings.size(), 5));
        for (int i = 0; i < list->count(); ++i)
            QVERIFY(list->item(i)->text().contains(classificationTitle(findings[size_t(i)].classification)));
        QCOMPARE(list->isVisible(), !findings.empty());

        // a finding clicked: the chart with that finding selected
        if (list->count() > 0) {
            const int last = list->count() - 1;
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                              list->visualItemRect(list->item(last)).center());
            QVERIFY(!page->isSummaryShown());
            QVERIFY(page->chartWidget()->isVisible());
            QCOMPARE(page->findingsView()->currentIndex().data(FindingsModel::FindingIndexRole).toInt(),
                     last);
        } else {
            page->showChart();
        }
        // F9 goes back and forth; the tab bar follows
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_F9);
        QVERIFY(page->isSummaryShown());
        QCOMPARE(page->viewTabs()->currentIndex(), 0);
        QTest::keyClick(&window, Qt::Key_F9);
        QVERIFY(!page->isSummaryShown());
        QCOMPARE(page->viewTabs()->currentIndex(), 1);
        // the tab bar takes the keyboard too
        page->viewTabs()->setFocus();
        QTest::keyClick(page->viewTabs(), Qt::Key_Left);
        QVERIFY(page->isSummaryShown());
    }

    // Issue 30 item 2: a trace of stormlog's stock collector (device used = max(allocated,
    // reserved)) says first that its gap cannot be observed, where the figures would read as
    // "nothing outside the allocator"; the findings pane and the chart say it too. The same run
    // recorded with cudaMemGetInfo reads as before. GAPSCOPE_NOTICE_SUMMARY_PNG=prefix saves both.
    void gapNotObservable_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("blind");
        QTest::newRow("stock") << fixture(QStringLiteral("real-gpu/single/stock/telemetry_sink")) << true;
        QTest::newRow("truth") << fixture(QStringLiteral("real-gpu/single/truth/telemetry_sink")) << false;
    }
    void gapNotObservable()
    {
        QFETCH(QString, path);
        QFETCH(bool, blind);
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openPath(path);
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        TracePage* page = front(window).tracePage();
        QVERIFY(page->isSummaryShown());
        const SummaryContent& content = page->summaryView()->content();
        QWidget* notices = page->summaryView()->noticesArea();
        if (const QByteArray png = qgetenv("GAPSCOPE_NOTICE_SUMMARY_PNG"); !png.isEmpty())
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png) + QLatin1String(QTest::currentDataTag()) +
                                       QStringLiteral(".png")));
        if (!blind) {
            QVERIFY(content.notices.empty());
            QVERIFY(!notices->isVisible());
            QCOMPARE(content.noFindings, QStringLiteral("No hidden-memory findings"));
            QVERIFY(figure(content, QStringLiteral("Peak gap"))->value.endsWith(QStringLiteral("MiB")));
            page->showChart();
            QVERIFY(!page->findingsNotice()->isVisible());
            QVERIFY(page->chart()->noteText().isEmpty());
            if (const QByteArray png = qgetenv("GAPSCOPE_NOTICE_SUMMARY_PNG"); !png.isEmpty())
                QVERIFY(window.grab().save(QString::fromLocal8Bit(png) + QStringLiteral("truth-chart.png")));
            return;
        }
        // the first thing under the title, above the figures
        QCOMPARE(content.notices.size(), size_t(1));
        QCOMPARE(content.notices.front().code, QStringLiteral("gap_not_observable"));
        QVERIFY(notices->isVisible());
        auto* figures = page->summaryView()->findChild<QWidget*>(QStringLiteral("summaryFigures"));
        QVERIFY(figures && figures->isVisible());
        QVERIFY(notices->mapTo(page->summaryView(), QPoint()).y() <
                figures->mapTo(page->summaryView(), QPoint()).y());
        const auto* text = notices->findChild<QLabel*>(QStringLiteral("summaryNoticeText"));
        QVERIFY(text);
        QVERIFY(text->text().contains(QStringLiteral("The gap cannot be observed in this trace")));
        QVERIFY(text->text().contains(QStringLiteral("stormlog.cuda_tracker")));
        QVERIFY(text->text().contains(QStringLiteral("--device-log FILE")));
        // "No hidden-memory findings" is not said alone, nor a peak gap of 0 B
        QVERIFY(content.noFindings.startsWith(
            QStringLiteral("No hidden-memory findings, and none could be found")));
        QCOMPARE(figure(content, QStringLiteral("Peak gap"))->value, QStringLiteral("not observable"));

        // the findings pane and the chart
        page->showChart();
        QVERIFY(page->findingsNotice()->isVisible());
        QVERIFY(page->findingsNotice()->text().contains(QStringLiteral("The gap cannot be observed")));
        QVERIFY(page->findingsNotice()->toolTip().contains(QStringLiteral("cudaMemGetInfo or NVML")));
        QVERIFY(page->chart()->noteText().startsWith(QStringLiteral("The gap cannot be observed")));
        // the detail beside the table, with no finding to show, says it instead of "the largest
        // gap is 0.00 % of device memory"
        const QString detail = page->detailView()->plainText();
        QVERIFY2(detail.contains(QStringLiteral("The gap cannot be observed in this trace")),
                 qPrintable(detail));
        QVERIFY(!detail.contains(QStringLiteral("The largest gap is")));
        // the allocator's counters are what there is to see
        QVERIFY(page->chart()->isOverlayVisible(ChartOverlay::Allocated));
        QVERIFY(page->chart()->isOverlayVisible(ChartOverlay::Reserved));
        if (const QByteArray png = qgetenv("GAPSCOPE_NOTICE_SUMMARY_PNG"); !png.isEmpty())
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png) + QStringLiteral("stock-chart.png")));
    }

    // Issue 31: the real capture's 3 GiB buffer is 4.01 % of the H200, below the 5 % gate. The
    // summary says so first, and its button lists what the gate hides, muted and marked, without
    // adding it to the findings (upstream's findings at 5 % stay none).
    void belowRatioGate_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QStringList>("hidden"); // the titles listed below the gate
        QTest::newRow("truth, around the spike")
            << fixture(QStringLiteral("real-gpu/single/truth_spike/telemetry_sink"))
            << QStringList{QStringLiteral("Transient spike")};
        QTest::newRow("truth, first 400 records: nothing hidden")
            << fixture(QStringLiteral("real-gpu/single/truth/telemetry_sink")) << QStringList{};
    }
    void belowRatioGate()
    {
        QFETCH(QString, path);
        QFETCH(QStringList, hidden);
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openPath(path);
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        TracePage* page = front(window).tracePage();
        QVERIFY(page->isSummaryShown());
        SummaryView* view = page->summaryView();
        const SummaryContent& content = view->content();
        QCOMPARE(content.findingCount, size_t(0));
        auto* action = view->noticesArea()->findChild<QPushButton*>(QStringLiteral("summaryNoticeAction"));
        if (hidden.isEmpty()) {
            QVERIFY(!action);
            QVERIFY(content.belowGate.empty());
            return;
        }
        QCOMPARE(content.notices.front().code, QStringLiteral("below_ratio_gate"));
        const auto* text = view->noticesArea()->findChild<QLabel*>(QStringLiteral("summaryNoticeText"));
        QVERIFY(
            text->text().contains(QStringLiteral("1 finding is hidden by the 5 % gate: the largest gap is "
                                                 "4.01 % of device memory")));
        QCOMPARE(content.noFindings,
                 QStringLiteral("No hidden-memory findings at the 5 % gate: the largest gap is below it"));
        QVERIFY(action && action->isVisible());
        QCOMPARE(action->text(), QStringLiteral("Show the findings below the gate"));
        QVERIFY(!view->findingsList()->isVisible());

        QTest::mouseClick(action, Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return view->belowGateShown(); }, 2000));
        QListWidget* list = view->findingsList();
        QVERIFY(list->isVisible());
        QCOMPARE(list->count(), int(hidden.size()));
        for (int i = 0; i < list->count(); ++i) {
            const QString line = list->item(i)->text();
            QVERIFY2(line.contains(hidden[i] + QStringLiteral(" (below the 5 % gate)")), qPrintable(line));
            QCOMPARE(list->item(i)->foreground().color(), view->palette().color(QPalette::PlaceholderText));
        }
        if (const QByteArray png = qgetenv("GAPSCOPE_GATE_SUMMARY_PNG"); !png.isEmpty()) {
            QTest::qWait(100); // the rebuilt notices and figures laid out
            QVERIFY(window.grab().save(QString::fromLocal8Bit(png)));
        }
        // not in the findings table, whose findings stay upstream's
        QCOMPARE(front(window).analysis()->findings.size(), size_t(0));
        QCOMPARE(front(window).analysis()->belowGateFindings.size(), size_t(hidden.size()));
        // a second click hides them again
        action = view->noticesArea()->findChild<QPushButton*>(QStringLiteral("summaryNoticeAction"));
        QCOMPARE(action->text(), QStringLiteral("Hide the findings below the gate"));
        QTest::mouseClick(action, Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return !view->belowGateShown(); }, 2000));
        QCOMPARE(view->findingsList()->count(), 0);
    }

    // A CPU capture has no gap: the summary says what it shows, with the RSS figures, and
    // the 64 "step" spans are one row of the phase table.
    void cpuCapture()
    {
        MainWindow window;
        window.show();
        window.openPath(fixture(QStringLiteral("stormlog/real/cpu_phases.json")));
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        const SummaryContent& content = front(window).tracePage()->summaryView()->content();
        QVERIFY2(content.note.startsWith(QStringLiteral("A CPU capture")), qPrintable(content.note));
        QVERIFY(content.subtitle.contains(QStringLiteral("backend CPU")));
        QVERIFY(figure(content, QStringLiteral("Samples with counters")));
        QVERIFY(figure(content, QStringLiteral("Samples with counters"))->value.toInt() > 0);
        QVERIFY(figure(content, QStringLiteral("Peak RSS")));
        QVERIFY(figure(content, QStringLiteral("Duration")));
        QVERIFY(!figure(content, QStringLiteral("Samples analysed"))); // the gap's: zero
        QCOMPARE(content.tables.size(), size_t(1));
        const SummaryTable& phases = content.tables.front();
        const auto step = std::find_if(phases.rows.begin(), phases.rows.end(), [](const QStringList& row) {
            return row[0] == QStringLiteral("train / step");
        });
        QVERIFY(step != phases.rows.end());
        QCOMPARE((*step)[1], QStringLiteral("64"));
        QVERIFY(phases.rows.size() < 10);
    }

    void budgetLogOpensOnItsSummary()
    {
        MainWindow window;
        window.show();
        window.openPath(fixture(QStringLiteral("budget/retention.text")));
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).budgetAnalysis(); },
                                kLoadTimeoutMs));
        BudgetPage* page = front(window).budgetPage();
        QVERIFY(page->isSummaryShown());
        const SummaryContent& content = page->summaryView()->content();
        const auto result = front(window).budgetAnalysis();
        QCOMPARE(figure(content, QStringLiteral("Ticks analysed"))->value,
                 QLocale::c().toString(qulonglong(result->analysedTicks())));
        QVERIFY(figure(content, QStringLiteral("Duration")));
        QCOMPARE(content.findingCount, result->findings.size());
        QCOMPARE(content.tables.size(), size_t(1));
        const SummaryTable& verdicts = content.tables.front();
        QCOMPARE(verdicts.title, QStringLiteral("Verdicts"));
        QVERIFY(!verdicts.rows.empty());
        qulonglong ticks = 0;
        for (const QStringList& row : verdicts.rows)
            ticks += QLocale::c().toULongLong(row[1]);
        QCOMPARE(ticks, qulonglong(result->analysedTicks()));
    }

    // showTraceNow (--screenshot) shows the chart: README pictures are of the chart.
    void screenshotsShowTheChart()
    {
        MainWindow window;
        QString error;
        QVERIFY2(window.showTraceNow(fixture(QStringLiteral("stormlog/parity/phasespike.jsonl")), &error),
                 qPrintable(error));
        QVERIFY(!front(window).tracePage()->isSummaryShown());
        QVERIFY(front(window).tracePage()->viewTabs()->isVisibleTo(front(window).tracePage()));
        QVERIFY(window.showTraceNow(fixture(QStringLiteral("budget/leak.jsonl")), &error));
        QVERIFY(!front(window).budgetPage()->isSummaryShown());
    }
};

QTEST_MAIN(TestSummaryPage)
#include "tst_summarypage.moc"
