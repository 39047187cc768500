#pragma once
// What the views of one page look at, in one place: the visible time range, the cursor, the
// analysis window, and the history of zoom steps with Back and Forward (as KDAB Hotspot's
// FilterAndZoomStack). Views subscribe to its signals and report the user's changes back, so
// a page wires each view to the state once instead of each view to every other one.

#include "model/trace/AnalysisRunner.h"

#include <QObject>

#include <optional>
#include <vector>

namespace gapscope {

// A visible stretch of time, in trace nanoseconds.
struct TimeRange
{
    qint64 beginNs = 0;
    qint64 endNs = 0;
    bool operator==(const TimeRange&) const = default;
};

class ViewState : public QObject
{
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr);

    TimeRange visibleRange() const { return m_range; }
    qint64 cursorNs() const { return m_cursorNs; }
    std::optional<TimeWindow> analysisWindow() const { return m_analysisWindow; }

    // A view panned or zoomed (or clamped a range it was given): the current zoom step becomes
    // this range, without a new history entry.
    void setVisibleRange(qint64 beginNs, qint64 endNs);
    // A navigation (Reset Zoom, a phase, a finding out of view): a new zoom step that Back
    // returns from. Steps after the current one are dropped, as in a browser.
    void zoomTo(qint64 beginNs, qint64 endNs);
    bool canZoomBack() const { return m_step > 0; }
    bool canZoomForward() const { return m_step + 1 < m_history.size(); }
    void zoomBack();
    void zoomForward();
    // The history as ranges, oldest first, and the index of the current step (tests).
    const std::vector<TimeRange>& zoomHistory() const { return m_history; }
    size_t zoomStep() const { return m_step; }

    // Moves the cursor; always announced, so views re-read their values at it after their
    // data changed under an unchanged time.
    void setCursor(qint64 ns);
    // Records where the views already put the cursor (a new result placed it) without
    // moving any of them.
    void syncCursor(qint64 ns) { m_cursorNs = ns; }

    void setAnalysisWindow(std::optional<TimeWindow> window);

    // A new document: no range, no history, the cursor at zero.
    void reset();

signals:
    void visibleRangeChanged(qint64 beginNs, qint64 endNs);
    void cursorChanged(qint64 ns);
    void analysisWindowChanged();
    void zoomHistoryChanged();

private:
    // The range is the one shown (a history exists: the first range is always taken).
    bool isShown(const TimeRange& range) const;
    void goToStep(size_t step);
    // Announces m_range; a view that clamps it while being told (and so sets it again) gets
    // the final range announced once more, so no view is left with the unclamped one.
    void announceRange();

    TimeRange m_range;
    std::vector<TimeRange> m_history; // empty until the first range is known
    size_t m_step = 0;
    qint64 m_cursorNs = 0;
    std::optional<TimeWindow> m_analysisWindow;
    bool m_announcing = false;
    bool m_rangeChangedWhileAnnouncing = false;
};

} // namespace gapscope
