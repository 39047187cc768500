#pragma once
// Colours, icons and fonts for the Qt Core item models of model/: those models may not use
// QtGui, so the widgets side adds the look here as proxies. The findings and phases proxies
// also sort (by the model's SortRole, the source order until a header is clicked) and filter
// (a text matched in any column, case-insensitive; a phase stays when a child matches).

#include <QColor>
#include <QIcon>
#include <QIdentityProxyModel>
#include <QSortFilterProxyModel>

namespace gapscope {

enum class Severity;

QColor severityColor(Severity severity);
QIcon severityIcon(Severity severity);

// FindingsModel: severity icon and colour in the severity column.
class FindingsDecorationProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit FindingsDecorationProxy(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
};

// PhasesModel: spans with attributed findings are bold with a marker icon.
class PhasesDecorationProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit PhasesDecorationProxy(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
};

// RankTableModel: missing ranks greyed and italic; first-cause suspects marked with the
// confidence's colour (the leading one in bold).
class RankTableDecorationProxy : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit RankTableDecorationProxy(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
};

// ProblemsModel: level icon.
class ProblemsDecorationProxy : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit ProblemsDecorationProxy(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
};

} // namespace gapscope
