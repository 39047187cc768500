#include "widgets/common/PaneKeys.h"

#include <QAbstractItemView>
#include <QHeaderView>
#include <QString>
#include <QTableView>
#include <QTreeView>

namespace gapscope {

void showFocusFrame(QWidget* widget)
{
    if (!widget || widget->objectName().isEmpty())
        return;
    widget->setStyleSheet(QStringLiteral("#%1 { border: 2px solid transparent; }\n"
                                         "#%1:focus { border: 2px solid palette(highlight); }")
                              .arg(widget->objectName()));
}

void tabLeavesItemView(QAbstractItemView* view)
{
    if (view)
        view->setTabKeyNavigation(false);
}

void sortByHeaderClick(QAbstractItemView* view, QHeaderView* header)
{
    if (!view || !header)
        return;
    header->setSortIndicator(-1, Qt::AscendingOrder);
    if (auto* table = qobject_cast<QTableView*>(view))
        table->setSortingEnabled(true);
    else if (auto* tree = qobject_cast<QTreeView*>(view))
        tree->setSortingEnabled(true);
    header->setSortIndicatorShown(false);
    QObject::connect(header, &QHeaderView::sortIndicatorChanged, header,
                     [header](int section, Qt::SortOrder) { header->setSortIndicatorShown(section >= 0); });
}

} // namespace gapscope
