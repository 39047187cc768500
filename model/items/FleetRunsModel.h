#pragma once
// The runs of a fleet index as a table (the fleet page): one row per run that passes the
// filter (model/fleetdata/FleetRunFilter), in the order of the column sorted by. The model does
// its own filtering and sorting over FleetData's columns (no proxy: a proxy asks data() of
// every row to filter, this judges each distinct string once), so 10 000 runs filter in well
// under a millisecond. Qt Core only; the page colours it.

#include "model/fleetdata/FleetRunFilter.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace gapscope {

class FleetRunsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role
    {
        RunRole = Qt::UserRole + 1, // int: the run's index in FleetData::runs
        PathRole,                   // QString: what opens the run
        SeverityRole,               // int: FleetSeverity of its worst finding
        SortRole,                   // the raw value (numbers as numbers)
    };
    explicit FleetRunsModel(QObject* parent = nullptr);

    void setFleet(std::shared_ptr<const FleetData> data);
    std::shared_ptr<const FleetData> fleet() const { return m_data; }
    void setFilter(FleetRunFilter filter);
    const FleetRunFilter& filter() const { return m_filter; }
    // The runs shown, in the rows' order.
    const std::vector<int>& rows() const { return m_rows; }
    int runAt(int row) const;
    // The row of a run, -1 when it is filtered out.
    int rowOfRun(int run) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // The header's text for a column.
    static QString columnTitle(FleetRunColumn column);

private:
    void refilter();
    void rebuildRowOfRun();

    std::shared_ptr<const FleetData> m_data;
    FleetRunFilter m_filter;
    std::vector<int> m_rows;
    std::vector<int> m_rowOfRun;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace gapscope
