#pragma once
// The recurring issues of a fleet index (the recurring_issues view, docs/fleet-schema.md) as a
// table: fingerprint, kind, class, severity, runs, hits, first and last seen. Sorts through a
// QSortFilterProxyModel on SortRole. Qt Core only.

#include "model/fleetdata/FleetData.h"

#include <QAbstractTableModel>

#include <memory>

namespace gapscope {

class FleetIssuesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        FingerprintColumn,
        KindColumn,
        ClassColumn,
        SeverityColumn,
        RunsColumn,
        HitsColumn,
        FirstSeenColumn,
        LastSeenColumn,
        ColumnCount
    };
    enum Role
    {
        IssueRole = Qt::UserRole + 1, // int: the index in FleetData::issues
        SortRole,
    };
    explicit FleetIssuesModel(QObject* parent = nullptr);
    void setFleet(std::shared_ptr<const FleetData> data);
    const FleetIssue* issueAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const FleetData> m_data;
};

} // namespace gapscope
