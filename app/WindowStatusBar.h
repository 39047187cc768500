#pragma once
// The shell's part of the status bar (the pages' messages go to its left): the values at the
// cursor of the page in front, the button that opens the load problems, and a load's progress
// with its Cancel button. Permanent widgets, so a transient message never covers them.

#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;

namespace gapscope {

class ProblemLog;

class WindowStatusBar : public QObject
{
    Q_OBJECT
public:
    explicit WindowStatusBar(QStatusBar* bar);

    void setCursorValues(const QString& text);
    QString cursorValues() const;
    // "3 rejected records, 1 warning" while the document in front has problems, else hidden.
    void showProblemCount(const ProblemLog* problems);
    QString problemsButtonText() const;
    // The progress of a load of path, shown while loading.
    void setLoading(bool loading, const QString& path = {});
    void setProgress(qint64 bytesRead, qint64 totalBytes);
    QProgressBar* progressBar() const { return m_progress; }

signals:
    void problemsRequested();
    void cancelRequested();

private:
    QStatusBar* m_bar;
    QLabel* m_cursorLabel = nullptr;
    QToolButton* m_problemsButton = nullptr;
    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_cancelButton = nullptr;
};

} // namespace gapscope
