#pragma once
// The bookmarks of one document: named times on its timeline (Ctrl+B at the cursor), listed
// by time with the name editable, stepped through like findings and phases, and kept per
// document in the settings (keyed by the file's canonical path) so they come back when the
// file is opened again.

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

class QSettings;

namespace gapscope {

struct Bookmark
{
    qint64 timeNs = 0; // trace nanoseconds
    QString name;
    bool operator==(const Bookmark&) const = default;
};

class BookmarksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        TimeColumn,
        ColumnCount
    };
    enum Role
    {
        TimeNsRole = Qt::UserRole + 1, // qint64 absolute ns
    };

    explicit BookmarksModel(QObject* parent = nullptr);

    // The time the Time column counts from (the first sample of the trace shown).
    void setOriginNs(qint64 originNs);
    // Replaces every bookmark (a document opened); kept sorted by time.
    void setBookmarks(std::vector<Bookmark> bookmarks);
    const std::vector<Bookmark>& bookmarks() const { return m_bookmarks; }
    bool isEmpty() const { return m_bookmarks.empty(); }
    // Adds a bookmark at ns ("Bookmark N" when name is empty) and returns its row.
    int addBookmark(qint64 ns, const QString& name = {});
    void removeBookmark(int row);
    // The bookmark times after / before ns, for Next / Previous Bookmark.
    std::optional<qint64> timeAfter(qint64 ns) const;
    std::optional<qint64> timeBefore(qint64 ns) const;

    // The settings of a document: a group per canonical path (a hash of it: paths hold the
    // characters QSettings keys reserve). Unreadable entries are skipped, never fatal.
    static QString settingsKey(const QString& documentPath);
    static std::vector<Bookmark> load(const QSettings& settings, const QString& documentPath);
    static void save(QSettings& settings, const QString& documentPath,
                     const std::vector<Bookmark>& bookmarks);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // Added, removed, renamed or replaced: views redraw the flags, the page saves them.
    void bookmarksChanged();

private:
    std::vector<Bookmark> m_bookmarks; // ascending time
    qint64 m_originNs = 0;
};

} // namespace gapscope
