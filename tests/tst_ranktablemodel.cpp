// The rank table of a distributed job: one row per rank (missing ones too), the figures of
// each rank against the store, byte columns through the text helpers, numeric sorting through
// QSortFilterProxyModel, finding counts, first-cause suspects and divergent ranks.
#include "model/items/RankTableModel.h"
#include "model/job/JobFindings.h"
#include "model/text/Text.h"
#include "tests/JobFixtures.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace gapscope;
using namespace gapscope::test;

namespace {

// The ranks of the proxy's rows, top to bottom.
QList<qlonglong> rankOrder(const QAbstractItemModel& model)
{
    QList<qlonglong> ranks;
    for (int row = 0; row < model.rowCount(); ++row)
        ranks << model.index(row, 0).data(RankTableModel::RankRole).toLongLong();
    return ranks;
}

// last - first of a counter over the rank's sample rows, read straight from the store
int64_t storeDelta(const RankSeries& series, const std::vector<int64_t>& column)
{
    std::vector<int64_t> recorded;
    for (uint32_t row : series.rows)
        if (column[row] != kNullInt)
            recorded.push_back(column[row]);
    return recorded.back() - recorded.front();
}

} // namespace

class TestRankTableModel : public QObject
{
    Q_OBJECT

private slots:
    void rowsOfAJob()
    {
        const auto job = buildJobViewData(loadFixtureJob(firstCauseInputs()));
        QVERIFY(job);
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(RankTableModel::ColumnCount));
        // upstream counts the same samples per rank
        const QJsonObject counts = expectedOutput(QStringLiteral("firstcause-job"))
                                       .value(QStringLiteral("cross_rank_analysis"))
                                       .toObject()
                                       .value(QStringLiteral("rank_sample_counts"))
                                       .toObject();
        for (int row = 0; row < 4; ++row) {
            const RankSeries& series = job->ranks[size_t(row)];
            auto at = [&](int column, int role = Qt::DisplayRole) {
                return model.index(row, column).data(role);
            };
            QCOMPARE(at(0, RankTableModel::RankRole).toLongLong(), row);
            QCOMPARE(at(RankTableModel::RankColumn).toString(), QString::number(row));
            QCOMPARE(at(RankTableModel::HostColumn).toString(), series.host);
            QVERIFY(!series.host.isEmpty());
            QCOMPARE(at(RankTableModel::LocalRankColumn).toString(), QString::number(series.localRank));
            QCOMPARE(at(RankTableModel::StatusColumn).toString(), QStringLiteral("present"));
            QCOMPARE(at(RankTableModel::SamplesColumn, RankTableModel::SortRole).toLongLong(),
                     counts.value(QString::number(row)).toInteger());
            const EventStore& store = series.store();
            const int64_t allocated = storeDelta(series, store.allocated);
            const int64_t reserved = storeDelta(series, store.reserved);
            QCOMPARE(at(RankTableModel::AllocatedDeltaColumn).toString(), signedBytesText(double(allocated)));
            QCOMPARE(at(RankTableModel::AllocatedDeltaColumn, RankTableModel::SortRole).toLongLong(),
                     allocated);
            QCOMPARE(at(RankTableModel::ReservedDeltaColumn).toString(), signedBytesText(double(reserved)));
            const int64_t latest = store.gapAt(series.rows.back());
            QCOMPARE(at(RankTableModel::LatestGapColumn).toString(), bytesText(latest));
            int64_t peak = 0;
            for (uint32_t r : series.rows)
                if (std::abs(store.gapAt(r)) > std::abs(peak))
                    peak = store.gapAt(r);
            QCOMPARE(at(RankTableModel::PeakGapColumn).toString(), bytesText(peak));
            QCOMPARE(at(RankTableModel::PeakGapColumn, RankTableModel::SortRole).toLongLong(),
                     std::abs(peak));
            QCOMPARE(at(RankTableModel::FindingsColumn).toString(), QString()); // not known yet
            QCOMPARE(at(RankTableModel::FirstCauseColumn).toString(), QString());
            QCOMPARE(at(RankTableModel::SamplesColumn, Qt::TextAlignmentRole).toInt(),
                     int(Qt::AlignRight | Qt::AlignVCenter));
        }
        for (int column = 0; column < RankTableModel::ColumnCount; ++column)
            QVERIFY(!model.headerData(column, Qt::Horizontal).toString().isEmpty());
        QCOMPARE(model.rowOfRank(2), 2);
        QCOMPARE(model.rowOfRank(9), -1);
        QVERIFY(!model.rankAt(7));
    }

    // One file, several ranks: the partitions of one session are the job's ranks.
    void oneInputSeveralRanks()
    {
        const auto data = loadFixtureJob({QStringLiteral("collective-merged.jsonl")});
        QVERIFY(data);
        QCOMPARE(data->inputs.size(), size_t(1));
        const auto job = buildJobViewData(data);
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        QCOMPARE(model.rowCount(), 3);
        const QJsonObject counts = expectedOutput(QStringLiteral("collective-merged.jsonl"))
                                       .value(QStringLiteral("cross_rank_analysis"))
                                       .toObject()
                                       .value(QStringLiteral("rank_sample_counts"))
                                       .toObject();
        for (int row = 0; row < 3; ++row) {
            const RankSeries& series = job->ranks[size_t(row)];
            QCOMPARE(series.trace, data->inputs.front().trace); // one store, three partitions
            QCOMPARE(
                model.index(row, RankTableModel::SamplesColumn).data(RankTableModel::SortRole).toLongLong(),
                counts.value(QString::number(row)).toInteger());
            QCOMPARE(qint64(series.rows.size()), counts.value(QString::number(row)).toInteger());
            for (uint32_t r : series.rows)
                QCOMPARE(series.store().sources[series.store().source[r]].rank, series.rank);
        }
    }

    void missingRanks()
    {
        const auto job = buildJobViewData(loadFixtureJob(missingFilesInputs()));
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        QCOMPARE(model.rowCount(), 4);
        const int row = model.rowOfRank(3);
        QCOMPARE(row, 3);
        QCOMPARE(model.index(row, RankTableModel::StatusColumn).data().toString(), QStringLiteral("missing"));
        QCOMPARE(model.index(row, 0).data(RankTableModel::PresentRole).toBool(), false);
        for (int column : {int(RankTableModel::SamplesColumn), int(RankTableModel::LatestGapColumn),
                           int(RankTableModel::PeakGapColumn), int(RankTableModel::AllocatedDeltaColumn)})
            QCOMPARE(model.index(row, column).data().toString(), QString());
        QVERIFY(model.index(row, RankTableModel::HostColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("missing")));
        // in ascending order a missing rank's unknown figures come last
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RankTableModel::SortRole);
        for (int column : {int(RankTableModel::SamplesColumn), int(RankTableModel::PeakGapColumn),
                           int(RankTableModel::StatusColumn)}) {
            proxy.sort(column, Qt::AscendingOrder);
            QCOMPARE(rankOrder(proxy).last(), 3);
        }
    }

    // Numbers sort as numbers (10 after 9), bytes by value, the peak by magnitude.
    void numericSort()
    {
        auto job = std::make_shared<JobViewData>(*syntheticJob(4, 50, 1'000'000, [](int r, int i) {
            // rank 1 dips far below zero: the largest magnitude of all
            const int64_t gaps[] = {int64_t(3) << 20, -(int64_t(5) << 30), int64_t(4) << 30,
                                    int64_t(900) << 10};
            return i == 25 ? gaps[r] : int64_t(1) << 20;
        }));
        job->ranks[0].rank = 10;
        job->ranks[1].rank = 9;
        job->ranks[2].rank = 100;
        job->ranks[3].rank = 2;
        job->ranks[0].sampleCount = 100;
        job->ranks[1].sampleCount = 9;
        job->ranks[2].sampleCount = 1000;
        job->ranks[3].sampleCount = 20;
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RankTableModel::SortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(RankTableModel::RankColumn, Qt::AscendingOrder);
        QCOMPARE(rankOrder(proxy), (QList<qlonglong>{2, 9, 10, 100}));
        proxy.sort(RankTableModel::SamplesColumn, Qt::DescendingOrder);
        QCOMPARE(rankOrder(proxy), (QList<qlonglong>{100, 10, 2, 9}));
        proxy.sort(RankTableModel::PeakGapColumn, Qt::DescendingOrder);
        QCOMPARE(rankOrder(proxy), (QList<qlonglong>{9, 100, 10, 2}));
        QCOMPARE(proxy.index(0, RankTableModel::PeakGapColumn).data().toString(),
                 bytesText(-(int64_t(5) << 30)));
        // the latest gap sorts signed
        proxy.sort(RankTableModel::LatestGapColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, RankTableModel::LatestGapColumn).data(RankTableModel::SortRole).toLongLong(),
                 job->ranks[0].latestGap.value());
    }

    void findingCounts()
    {
        const auto job = buildJobViewData(loadFixtureJob(firstCauseInputs()));
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setFindingCounts({3, 0, 12}); // rank 3 not known
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().column(), int(RankTableModel::FindingsColumn));
        QCOMPARE(changed.at(0).at(1).toModelIndex().row(), 3);
        QCOMPARE(model.index(0, RankTableModel::FindingsColumn).data().toString(), QStringLiteral("3"));
        QCOMPARE(model.index(2, RankTableModel::FindingsColumn).data().toString(), QStringLiteral("12"));
        QCOMPARE(model.index(3, RankTableModel::FindingsColumn).data().toString(), QString());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RankTableModel::SortRole);
        proxy.sort(RankTableModel::FindingsColumn, Qt::DescendingOrder);
        QCOMPARE(rankOrder(proxy), (QList<qlonglong>{3, 2, 0, 1})); // unknown first when descending
        proxy.sort(RankTableModel::FindingsColumn, Qt::AscendingOrder);
        QCOMPARE(rankOrder(proxy), (QList<qlonglong>{1, 0, 2, 3}));
        // a new job forgets the counts
        model.setJob(job);
        QCOMPARE(model.index(0, RankTableModel::FindingsColumn).data().toString(), QString());
    }

    void firstCauseSuspects()
    {
        const auto job = buildJobViewData(loadFixtureJob(firstCauseInputs()));
        const JobCrossRankSummary summary = expectedSummary(QStringLiteral("firstcause-job"));
        QCOMPARE(summary.firstCauseSuspects.front().rank, 3);
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        model.setCrossRankSummary(summary);
        QCOMPARE(model.index(3, RankTableModel::FirstCauseColumn).data().toString(),
                 QStringLiteral("first cause (high)"));
        QCOMPARE(model.index(3, 0).data(RankTableModel::FirstCauseRole).toInt(), 2);
        QCOMPARE(model.index(3, 0).data(RankTableModel::SuspectConfidenceRole).toString(),
                 QStringLiteral("high"));
        const QString tip = model.index(3, RankTableModel::FirstCauseColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("0.300 s before the cluster onset")), qPrintable(tip));
        for (const JobFirstCauseSuspect& suspect : summary.firstCauseSuspects) {
            if (suspect.rank == 3)
                continue;
            QCOMPARE(model.index(int(suspect.rank), RankTableModel::FirstCauseColumn).data().toString(),
                     QStringLiteral("suspect (%1)").arg(toString(suspect.confidence)));
            QCOMPARE(model.index(int(suspect.rank), 0).data(RankTableModel::FirstCauseRole).toInt(), 1);
        }
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RankTableModel::SortRole);
        proxy.sort(RankTableModel::FirstCauseColumn, Qt::AscendingOrder);
        QList<qlonglong> upstreamOrder;
        for (const JobFirstCauseSuspect& suspect : summary.firstCauseSuspects)
            upstreamOrder << suspect.rank;
        QCOMPARE(rankOrder(proxy).mid(0, upstreamOrder.size()), upstreamOrder);
        model.setCrossRankSummary(std::nullopt);
        QCOMPARE(model.index(3, RankTableModel::FirstCauseColumn).data().toString(), QString());
        QCOMPARE(model.index(3, 0).data(RankTableModel::SuspectConfidenceRole).toString(), QString());
    }

    // the real DDP job: rank 2's reserved memory departs from its peers' (JobFindings), the
    // table marks it in its Diverges column, sorts it first there, says how in a tooltip, and
    // forgets it with the next job
    void divergentRanks()
    {
        QStringList paths;
        for (int r = 0; r < 4; ++r)
            paths << QStringLiteral(GAPSCOPE_TEST_DATA_DIR
                                    "/fixtures/real-gpu/ddp-samples/rank%1/telemetry_sink")
                         .arg(r);
        const auto data = loadJob(paths).job;
        QVERIFY(data);
        const auto findings = buildJobFindings(analyzeJob(*data), data.get());
        QCOMPARE(findings->divergentRanks.size(), size_t(1));
        const auto job = buildJobViewData(data);
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setJob(job);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setDivergentRanks(findings->divergentRanks);
        QCOMPARE(changed.size(), 1);
        for (int row = 0; row < 4; ++row) {
            const QModelIndex cell = model.index(row, RankTableModel::DivergenceColumn);
            const bool divergent = row == 2;
            QCOMPARE(cell.data().toString(), divergent ? QStringLiteral("reserved") : QString());
            QCOMPARE(cell.data(RankTableModel::DivergenceRole).toString(), cell.data().toString());
            const QString tip = cell.data(Qt::ToolTipRole).toString();
            QCOMPARE(tip.contains(QStringLiteral("reserved memory 192.00 MiB above its peers' median")),
                     divergent);
            QCOMPARE(model.index(row, RankTableModel::RankColumn).data(Qt::ToolTipRole).toString(), tip);
        }
        QCOMPARE(model.headerData(RankTableModel::DivergenceColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Diverges"));
        QVERIFY(!model.headerData(RankTableModel::DivergenceColumn, Qt::Horizontal, Qt::ToolTipRole)
                     .toString()
                     .isEmpty());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RankTableModel::SortRole);
        proxy.sort(RankTableModel::DivergenceColumn, Qt::AscendingOrder);
        QCOMPARE(rankOrder(proxy).front(), 2);
        // the start-up suspects say so beside upstream's grade
        model.setCrossRankSummary(findings->summary);
        QCOMPARE(model.index(0, RankTableModel::FirstCauseColumn).data().toString(),
                 QStringLiteral("first cause (high, start-up)"));
        model.setDivergentRanks({});
        QCOMPARE(model.index(2, RankTableModel::DivergenceColumn).data().toString(), QString());
    }

    void empty()
    {
        RankTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setFindingCounts({1, 2});
        model.setCrossRankSummary(JobCrossRankSummary{});
        model.setJob(std::make_shared<JobViewData>());
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.index(0, 0).isValid());
    }
};

QTEST_MAIN(TestRankTableModel)
#include "tst_ranktablemodel.moc"
