#pragma once
// The breakdown of a memory-budget log over time (budget-snapshots.md, "Derived buckets"):
// stacked areas per tick for each cache, leases, each reporter, the unattributed non-cache
// rest and allocator retention, which add up to rss; lines for target, effective target, rss
// and the OS reading. Ticks missing from the log break the areas (a gap, never a zero).
// Painted directly: long logs are aggregated per pixel column (min/max of the stack top and
// of rss), so a redraw never draws more than a few points per pixel per series.

#include "model/budget/BudgetAnalysisRunner.h"

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace gapscope {

class BudgetBreakdownView : public QWidget
{
    Q_OBJECT
public:
    enum class LayerKind
    {
        Cache,
        Lease,
        Reporter,
        NonCacheOther,
        AllocatorRetention
    };
    struct Layer
    {
        LayerKind kind = LayerKind::Cache;
        QString name;               // "plan_cache", "Leases", "reasoner", ...
        std::vector<int64_t> bytes; // one value per tick
        QColor color;
    };
    enum class LineKind
    {
        Target,
        EffectiveTarget,
        Rss,
        RssSysinfo
    };

    explicit BudgetBreakdownView(QWidget* parent = nullptr);
    ~BudgetBreakdownView() override;

    void setAnalysis(std::shared_ptr<const BudgetAnalysisResult> result);
    std::shared_ptr<const BudgetAnalysisResult> analysis() const { return m_result; }

    // bottom to top
    const std::vector<Layer>& layers() const { return m_layers; }
    static QString lineName(LineKind kind);
    // "3 ticks not logged"
    static QString ticksNotLoggedText(int64_t missingTicks);
    // Runs of consecutive logged ticks [first, last] drawn as one area; a tick gap of the log
    // separates two runs.
    const std::vector<std::pair<size_t, size_t>>& segments() const { return m_segments; }
    // Sum of the stacked layers at a tick.
    int64_t stackedTotal(size_t tick) const;
    // The tooltip of a tick: every value in IEC units (HTML).
    QString tickToolTip(size_t tick) const;
    // The tooltip over a gap: how many ticks are missing (HTML).
    QString gapToolTip(const TickGap& gap) const;
    // Ticks drawn at the last paint (after per-pixel aggregation), for tests.
    size_t drawnTickCount() const { return m_drawnTicks; }

    qint64 visibleBeginNs() const { return m_viewBeginNs; }
    qint64 visibleEndNs() const { return m_viewEndNs; }
    qint64 cursorTime() const { return m_cursorNs; }
    // The plot area in widget coordinates, and the x of a time in it.
    QRectF plotRect() const;
    double xOfTime(qint64 ns) const;
    qint64 timeOfX(double x) const;

    QSize sizeHint() const override { return QSize(900, 420); }
    QSize minimumSizeHint() const override { return QSize(300, 200); }

public slots:
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    void resetZoom();
    void setCursorTime(qint64 ns);

signals:
    void visibleRangeChanged(qint64 beginNs, qint64 endNs);
    void cursorRequested(qint64 ns);                  // a click: the tick nearest to it
    void rangeSelected(qint64 beginNs, qint64 endNs); // Shift+drag
    // The plot's distance from the left and right edges (a timeline below can line up).
    void plotMarginsChanged(int left, int right);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct LegendEntry
    {
        QString name;
        QColor color;
        bool area = true;
        Qt::PenStyle style = Qt::SolidLine;
        bool hatched = false; // the ticks-not-logged pattern
    };
    void rebuild();
    void assignColors();
    QColor lineColor(LineKind kind) const;
    Qt::PenStyle lineStyle(LineKind kind) const;
    const std::vector<int64_t>* lineValues(LineKind kind) const;
    std::vector<LegendEntry> legendEntries() const;
    int legendHeight(int width) const;
    int axisLabelWidth() const;
    double yMax() const;
    std::vector<size_t> ticksToDraw(size_t first, size_t last, int columns) const;
    const TickGap* gapAtX(double x) const;
    void setRange(qint64 beginNs, qint64 endNs, bool notify);

    std::shared_ptr<const BudgetAnalysisResult> m_result;
    std::vector<Layer> m_layers;
    std::vector<std::pair<size_t, size_t>> m_segments;
    std::vector<int64_t> m_stackTop; // per tick
    double m_yMax = 0;
    qint64 m_dataBeginNs = 0;
    qint64 m_dataEndNs = 0;
    qint64 m_viewBeginNs = 0;
    qint64 m_viewEndNs = 0;
    qint64 m_cursorNs = 0;
    mutable size_t m_drawnTicks = 0;
    // mouse
    std::optional<QPointF> m_hover;
    std::optional<QPointF> m_pressPos;
    qint64 m_pressBeginNs = 0;
    qint64 m_pressEndNs = 0;
    bool m_selecting = false;
    bool m_panning = false;
    std::optional<QPointF> m_selectionEnd;
};

} // namespace gapscope
