#pragma once
// The main window's live features: File > Follow (keep reading a growing JSON lines file or
// sink directory, model/work/TraceFollower.h), the "Live" status field and View > Pin to Latest.

#include "model/trace/AnalysisRunner.h"

#include <QObject>

#include <memory>

class QAction;
class QLabel;

namespace gapscope {

class MainWindow;
class TraceFollower;

class LiveFollow : public QObject
{
    Q_OBJECT
public:
    explicit LiveFollow(MainWindow* window);
    ~LiveFollow() override;

    QAction* followAction() const { return m_followAction; }
    QAction* pinAction() const { return m_pinAction; }
    QLabel* liveLabel() const { return m_liveLabel; }
    TraceFollower* follower() const { return m_follower; }

    bool isLive() const;
    QString liveText() const;

    // A trace was opened: following stops unless it is the followed one; a sink whose manifest
    // says a session is still running is followed at once.
    void traceOpened(const std::shared_ptr<const TraceData>& trace);
    // Another tab came to the front: its trace is the one opened.
    void followTabInFront();
    // Starts (or resumes) following the open trace; false with a status message when it cannot.
    bool follow(bool on);
    void stop();

private:
    AnalysisRequest currentRequest() const;
    void onAnalysis(std::shared_ptr<const AnalysisResult> result);
    void updateLiveLabel();

    MainWindow* m_window;
    TraceFollower* m_follower;
    QAction* m_followAction;
    QAction* m_pinAction;
    QLabel* m_liveLabel;
};

} // namespace gapscope
