#pragma once
// The rejected records and warnings of a load, grouped by reason: one top-level row per
// (level, reason) with how often it occurred, in the order each first occurred; a group of
// several records expands to one child row per record (file, line). A reason that occurred
// once is a single row without children. 302 identical errors are one row, not 302.

#include "model/store/LoadProblem.h"

#include <QAbstractItemModel>

#include <vector>

namespace gapscope {

class ProblemsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        LevelColumn,
        ReasonColumn,
        CountColumn,
        FileColumn,
        LineColumn,
        ColumnCount
    };
    enum Role
    {
        LevelRole = Qt::UserRole + 1, // int(LoadProblem::Level)
        FilePathRole,                 // full path (the column shows the file name); groups: the first
        SortRole,
        CountRole, // records of the row: the group's count, 1 for a record
    };

    explicit ProblemsModel(QObject* parent = nullptr);

    void setProblems(const ProblemLog& log);
    void clear();
    // The record of a row: a child row, or a group of one; nullptr for a group of several.
    const LoadProblem* problem(const QModelIndex& index) const;
    // Every kept record in file order (what the groups are made of).
    const std::vector<LoadProblem>& problems() const { return m_problems; }
    int groupCount() const { return int(m_groups.size()); }
    // counted in full (the log keeps only the first ProblemLog::kMaxKept in detail)
    qint64 errorCount() const { return m_errors; }
    qint64 warningCount() const { return m_warnings; }
    qint64 totalCount() const { return m_errors + m_warnings; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Group
    {
        LoadProblem::Level level = LoadProblem::Level::Error;
        QString reason;
        std::vector<size_t> members; // indexes into m_problems, in file order
        int fileCount = 0;
    };
    // A child's internal id is its group's index + 1; top-level rows have 0.
    static constexpr quintptr kTopLevel = 0;

    QVariant groupData(const Group& group, int column, int role) const;

    std::vector<LoadProblem> m_problems;
    std::vector<Group> m_groups;
    qint64 m_errors = 0;
    qint64 m_warnings = 0;
};

} // namespace gapscope
