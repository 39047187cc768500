#pragma once
// The timeline of a memory-budget log: a coloured band per verdict run (consecutive logged
// ticks with the same label) with its length, "verdict run ended" boundaries marked, ticks
// missing from the log hatched, an rss sparkline with the chart's visible range, and the
// tick cursor (click or drag; arrows step one tick, Shift ten, Home/End the first and last).

#include "model/budget/BudgetAnalysisRunner.h"

#include <QColor>
#include <QPalette>
#include <QWidget>

#include <memory>
#include <vector>

namespace gapscope {

class VerdictLane : public QWidget
{
    Q_OBJECT
public:
    struct Run
    {
        size_t firstTick = 0;
        size_t lastTick = 0; // inclusive
        QString label;
        int64_t length = 0;      // ticks: the streak logged at the run's last tick, else the count
        bool endedByLog = false; // a "verdict run ended" line closes it
    };

    explicit VerdictLane(QWidget* parent = nullptr);
    ~VerdictLane() override;

    void setAnalysis(std::shared_ptr<const BudgetAnalysisResult> result);
    const std::vector<Run>& runs() const { return m_runs; }
    // The colour of a verdict label: grow green, hold neutral, shrink orange, skip-shrink red,
    // any other label a neutral blue.
    static QColor verdictColor(const QString& label, const QPalette& palette);

    qint64 cursorTime() const { return m_cursorNs; }
    // The logged tick at the cursor (nullopt without ticks).
    std::optional<size_t> cursorTick() const;
    QString toolTipAt(QPoint pos) const; // HTML
    QRectF bandRect() const;
    double xOfTime(qint64 ns) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void setCursorTime(qint64 ns); // does not emit cursorMoved
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void stepCursor(int ticks); // +-N logged ticks, emits cursorMoved
    // Horizontal margins of the band, so it lines up with the chart above it.
    void setPlotMargins(int left, int right);

signals:
    void cursorMoved(qint64 ns); // user clicked, dragged or stepped

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void rebuild();
    void moveCursorByUser(qint64 ns);
    qint64 snappedTime(double x) const;
    int bandHeight() const;
    int sparkHeight() const { return 22; }
    int axisHeight() const;

    std::shared_ptr<const BudgetAnalysisResult> m_result;
    std::vector<Run> m_runs;
    qint64 m_beginNs = 0;
    qint64 m_endNs = 0;
    qint64 m_cursorNs = 0;
    qint64 m_visibleBeginNs = 0;
    qint64 m_visibleEndNs = 0;
    int m_leftMargin = 6;
    int m_rightMargin = 6;
    double m_rssMin = 0; // sparkline scale: rss from its lowest to its highest tick
    double m_rssMax = 0;
};

} // namespace gapscope
