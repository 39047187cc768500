// The page of a distributed job: its views follow one view state (range, cursor), the
// toolbar switches measure and scale, the rank table's current row is outlined in the views,
// and a rank is activated from the table, a sparkline or a heatmap label.
#include "app/pages/JobPage.h"
#include "app/pages/ViewState.h"
#include "model/document/Document.h"
#include "model/items/FindingsModel.h"
#include "model/items/RankTableModel.h"
#include "model/job/JobAnalysis.h"
#include "model/document/JobOpen.h"
#include "model/job/JobLoader.h"
#include "model/job/JobRanks.h"
#include "tests/DarkPalette.h"
#include "tests/JobFixtures.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/job/JobViewStyle.h"
#include "widgets/job/RankSparklinesView.h"
#include "widgets/trace/FindingDetailView.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QPixmap>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QWheelEvent>

using namespace gapscope;
using namespace gapscope::test;

namespace {

struct PageFixture
{
    QAction resetZoom{QStringLiteral("Reset Zoom")};
    JobPage page{&resetZoom, nullptr};

    explicit PageFixture(const QStringList& inputs, const QString& expected = {})
    {
        page.resize(1400, 900);
        page.setJob(loadFixtureJob(inputs));
        if (!expected.isEmpty()) {
            page.setCrossRankSummary(expectedSummary(expected));
            page.setCollectiveIntervals(expectedIntervals(expected));
        }
        page.show();
    }
};

// The row of a rank in the table as shown (sorted).
int shownRow(const JobPage& page, qint64 rank)
{
    const QAbstractItemModel* model = page.rankTable()->model();
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, 0).data(RankTableModel::RankRole).toLongLong() == rank)
            return row;
    return -1;
}

// What the rank table's findings column shows, by rank.
std::vector<qlonglong> shownFindingCounts(const JobPage& page)
{
    std::vector<qlonglong> counts;
    for (const RankSeries& series : page.jobView()->ranks)
        counts.push_back(page.rankModel()
                             ->index(page.rankModel()->rowOfRank(series.rank), RankTableModel::FindingsColumn)
                             .data()
                             .toLongLong());
    return counts;
}

// Each rank's own gap findings with thresholds plus its findings of the job's analysis.
std::vector<qlonglong> expectedFindingCounts(const JobData& job, const JobFindings& findings,
                                             const GapThresholds& thresholds)
{
    AnalysisRequest each;
    each.thresholds = thresholds;
    const auto results = analyzeJobRanks(job, each);
    std::vector<qlonglong> counts;
    for (size_t i = 0; i < job.ranks.size(); ++i) {
        qlonglong count = results[i] ? qlonglong(results[i]->findings.size()) : 0;
        for (const Finding& finding : findings.findings)
            count += finding.rank == job.ranks[i].rank ? 1 : 0;
        counts.push_back(count);
    }
    return counts;
}

} // namespace

class TestJobPage : public QObject
{
    Q_OBJECT

private slots:
    void showsAJob()
    {
        PageFixture f(firstCauseInputs(), QStringLiteral("firstcause-job"));
        JobPage& page = f.page;
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(page.hasDocument() && page.hasResult());
        QVERIFY(!page.hasFindings());
        QVERIFY(!page.isWindowAnalysis());
        QCOMPARE(page.chartWidget(), static_cast<QWidget*>(page.heatmap()));
        QCOMPARE(page.heatmap()->job(), page.jobView());
        QCOMPARE(page.rankModel()->rowCount(), 4);
        QVERIFY(page.documentPath().endsWith(QStringLiteral("distributed/firstcause-job")));
        QVERIFY(page.problems());
        // the view state holds the heatmap's range, the sparklines follow it; the cursor at the start
        const TimeRange range = page.viewState()->visibleRange();
        QCOMPARE(range.beginNs, page.heatmap()->visibleBeginNs());
        QCOMPARE(range.endNs, page.heatmap()->visibleEndNs());
        QCOMPARE(page.sparklines()->visibleBeginNs(), range.beginNs);
        QCOMPARE(page.sparklines()->visibleEndNs(), range.endNs);
        QCOMPARE(page.heatmap()->cursorTime(), std::optional<qint64>(range.beginNs));
        // the summary reached every view
        QVERIFY(page.heatmap()->crossRankSummary().has_value());
        QCOMPARE(page.heatmap()->collectiveIntervals().size(), size_t(9));
        const QString info = page.findChild<QLabel*>(QStringLiteral("jobInfo"))->text();
        QVERIFY2(info.contains(QStringLiteral("job-268")) &&
                     info.contains(QStringLiteral("first cause: rank 3 (high)")),
                 qPrintable(info));
        QCOMPARE(page.rankTable()
                     ->model()
                     ->index(shownRow(page, 3), RankTableModel::FirstCauseColumn)
                     .data()
                     .toString(),
                 QStringLiteral("first cause (high)"));
        QVERIFY(page.grab().save(QStringLiteral("/tmp/jobpage.png")));
        page.setPalette(darkPalette());
        QVERIFY(page.grab().save(QStringLiteral("/tmp/jobpage-dark.png")));
    }

    void viewsFollowTheViewState()
    {
        PageFixture f(skewInputs(), QStringLiteral("skew-job"));
        JobPage& page = f.page;
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const TimeRange full = page.viewState()->visibleRange();
        const qint64 third = (full.endNs - full.beginNs) / 3;
        page.viewState()->zoomTo(full.beginNs + third, full.beginNs + 2 * third);
        QCOMPARE(page.heatmap()->visibleBeginNs(), full.beginNs + third);
        QCOMPARE(page.sparklines()->visibleEndNs(), full.beginNs + 2 * third);
        // the heatmap's wheel goes to the state, and from there to the sparklines
        JobHeatmapView* heatmap = page.heatmap();
        const QPoint middle = heatmap->plotRect().center();
        QWheelEvent wheel(QPointF(middle), QPointF(heatmap->mapToGlobal(middle)), QPoint(), QPoint(0, 120),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(heatmap, &wheel);
        const TimeRange zoomed = page.viewState()->visibleRange();
        QVERIFY(zoomed.endNs - zoomed.beginNs < third);
        QCOMPARE(page.sparklines()->visibleBeginNs(), zoomed.beginNs);
        QCOMPARE(page.sparklines()->visibleEndNs(), zoomed.endNs);
        // a range past the data is clamped by the heatmap, and every view ends up with the clamped one
        page.viewState()->setVisibleRange(full.beginNs - 10 * third, full.beginNs - 9 * third);
        QCOMPARE(page.viewState()->visibleRange().beginNs, full.beginNs);
        QCOMPARE(page.sparklines()->visibleBeginNs(), full.beginNs);
        // Ctrl+wheel on the sparklines zooms through the state
        const TimeRange before = page.viewState()->visibleRange();
        QWidget* rows = page.sparklines()->rowsWidget();
        const QPoint onLine = page.sparklines()->plotRect(0).center();
        QWheelEvent ctrlWheel(QPointF(onLine), QPointF(rows->mapToGlobal(onLine)), QPoint(), QPoint(0, 120),
                              Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(rows, &ctrlWheel);
        QVERIFY(page.viewState()->visibleRange().endNs - page.viewState()->visibleRange().beginNs <
                before.endNs - before.beginNs);
        QCOMPARE(page.heatmap()->visibleBeginNs(), page.viewState()->visibleRange().beginNs);
        // Reset Zoom: everything, as a new zoom step
        page.resetZoom();
        QCOMPARE(page.viewState()->visibleRange(), full);
        QVERIFY(page.viewState()->canZoomBack());

        // the cursor: a click in the heatmap, the state, both views and the status text
        QSignalSpy values(&page, &DocumentPage::cursorValuesChanged);
        const int x = heatmap->plotRect().left() + heatmap->plotRect().width() / 2;
        QTest::mouseClick(heatmap, Qt::LeftButton, Qt::NoModifier,
                          QPoint(x, heatmap->rowRect(1).center().y()));
        const qint64 cursor = heatmap->pixelAxis().toNs(x);
        QCOMPARE(page.viewState()->cursorNs(), cursor);
        QVERIFY(values.count() >= 1);
        const QString text = values.last().at(0).toString();
        QVERIFY2(text.contains(QStringLiteral("largest gap: rank")) &&
                     text.contains(QStringLiteral("8 of 8 ranks")),
                 qPrintable(text));
    }

    void measureAndScale()
    {
        PageFixture f(firstCauseInputs());
        JobPage& page = f.page;
        QCOMPARE(page.measure(), JobMeasure::Gap);
        page.ratioAction()->trigger();
        QCOMPARE(page.measure(), JobMeasure::GapRatio);
        QCOMPARE(page.heatmap()->measure(), JobMeasure::GapRatio);
        QCOMPARE(page.sparklines()->measure(), JobMeasure::GapRatio);
        QVERIFY(!page.gapAction()->isChecked());
        page.setMeasure(JobMeasure::Gap);
        QVERIFY(page.gapAction()->isChecked());
        QCOMPARE(page.heatmap()->measure(), JobMeasure::Gap);
        QVERIFY(page.sparklines()->sharedScale());
        page.sharedScaleAction()->trigger();
        QVERIFY(!page.sparklines()->sharedScale());
    }

    void ranksAreSelectedAndActivated()
    {
        PageFixture f(missingFilesInputs(), QStringLiteral("missing-files"));
        JobPage& page = f.page;
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy activated(&page, &JobPage::rankActivated);
        QTableView* table = page.rankTable();
        // Enter on the table's current row
        table->setFocus();
        table->setCurrentIndex(table->model()->index(shownRow(page, 2), 0));
        QCOMPARE(page.currentRank(), std::optional<int64_t>(2));
        QTest::keyClick(table, Qt::Key_Return);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toLongLong(), 2);
        // a double click on another row
        const QModelIndex row1 = table->model()->index(shownRow(page, 1), RankTableModel::HostColumn);
        const QPoint centre = table->visualRect(row1).center();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, centre);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, centre);
        QCOMPARE(activated.count(), 2);
        QCOMPARE(activated.at(1).at(0).toLongLong(), 1);
        // a click on a heatmap label selects the rank in the table and activates it
        JobHeatmapView* heatmap = page.heatmap();
        QTest::mouseClick(heatmap, Qt::LeftButton, Qt::NoModifier,
                          QPoint(heatmap->gutterRect().center().x(), heatmap->rowRect(0).center().y()));
        QCOMPARE(activated.count(), 3);
        QCOMPARE(activated.at(2).at(0).toLongLong(), 0);
        QCOMPARE(page.currentRank(), std::optional<int64_t>(0));
        // the table's look: the missing rank greyed, the leading suspect in its confidence's colour
        const QAbstractItemModel* shown = table->model();
        QCOMPARE(shown->index(shownRow(page, 3), RankTableModel::HostColumn)
                     .data(Qt::ForegroundRole)
                     .value<QColor>(),
                 QApplication::palette().color(QPalette::PlaceholderText));
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("missing-files"));
        const JobFirstCauseSuspect& lead = summary.firstCauseSuspects.front();
        const QModelIndex leadCell =
            shown->index(shownRow(page, lead.rank), RankTableModel::FirstCauseColumn);
        QCOMPARE(leadCell.data(Qt::ForegroundRole).value<QColor>(),
                 suspectColor(lead.confidence, QApplication::palette()));
        QVERIFY(leadCell.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!shown->index(shownRow(page, lead.rank), RankTableModel::RankColumn)
                     .data(Qt::DecorationRole)
                     .value<QPixmap>()
                     .isNull());
        // sorted differently, the table still finds its ranks
        table->sortByColumn(RankTableModel::PeakGapColumn, Qt::DescendingOrder);
        page.selectRank(3);
        QCOMPARE(page.currentRank(), std::optional<int64_t>(3));
        QCOMPARE(table->currentIndex().row(), shownRow(page, 3));
    }

    void stepsTheCursorOverTheCurrentRank()
    {
        PageFixture f(skewInputs(), QStringLiteral("skew-job"));
        JobPage& page = f.page;
        page.selectRank(2);
        const JobViewData& view = *page.jobView();
        const RankSeries& rank2 = *view.findRank(2);
        const int64_t offset = expectedSummary(QStringLiteral("skew-job")).offsetOf(2);
        page.setCursorTime(rank2.timeAt(10) - offset);
        page.stepCursor(1);
        QCOMPARE(page.viewState()->cursorNs(), rank2.timeAt(11) - offset);
        page.stepCursor(-5);
        QCOMPARE(page.viewState()->cursorNs(), rank2.timeAt(6) - offset);
        page.stepCursor(-100);
        QCOMPARE(page.viewState()->cursorNs(), rank2.timeAt(0) - offset);
    }

    void findingsSelectTheirRankAndTime()
    {
        PageFixture f(firstCauseInputs());
        JobPage& page = f.page;
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(!page.hasFindings());
        QSignalSpy state(&page, &DocumentPage::stateChanged);
        page.setGapFindingCounts({1, 0, 2}); // rank 3's own findings not known: 0
        QCOMPARE(page.rankModel()->index(0, RankTableModel::FindingsColumn).data().toString(),
                 QStringLiteral("1"));
        page.setJobAnalysis(analyzeJob(*page.job()));
        QVERIFY(state.count() >= 1);
        const auto findings = page.jobFindings();
        QVERIFY(findings);
        QVERIFY(page.hasFindings());
        QCOMPARE(page.findingsModel()->rowCount(), int(findings->findings.size()));
        QVERIFY(page.findingsModel()->rowCount() > 0);
        // the views got upstream's intervals and summary
        QCOMPARE(page.heatmap()->collectiveIntervals().size(),
                 expectedIntervals(QStringLiteral("firstcause-job")).size());
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("firstcause-job"));
        QVERIFY(page.heatmap()->crossRankSummary());
        QCOMPARE(page.heatmap()->crossRankSummary()->alignmentOffsetsNs, summary.alignmentOffsetsNs);
        // each rank counts its gap findings plus its job findings
        const std::vector<int64_t> gap{1, 0, 2, 0};
        const std::vector<int64_t> own = findings->countsByRank(std::vector<int64_t>{0, 1, 2, 3});
        for (int r = 0; r < 4; ++r)
            QCOMPARE(page.rankModel()
                         ->index(page.rankModel()->rowOfRank(r), RankTableModel::FindingsColumn)
                         .data()
                         .toLongLong(),
                     gap[size_t(r)] + own[size_t(r)]);

        // the leading suspect's finding: rank 3 current, the cursor at its aligned first spike
        const JobFirstCauseSuspect& lead = summary.firstCauseSuspects.front();
        QTableView* table = page.findingsView();
        const auto rowOf = [&](const char* classification, int64_t rank, int64_t rawNs) {
            for (int row = 0; row < table->model()->rowCount(); ++row) {
                const QModelIndex index = table->model()->index(row, 0);
                if (index.data(FindingsModel::ClassificationKeyRole).toString() ==
                        QLatin1String(classification) &&
                    index.data(FindingsModel::RankRole).toLongLong() == rank &&
                    index.data(FindingsModel::EvidenceTimeRole).toLongLong() == rawNs)
                    return row;
            }
            return -1;
        };
        const int leadRow = rowOf("first_cause", lead.rank, lead.firstSpikeNs);
        QVERIFY(leadRow >= 0);
        QCOMPARE(table->model()->index(leadRow, FindingsModel::ClassificationColumn).data().toString(),
                 QStringLiteral("First cause · rank %1").arg(lead.rank));
        table->setCurrentIndex(table->model()->index(leadRow, 0));
        QCOMPARE(page.currentRank(), std::optional<int64_t>(lead.rank));
        QCOMPARE(page.viewState()->cursorNs(), lead.alignedFirstSpikeNs);
        QCOMPARE(page.heatmap()->cursorTime(), std::optional<qint64>(lead.alignedFirstSpikeNs));
        QVERIFY(page.detailView()->plainText().contains(QStringLiteral("rank %1 at").arg(lead.rank)));
        QVERIFY(page.detailView()->plainText().contains(QStringLiteral("data loader")));
        // a collective interval of rank 1, whose clock runs 3 ms apart: the cursor in aligned time
        const JobCollectiveInterval* interval = nullptr;
        for (const JobCollectiveInterval& i : findings->intervals)
            if (i.rank == 1 && !interval)
                interval = &i;
        QVERIFY(interval);
        QCOMPARE(summary.offsetOf(1), -3'000'000);
        const int intervalRow = rowOf("collective_memory", 1, interval->startNs);
        QVERIFY(intervalRow >= 0);
        table->setCurrentIndex(table->model()->index(intervalRow, 0));
        QCOMPARE(page.currentRank(), std::optional<int64_t>(1));
        QCOMPARE(page.viewState()->cursorNs(), interval->startNs + 3'000'000);
        QVERIFY(page.detailView()->plainText().contains(QStringLiteral("NCCL_BUFFSIZE")));
        QCOMPARE(page.detailView()->findingIndex(),
                 table->model()->index(intervalRow, 0).data(FindingsModel::FindingIndexRole).toInt());
        // F8 steps to the next finding, which also moves the cursor
        page.stepFinding(1);
        const Finding* next = page.findingsModel()->finding(
            table->currentIndex().data(FindingsModel::FindingIndexRole).toInt());
        QVERIFY(next);
        QCOMPARE(page.viewState()->cursorNs(), findings->alignedTimeNs(*next));
        QCOMPARE(page.currentRank(), next->rank);
        // a new job forgets them
        page.setJob(loadFixtureJob(missingFilesInputs()));
        QVERIFY(!page.jobFindings());
        QCOMPARE(page.findingsModel()->rowCount(), 0);
        QVERIFY(page.rankModel()->index(0, RankTableModel::FindingsColumn).data().toString().isEmpty());
        page.setJobAnalysis(nullptr);
        QVERIFY(!page.hasFindings());
    }

    // The real DDP job (tests/data/fixtures/real-gpu/ddp-samples): rank 2's reserved memory
    // departs from its peers', a warning naming it in the findings, marked in the rank table and
    // the heatmap; upstream's first-cause suspects (0 high, 1 low) spiked at start-up: information
    // rows and the first_cause_at_startup notice above the findings. GAPSCOPE_JOBPAGE_SCREENSHOT=
    // FILE.png saves the page (the screenshot of issue 31 was made this way).
    void namesTheDivergentRank()
    {
        QStringList paths;
        for (int r = 0; r < 4; ++r)
            paths << QStringLiteral(GAPSCOPE_TEST_DATA_DIR
                                    "/fixtures/real-gpu/ddp-samples/rank%1/telemetry_sink")
                         .arg(r);
        QAction resetZoom(QStringLiteral("Reset Zoom"));
        JobPage page(&resetZoom, nullptr);
        page.resize(1400, 900);
        page.setJob(loadJob(paths).job);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setJobAnalysis(analyzeJob(*page.job()));
        QTableView* table = page.findingsView();
        int divergence = -1;
        int firstCause = 0;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QModelIndex index = table->model()->index(row, 0);
            const QString key = index.data(FindingsModel::ClassificationKeyRole).toString();
            const auto severity = Severity(index.data(FindingsModel::SeverityRole).toInt());
            if (key == QLatin1String("rank_divergence")) {
                divergence = row;
                QVERIFY(severity == Severity::Warning);
                QCOMPARE(index.data(FindingsModel::RankRole).toLongLong(), 2);
            } else if (key == QLatin1String("first_cause")) {
                ++firstCause;
                QVERIFY(severity == Severity::Info); // start-up: no alarm
            }
        }
        QVERIFY(divergence >= 0);
        QCOMPARE(firstCause, 2);
        QCOMPARE(table->model()->index(divergence, FindingsModel::ClassificationColumn).data().toString(),
                 QStringLiteral("Rank divergence · rank 2"));
        table->setCurrentIndex(table->model()->index(divergence, 0));
        QCOMPARE(page.currentRank(), std::optional<int64_t>(2));
        QVERIFY(page.detailView()->plainText().contains(QStringLiteral("Rank 2's reserved memory grew")));
        // the notice above the findings, the line above the heatmap
        QVERIFY(page.findingsNotice()->isVisibleTo(&page));
        QVERIFY(page.findingsNotice()->text().contains(QStringLiteral("First cause at start-up")));
        const QLabel* info = page.findChild<QLabel*>(QStringLiteral("jobInfo"));
        QVERIFY(info);
        QVERIFY2(info->text().contains(QStringLiteral("diverges: rank 2 (reserved)")),
                 qPrintable(info->text()));
        QVERIFY(info->text().contains(QStringLiteral("high, start-up")));
        // the table and the heatmap mark rank 2
        const QModelIndex cell =
            page.rankTable()->model()->index(shownRow(page, 2), RankTableModel::DivergenceColumn);
        QCOMPARE(cell.data().toString(), QStringLiteral("reserved"));
        QCOMPARE(cell.data(Qt::ForegroundRole).value<QColor>(), severityColor(Severity::Warning));
        QCOMPARE(page.heatmap()->divergentRanks().size(), size_t(1));
        const QRect row2 = page.heatmap()->rowRect(2);
        const QPoint label(page.heatmap()->gutterRect().center().x(), row2.center().y());
        QVERIFY(page.heatmap()->toolTipAt(label).contains(QStringLiteral("departs from its peers")));
        QVERIFY(!page.heatmap()
                     ->toolTipAt(QPoint(label.x(), page.heatmap()->rowRect(0).center().y()))
                     .contains(QStringLiteral("departs from its peers")));
        if (const QByteArray out = qgetenv("GAPSCOPE_JOBPAGE_SCREENSHOT"); !out.isEmpty()) {
            page.resize(1920, 1000); // wide enough for the info line and the Diverges column
            page.rankTable()->scrollTo(cell);
            QTest::qWait(50);
            QVERIFY(page.grab().save(QString::fromLocal8Bit(out)));
        }
    }

    // The page does its own work: a job opened is shown at once, its cross-rank analyses and
    // each rank's gap findings arrive from the page's background work (what analyzeJob and
    // analyzeJobRanks give), new thresholds count the rank findings again, and Now waits.
    void analysesTheJobItOpens_data()
    {
        QTest::addColumn<QStringList>("inputs");
        QTest::addColumn<int>("mode");
        QTest::newRow("firstcause-job, background") << firstCauseInputs() << int(OpenMode::Background);
        QTest::newRow("skew-job, background") << skewInputs() << int(OpenMode::Background);
        QTest::newRow("missing-files, now") << missingFilesInputs() << int(OpenMode::Now);
    }

    void analysesTheJobItOpens()
    {
        QFETCH(QStringList, inputs);
        QFETCH(int, mode);
        QAction resetZoom;
        JobPage page(&resetZoom, nullptr);
        const std::shared_ptr<const JobData> job = loadFixtureJob(inputs);
        QString error;
        QVERIFY(page.open(LoadedDocument{nullptr, nullptr, job}, &error));
        QCOMPARE(page.job(), job);
        QVERIFY(!page.jobFindings() && !page.isWorking()); // shown, not analysed yet
        QVERIFY(page.analyseOpened(OpenMode(mode), &error));
        if (OpenMode(mode) == OpenMode::Background)
            page.waitForWork();
        QVERIFY(!page.isWorking());
        const auto findings = page.jobFindings();
        QVERIFY(findings && page.jobAnalysis());
        const auto expected = buildJobFindings(analyzeJob(*job), job.get());
        QCOMPARE(findings->findings.size(), expected->findings.size());
        QCOMPARE(findings->intervals.size(), expected->intervals.size());
        QCOMPARE(page.heatmap()->collectiveIntervals().size(), expected->intervals.size());
        QVERIFY(findings->summary && expected->summary);
        QCOMPARE(findings->summary->alignmentOffsetsNs, expected->summary->alignmentOffsetsNs);
        QCOMPARE(shownFindingCounts(page), expectedFindingCounts(*job, *findings, page.thresholds()));
        QCOMPARE(page.reloadPaths().size(), qsizetype(job->inputs.size()));

        // stricter thresholds: the page counts each rank's findings again
        GapThresholds strict = page.thresholds();
        strict.gapRatio = 0.9;
        strict.spikeZScore = 50;
        const std::vector<qlonglong> strictCounts = expectedFindingCounts(*job, *findings, strict);
        QVERIFY(strictCounts != shownFindingCounts(page)); // these ranks' spikes are under z 50
        page.setThresholds(strict);
        QVERIFY(page.isWorking());
        page.waitForWork();
        QCOMPARE(shownFindingCounts(page), strictCounts);
    }

    // A newer job, or clear(), drops what the page's work had under way for the older one.
    void aNewerJobDropsTheOlderResults_data()
    {
        QTest::addColumn<bool>("clearInstead");
        QTest::newRow("another job") << false;
        QTest::newRow("clear") << true;
    }

    void aNewerJobDropsTheOlderResults()
    {
        QFETCH(bool, clearInstead);
        QAction resetZoom;
        JobPage page(&resetZoom, nullptr);
        QString error;
        QVERIFY(page.open(LoadedDocument{nullptr, nullptr, loadFixtureJob(skewInputs())}, &error));
        QVERIFY(page.analyseOpened(OpenMode::Background, &error));
        const auto second = loadFixtureJob(firstCauseInputs());
        if (clearInstead)
            page.clear();
        else
            QVERIFY(page.open(LoadedDocument{nullptr, nullptr, second}, &error));
        QVERIFY(!page.isWorking());
        page.waitForWork();
        QVERIFY(!page.jobFindings()); // the first job's analyses never arrive
        QCOMPARE(page.job(), clearInstead ? nullptr : second);
        if (!clearInstead) // nor its counts: unknown until the second job is analysed
            QVERIFY(page.rankModel()->index(0, RankTableModel::FindingsColumn).data().toString().isEmpty());
    }

    // A trace opened on the trace page of the tab: one whose session holds several ranks shows
    // its job here and goes in front of the trace's first result (once), analysed by the page;
    // a trace of one rank, or a screenshot (Now), clears the page.
    void opensTheJobOfATraceOfSeveralRanks_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("ranks");
        const QString merged = distributedFixture(QStringLiteral("collective-merged.jsonl"));
        QTest::newRow("several ranks") << merged << int(OpenMode::Background) << 3;
        QTest::newRow("several ranks, screenshot") << merged << int(OpenMode::Now) << 0;
        QTest::newRow("one rank") << QStringLiteral(GAPSCOPE_TEST_DATA_DIR
                                                    "/fixtures/stormlog/parity/mixed.jsonl")
                                  << int(OpenMode::Background) << 0;
    }

    void opensTheJobOfATraceOfSeveralRanks()
    {
        QFETCH(QString, file);
        QFETCH(int, mode);
        QFETCH(int, ranks);
        QAction resetZoom;
        JobPage page(&resetZoom, nullptr);
        QString error;
        QVERIFY(page.open(LoadedDocument{nullptr, nullptr, loadFixtureJob(skewInputs())}, &error));
        const DocumentOutcome document = loadDocument(file);
        QVERIFY(document.trace);
        page.openBeside(LoadedDocument{document.trace, nullptr, nullptr}, OpenMode(mode));
        QCOMPARE(page.hasDocument(), ranks > 0);
        QCOMPARE(page.takeShowFirst(), ranks > 0);
        QVERIFY(!page.takeShowFirst()); // once
        if (ranks == 0)
            return;
        QCOMPARE(int(page.job()->ranks.size()), ranks);
        page.waitForWork();
        QVERIFY(page.jobFindings() && !page.jobFindings()->intervals.empty());
        QCOMPARE(shownFindingCounts(page),
                 expectedFindingCounts(*page.job(), *page.jobFindings(), page.thresholds()));
        // the trace of every rank is the one opened: each rank's intervals shade it
        QCOMPARE(page.collectiveIntervalsOf(document.trace).size(), page.jobFindings()->intervals.size());
        QVERIFY(page.collectiveIntervalsOf(loadFixtureJob(skewInputs())->inputs.front().trace).empty());
    }

    void manyRanksAndClear()
    {
        QAction resetZoom;
        JobPage page(&resetZoom, nullptr);
        page.resize(1200, 800);
        page.setJobView(syntheticJob(96, 500, 10'000'000, [](int r, int i) { return int64_t(r + i) << 20; }));
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(page.sparklines()->isOverLimit());
        QVERIFY(page.sparklines()->noteText().contains(QStringLiteral("heatmap")));
        QCOMPARE(page.rankModel()->rowCount(), 96);
        QVERIFY(page.documentPath().isEmpty()); // made in memory: no input
        page.grab().save(QStringLiteral("/tmp/jobpage-96.png"));
        QSignalSpy state(&page, &DocumentPage::stateChanged);
        page.clear();
        QVERIFY(!page.hasDocument());
        QVERIFY(!page.problems());
        QCOMPARE(page.rankModel()->rowCount(), 0);
        QVERIFY(!page.heatmap()->job());
        QVERIFY(state.count() >= 1);
        page.stepCursor(1); // nothing to step over
        page.resetZoom();
        QVERIFY(!page.grab().isNull());
    }
};

QTEST_MAIN(TestJobPage)
#include "tst_jobpage.moc"
