#include "model/items/RankTableModel.h"

#include "analysis/Int64Math.h"
#include "model/report/ReportContent.h" // formatRelativeTime, formatReportDuration
#include "model/text/Text.h"

#include <QLocale>

#include <limits>

namespace gapscope {

namespace {

// Sorts after every real value in ascending order.
constexpr qlonglong kUnknownLast = std::numeric_limits<qlonglong>::max();

QVariant optionalBytes(const std::optional<int64_t>& bytes, bool signedText)
{
    if (!bytes)
        return QString();
    return signedText ? signedBytesText(double(*bytes)) : bytesText(*bytes);
}

qlonglong magnitude(int64_t value)
{
    return value == std::numeric_limits<int64_t>::min() ? std::numeric_limits<qlonglong>::max()
                                                        : qlonglong(value < 0 ? -value : value);
}

} // namespace

RankTableModel::RankTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RankTableModel::setJob(std::shared_ptr<const JobViewData> job)
{
    beginResetModel();
    m_job = std::move(job);
    m_findingCounts.clear();
    endResetModel();
}

void RankTableModel::setFindingCounts(std::vector<int64_t> countsByRankIndex)
{
    m_findingCounts = std::move(countsByRankIndex);
    if (rowCount() > 0)
        emit dataChanged(index(0, FindingsColumn), index(rowCount() - 1, FindingsColumn));
}

void RankTableModel::setCrossRankSummary(std::optional<JobCrossRankSummary> summary)
{
    m_summary = std::move(summary);
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void RankTableModel::setDivergentRanks(std::vector<JobDivergentRank> ranks)
{
    m_divergent = std::move(ranks);
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString RankTableModel::divergenceSeries(int64_t rank) const
{
    QStringList series;
    for (const JobDivergentRank& mark : m_divergent)
        if (mark.rank == rank)
            series << mark.series;
    return series.join(QStringLiteral(", "));
}

QString RankTableModel::divergenceToolTip(int64_t rank) const
{
    QStringList lines;
    for (const JobDivergentRank& mark : m_divergent)
        if (mark.rank == rank)
            lines << tr("Departs from its peers: %1").arg(mark.text);
    return lines.join(QLatin1Char('\n'));
}

int RankTableModel::rowOfRank(int64_t rank) const
{
    if (!m_job)
        return -1;
    const auto index = m_job->indexOfRank(rank);
    return index ? int(*index) : -1;
}

const RankSeries* RankTableModel::rankAt(int row) const
{
    if (!m_job || row < 0 || size_t(row) >= m_job->ranks.size())
        return nullptr;
    return &m_job->ranks[size_t(row)];
}

int RankTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_job)
        return 0;
    return int(m_job->ranks.size());
}

int RankTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int RankTableModel::firstCauseLevel(int64_t rank) const
{
    if (!m_summary || !m_summary->suspectOf(rank))
        return 0;
    for (const JobFirstCauseSuspect* leading : m_summary->leadingSuspects())
        if (leading->rank == rank)
            return 2;
    return 1;
}

QString RankTableModel::firstCauseText(int64_t rank) const
{
    const JobFirstCauseSuspect* suspect = m_summary ? m_summary->suspectOf(rank) : nullptr;
    if (!suspect)
        return QString();
    // at start-up every rank rose together: upstream's grade stays, said to be start-up
    const QString confidence = suspect->atStartup ? tr("%1, start-up").arg(toString(suspect->confidence))
                                                  : toString(suspect->confidence);
    return firstCauseLevel(rank) == 2 ? tr("first cause (%1)").arg(confidence)
                                      : tr("suspect (%1)").arg(confidence);
}

QVariant RankTableModel::displayData(const RankSeries& rank, int row, Column column) const
{
    switch (column) {
    case RankColumn:
        return QString::number(rank.rank);
    case HostColumn:
        return rank.host;
    case LocalRankColumn:
        return rank.present ? QString::number(rank.localRank) : QString();
    case StatusColumn:
        return rank.present ? tr("present") : tr("missing");
    case SamplesColumn:
        return rank.present ? QLocale().toString(qulonglong(rank.sampleCount)) : QString();
    case AllocatedDeltaColumn:
        return optionalBytes(rank.allocatedDelta, true);
    case ReservedDeltaColumn:
        return optionalBytes(rank.reservedDelta, true);
    case LatestGapColumn:
        return optionalBytes(rank.latestGap, false);
    case PeakGapColumn:
        return optionalBytes(rank.peakGap, false);
    case FindingsColumn:
        return size_t(row) < m_findingCounts.size()
                   ? QLocale().toString(qlonglong(m_findingCounts[size_t(row)]))
                   : QString();
    case FirstCauseColumn:
        return firstCauseText(rank.rank);
    case DivergenceColumn:
        return divergenceSeries(rank.rank);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RankTableModel::sortData(const RankSeries& rank, int row, Column column) const
{
    auto orLast = [](const std::optional<int64_t>& value) {
        return value ? qlonglong(*value) : kUnknownLast;
    };
    switch (column) {
    case RankColumn:
        return qlonglong(rank.rank);
    case HostColumn:
        return rank.host;
    case LocalRankColumn:
        return rank.present ? qlonglong(rank.localRank) : kUnknownLast;
    case StatusColumn:
        return rank.present ? 0 : 1;
    case SamplesColumn:
        return rank.present ? qlonglong(rank.sampleCount) : kUnknownLast;
    case AllocatedDeltaColumn:
        return orLast(rank.allocatedDelta);
    case ReservedDeltaColumn:
        return orLast(rank.reservedDelta);
    case LatestGapColumn:
        return orLast(rank.latestGap);
    case PeakGapColumn:
        return rank.peakGap ? magnitude(*rank.peakGap) : kUnknownLast;
    case FindingsColumn:
        return size_t(row) < m_findingCounts.size() ? qlonglong(m_findingCounts[size_t(row)]) : kUnknownLast;
    case FirstCauseColumn: {
        // the leading suspect first, then the others in upstream's order, then the rest
        const auto index = m_summary ? m_summary->suspectIndexOf(rank.rank) : std::nullopt;
        return index ? qlonglong(*index) : kUnknownLast;
    }
    case DivergenceColumn: {
        // divergent ranks first (ascending order), by how many series they depart in
        const QString series = divergenceSeries(rank.rank);
        return series.isEmpty() ? kUnknownLast : -qlonglong(series.count(QLatin1Char(',')) + 1);
    }
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RankTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RankSeries* rank = rankAt(index.row());
    if (!rank)
        return {};
    const auto column = Column(index.column());
    switch (role) {
    case Qt::DisplayRole:
        return displayData(*rank, index.row(), column);
    case SortRole:
        return sortData(*rank, index.row(), column);
    case RankRole:
        return qlonglong(rank->rank);
    case PresentRole:
        return rank->present;
    case FirstCauseRole:
        return firstCauseLevel(rank->rank);
    case SuspectConfidenceRole: {
        const JobFirstCauseSuspect* suspect = m_summary ? m_summary->suspectOf(rank->rank) : nullptr;
        return suspect ? toString(suspect->confidence) : QString();
    }
    case SuspectAtStartupRole: {
        const JobFirstCauseSuspect* suspect = m_summary ? m_summary->suspectOf(rank->rank) : nullptr;
        return suspect && suspect->atStartup;
    }
    case DivergenceRole:
        return divergenceSeries(rank->rank);
    case Qt::TextAlignmentRole:
        switch (column) {
        case RankColumn:
        case LocalRankColumn:
        case SamplesColumn:
        case AllocatedDeltaColumn:
        case ReservedDeltaColumn:
        case LatestGapColumn:
        case PeakGapColumn:
        case FindingsColumn:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        }
    case Qt::ToolTipRole: {
        if (!rank->present)
            return tr("Rank %1 is missing: the job's world size expects it, but no input holds it.")
                .arg(rank->rank);
        if (column == FirstCauseColumn && m_summary) {
            const JobFirstCauseSuspect* suspect = m_summary->suspectOf(rank->rank);
            if (!suspect)
                return {};
            const auto range = alignedRangeOf(*m_job, &*m_summary);
            const int64_t origin = range ? range->beginNs : suspect->alignedFirstSpikeNs;
            QString text = tr("First spike at %1 (aligned)")
                               .arg(formatRelativeTime(suspect->alignedFirstSpikeNs, origin));
            if (m_summary->clusterOnsetNs)
                text += tr(", %1 before the cluster onset")
                            .arg(formatReportDuration(suspect->leadOverClusterOnsetNs));
            text += tr("; device used rose by %1; confidence %2")
                        .arg(bytesText(suspect->peakDeltaBytes), toString(suspect->confidence));
            return text;
        }
        if (column == PeakGapColumn && rank->peakGapNs) {
            const auto range = alignedRangeOf(*m_job, m_summary ? &*m_summary : nullptr);
            const int64_t offset = m_summary ? m_summary->offsetOf(rank->rank) : 0;
            return tr("Largest gap magnitude at %1 (aligned)")
                .arg(formatRelativeTime(saturatingSub(*rank->peakGapNs, offset), range ? range->beginNs : 0));
        }
        if (column == HostColumn && !rank->host.isEmpty())
            return tr("Host %1, local rank %2").arg(rank->host).arg(rank->localRank);
        if ((column == DivergenceColumn || column == RankColumn) && !divergenceSeries(rank->rank).isEmpty())
            return divergenceToolTip(rank->rank);
        return {};
    }
    default:
        return {};
    }
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case SamplesColumn:
            return tr("Sample events of the rank, over all inputs that hold it");
        case AllocatedDeltaColumn:
            return tr("Allocator allocated bytes: last sample minus first");
        case ReservedDeltaColumn:
            return tr("Allocator reserved bytes: last sample minus first");
        case LatestGapColumn:
            return tr("Device used minus allocator reserved at the last sample");
        case PeakGapColumn:
            return tr("The gap of largest magnitude over the rank's samples");
        case FindingsColumn:
            return tr("Findings of the analyses about this rank");
        case FirstCauseColumn:
            return tr(
                "Ranks whose spike began at or before the cluster onset (cross-rank first-cause analysis)");
        case DivergenceColumn:
            return tr("The series (gap, reserved) in which the rank's memory departs from its peers' "
                      "(rank divergence: level or slope above the other ranks' median)");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case RankColumn:
        return tr("Rank");
    case HostColumn:
        return tr("Host");
    case LocalRankColumn:
        return tr("Local rank");
    case StatusColumn:
        return tr("Status");
    case SamplesColumn:
        return tr("Samples");
    case AllocatedDeltaColumn:
        return tr("Allocated Δ");
    case ReservedDeltaColumn:
        return tr("Reserved Δ");
    case LatestGapColumn:
        return tr("Latest gap");
    case PeakGapColumn:
        return tr("Peak |gap|");
    case FindingsColumn:
        return tr("Findings");
    case FirstCauseColumn:
        return tr("First cause");
    case DivergenceColumn:
        return tr("Diverges");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace gapscope
