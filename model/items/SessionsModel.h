#pragma once
// The sessions of a loaded trace, for the session picker.

#include "model/store/TraceData.h"

#include <QAbstractTableModel>

#include <memory>

namespace gapscope {

class SessionsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        SessionColumn,
        StatusColumn,
        HostColumn,
        RanksColumn,
        EventsColumn,
        ColumnCount
    };
    enum Role
    {
        SessionIndexRole = Qt::UserRole + 1, // int index into TraceData::sessions
        IsDefaultRole,                       // bool: TraceData::defaultSessionIndex()
        RanksRole,                           // QVariantList of qlonglong
        SortRole,
    };

    explicit SessionsModel(QObject* parent = nullptr);

    void setTrace(std::shared_ptr<const TraceData> trace);
    std::shared_ptr<const TraceData> trace() const { return m_trace; }
    const SessionInfo* session(int row) const;

    // "6513270e…" shortened id, or "(no session id)"
    static QString sessionTitle(const SessionInfo& session);
    static QString ranksText(const std::vector<int64_t>& ranks);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const TraceData> m_trace;
    int m_defaultRow = -1;
};

} // namespace gapscope
