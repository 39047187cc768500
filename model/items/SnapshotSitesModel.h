#pragma once
// The allocation sites of a PyTorch memory snapshot (model/snapshot/SnapshotSites) as a table: one
// row per site, in the sites' order (bytes at the peak, descending), with its bytes at the peak and
// at the snapshot, its allocations, the largest and the bytes allocated in all. Sorts through a
// QSortFilterProxyModel on SortRole (numbers as numbers). The tooltip of a row is
// siteDescription's. Qt Core only.

#include "model/snapshot/SnapshotSites.h"

#include <QAbstractTableModel>

#include <memory>

namespace gapscope {

class SnapshotSitesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        SiteColumn,
        PeakColumn,
        SnapshotColumn,
        AllocationsColumn,
        LargestColumn,
        TotalColumn,
        ColumnCount
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1, // what QSortFilterProxyModel compares
        SiteIndexRole,               // int: the row's index in SnapshotSites::sites
        StacksRole,                  // QList<uint>: the site's FrameStackIds (SnapshotSite::stacks)
    };
    static constexpr int kTooltipFrames = 24;

    explicit SnapshotSitesModel(QObject* parent = nullptr);

    // data is what the sites were built from; null sites (or data) empties the table.
    void setSites(std::shared_ptr<const SnapshotData> data, std::shared_ptr<const SnapshotSites> sites);
    std::shared_ptr<const SnapshotSites> sites() const { return m_sites; }
    std::shared_ptr<const SnapshotData> snapshot() const { return m_data; }
    const SnapshotSite* siteAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const SnapshotData> m_data;
    std::shared_ptr<const SnapshotSites> m_sites;
};

} // namespace gapscope
