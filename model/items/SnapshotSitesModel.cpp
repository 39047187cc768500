#include "model/items/SnapshotSitesModel.h"

#include "model/text/Text.h"

namespace gapscope {

namespace {

int64_t figure(const SnapshotSite& site, int column)
{
    switch (column) {
    case SnapshotSitesModel::PeakColumn:
        return site.bytesAtPeak;
    case SnapshotSitesModel::SnapshotColumn:
        return site.bytesAtSnapshot;
    case SnapshotSitesModel::AllocationsColumn:
        return site.allocations;
    case SnapshotSitesModel::LargestColumn:
        return site.largestBytes;
    case SnapshotSitesModel::TotalColumn:
        return site.totalBytes;
    default:
        return 0;
    }
}

} // namespace

SnapshotSitesModel::SnapshotSitesModel(QObject* parent) : QAbstractTableModel(parent) {}

void SnapshotSitesModel::setSites(std::shared_ptr<const SnapshotData> data,
                                  std::shared_ptr<const SnapshotSites> sites)
{
    beginResetModel();
    m_data = data && sites ? std::move(data) : nullptr;
    m_sites = m_data ? std::move(sites) : nullptr;
    endResetModel();
}

const SnapshotSite* SnapshotSitesModel::siteAt(int row) const
{
    if (!m_sites || row < 0 || size_t(row) >= m_sites->sites.size())
        return nullptr;
    return &m_sites->sites[size_t(row)];
}

int SnapshotSitesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_sites ? 0 : int(m_sites->sites.size());
}

int SnapshotSitesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SnapshotSitesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SnapshotSite* site = siteAt(index.row());
    if (!site)
        return {};
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        if (column == SiteColumn) // the file's path in the tooltip
            return siteName(*m_data, site->frames, m_sites->grouping, SiteFileName::Tail);
        if (column == AllocationsColumn)
            return countText(site->allocations);
        return bytesText(figure(*site, column));
    case Qt::ToolTipRole:
        return siteDescription(*m_data, *m_sites, *site, kTooltipFrames);
    case Qt::TextAlignmentRole:
        return column == SiteColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case SortRole:
        if (column == SiteColumn)
            return site->name;
        return qlonglong(figure(*site, column));
    case SiteIndexRole:
        return index.row();
    case StacksRole:
        return QVariant::fromValue(QList<uint>(site->stacks.begin(), site->stacks.end()));
    default:
        return {};
    }
}

QVariant SnapshotSitesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (Column(section)) {
        case SiteColumn:
            return m_sites && m_sites->grouping == SiteGrouping::Function ? tr("Function") : tr("Site");
        case PeakColumn:
            return tr("At peak");
        case SnapshotColumn:
            return tr("At snapshot");
        case AllocationsColumn:
            return tr("Allocations");
        case LargestColumn:
            return tr("Largest");
        case TotalColumn:
            return tr("Total allocated");
        case ColumnCount:
            break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case SiteColumn:
            return tr("Where the memory was asked for: the innermost Python frame of the stack, else "
                      "the innermost frame that is not the allocator's own");
        case PeakColumn:
            return tr("Bytes of its allocations live when the active memory peaked");
        case SnapshotColumn:
            return tr("Bytes of its blocks allocated when the snapshot was taken");
        case AllocationsColumn:
            return tr("Allocations in the trace (those live before it or all along included)");
        case LargestColumn:
            return tr("Its largest allocation");
        case TotalColumn:
            return tr("Every allocation's size added");
        case ColumnCount:
            break;
        }
    }
    if (role == Qt::TextAlignmentRole)
        return section == SiteColumn ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                     : int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

} // namespace gapscope
