#pragma once
// File > Open Recent and the welcome page's list: the last files and folders opened, newest
// first, kept in the settings ("recentFiles") so every window and the next session share them.

#include <QObject>
#include <QStringList>

class QMenu;

namespace gapscope {

class RecentFiles : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxRecentFiles = 10;

    // menu: File > Open Recent, filled again each time it opens and when the list changes.
    RecentFiles(QMenu* menu, QObject* parent);

    QStringList files() const;
    // The folder of the newest, where the open dialogs start (empty without one).
    QString lastFolder() const;
    void add(const QString& path);
    void remove(const QString& path);
    // Fills the menu again and tells the list (changed).
    void updateMenu();

signals:
    // The list changed (the welcome page shows it).
    void changed(const QStringList& files);
    void openRequested(const QString& path);

private:
    QMenu* m_menu;
};

} // namespace gapscope
