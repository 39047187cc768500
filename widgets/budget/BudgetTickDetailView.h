#pragma once
// One tick of a memory-budget log in full, at the timeline cursor: every bucket with its
// bytes and share of rss, each cache (current bytes, cap before and after, delta, hit rate),
// each reporter, the six jemalloc figures, and the verdict with its detail and streak (and
// the previous verdict on the tick where the label changed).

#include "model/budget/BudgetAnalysisRunner.h"

#include <QWidget>

#include <memory>
#include <optional>

class QTextBrowser;

namespace gapscope {

class BudgetTickDetailView : public QWidget
{
    Q_OBJECT
public:
    explicit BudgetTickDetailView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const BudgetAnalysisResult> result);
    // A tick index of the log; out of range clears the view.
    void showTick(size_t tick);
    // The tick nearest to a time.
    void showTime(qint64 ns);
    void clear();
    std::optional<size_t> tick() const { return m_tick; }
    QString plainText() const; // as shown (tests, copy)
    QString html() const;      // the HTML of the tick shown

private:
    QString tickHtml(size_t tick) const;

    QTextBrowser* m_browser = nullptr;
    std::shared_ptr<const BudgetAnalysisResult> m_result;
    std::optional<size_t> m_tick;
};

} // namespace gapscope
