// The main window with a distributed job: the three layouts (a folder of per-rank sinks,
// several per-rank files, one file holding every rank) open on the job page; a rank opens on
// the trace page with the job page's cursor moved to the rank's own clock and its collective
// intervals shaded on the gap chart; View > Job Overview returns. On the job page, Export
// Report writes what `gapscope export` writes for the job and Copy Finding copies the selected
// job finding.

#include "app/ExportActions.h"
#include "app/MainWindow.h"
#include "app/pages/JobPage.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/items/RankTableModel.h"
#include "model/job/JobData.h"
#include "model/job/JobRanks.h"
#include "model/text/Text.h"
#include "tests/WindowAccess.h"
#include "widgets/export/ChartExport.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"

#include "tests/GapscopeProcess.h"
#include "tests/OwnSettings.h"

#include <QAction>
#include <QCoreApplication>
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kLoadTimeoutMs = 30000;

QString distributed(const QString& name)
{
    return QString(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog/distributed/") + name;
}

bool jobPageShown(const MainWindow& window)
{
    return !window.isBusy() && front(window).jobPage()->job() && front(window).jobPage()->isVisible();
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The job page of a window with the job's cross-rank findings shown.
bool openJob(MainWindow& window, const QStringList& paths)
{
    window.resize(1400, 900);
    window.show();
    window.openPaths(paths);
    return QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs) &&
           QTest::qWaitFor([&] { return front(window).jobPage()->findingsView()->model()->rowCount() > 0; },
                           kLoadTimeoutMs);
}

} // namespace

class TestMainWindowJob : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_mainwindow_job")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void layoutsOpenAsJob_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("worldSize");
        QTest::addColumn<int>("presentRanks");
        QTest::newRow("job folder of sinks")
            << QStringList{distributed(QStringLiteral("firstcause-job"))} << int(JobMode::Job) << 4 << 4;
        QTest::newRow("8-rank folder")
            << QStringList{distributed(QStringLiteral("skew-job"))} << int(JobMode::Job) << 8 << 8;
        QTest::newRow("several files, rank 3 missing")
            << QStringList{distributed(QStringLiteral("missing-files/rank0.jsonl")),
                           distributed(QStringLiteral("missing-files/rank1.jsonl")),
                           distributed(QStringLiteral("missing-files/rank2.jsonl"))}
            << int(JobMode::Job) << 4 << 3;
        QTest::newRow("one file, every rank")
            << QStringList{distributed(QStringLiteral("collective-merged.jsonl"))} << int(JobMode::Session)
            << 3 << 3;
    }

    void layoutsOpenAsJob()
    {
        QFETCH(QStringList, paths);
        QFETCH(int, mode);
        QFETCH(int, worldSize);
        QFETCH(int, presentRanks);
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openPaths(paths);
        QVERIFY(QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs));
        const auto job = front(window).jobPage()->job();
        QCOMPARE(int(job->mode), mode);
        QCOMPARE(job->worldSize, int64_t(worldSize));
        QCOMPARE(int(job->ranks.size()), worldSize);
        int present = 0;
        for (const JobRank& rank : job->ranks)
            present += rank.present ? 1 : 0;
        QCOMPARE(present, presentRanks);
        QCOMPARE(front(window).jobPage()->rankModel()->rowCount(), worldSize);
        // the cross-rank analyses arrive from the background and fill the findings
        QVERIFY(
            QTest::qWaitFor([&] { return front(window).jobPage()->findingsView()->model()->rowCount() > 0; },
                            kLoadTimeoutMs));
        QVERIFY(!front(window).jobOverviewAction()->isEnabled()); // the overview is what is shown
    }

    // The rank table's findings column counts each rank's own gap findings (every rank analysed
    // alone with the window's thresholds, as the job's report does) beside its job findings.
    void rankTableCountsEachRanksGapFindings_data()
    {
        QTest::addColumn<QString>("job");
        QTest::newRow("firstcause-job") << QStringLiteral("firstcause-job");
        QTest::newRow("skew-job") << QStringLiteral("skew-job");
    }

    void rankTableCountsEachRanksGapFindings()
    {
        QFETCH(QString, job);
        MainWindow window;
        QVERIFY(openJob(window, {distributed(job)}));
        const auto data = front(window).jobPage()->job();
        const auto findings = front(window).jobPage()->jobFindings();
        QVERIFY(findings);
        AnalysisRequest each;
        each.thresholds = front(window).jobPage()->thresholds();
        const auto results = analyzeJobRanks(*data, each);
        QCOMPARE(results.size(), data->ranks.size());
        std::vector<qlonglong> expected;
        qlonglong gapFindings = 0;
        for (size_t i = 0; i < data->ranks.size(); ++i) {
            const qlonglong own = results[i] ? qlonglong(results[i]->findings.size()) : 0;
            gapFindings += own;
            qlonglong ofJob = 0;
            for (const Finding& finding : findings->findings)
                ofJob += finding.rank == data->ranks[i].rank ? 1 : 0;
            expected.push_back(own + ofJob);
        }
        QVERIFY(gapFindings > 0); // these jobs' ranks drift: their own findings must show
        const RankTableModel* model = front(window).jobPage()->rankModel();
        auto shown = [&] {
            std::vector<qlonglong> counts;
            for (int row = 0; row < model->rowCount(); ++row)
                counts.push_back(model->index(row, RankTableModel::FindingsColumn)
                                     .data(RankTableModel::SortRole)
                                     .toLongLong());
            return counts;
        };
        QVERIFY(QTest::qWaitFor([&] { return shown() == expected; }, kLoadTimeoutMs));
    }

    // The heatmap's context menu saves the chart and resets the zoom; the findings table's
    // copies the finding, as on the trace page.
    void jobPageContextMenus()
    {
        MainWindow window;
        QVERIFY(openJob(window, {distributed(QStringLiteral("firstcause-job"))}));
        const QList<QAction*> chart = front(window).jobPage()->chartWidget()->actions();
        QVERIFY(chart.contains(window.exportActions()->saveChartAction()));
        QCOMPARE(front(window).jobPage()->chartWidget()->contextMenuPolicy(), Qt::ActionsContextMenu);
        QVERIFY(front(window).jobPage()->findingsView()->actions().contains(
            window.exportActions()->copyFindingAction()));
    }

    void rankOpensOnTracePageAndBack()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openPaths({distributed(QStringLiteral("skew-job"))});
        QVERIFY(QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs));
        QVERIFY(
            QTest::qWaitFor([&] { return front(window).jobPage()->findingsView()->model()->rowCount() > 0; },
                            kLoadTimeoutMs));
        const auto job = front(window).jobPage()->job();
        const qint64 aligned = (job->firstTimestampNs + job->lastTimestampNs) / 2;
        front(window).jobPage()->viewState()->setCursor(aligned);

        emit front(window).jobPage()->rankActivated(5);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).tracePage()->isVisible(); },
                                kLoadTimeoutMs));
        QVERIFY(front(window).analysis());
        QCOMPARE(front(window).analysis()->rank, int64_t(5));
        // the cursor is where the job page had it, on rank 5's own clock
        const qint64 cursor = front(window).tracePage()->viewState()->cursorNs();
        QVERIFY2(std::llabs(cursor - aligned) <= 60'000'000'000LL,
                 qPrintable(QStringLiteral("cursor %1, aligned %2").arg(cursor).arg(aligned)));

        QVERIFY(front(window).jobOverviewAction()->isEnabled());
        front(window).jobOverviewAction()->trigger();
        QVERIFY(front(window).jobPage()->isVisible());
        QCOMPARE(front(window).jobPage()->job(), job);
    }

    // Opening a rank hands the trace page the job's collective intervals of that rank, on its
    // own clock (inside its samples); the gap chart shades them; the job page's other ranks'
    // are not shown.
    void openedRankShowsItsCollectiveIntervals()
    {
        MainWindow window;
        QVERIFY(openJob(window, {distributed(QStringLiteral("missing-files"))}));
        const auto findings = front(window).jobPage()->jobFindings();
        QVERIFY(findings && !findings->intervals.empty());
        const int64_t rank = findings->intervals.back().rank;
        std::vector<JobCollectiveInterval> expected;
        for (const JobCollectiveInterval& interval : findings->intervals)
            if (interval.rank == rank)
                expected.push_back(interval);
        QVERIFY(expected.size() < findings->intervals.size()); // other ranks have theirs

        emit front(window).jobPage()->rankActivated(rank);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !window.isBusy() && front(window).tracePage()->isVisible() &&
                       front(window).analysis() && front(window).analysis()->rank == rank;
            },
            kLoadTimeoutMs));
        const GapChartView* chart = front(window).tracePage()->chart();
        const std::vector<JobCollectiveInterval>& shown = chart->collectiveIntervals();
        QCOMPARE(shown.size(), expected.size());
        const auto& store = front(window).analysis()->trace->store;
        const auto& usable = front(window).analysis()->usableRows;
        QVERIFY(!usable.empty());
        const int64_t first = store.timestampNs[usable.front()];
        const int64_t last = store.timestampNs[usable.back()];
        for (size_t i = 0; i < shown.size(); ++i) {
            QCOMPARE(shown[i].rank, rank);
            QCOMPARE(shown[i].startNs, expected[i].startNs);
            QCOMPARE(shown[i].endNs, expected[i].endNs);
            QCOMPARE(int(shown[i].classification), int(expected[i].classification));
            QVERIFY2(shown[i].endNs >= first && shown[i].startNs <= last,
                     qPrintable(QStringLiteral("interval %1..%2, samples %3..%4")
                                    .arg(shown[i].startNs)
                                    .arg(shown[i].endNs)
                                    .arg(first)
                                    .arg(last)));
            QVERIFY(!chart->collectiveToolTip((shown[i].startNs + shown[i].endNs) / 2).isEmpty());
        }

        // another rank of another input: its own intervals, none of the first rank's
        int64_t other = -1;
        for (const JobRank& r : front(window).jobPage()->job()->ranks)
            if (r.present && r.rank != rank)
                other = r.rank;
        front(window).jobOverviewAction()->trigger();
        emit front(window).jobPage()->rankActivated(other);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !window.isBusy() && front(window).tracePage()->isVisible() &&
                       front(window).analysis() && front(window).analysis()->rank == other;
            },
            kLoadTimeoutMs));
        for (const JobCollectiveInterval& interval : chart->collectiveIntervals())
            QCOMPARE(interval.rank, other);
    }

    // Export Report on the job page writes the job's report: the bytes `gapscope export` writes
    // for the same inputs (the Markdown's heatmap picture beside it too), not the trace page's.
    void exportReportIsTheJobs_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("suffix");
        QTest::newRow("json") << int(ExportFormat::Json) << QStringLiteral("json");
        QTest::newRow("markdown") << int(ExportFormat::Markdown) << QStringLiteral("md");
        QTest::newRow("html") << int(ExportFormat::Html) << QStringLiteral("html");
        QTest::newRow("findings csv") << int(ExportFormat::FindingsCsv) << QStringLiteral("csv");
    }

    void exportReportIsTheJobs()
    {
        QFETCH(int, format);
        QFETCH(QString, suffix);
        const QString folder = distributed(QStringLiteral("missing-files"));
        MainWindow window;
        QVERIFY(openJob(window, {folder}));
        // a rank visited first: the trace page holds its analysis, the job page is shown again
        emit front(window).jobPage()->rankActivated(1);
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        front(window).jobOverviewAction()->trigger();
        QVERIFY(front(window).jobPage()->isVisible());

        QTemporaryDir gui;
        QTemporaryDir cli;
        const QString name = QStringLiteral("report.") + suffix;
        QString error;
        QVERIFY2(window.exportActions()->writeReport(gui.filePath(name), ExportFormat(format),
                                                     kDefaultChartSize, false, &error),
                 qPrintable(error));
        const GapscopeRun run = runGapscope({QStringLiteral("export"), folder, QStringLiteral("--format"),
                                             exportFormatName(ExportFormat(format)),
                                             QStringLiteral("--output"), cli.filePath(name)});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QByteArray fromGui = readFile(gui.filePath(name));
        QVERIFY(!fromGui.isEmpty());
        QCOMPARE(fromGui, readFile(cli.filePath(name)));
        if (ExportFormat(format) == ExportFormat::Json)
            QVERIFY(fromGui.contains("\"ranks\"") && fromGui.contains("\"cross_rank_analysis\""));
        if (ExportFormat(format) == ExportFormat::Markdown) {
            QVERIFY(fromGui.contains("## Ranks") && fromGui.contains("(report-heatmap.png)"));
            const QImage picture(gui.filePath(QStringLiteral("report-heatmap.png")));
            QCOMPARE(picture.width(), kDefaultChartSize.width());
            QVERIFY(picture.height() > 100 && picture.height() <= kDefaultChartSize.height());
            QCOMPARE(picture, QImage(cli.filePath(QStringLiteral("report-heatmap.png"))));
        }
    }

    // Copy Finding as Markdown on the job page copies the selected job finding (collective
    // memory or first cause) with its rank's session and host.
    void copyFindingCopiesTheJobFinding()
    {
        MainWindow window;
        QVERIFY(openJob(window, {distributed(QStringLiteral("missing-files"))}));
        QAbstractItemView* findingsView = front(window).jobPage()->findingsView();
        const auto findings = front(window).jobPage()->jobFindings();
        QVERIFY(findings && !findings->findings.empty());
        findingsView->setCurrentIndex(findingsView->model()->index(0, 0));
        const int index = front(window).jobPage()->detailView()->findingIndex();
        QVERIFY(index >= 0);
        const Finding& finding = findings->findings[size_t(index)];
        QVERIFY(finding.rank);
        QVERIFY(window.exportActions()->copyFindingAction()->isEnabled());
        const QString markdown = window.exportActions()->selectedFindingMarkdown();
        QVERIFY2(markdown.startsWith(QStringLiteral("### 1. Collective memory")) ||
                     markdown.startsWith(QStringLiteral("### 1. First cause")),
                 qPrintable(markdown));
        QVERIFY2(markdown.contains(QStringLiteral("rank %1,").arg(*finding.rank)), qPrintable(markdown));
        const std::string_view classification = toString(finding.classification);
        const QString name = QString::fromLatin1(classification.data(), qsizetype(classification.size()));
        QVERIFY2(markdown.contains(QStringLiteral("- Classification: ") + markdownEscape(name)),
                 qPrintable(markdown));
        QVERIFY2(markdown.contains(QStringLiteral("- Input: ")), qPrintable(markdown));
        // not the trace page's finding
        emit front(window).jobPage()->rankActivated(*finding.rank);
        QVERIFY(QTest::qWaitFor([&] { return !window.isBusy() && front(window).tracePage()->isVisible(); },
                                kLoadTimeoutMs));
        QVERIFY(window.exportActions()->selectedFindingMarkdown() != markdown);
    }

    void singleRankFileStaysOnTracePage()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openPaths(
            {QString(GAPSCOPE_TEST_DATA_DIR) + QStringLiteral("/fixtures/stormlog/parity/mixed.jsonl")});
        QVERIFY(
            QTest::qWaitFor([&] { return !window.isBusy() && front(window).analysis(); }, kLoadTimeoutMs));
        QVERIFY(front(window).tracePage()->isVisible());
        QVERIFY(!front(window).jobPage()->job());
        QVERIFY(!front(window).jobOverviewAction()->isEnabled());
    }

    void closeClearsJob()
    {
        MainWindow window;
        window.show();
        window.openPaths({distributed(QStringLiteral("firstcause-job"))});
        QVERIFY(QTest::qWaitFor([&] { return jobPageShown(window); }, kLoadTimeoutMs));
        window.closeTrace();
        QVERIFY(window.isWelcomeShown());
        QVERIFY(!front(window).jobPage()->job());
        QVERIFY(!front(window).jobOverviewAction()->isEnabled());
    }
};

QTEST_MAIN(TestMainWindowJob)
#include "tst_mainwindow_job.moc"
