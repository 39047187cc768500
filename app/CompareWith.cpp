#include "app/CompareWith.h"

#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "widgets/trace/CompareWindow.h"

#include <QAction>
#include <QFileDialog>

namespace gapscope {

CompareWith::CompareWith(MainWindow* window)
    : QObject(window), m_window(window), m_action(new QAction(tr("Co&mpare With…"), this)),
      m_folderAction(new QAction(tr("Compare With &Folder…"), this))
{
    m_action->setStatusTip(tr("Compare the open trace with another run side by side"));
    connect(m_action, &QAction::triggered, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(m_window, tr("Compare With"), QString(),
                                         tr("Traces (*.jsonl *.json *.csv *.ndjson);;All files (*)"));
        if (!path.isEmpty())
            compareWith(path);
    });
    m_folderAction->setStatusTip(
        tr("Compare the open trace with a run's sink folder, or a folder holding one"));
    connect(m_folderAction, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getExistingDirectory(m_window, tr("Compare With Folder"));
        if (!path.isEmpty())
            compareWith(path);
    });
    updateEnabled();
}

void CompareWith::updateEnabled()
{
    m_action->setEnabled(m_window->currentTab()->tracePage()->trace() != nullptr);
    m_folderAction->setEnabled(m_action->isEnabled());
}

void CompareWith::compareWith(const QString& path)
{
    const auto trace = m_window->currentTab()->tracePage()->trace();
    if (!trace)
        return;
    auto* window = new CompareWindow(m_window);
    window->setWindowFlag(Qt::Window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setThresholds(m_window->thresholds());
    const auto shown = m_window->currentTab()->tracePage()->analysis();
    window->setTrace(CompareWindow::Side::A, trace,
                     shown ? std::optional<size_t>(shown->sessionIndex) : std::nullopt,
                     shown ? std::optional<int64_t>(shown->rank) : std::nullopt);
    window->openTrace(CompareWindow::Side::B, path);
    window->show();
}

} // namespace gapscope
