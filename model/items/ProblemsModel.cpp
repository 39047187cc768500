#include "model/items/ProblemsModel.h"

#include "model/text/Text.h"

#include <QFileInfo>
#include <QHash>
#include <QSet>

namespace gapscope {

namespace {

// Lines a group row names before "…": enough to see the pattern, short enough for the column.
constexpr size_t kListedLines = 5;

QString levelText(LoadProblem::Level level)
{
    return level == LoadProblem::Level::Error ? ProblemsModel::tr("Error") : ProblemsModel::tr("Warning");
}

QString lineText(const LoadProblem& p)
{
    if (p.index >= 0)
        return ProblemsModel::tr("%1 [index %2]").arg(p.line).arg(p.index);
    return QString::number(p.line);
}

} // namespace

ProblemsModel::ProblemsModel(QObject* parent) : QAbstractItemModel(parent) {}

void ProblemsModel::setProblems(const ProblemLog& log)
{
    beginResetModel();
    m_problems = log.kept();
    m_errors = log.errorCount();
    m_warnings = log.warningCount();
    m_groups.clear();
    QHash<QPair<int, QString>, size_t> groupOf;
    std::vector<QSet<QString>> files;
    for (size_t i = 0; i < m_problems.size(); ++i) {
        const LoadProblem& p = m_problems[i];
        const QPair<int, QString> key{int(p.level), p.reason};
        auto found = groupOf.find(key);
        if (found == groupOf.end()) {
            found = groupOf.insert(key, m_groups.size());
            m_groups.push_back(Group{p.level, p.reason, {}, 0});
            files.emplace_back();
        }
        m_groups[*found].members.push_back(i);
        files[*found].insert(p.file);
    }
    for (size_t g = 0; g < m_groups.size(); ++g)
        m_groups[g].fileCount = int(files[g].size());
    endResetModel();
}

void ProblemsModel::clear()
{
    beginResetModel();
    m_problems.clear();
    m_groups.clear();
    m_errors = 0;
    m_warnings = 0;
    endResetModel();
}

const LoadProblem* ProblemsModel::problem(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    if (index.internalId() != kTopLevel) {
        const Group& group = m_groups[index.internalId() - 1];
        return &m_problems[group.members[size_t(index.row())]];
    }
    const Group& group = m_groups[size_t(index.row())];
    return group.members.size() == 1 ? &m_problems[group.members.front()] : nullptr;
}

QModelIndex ProblemsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kTopLevel);
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex ProblemsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kTopLevel);
}

int ProblemsModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0 || parent.internalId() != kTopLevel)
        return 0;
    const Group& group = m_groups[size_t(parent.row())];
    return group.members.size() > 1 ? int(group.members.size()) : 0;
}

int ProblemsModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant ProblemsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const bool child = index.internalId() != kTopLevel;
    const Group& group = m_groups[child ? index.internalId() - 1 : size_t(index.row())];
    const LoadProblem* p = problem(index);
    if (!p)
        return groupData(group, index.column(), role);
    const auto column = Column(index.column());
    switch (role) {
    case LevelRole:
        return int(p->level);
    case FilePathRole:
        return p->file;
    case CountRole:
        return 1;
    case Qt::ToolTipRole:
        return p->toString();
    case Qt::TextAlignmentRole:
        if (column == LineColumn || column == CountColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (column) {
        case LevelColumn:
            return int(p->level);
        case ReasonColumn:
            return p->reason;
        case CountColumn:
            return 1;
        case FileColumn:
            return p->file;
        case LineColumn:
            return qlonglong(p->line);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (column) {
        // a record under its group repeats neither level nor reason
        case LevelColumn:
            return child ? QString() : levelText(p->level);
        case ReasonColumn:
            return child ? QString() : p->reason;
        case CountColumn:
            return child ? QString() : QStringLiteral("1");
        case FileColumn:
            return QFileInfo(p->file).fileName();
        case LineColumn:
            return lineText(*p);
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant ProblemsModel::groupData(const Group& group, int column, int role) const
{
    const LoadProblem& first = m_problems[group.members.front()];
    const auto count = qint64(group.members.size());
    switch (role) {
    case LevelRole:
        return int(group.level);
    case FilePathRole:
        return first.file;
    case CountRole:
        return count;
    case Qt::ToolTipRole:
        // the plural first: a reason may hold "(s)" itself
        return tr("%1: %2\nfirst at %3")
            .arg(englishPlural(tr("%n record(s)", nullptr, int(count)), count), group.reason,
                 first.toString());
    case Qt::TextAlignmentRole:
        if (column == LineColumn || column == CountColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(column)) {
        case LevelColumn:
            return int(group.level);
        case ReasonColumn:
            return group.reason;
        case CountColumn:
            return count;
        case FileColumn:
            return first.file;
        case LineColumn:
            return qlonglong(first.line);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(column)) {
        case LevelColumn:
            return levelText(group.level);
        case ReasonColumn:
            return group.reason;
        case CountColumn:
            return QString::number(count);
        case FileColumn:
            if (group.fileCount > 1)
                return englishPlural(tr("%n file(s)", nullptr, group.fileCount), group.fileCount);
            return QFileInfo(first.file).fileName();
        case LineColumn: {
            QStringList lines;
            for (size_t i = 0; i < group.members.size() && i < kListedLines; ++i)
                lines << lineText(m_problems[group.members[i]]);
            if (group.members.size() > kListedLines)
                lines << QStringLiteral("…");
            return lines.join(QStringLiteral(", "));
        }
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
    case ReasonColumn:
        return tr("Reason");
    case CountColumn:
        return tr("Count");
    case FileColumn:
        return tr("File");
    case LineColumn:
        return tr("Line");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace gapscope
