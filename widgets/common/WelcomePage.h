#pragma once
// What the window shows with nothing open: open actions (traces, sink directories, memory-budget
// logs), recent files, the bundled sample.

#include <QIcon>
#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;

namespace gapscope {

class WelcomePage : public QWidget
{
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    void setIcon(const QIcon& icon);
    void setRecentFiles(const QStringList& paths);
    QStringList recentFiles() const { return m_recent; }
    // an error of the last open attempt (empty hides it)
    void setMessage(const QString& message);
    QString message() const;

signals:
    void openFileRequested();
    void openDirectoryRequested();
    void openSampleRequested();
    void recentFileRequested(const QString& path);

private:
    void activateRecent(QListWidgetItem* item);

    QLabel* m_icon = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_recentTitle = nullptr;
    QListWidget* m_recentList = nullptr;
    QStringList m_recent;
};

} // namespace gapscope
