#include "model/items/SessionsModel.h"

#include <QLocale>
#include <QStringList>

namespace gapscope {

SessionsModel::SessionsModel(QObject* parent) : QAbstractTableModel(parent) {}

void SessionsModel::setTrace(std::shared_ptr<const TraceData> trace)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_defaultRow = -1;
    if (m_trace) {
        if (const auto def = m_trace->defaultSessionIndex())
            m_defaultRow = int(*def);
    }
    endResetModel();
}

const SessionInfo* SessionsModel::session(int row) const
{
    if (!m_trace || row < 0 || size_t(row) >= m_trace->sessions.size())
        return nullptr;
    return &m_trace->sessions[size_t(row)];
}

QString SessionsModel::sessionTitle(const SessionInfo& session)
{
    if (session.id.isEmpty())
        return tr("(no session id)");
    return session.id;
}

QString SessionsModel::ranksText(const std::vector<int64_t>& ranks)
{
    // Contiguous runs are written as ranges: 0-7, 9
    QStringList parts;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (j == i)
            parts << QString::number(ranks[i]);
        else
            parts << QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j]);
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

int SessionsModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_trace)
        return 0;
    return int(m_trace->sessions.size());
}

int SessionsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SessionsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SessionInfo* s = session(index.row());
    if (!s)
        return {};
    const bool isDefault = index.row() == m_defaultRow;
    switch (role) {
    case SessionIndexRole:
        return index.row();
    case IsDefaultRole:
        return isDefault;
    case RanksRole: {
        QVariantList ranks;
        for (int64_t r : s->ranks)
            ranks << QVariant::fromValue(qlonglong(r));
        return ranks;
    }
    case Qt::ToolTipRole: {
        QStringList lines;
        lines << tr("Session: %1").arg(sessionTitle(*s));
        lines << tr("Status: %1").arg(toString(s->status));
        if (!s->host.isEmpty())
            lines << tr("Host: %1 (pid %2)").arg(s->host).arg(s->pid);
        if (!s->jobId.isEmpty())
            lines << tr("Job: %1").arg(s->jobId);
        if (!s->collector.isEmpty())
            lines << tr("Collector: %1").arg(s->collector);
        if (s->manifestEventCount >= 0 && s->manifestEventCount != s->eventCount)
            lines << tr("The manifest names %1 events; %2 were loaded (segments may have been pruned)")
                         .arg(s->manifestEventCount)
                         .arg(s->eventCount);
        if (isDefault)
            lines << tr("Opened by default (newest completed session)");
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::TextAlignmentRole:
        if (index.column() == EventsColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(index.column())) {
        case SessionColumn:
            return s->id;
        case StatusColumn:
            return toString(s->status);
        case HostColumn:
            return s->host;
        case RanksColumn:
            return s->ranks.empty() ? qlonglong(-1) : qlonglong(s->ranks.front());
        case EventsColumn:
            return qlonglong(s->eventCount);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case SessionColumn:
            return isDefault ? tr("%1 (default)").arg(sessionTitle(*s)) : sessionTitle(*s);
        case StatusColumn:
            return toString(s->status);
        case HostColumn:
            return s->host;
        case RanksColumn:
            return ranksText(s->ranks);
        case EventsColumn:
            return QLocale().toString(qlonglong(s->eventCount));
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant SessionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case SessionColumn:
        return tr("Session");
    case StatusColumn:
        return tr("Status");
    case HostColumn:
        return tr("Host");
    case RanksColumn:
        return tr("Ranks");
    case EventsColumn:
        return tr("Events");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace gapscope
