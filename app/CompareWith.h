#pragma once
// File > Compare With...: opens the compare window (widgets/trace/CompareWindow.h) with the
// main window's trace, session and rank as A, and loads the chosen path as B in the background.

#include <QObject>

class QAction;

namespace gapscope {

class MainWindow;

class CompareWith : public QObject
{
    Q_OBJECT
public:
    explicit CompareWith(MainWindow* window);

    QAction* action() const { return m_action; }
    // The same with a folder as B: a sink, or a run folder holding one (loadDocument reads it).
    QAction* folderAction() const { return m_folderAction; }
    // Enabled while a trace is open (a memory-budget log has no gap series to compare).
    void updateEnabled();
    // Opens the compare window with the open trace as A and path as B.
    void compareWith(const QString& path);

private:
    MainWindow* m_window;
    QAction* m_action;
    QAction* m_folderAction;
};

} // namespace gapscope
