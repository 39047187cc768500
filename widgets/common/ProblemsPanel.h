#pragma once
// Non-modal dock listing the records a load rejected or warned about, grouped by reason with
// counts; a group expands to its records (file, line).

#include <QDockWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace gapscope {

class ProblemLog;
class ProblemsModel;

class ProblemsPanel : public QDockWidget
{
    Q_OBJECT
public:
    explicit ProblemsPanel(QWidget* parent = nullptr);

    void setProblems(const ProblemLog& log);
    void clear();
    ProblemsModel* problemsModel() const { return m_model; }
    QTreeView* view() const { return m_view; }
    QString summaryText() const;

private:
    ProblemsModel* m_model = nullptr;
    QSortFilterProxyModel* m_filter = nullptr;
    QTreeView* m_view = nullptr;
    QLabel* m_summary = nullptr;
    QLineEdit* m_filterEdit = nullptr;
};

} // namespace gapscope
