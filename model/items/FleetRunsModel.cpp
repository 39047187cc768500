#include "model/items/FleetRunsModel.h"

#include "model/report/FleetReport.h"
#include "model/text/Text.h"

#include <cmath>

namespace gapscope {

FleetRunsModel::FleetRunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FleetRunsModel::setFleet(std::shared_ptr<const FleetData> data)
{
    m_data = std::move(data);
    m_filter = {};
    refilter();
}

void FleetRunsModel::setFilter(FleetRunFilter filter)
{
    m_filter = std::move(filter);
    refilter();
}

void FleetRunsModel::refilter()
{
    beginResetModel();
    m_rows.clear();
    if (m_data) {
        m_rows = filterFleetRuns(*m_data, m_filter);
        if (m_sortColumn >= 0)
            sortFleetRuns(*m_data, m_rows, FleetRunColumn(m_sortColumn), m_sortOrder == Qt::DescendingOrder);
    }
    rebuildRowOfRun();
    endResetModel();
}

void FleetRunsModel::rebuildRowOfRun()
{
    m_rowOfRun.assign(m_data ? m_data->runs.size() : 0, -1);
    for (size_t row = 0; row < m_rows.size(); ++row)
        m_rowOfRun[size_t(m_rows[row])] = int(row);
}

int FleetRunsModel::runAt(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() ? m_rows[size_t(row)] : -1;
}

int FleetRunsModel::rowOfRun(int run) const
{
    return run >= 0 && size_t(run) < m_rowOfRun.size() ? m_rowOfRun[size_t(run)] : -1;
}

int FleetRunsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FleetRunsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(FleetRunColumn::Count);
}

QString FleetRunsModel::columnTitle(FleetRunColumn column)
{
    switch (column) {
    case FleetRunColumn::Path:
        return tr("Run");
    case FleetRunColumn::Job:
        return tr("Job");
    case FleetRunColumn::Rank:
        return tr("Rank");
    case FleetRunColumn::Host:
        return tr("Host");
    case FleetRunColumn::Session:
        return tr("Session");
    case FleetRunColumn::Start:
        return tr("Start (UTC)");
    case FleetRunColumn::Duration:
        return tr("Duration");
    case FleetRunColumn::Samples:
        return tr("Samples");
    case FleetRunColumn::PeakGap:
        return tr("Peak gap");
    case FleetRunColumn::LatestGap:
        return tr("Latest gap");
    case FleetRunColumn::Drift:
        return tr("Drift");
    case FleetRunColumn::WorstClass:
        return tr("Worst finding");
    case FleetRunColumn::Severity:
        return tr("Severity");
    case FleetRunColumn::Notices:
        return tr("Notices");
    case FleetRunColumn::Findings:
        return tr("Findings");
    case FleetRunColumn::Ooms:
        return tr("OOMs");
    case FleetRunColumn::Count:
        break;
    }
    return {};
}

QVariant FleetRunsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= int(FleetRunColumn::Count))
        return {};
    return columnTitle(FleetRunColumn(section));
}

namespace {

QVariant integerValue(qint64 v)
{
    return v == kFleetNoValue ? QVariant() : QVariant(v);
}

QString integerCell(qint64 v)
{
    return v == kFleetNoValue ? QString() : countText(v);
}

QString bytesCell(qint64 v)
{
    return v == kFleetNoValue ? QString() : bytesText(v);
}

} // namespace

QVariant FleetRunsModel::data(const QModelIndex& index, int role) const
{
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto run = size_t(m_rows[size_t(index.row())]);
    const FleetRuns& r = m_data->runs;
    const auto column = FleetRunColumn(index.column());
    switch (role) {
    case RunRole:
        return int(run);
    case PathRole:
        return m_data->text(r.path[run]);
    case SeverityRole:
        return int(r.worstSeverity[run]);
    case Qt::ToolTipRole:
        if (column == FleetRunColumn::Path)
            return m_data->text(r.path[run]);
        return {};
    case Qt::TextAlignmentRole:
        switch (column) {
        case FleetRunColumn::Rank:
        case FleetRunColumn::Duration:
        case FleetRunColumn::Samples:
        case FleetRunColumn::PeakGap:
        case FleetRunColumn::LatestGap:
        case FleetRunColumn::Drift:
        case FleetRunColumn::Findings:
        case FleetRunColumn::Ooms:
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
        }
    case Qt::DisplayRole:
    case SortRole:
        break;
    default:
        return {};
    }
    const bool display = role == Qt::DisplayRole;
    switch (column) {
    case FleetRunColumn::Path: {
        const QString& path = m_data->text(r.path[run]);
        if (!display)
            return path;
        // the last two parts: a sink is named by its run's folder ("rank2/telemetry_sink")
        const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
        return parts.size() < 2 ? path : parts.mid(parts.size() - 2).join(QLatin1Char('/'));
    }
    case FleetRunColumn::Job:
        return m_data->text(r.jobId[run]);
    case FleetRunColumn::Rank:
        return display ? QVariant(integerCell(r.rank[run])) : integerValue(r.rank[run]);
    case FleetRunColumn::Host:
        return m_data->text(r.host[run]);
    case FleetRunColumn::Session:
        return m_data->text(r.sessionId[run]);
    case FleetRunColumn::Start:
        return display ? QVariant(fleetTimeText(r.startNs[run])) : integerValue(r.startNs[run]);
    case FleetRunColumn::Duration: {
        const qint64 d = r.durationNs(run);
        if (!display)
            return integerValue(d);
        return d == kFleetNoValue ? QString() : durationText(d, timeResolutionNs(d, 1000));
    }
    case FleetRunColumn::Samples:
        return display ? QVariant(integerCell(r.samples[run])) : integerValue(r.samples[run]);
    case FleetRunColumn::PeakGap:
        return display ? QVariant(bytesCell(r.peakGapBytes[run])) : integerValue(r.peakGapBytes[run]);
    case FleetRunColumn::LatestGap:
        return display ? QVariant(bytesCell(r.latestGapBytes[run])) : integerValue(r.latestGapBytes[run]);
    case FleetRunColumn::Drift: {
        const double slope = r.driftSlopeBytesPerS[run];
        if (std::isnan(slope))
            return {};
        return display ? QVariant(bytesPerSecondText(slope)) : QVariant(slope);
    }
    case FleetRunColumn::WorstClass:
        return m_data->text(r.worstClass[run]);
    case FleetRunColumn::Severity:
        return display ? QVariant(toString(r.worstSeverity[run])) : QVariant(int(r.worstSeverity[run]));
    case FleetRunColumn::Notices:
        return m_data->text(r.notices[run]);
    case FleetRunColumn::Findings:
        return display ? QVariant(integerCell(r.findingCount[run])) : integerValue(r.findingCount[run]);
    case FleetRunColumn::Ooms:
        return display ? QVariant(integerCell(r.oomCount[run])) : integerValue(r.oomCount[run]);
    case FleetRunColumn::Count:
        break;
    }
    return {};
}

void FleetRunsModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= int(FleetRunColumn::Count))
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    emit layoutAboutToBeChanged();
    const QModelIndexList before = persistentIndexList();
    std::vector<int> runsBefore;
    for (const QModelIndex& index : before)
        runsBefore.push_back(m_rows[size_t(index.row())]);
    if (m_data)
        sortFleetRuns(*m_data, m_rows, FleetRunColumn(column), order == Qt::DescendingOrder);
    rebuildRowOfRun();
    QModelIndexList after;
    for (size_t i = 0; i < runsBefore.size(); ++i)
        after << index(m_rowOfRun[size_t(runsBefore[i])], before[int(i)].column());
    changePersistentIndexList(before, after);
    emit layoutChanged();
}

} // namespace gapscope
