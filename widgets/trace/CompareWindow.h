#pragma once
// Two runs one above the other: the gap chart of the main window (GapChartView: phase shading,
// wheel zoom, tooltips) for A and for B, zoom and cursor kept on one aligned time axis (at the
// start of each, or at the first start of a phase both have), B − A drawn on B's chart; the
// findings of each with what is new, gone, changed or not comparable (a side that cannot see
// the gap: model/trace/TraceComparison cautions, said under the counts), each side's notices, and the peak
// gap of every phase on both sides. Draws what model/TraceComparison computes; loads (LoadJob) and analyses
// (AnalysisJob) run in the background. Esc and Ctrl+W close it.

#include "analysis/Thresholds.h"
#include "model/trace/TraceComparison.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTreeWidget;

namespace gapscope {

class AnalysisJob;
class GapChartView;
class LoadJob;

class CompareWindow : public QWidget
{
    Q_OBJECT
public:
    enum class Side
    {
        A,
        B
    };

    explicit CompareWindow(QWidget* parent = nullptr);
    ~CompareWindow() override;

    // A loaded trace for one side; partition picks (session, rank), nullopt = the default.
    void setTrace(Side side, std::shared_ptr<const TraceData> trace,
                  std::optional<size_t> sessionIndex = std::nullopt,
                  std::optional<int64_t> rank = std::nullopt);
    // Loads path in the background for one side (File > Compare With... loads B this way)
    // through LoadJob: a load still running for that side is superseded and its result dropped.
    void openTrace(Side side, const QString& path);
    // Cancels the side's running load; the side keeps the trace it had.
    void cancelLoad(Side side);
    void setThresholds(const GapThresholds& thresholds);
    void setAlignment(const CompareAlignment& alignment);

    // Blocks until loads and analyses have delivered (tests, screenshots).
    void waitForIdle();

    const std::optional<TraceComparison>& comparison() const { return m_comparison; }
    QString statusText() const;
    GapChartView* chartView(Side side) const { return side == Side::A ? m_chartA : m_chartB; }
    QTreeWidget* findingsView() const { return m_findings; }
    // The line over each side's chart: its file, then each notice of its analysis (a side that
    // cannot observe the gap says so where its chart is).
    QLabel* chartTitle(Side side) const { return side == Side::A ? m_chartTitleA : m_chartTitleB; }
    QTableWidget* phasesView() const { return m_phases; }
    // Says what the phase table holds, or why it is hidden (neither run has phases).
    QLabel* phasesNote() const { return m_phasesNote; }
    // The aligned time of an absolute time on one side's clock, on the other side's clock.
    qint64 otherSideTime(Side from, qint64 ns) const;
    QComboBox* alignmentBox() const { return m_alignBox; }
    QComboBox* partitionBox(Side side) const { return side == Side::A ? m_partitionA : m_partitionB; }

signals:
    void comparisonChanged();

private:
    struct SideState
    {
        std::shared_ptr<const TraceData> trace;
        std::shared_ptr<const AnalysisResult> result;
        AnalysisJob* job = nullptr;
        LoadJob* load = nullptr;
        QString error;
    };
    SideState& state(Side side) { return side == Side::A ? m_a : m_b; }
    void fillPartitions(Side side, std::optional<size_t> sessionIndex, std::optional<int64_t> rank);
    void analyse(Side side);
    void onAnalysed(Side side, std::shared_ptr<const AnalysisResult> result, const QString& error);
    void onLoadEnded(Side side, const QString& error);
    void fillAlignments();
    void recompare();
    void showComparison();
    void showCharts();
    void syncRange(Side from, qint64 beginNs, qint64 endNs);
    void syncCursor(Side from, qint64 ns);
    void chooseFile(Side side);

    SideState m_a;
    SideState m_b;
    GapThresholds m_thresholds;
    CompareAlignment m_alignment;
    std::optional<TraceComparison> m_comparison;
    QString m_error;

    QLabel* m_nameA = nullptr;
    QLabel* m_nameB = nullptr;
    QComboBox* m_partitionA = nullptr;
    QComboBox* m_partitionB = nullptr;
    QComboBox* m_alignBox = nullptr;
    QPushButton* m_openB = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_chartTitleA = nullptr;
    QLabel* m_chartTitleB = nullptr;
    GapChartView* m_chartA = nullptr;
    GapChartView* m_chartB = nullptr;
    bool m_syncing = false; // a range or cursor being copied to the other chart
    QTreeWidget* m_findings = nullptr;
    QLabel* m_phasesNote = nullptr;
    QTableWidget* m_phases = nullptr;
};

} // namespace gapscope
