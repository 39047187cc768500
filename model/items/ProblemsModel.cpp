#include "model/items/ProblemsModel.h"

#include <QFileInfo>

namespace gapscope {

ProblemsModel::ProblemsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProblemsModel::setProblems(const ProblemLog& log)
{
    beginResetModel();
    m_problems = log.kept();
    m_errors = log.errorCount();
    m_warnings = log.warningCount();
    endResetModel();
}

void ProblemsModel::clear()
{
    beginResetModel();
    m_problems.clear();
    m_errors = 0;
    m_warnings = 0;
    endResetModel();
}

const LoadProblem* ProblemsModel::problem(int row) const
{
    if (row < 0 || size_t(row) >= m_problems.size())
        return nullptr;
    return &m_problems[size_t(row)];
}

int ProblemsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_problems.size());
}

int ProblemsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LoadProblem* p = problem(index.row());
    if (!p)
        return {};
    const QString levelText = p->level == LoadProblem::Level::Error ? tr("Error") : tr("Warning");
    switch (role) {
    case LevelRole:
        return int(p->level);
    case FilePathRole:
        return p->file;
    case Qt::ToolTipRole:
        return p->toString();
    case Qt::TextAlignmentRole:
        if (index.column() == LineColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(index.column())) {
        case LevelColumn:
            return int(p->level);
        case FileColumn:
            return p->file;
        case LineColumn:
            return qlonglong(p->line);
        case ReasonColumn:
            return p->reason;
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case LevelColumn:
            return levelText;
        case FileColumn:
            return QFileInfo(p->file).fileName();
        case LineColumn:
            if (p->index >= 0)
                return tr("%1 [index %2]").arg(p->line).arg(p->index);
            return QString::number(p->line);
        case ReasonColumn:
            return p->reason;
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant ProblemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case LevelColumn:
        return tr("Level");
    case FileColumn:
        return tr("File");
    case LineColumn:
        return tr("Line");
    case ReasonColumn:
        return tr("Reason");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace gapscope
