#pragma once
// A timeline under the chart: a cursor the user drags or steps with the arrow keys, a phase
// lane, finding ticks, and the chart's visible range drawn as a window over the whole run.

#include "model/trace/AnalysisRunner.h"

#include <QWidget>

#include <memory>

namespace gapscope {

class TimelineScrubber : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineScrubber(QWidget* parent = nullptr);
    ~TimelineScrubber() override;

    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    qint64 cursorTime() const;
    QSize sizeHint() const override;
    // constant, so loading a trace with more phase lanes never changes the window's minimum
    QSize minimumSizeHint() const override;

public slots:
    void setCursorTime(qint64 ns); // does not emit cursorMoved
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void stepCursor(int samples); // +-N usable samples, emits cursorMoved

signals:
    void cursorMoved(qint64 ns); // user dragged/clicked/stepped

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override; // rich tooltip: time, phase and findings under the mouse

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace gapscope
