#include "model/items/FleetIssuesModel.h"

#include "model/report/FleetReport.h"
#include "model/text/Text.h"

namespace gapscope {

FleetIssuesModel::FleetIssuesModel(QObject* parent) : QAbstractTableModel(parent) {}

void FleetIssuesModel::setFleet(std::shared_ptr<const FleetData> data)
{
    beginResetModel();
    m_data = std::move(data);
    endResetModel();
}

const FleetIssue* FleetIssuesModel::issueAt(int row) const
{
    return m_data && row >= 0 && size_t(row) < m_data->issues.size() ? &m_data->issues[size_t(row)] : nullptr;
}

int FleetIssuesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_data ? 0 : int(m_data->issues.size());
}

int FleetIssuesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FleetIssuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case FingerprintColumn:
        return tr("Fingerprint");
    case KindColumn:
        return tr("Kind");
    case ClassColumn:
        return tr("Class");
    case SeverityColumn:
        return tr("Severity");
    case RunsColumn:
        return tr("Runs");
    case HitsColumn:
        return tr("Hits");
    case FirstSeenColumn:
        return tr("First seen (UTC)");
    case LastSeenColumn:
        return tr("Last seen (UTC)");
    default:
        return {};
    }
}

QVariant FleetIssuesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FleetIssue& issue = m_data->issues[size_t(index.row())];
    if (role == IssueRole)
        return index.row();
    if (role == Qt::ToolTipRole)
        return issue.title;
    if (role == Qt::TextAlignmentRole)
        return index.column() == RunsColumn || index.column() == HitsColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case FingerprintColumn:
        return issue.fingerprint;
    case KindColumn:
        return issue.kind;
    case ClassColumn:
        return issue.issueClass;
    case SeverityColumn:
        return display ? QVariant(issue.severity) : QVariant(int(fleetSeverityFromString(issue.severity)));
    case RunsColumn:
        return display ? QVariant(countText(issue.runCount)) : QVariant(issue.runCount);
    case HitsColumn:
        return display ? QVariant(countText(issue.hitCount)) : QVariant(issue.hitCount);
    case FirstSeenColumn:
        return display ? QVariant(fleetTimeText(issue.firstSeenNs)) : QVariant(issue.firstSeenNs);
    case LastSeenColumn:
        return display ? QVariant(fleetTimeText(issue.lastSeenNs)) : QVariant(issue.lastSeenNs);
    default:
        return {};
    }
}

} // namespace gapscope
