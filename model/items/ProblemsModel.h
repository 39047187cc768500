#pragma once
// The rejected records and warnings of a load: file, line, reason, level.

#include "model/store/LoadProblem.h"

#include <QAbstractTableModel>

namespace gapscope {

class ProblemsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        LevelColumn,
        FileColumn,
        LineColumn,
        ReasonColumn,
        ColumnCount
    };
    enum Role
    {
        LevelRole = Qt::UserRole + 1, // int(LoadProblem::Level)
        FilePathRole,                 // full path (the column shows the file name)
        SortRole,
    };

    explicit ProblemsModel(QObject* parent = nullptr);

    void setProblems(const ProblemLog& log);
    void clear();
    const LoadProblem* problem(int row) const;
    // counted in full (the log keeps only the first ProblemLog::kMaxKept in detail)
    qint64 errorCount() const { return m_errors; }
    qint64 warningCount() const { return m_warnings; }
    qint64 totalCount() const { return m_errors + m_warnings; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<LoadProblem> m_problems;
    qint64 m_errors = 0;
    qint64 m_warnings = 0;
};

} // namespace gapscope
