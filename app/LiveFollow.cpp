#include "app/LiveFollow.h"

#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "model/work/TraceFollower.h"

#include <QAction>
#include <QLabel>
#include <QStatusBar>

namespace gapscope {

LiveFollow::LiveFollow(MainWindow* window)
    : QObject(window), m_window(window), m_follower(new TraceFollower(this)),
      m_followAction(new QAction(tr("&Follow"), this)), m_pinAction(new QAction(tr("&Pin to Latest"), this)),
      m_liveLabel(new QLabel(window))
{
    m_followAction->setCheckable(true);
    m_followAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_followAction->setStatusTip(tr("Keep reading the open trace as its writer appends to it"));
    m_pinAction->setCheckable(true);
    m_pinAction->setStatusTip(tr("While following, keep the chart and cursor on the newest samples"));
    m_liveLabel->setObjectName(QStringLiteral("liveLabel"));
    window->statusBar()->addPermanentWidget(m_liveLabel);
    m_liveLabel->hide();

    connect(m_followAction, &QAction::triggered, this, [this](bool on) { follow(on); });
    // Each snapshot is analysed as the window shows the run now (thresholds or session changed
    // while following), not as it was when following started.
    connect(m_follower, &TraceFollower::snapshotPublished, this,
            [this] { m_follower->setAnalysisRequest(currentRequest()); });
    connect(m_follower, &TraceFollower::analysisFinished, this, &LiveFollow::onAnalysis);
    connect(m_follower, &TraceFollower::notice, this,
            [this](const QString& message) { m_window->statusBar()->showMessage(message, 10000); });
    connect(m_follower, &TraceFollower::followingChanged, this, &LiveFollow::updateLiveLabel);
    updateLiveLabel();
}

LiveFollow::~LiveFollow() = default;

bool LiveFollow::isLive() const
{
    return m_follower->isFollowing();
}

QString LiveFollow::liveText() const
{
    return m_liveLabel->isVisible() || !m_liveLabel->text().isEmpty() ? m_liveLabel->text() : QString();
}

void LiveFollow::updateLiveLabel()
{
    const bool started = m_follower->isStarted() && m_follower->snapshot();
    const auto trace = m_window->currentTab()->tracePage()->trace();
    const bool ours = started && trace && trace->path == m_follower->path();
    if (!ours) {
        m_liveLabel->clear();
        m_liveLabel->hide();
    } else if (m_follower->isFollowing()) {
        m_liveLabel->setText(tr("● Live"));
        m_liveLabel->setStyleSheet(QStringLiteral("color: #1a8f3a; font-weight: bold;"));
        m_liveLabel->setToolTip(tr("Following %1").arg(m_follower->path()));
        m_liveLabel->show();
    } else {
        m_liveLabel->setText(tr("Paused"));
        m_liveLabel->setStyleSheet(QString());
        m_liveLabel->setToolTip(tr("Following is paused; the data read so far stays"));
        m_liveLabel->show();
    }
    m_followAction->setChecked(m_follower->isFollowing());
    m_followAction->setEnabled(trace != nullptr);
}

void LiveFollow::followTabInFront()
{
    traceOpened(m_window->currentTab()->tracePage()->trace());
}

void LiveFollow::traceOpened(const std::shared_ptr<const TraceData>& trace)
{
    if (trace && trace->path == m_follower->path() && m_follower->snapshot() == trace)
        return;
    stop();
    bool running = false;
    if (trace && trace->form == TraceForm::SinkDirectory) {
        for (const SessionInfo& session : trace->sessions)
            running = running || session.status == SessionStatus::Running;
    }
    if (running)
        follow(true);
    updateLiveLabel();
}

bool LiveFollow::follow(bool on)
{
    const auto trace = m_window->currentTab()->tracePage()->trace();
    if (!on) {
        m_follower->setPaused(true); // the data read so far stays on screen
        updateLiveLabel();
        return true;
    }
    if (!trace) {
        updateLiveLabel();
        return false;
    }
    m_follower->setAnalysisRequest(currentRequest());
    if (m_follower->isStarted() && m_follower->isPaused() && m_follower->path() == trace->path) {
        m_follower->setPaused(false);
        updateLiveLabel();
        return true;
    }
    QString error;
    if (!m_follower->start(trace->path, &error)) {
        m_window->statusBar()->showMessage(tr("Cannot follow: %1").arg(error), 10000);
        updateLiveLabel();
        return false;
    }
    updateLiveLabel();
    return true;
}

AnalysisRequest LiveFollow::currentRequest() const
{
    AnalysisRequest request;
    if (const auto shown = m_window->currentTab()->tracePage()->analysis()) {
        request = shown->request;
        request.sessionIndex = shown->sessionIndex;
        request.rank = shown->rank;
    }
    request.thresholds = m_window->thresholds();
    request.window.reset(); // the live view is the whole run
    return request;
}

void LiveFollow::stop()
{
    m_follower->stop();
    updateLiveLabel();
}

void LiveFollow::onAnalysis(std::shared_ptr<const AnalysisResult> result)
{
    const auto trace = m_window->currentTab()->tracePage()->trace();
    if (!result || !trace || result->trace->path != trace->path)
        return;
    TracePage* page = m_window->currentTab()->tracePage();
    if (page->showLiveSnapshot(std::move(result), m_pinAction->isChecked()))
        m_window->listProblems(page->trace()->problems);
    updateLiveLabel();
}

} // namespace gapscope
