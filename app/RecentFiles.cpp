#include "app/RecentFiles.h"

#include "model/document/OpenPlan.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace gapscope {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), m_menu(menu)
{
    connect(m_menu, &QMenu::aboutToShow, this, &RecentFiles::updateMenu);
}

QStringList RecentFiles::files() const
{
    return QSettings().value(kKey).toStringList();
}

QString RecentFiles::lastFolder() const
{
    const QStringList recent = files();
    return recent.isEmpty() ? QString() : QFileInfo(recent.front()).absolutePath();
}

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList recent = files();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    QSettings().setValue(kKey, recent);
    updateMenu();
}

void RecentFiles::remove(const QString& path)
{
    QStringList recent = files();
    recent.removeAll(path);
    QSettings().setValue(kKey, recent);
    updateMenu();
}

void RecentFiles::updateMenu()
{
    const QStringList recent = files();
    emit changed(recent);
    m_menu->clear();
    int number = 1;
    for (const QString& path : recent) {
        QString text = documentName(path); // a sink by its run: "truth", not "telemetry_sink"
        if (number <= 9)
            text = QStringLiteral("&%1 %2").arg(number).arg(text);
        ++number;
        QAction* action = m_menu->addAction(text);
        action->setToolTip(path);
        action->setStatusTip(path);
        connect(action, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (!recent.isEmpty())
        m_menu->addSeparator();
    QAction* clear = m_menu->addAction(tr("Clear Recent Files"));
    clear->setEnabled(!recent.isEmpty());
    connect(clear, &QAction::triggered, this, [this] {
        QSettings().remove(kKey);
        updateMenu();
    });
    m_menu->setEnabled(true);
}

} // namespace gapscope
