#include "widgets/common/ShortcutSheet.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHash>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gapscope {

namespace {

QStringList keysOf(const QAction* action)
{
    QStringList keys;
    for (const QKeySequence& key : action->shortcuts())
        keys << key.toString(QKeySequence::NativeText);
    return keys;
}

void collectMenu(const QMenu* menu, const QString& group, std::vector<ShortcutEntry>& entries,
                 QSet<const QAction*>& seen)
{
    for (QAction* action : menu->actions()) {
        if (action->menu()) {
            collectMenu(action->menu(),
                        group + QStringLiteral(" › ") + textWithoutMnemonics(action->menu()->title()),
                        entries, seen);
            continue;
        }
        if (action->isSeparator() || action->shortcuts().isEmpty() || seen.contains(action))
            continue;
        seen.insert(action);
        entries.push_back({group, textWithoutMnemonics(action->text()), keysOf(action), action});
    }
}

} // namespace

QString textWithoutMnemonics(QString text)
{
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text;
}

std::vector<ShortcutEntry> shortcutEntries(const QWidget* window)
{
    std::vector<ShortcutEntry> entries;
    QSet<const QAction*> seen;
    if (const auto* bar = window->findChild<QMenuBar*>()) {
        for (QAction* top : bar->actions()) {
            if (top->menu())
                collectMenu(top->menu(), textWithoutMnemonics(top->menu()->title()), entries, seen);
        }
    }
    // actions outside the menu bar (a toolbar's, a context menu's, the window's own)
    QList<QAction*> rest = window->findChildren<QAction*>();
    rest += window->actions();
    for (QAction* action : rest) {
        if (action->menu() || action->isSeparator() || action->shortcuts().isEmpty() || seen.contains(action))
            continue;
        seen.insert(action);
        entries.push_back(
            {QObject::tr("Other"), textWithoutMnemonics(action->text()), keysOf(action), action});
    }
    return entries;
}

ShortcutSheet::ShortcutSheet(const QWidget* window, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Keyboard Shortcuts — gapscope"));
    m_view = new QTreeWidget(this);
    m_view->setObjectName(QStringLiteral("shortcutSheet"));
    m_view->setHeaderLabels({tr("Action"), tr("Shortcut")});
    m_view->setRootIsDecorated(false);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_view->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_view->header()->setStretchLastSection(false);
    QHash<QString, QTreeWidgetItem*> groups;
    for (const ShortcutEntry& entry : shortcutEntries(window)) {
        QTreeWidgetItem*& group = groups[entry.group];
        if (!group) {
            group = new QTreeWidgetItem(m_view, {entry.group});
            QFont bold = group->font(0);
            bold.setBold(true);
            group->setFont(0, bold);
            group->setFirstColumnSpanned(true);
            group->setFlags(Qt::ItemIsEnabled);
            group->setExpanded(true);
        }
        auto* item = new QTreeWidgetItem(group, {entry.action, entry.keys.join(QStringLiteral(", "))});
        item->setToolTip(0, entry.source ? entry.source->statusTip() : QString());
    }
    m_view->expandAll();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_view);
    layout->addWidget(buttons);
    resize(520, 640);
}

} // namespace gapscope
