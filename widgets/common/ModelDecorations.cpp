#include "widgets/common/ModelDecorations.h"

#include "analysis/Finding.h"
#include "model/items/FindingsModel.h"
#include "model/items/PhasesModel.h"
#include "model/items/ProblemsModel.h"
#include "model/items/RankTableModel.h"
#include "model/store/LoadProblem.h"
#include "widgets/job/JobViewStyle.h"

#include <QApplication>
#include <QColor>
#include <QFont>
#include <QFontMetrics>
#include <QIcon>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QStyle>

namespace gapscope {

QColor severityColor(Severity severity)
{
    // Readable on light and dark palettes: the text colour is mixed toward the hue.
    const bool dark = QApplication::palette().color(QPalette::Base).lightness() < 128;
    switch (severity) {
    case Severity::Critical:
        return dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc6, 0x28, 0x28);
    case Severity::Warning:
        return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xb2, 0x5e, 0x00);
    case Severity::Info:
        break;
    }
    return QApplication::palette().color(QPalette::Text);
}

QIcon severityIcon(Severity severity)
{
    QStyle* style = QApplication::style();
    switch (severity) {
    case Severity::Critical:
        return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case Severity::Warning:
        return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case Severity::Info:
        break;
    }
    return style->standardIcon(QStyle::SP_MessageBoxInformation);
}

FindingsDecorationProxy::FindingsDecorationProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(FindingsModel::SortRole);
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

QVariant FindingsDecorationProxy::data(const QModelIndex& index, int role) const
{
    if (index.isValid() && index.column() == FindingsModel::SeverityColumn &&
        (role == Qt::DecorationRole || role == Qt::ForegroundRole || role == Qt::FontRole)) {
        const QVariant severityValue = QSortFilterProxyModel::data(index, FindingsModel::SeverityRole);
        if (!severityValue.isValid())
            return {};
        const auto severity = Severity(severityValue.toInt());
        if (role == Qt::DecorationRole)
            return severityIcon(severity);
        if (role == Qt::ForegroundRole)
            return severityColor(severity);
        if (severity == Severity::Critical) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    }
    return QSortFilterProxyModel::data(index, role);
}

RankTableDecorationProxy::RankTableDecorationProxy(QObject* parent) : QIdentityProxyModel(parent) {}

QVariant RankTableDecorationProxy::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() ||
        (role != Qt::ForegroundRole && role != Qt::FontRole && role != Qt::DecorationRole))
        return QIdentityProxyModel::data(index, role);
    const QPalette palette = QApplication::palette();
    const bool present = QIdentityProxyModel::data(index, RankTableModel::PresentRole).toBool();
    if (!present) {
        if (role == Qt::ForegroundRole)
            return palette.color(QPalette::PlaceholderText);
        if (role == Qt::FontRole) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    }
    // a rank whose memory departs from its peers': its Diverges cell and its rank in the warning colour
    const bool divergent =
        !QIdentityProxyModel::data(index, RankTableModel::DivergenceRole).toString().isEmpty();
    if (divergent && (index.column() == RankTableModel::DivergenceColumn ||
                      (index.column() == RankTableModel::RankColumn && role == Qt::ForegroundRole))) {
        if (role == Qt::ForegroundRole)
            return severityColor(Severity::Warning);
        if (role == Qt::FontRole) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    }
    if (index.column() != RankTableModel::FirstCauseColumn && index.column() != RankTableModel::RankColumn)
        return QIdentityProxyModel::data(index, role);
    const auto confidence = suspectConfidenceFromString(
        QIdentityProxyModel::data(index, RankTableModel::SuspectConfidenceRole).toString());
    if (!confidence)
        return QIdentityProxyModel::data(index, role);
    const bool leading = QIdentityProxyModel::data(index, RankTableModel::FirstCauseRole).toInt() == 2;
    if (role == Qt::DecorationRole) {
        // the heatmap's marker, for the leading suspect in the rank column
        if (index.column() != RankTableModel::RankColumn || !leading)
            return {};
        const int size = QFontMetrics(QApplication::font()).height() - 4;
        QPixmap marker(size, size);
        marker.fill(Qt::transparent);
        QPainter painter(&marker);
        drawSuspectMarker(painter, QRectF(0, 0, size, size), *confidence, palette);
        return marker;
    }
    if (index.column() != RankTableModel::FirstCauseColumn)
        return QIdentityProxyModel::data(index, role);
    // a suspect at start-up is information: upstream's grade in the muted colour
    const bool atStartup = QIdentityProxyModel::data(index, RankTableModel::SuspectAtStartupRole).toBool();
    if (role == Qt::ForegroundRole)
        return suspectColor(atStartup ? SuspectConfidence::Low : *confidence, palette);
    QFont font;
    font.setBold(leading && !atStartup);
    return font;
}

PhasesDecorationProxy::PhasesDecorationProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(PhasesModel::SortRole);
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setRecursiveFilteringEnabled(true); // a matching step keeps its train
}

QVariant PhasesDecorationProxy::data(const QModelIndex& index, int role) const
{
    if (index.isValid() && (role == Qt::FontRole || role == Qt::DecorationRole)) {
        const int findings = QSortFilterProxyModel::data(index, PhasesModel::FindingCountRole).toInt();
        if (findings <= 0)
            return QSortFilterProxyModel::data(index, role);
        if (role == Qt::FontRole) {
            QFont font;
            font.setBold(true);
            return font;
        }
        if (index.column() == PhasesModel::NameColumn)
            return severityIcon(Severity::Warning);
        return {};
    }
    return QSortFilterProxyModel::data(index, role);
}

ProblemsDecorationProxy::ProblemsDecorationProxy(QObject* parent) : QIdentityProxyModel(parent) {}

QVariant ProblemsDecorationProxy::data(const QModelIndex& index, int role) const
{
    if (index.isValid() && index.column() == ProblemsModel::LevelColumn && role == Qt::DecorationRole) {
        const auto level =
            LoadProblem::Level(QIdentityProxyModel::data(index, ProblemsModel::LevelRole).toInt());
        return severityIcon(level == LoadProblem::Level::Error ? Severity::Critical : Severity::Warning);
    }
    return QIdentityProxyModel::data(index, role);
}

} // namespace gapscope
