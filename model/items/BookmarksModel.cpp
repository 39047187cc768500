#include "model/items/BookmarksModel.h"

#include "analysis/Int64Math.h"
#include "model/text/Text.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>

#include <algorithm>

namespace gapscope {

namespace {

bool earlier(const Bookmark& a, const Bookmark& b)
{
    return a.timeNs < b.timeNs;
}

QString canonicalPath(const QString& path)
{
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath(); // empty once the file is gone
    return canonical.isEmpty() ? info.absoluteFilePath() : canonical;
}

} // namespace

BookmarksModel::BookmarksModel(QObject* parent) : QAbstractTableModel(parent) {}

void BookmarksModel::setOriginNs(qint64 originNs)
{
    if (m_originNs == originNs)
        return;
    m_originNs = originNs;
    if (!m_bookmarks.empty())
        emit dataChanged(index(0, TimeColumn), index(rowCount() - 1, TimeColumn));
}

void BookmarksModel::setBookmarks(std::vector<Bookmark> bookmarks)
{
    beginResetModel();
    m_bookmarks = std::move(bookmarks);
    std::stable_sort(m_bookmarks.begin(), m_bookmarks.end(), earlier);
    endResetModel();
    emit bookmarksChanged();
}

int BookmarksModel::addBookmark(qint64 ns, const QString& name)
{
    Bookmark bookmark{ns, name.trimmed()};
    if (bookmark.name.isEmpty())
        bookmark.name = tr("Bookmark %1").arg(m_bookmarks.size() + 1);
    // after the bookmarks at the same time: the newest of them is the last
    const auto at = std::upper_bound(m_bookmarks.begin(), m_bookmarks.end(), bookmark, earlier);
    const int row = int(at - m_bookmarks.begin());
    beginInsertRows({}, row, row);
    m_bookmarks.insert(at, std::move(bookmark));
    endInsertRows();
    emit bookmarksChanged();
    return row;
}

void BookmarksModel::removeBookmark(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    m_bookmarks.erase(m_bookmarks.begin() + row);
    endRemoveRows();
    emit bookmarksChanged();
}

std::optional<qint64> BookmarksModel::timeAfter(qint64 ns) const
{
    const auto it = std::upper_bound(m_bookmarks.begin(), m_bookmarks.end(), Bookmark{ns, {}}, earlier);
    if (it == m_bookmarks.end())
        return std::nullopt;
    return it->timeNs;
}

std::optional<qint64> BookmarksModel::timeBefore(qint64 ns) const
{
    const auto it = std::lower_bound(m_bookmarks.begin(), m_bookmarks.end(), Bookmark{ns, {}}, earlier);
    if (it == m_bookmarks.begin())
        return std::nullopt;
    return std::prev(it)->timeNs;
}

QString BookmarksModel::settingsKey(const QString& documentPath)
{
    const QByteArray hash =
        QCryptographicHash::hash(canonicalPath(documentPath).toUtf8(), QCryptographicHash::Sha1).toHex();
    return QStringLiteral("bookmarks/") + QString::fromLatin1(hash);
}

std::vector<Bookmark> BookmarksModel::load(const QSettings& settings, const QString& documentPath)
{
    const QString key = settingsKey(documentPath);
    // the times are int64 nanoseconds: strings, as a JSON number would go through a double
    const QJsonArray array =
        QJsonDocument::fromJson(settings.value(key + QStringLiteral("/list")).toString().toUtf8()).array();
    std::vector<Bookmark> out;
    for (const QJsonValue& value : array) {
        const QJsonObject object = value.toObject();
        bool ok = false;
        const qint64 ns = object.value(QStringLiteral("time_ns")).toString().toLongLong(&ok);
        if (ok)
            out.push_back({ns, object.value(QStringLiteral("name")).toString()});
    }
    std::stable_sort(out.begin(), out.end(), earlier);
    return out;
}

void BookmarksModel::save(QSettings& settings, const QString& documentPath,
                          const std::vector<Bookmark>& bookmarks)
{
    const QString key = settingsKey(documentPath);
    if (bookmarks.empty()) {
        settings.remove(key);
        return;
    }
    QJsonArray array;
    for (const Bookmark& bookmark : bookmarks)
        array.append(QJsonObject{{QStringLiteral("time_ns"), QString::number(bookmark.timeNs)},
                                 {QStringLiteral("name"), bookmark.name}});
    settings.setValue(key + QStringLiteral("/path"), canonicalPath(documentPath)); // for a reader
    settings.setValue(key + QStringLiteral("/list"),
                      QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact)));
}

int BookmarksModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_bookmarks.size());
}

int BookmarksModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BookmarksModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Bookmark& bookmark = m_bookmarks[size_t(index.row())];
    if (role == TimeNsRole)
        return bookmark.timeNs;
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return bookmark.name;
        if (role == Qt::ToolTipRole)
            return tr("Double-click or F2 to rename; Enter jumps to it");
        break;
    case TimeColumn:
        if (role == Qt::DisplayRole)
            // a stored bookmark may hold any int64: the difference is taken in 128 bits
            // (INT64_MIN once wrapped to "+7427372036.855 s")
            return secondsText(double(WideInt(bookmark.timeNs) - m_originNs) / 1e9);
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

bool BookmarksModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        index.column() != NameColumn || role != Qt::EditRole)
        return false;
    const QString name = value.toString().trimmed();
    Bookmark& bookmark = m_bookmarks[size_t(index.row())];
    if (name.isEmpty() || name == bookmark.name)
        return false;
    bookmark.name = name;
    emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    emit bookmarksChanged();
    return true;
}

Qt::ItemFlags BookmarksModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == NameColumn)
        flags |= Qt::ItemIsEditable;
    return flags;
}

QVariant BookmarksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Bookmark");
    case TimeColumn:
        return tr("Time");
    default:
        return {};
    }
}

} // namespace gapscope
