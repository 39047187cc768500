#pragma once
// The timeline of a memory-budget log: a coloured band per verdict run (consecutive logged
// ticks with the same label) with its label and length, "verdict run ended" boundaries marked,
// ticks missing from the log hatched, an rss sparkline, a legend of the colours, and the tick
// cursor (click or drag; arrows step one tick, Shift ten, Home/End the first and last).
// Drawn on the chart's time axis: it shows the chart's visible range and zooms with it, so a
// tick sits at the same x in both.

#include "model/budget/BudgetAnalysisRunner.h"
#include "widgets/chart/CursorTimeline.h"
#include "widgets/chart/TimeAxis.h"

#include <QColor>
#include <QPalette>

#include <memory>
#include <vector>

namespace gapscope {

class VerdictLane : public CursorTimeline
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

    // The logged tick at the cursor (nullopt without ticks).
    std::optional<size_t> cursorTick() const;
    QString toolTipAt(QPoint pos) const; // HTML
    QRectF bandRect() const;
    double xOfTime(qint64 ns) const;
    struct LegendEntry
    {
        QString text;
        QColor color;
        enum class Kind
        {
            Verdict,
            NotLogged, // hatched
            RunEnded,  // the boundary marker
        } kind = Kind::Verdict;
    };
    // What the colours and marks of this log mean: one entry per verdict label it holds (in
    // order of first appearance), then the marks it uses.
    std::vector<LegendEntry> legendEntries() const;
    // The text written on a run at the current zoom: "hold ×48", "sk… ×3", "×3" or empty.
    QString runText(const Run& run) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    // +-N logged ticks from the tick nearest to the cursor, emits cursorMoved
    void stepCursor(int ticks) override;
    // Horizontal margins of the band, so it lines up with the chart above it.
    void setPlotMargins(int left, int right);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    bool canMoveCursor() const override;
    qint64 snappedTime(double x) const override; // the logged tick nearest to pixel x
    // the first and last logged ticks
    std::optional<qint64> firstCursorTime() const override;
    std::optional<qint64> lastCursorTime() const override;

private:
    void rebuild();
    int bandHeight() const;
    int sparkHeight() const { return 22; }
    int axisHeight() const;
    int legendHeight() const;
    // The chart's visible range over the band (the whole log before the chart tells one).
    TimeAxis laneAxis() const;

    std::shared_ptr<const BudgetAnalysisResult> m_result;
    std::vector<Run> m_runs;
    qint64 m_beginNs = 0;
    qint64 m_endNs = 0;
    int m_leftMargin = 6;
    int m_rightMargin = 6;
    double m_rssMin = 0; // sparkline scale: rss from its lowest to its highest tick
    double m_rssMax = 0;
};

} // namespace gapscope
