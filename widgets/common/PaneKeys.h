#pragma once
// The panes walked with Tab (issue 17 item 14): the findings table, the phases tree and the
// finding's text. Tab moves between them (not between the cells of a table); the pane with the
// keyboard shows a frame in the palette's highlight colour (the styles' own hint on an item
// view is a faint dotted cell, or nothing); a header click sorts a table or tree.

class QAbstractItemView;
class QHeaderView;
class QWidget;

namespace gapscope {

// A frame in the highlight colour while widget has focus (a transparent one of the same width
// otherwise, so nothing moves). widget needs an objectName: the style sheet is scoped to it,
// not to its children.
void showFocusFrame(QWidget* widget);

// Tab moves to the next pane, not to the next cell.
void tabLeavesItemView(QAbstractItemView* view);

// A header click sorts the view (its model sorts, e.g. a QSortFilterProxyModel). Until the
// first click the model's own order stays and no section reserves room for a sort arrow (the
// columns keep the widths they had without sorting).
void sortByHeaderClick(QAbstractItemView* view, QHeaderView* header);

} // namespace gapscope
