#pragma once
// Non-modal dock listing the records a load rejected or warned about (file, line, reason).

#include <QDockWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

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
    QTableView* view() const { return m_view; }
    QString summaryText() const;

private:
    ProblemsModel* m_model = nullptr;
    QSortFilterProxyModel* m_filter = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_summary = nullptr;
    QLineEdit* m_filterEdit = nullptr;
};

} // namespace gapscope
