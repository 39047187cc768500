#include "app/pages/ViewState.h"

namespace gapscope {

namespace {

TimeRange orderedRange(qint64 aNs, qint64 bNs)
{
    return aNs <= bNs ? TimeRange{aNs, bNs} : TimeRange{bNs, aNs};
}

} // namespace

ViewState::ViewState(QObject* parent) : QObject(parent) {}

bool ViewState::isShown(const TimeRange& range) const
{
    return range == m_range && !m_history.empty();
}

void ViewState::setVisibleRange(qint64 beginNs, qint64 endNs)
{
    const TimeRange range = orderedRange(beginNs, endNs);
    if (isShown(range))
        return;
    m_range = range;
    if (m_history.empty()) {
        m_history.push_back(range);
        m_step = 0;
        emit zoomHistoryChanged();
    } else {
        m_history[m_step] = range;
    }
    announceRange();
}

void ViewState::zoomTo(qint64 beginNs, qint64 endNs)
{
    const TimeRange range = orderedRange(beginNs, endNs);
    if (isShown(range))
        return;
    if (!m_history.empty()) {
        m_history.resize(m_step + 1);
        ++m_step;
    }
    m_history.push_back(range);
    m_range = range;
    emit zoomHistoryChanged();
    announceRange();
}

void ViewState::zoomBack()
{
    if (canZoomBack())
        goToStep(m_step - 1);
}

void ViewState::zoomForward()
{
    if (canZoomForward())
        goToStep(m_step + 1);
}

void ViewState::goToStep(size_t step)
{
    m_step = step;
    m_range = m_history[m_step];
    emit zoomHistoryChanged();
    announceRange();
}

void ViewState::setCursor(qint64 ns)
{
    m_cursorNs = ns;
    emit cursorChanged(ns);
}

void ViewState::setAnalysisWindow(std::optional<TimeWindow> window)
{
    if (window == m_analysisWindow)
        return;
    m_analysisWindow = window;
    emit analysisWindowChanged();
}

void ViewState::reset()
{
    m_range = {};
    m_history.clear();
    m_step = 0;
    m_cursorNs = 0;
    setAnalysisWindow(std::nullopt);
    emit zoomHistoryChanged();
}

void ViewState::announceRange()
{
    if (m_announcing) {
        m_rangeChangedWhileAnnouncing = true;
        return;
    }
    m_announcing = true;
    do {
        m_rangeChangedWhileAnnouncing = false;
        emit visibleRangeChanged(m_range.beginNs, m_range.endNs);
    } while (m_rangeChangedWhileAnnouncing);
    m_announcing = false;
}

} // namespace gapscope
