#pragma once
// The ranks of a distributed job as a table: one row per rank (missing ranks included), with
// its host, local rank, sample count, how its allocated and reserved bytes moved, its latest
// and peak gap, its findings, whether it is a first-cause suspect and whether its memory departs
// from its peers' (rank_divergence). Sorts through a
// QSortFilterProxyModel on SortRole (numbers as numbers, missing values last in ascending
// order). Qt Core only; the widgets side colours it (RankTableDecorationProxy).

#include "model/job/JobViewData.h"

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

class RankTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        RankColumn,
        HostColumn,
        LocalRankColumn,
        StatusColumn,
        SamplesColumn,
        AllocatedDeltaColumn,
        ReservedDeltaColumn,
        LatestGapColumn,
        PeakGapColumn,
        FindingsColumn,
        FirstCauseColumn,
        DivergenceColumn,
        ColumnCount
    };
    enum Role
    {
        RankRole = Qt::UserRole + 1, // qlonglong: the rank of the row
        PresentRole,                 // bool
        SortRole,                    // what QSortFilterProxyModel compares
        FirstCauseRole,              // int: 0 none, 1 suspect, 2 leading suspect
        SuspectConfidenceRole,       // QString "high", "medium", "low"; empty for no suspect
        SuspectAtStartupRole,        // bool: the suspect's spike is the job's start-up (information)
        DivergenceRole, // QString the series it departs in ("reserved", "gap, reserved"); empty for none
    };

    explicit RankTableModel(QObject* parent = nullptr);

    void setJob(std::shared_ptr<const JobViewData> job);
    std::shared_ptr<const JobViewData> job() const { return m_job; }
    // Findings per rank, in the order of JobViewData::ranks; a shorter vector leaves the rest
    // unknown (shown empty).
    void setFindingCounts(std::vector<int64_t> countsByRankIndex);
    void setCrossRankSummary(std::optional<JobCrossRankSummary> summary);
    // The ranks of the job's rank_divergence findings (JobFindings::divergentRanks).
    void setDivergentRanks(std::vector<JobDivergentRank> ranks);

    // The row of a rank; -1 when the job has none.
    int rowOfRank(int64_t rank) const;
    const RankSeries* rankAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant displayData(const RankSeries& rank, int row, Column column) const;
    QVariant sortData(const RankSeries& rank, int row, Column column) const;
    QString firstCauseText(int64_t rank) const;
    int firstCauseLevel(int64_t rank) const;
    QString divergenceSeries(int64_t rank) const;
    QString divergenceToolTip(int64_t rank) const;

    std::shared_ptr<const JobViewData> m_job;
    std::vector<int64_t> m_findingCounts;
    std::optional<JobCrossRankSummary> m_summary;
    std::vector<JobDivergentRank> m_divergent;
};

} // namespace gapscope
