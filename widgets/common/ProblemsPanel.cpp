#include "widgets/common/ProblemsPanel.h"
#include "model/text/Text.h"

#include "model/items/ProblemsModel.h"
#include "widgets/common/ModelDecorations.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace gapscope {

ProblemsPanel::ProblemsPanel(QWidget* parent) : QDockWidget(tr("Load Problems"), parent)
{
    setObjectName(QStringLiteral("problemsDock"));
    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    m_summary = new QLabel(content);
    top->addWidget(m_summary, 1);
    m_filterEdit = new QLineEdit(content);
    m_filterEdit->setPlaceholderText(tr("Filter reasons..."));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setMaximumWidth(260);
    top->addWidget(m_filterEdit);
    layout->addLayout(top);

    m_model = new ProblemsModel(this);
    auto* decorations = new ProblemsDecorationProxy(this);
    decorations->setSourceModel(m_model);
    m_filter = new QSortFilterProxyModel(this);
    m_filter->setSourceModel(decorations);
    m_filter->setSortRole(ProblemsModel::SortRole);
    m_filter->setFilterKeyColumn(-1);
    m_filter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    // a group whose reason matches keeps all its records; a record that matches keeps its group
    m_filter->setRecursiveFilteringEnabled(true);
    m_filter->setAutoAcceptChildRows(true);
    connect(m_filterEdit, &QLineEdit::textChanged, m_filter, &QSortFilterProxyModel::setFilterFixedString);

    m_view = new QTreeView(content);
    m_view->setModel(m_filter);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // file order until the user sorts
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setUniformRowHeights(true);
    m_view->setAllColumnsShowFocus(true);
    QHeaderView* header = m_view->header();
    header->setStretchLastSection(false);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    header->setSectionResizeMode(ProblemsModel::LevelColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(ProblemsModel::ReasonColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(ProblemsModel::CountColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(ProblemsModel::LineColumn, QHeaderView::ResizeToContents);
    m_view->setColumnWidth(ProblemsModel::FileColumn, 180);
    layout->addWidget(m_view);
    setWidget(content);
    clear();
}

void ProblemsPanel::setProblems(const ProblemLog& log)
{
    if (log.empty()) {
        clear();
        return;
    }
    m_model->setProblems(log);
    QString text = englishPlural(tr("%n record(s) rejected", nullptr, int(m_model->errorCount())),
                                 m_model->errorCount());
    if (m_model->warningCount() > 0)
        text += englishPlural(tr(", %n warning(s)", nullptr, int(m_model->warningCount())),
                              m_model->warningCount());
    const auto listed = qint64(m_model->problems().size());
    if (m_model->totalCount() > listed)
        text += tr(" (the first %1 are listed)").arg(listed);
    if (m_model->groupCount() > 0)
        text += englishPlural(tr(" · %n reason(s)", nullptr, m_model->groupCount()), m_model->groupCount());
    m_summary->setText(text);
}

void ProblemsPanel::clear()
{
    m_model->clear();
    m_summary->setText(tr("No problems"));
}

QString ProblemsPanel::summaryText() const
{
    return m_summary->text();
}

} // namespace gapscope
