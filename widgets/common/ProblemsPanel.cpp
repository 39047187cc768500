#include "widgets/common/ProblemsPanel.h"
#include "model/text/Text.h"

#include "model/items/ProblemsModel.h"
#include "widgets/common/ModelDecorations.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gapscope {

ProblemsPanel::ProblemsPanel(QWidget* parent) : QDockWidget(tr("Load Problems"), parent)
{
    setObjectName(QStringLiteral("problemsDock"));
    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* header = new QHBoxLayout;
    m_summary = new QLabel(content);
    header->addWidget(m_summary, 1);
    m_filterEdit = new QLineEdit(content);
    m_filterEdit->setPlaceholderText(tr("Filter reasons..."));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setMaximumWidth(260);
    header->addWidget(m_filterEdit);
    layout->addLayout(header);

    m_model = new ProblemsModel(this);
    auto* decorations = new ProblemsDecorationProxy(this);
    decorations->setSourceModel(m_model);
    m_filter = new QSortFilterProxyModel(this);
    m_filter->setSourceModel(decorations);
    m_filter->setSortRole(ProblemsModel::SortRole);
    m_filter->setFilterKeyColumn(-1);
    m_filter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filterEdit, &QLineEdit::textChanged, m_filter, &QSortFilterProxyModel::setFilterFixedString);

    m_view = new QTableView(content);
    m_view->setModel(m_filter);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // file order until the user sorts
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_view->horizontalHeader()->setSectionResizeMode(ProblemsModel::LevelColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(ProblemsModel::LineColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->setColumnWidth(ProblemsModel::FileColumn, 180);
    layout->addWidget(m_view);
    setWidget(content);
    clear();
}

void ProblemsPanel::setProblems(const ProblemLog& log)
{
    m_model->setProblems(log);
    QString text = englishPlural(tr("%n record(s) rejected", nullptr, int(m_model->errorCount())),
                                 m_model->errorCount());
    if (m_model->warningCount() > 0)
        text += englishPlural(tr(", %n warning(s)", nullptr, int(m_model->warningCount())),
                              m_model->warningCount());
    if (m_model->totalCount() > m_model->rowCount())
        text += tr(" (the first %1 are listed)").arg(m_model->rowCount());
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
