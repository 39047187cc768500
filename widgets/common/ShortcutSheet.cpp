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

// What the sheet shows of an action: two actions with the same text and keys are one row.
struct Seen
{
    QSet<const QAction*> actions;
    QSet<QString> rows;
    // true the first time this action, and its text and keys, are seen
    bool add(const QAction* action, const QString& text, const QStringList& keys)
    {
        if (actions.contains(action))
            return false;
        actions.insert(action);
        const QString row = text + QChar(0x1f) + keys.join(QChar(0x1f));
        if (rows.contains(row))
            return false;
        rows.insert(row);
        return true;
    }
};

void collectMenu(const QMenu* menu, const QString& group, std::vector<ShortcutEntry>& entries, Seen& seen)
{
    for (QAction* action : menu->actions()) {
        if (action->menu()) {
            collectMenu(action->menu(),
                        group + QStringLiteral(" › ") + textWithoutMnemonics(action->menu()->title()),
                        entries, seen);
            continue;
        }
        if (action->isSeparator() || action->shortcuts().isEmpty())
            continue;
        const QString text = textWithoutMnemonics(action->text());
        const QStringList keys = keysOf(action);
        if (seen.add(action, text, keys))
            entries.push_back({group, text, keys, action});
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
    Seen seen;
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
        if (action->menu() || action->isSeparator() || action->shortcuts().isEmpty())
            continue;
        const QString text = textWithoutMnemonics(action->text());
        const QStringList keys = keysOf(action);
        if (seen.add(action, text, keys))
            entries.push_back({QObject::tr("Other"), text, keys, action});
    }
    return entries;
}

std::vector<ShortcutEntry> mouseGestureEntries()
{
    const QString group = QObject::tr("Mouse (gap chart)");
    // one row per action, with every gesture that does it
    const auto entry = [&group](const QString& what, const QStringList& how) {
        return ShortcutEntry{group, what, how, nullptr};
    };
    return {
        entry(QObject::tr("Zoom about the pointer"), {QObject::tr("Wheel")}),
        entry(QObject::tr("Zoom to a range"), {QObject::tr("Drag")}),
        entry(QObject::tr("Pan"),
              {QObject::tr("Ctrl+drag"), QObject::tr("Middle-drag"), QObject::tr("Horizontal wheel")}),
        entry(QObject::tr("Reset zoom"), {QObject::tr("Double-click")}),
        entry(QObject::tr("Analyse only that window"), {QObject::tr("Shift+drag")}),
        entry(QObject::tr("Measure a span"), {QObject::tr("Alt+drag"), QObject::tr("Ctrl+Shift+drag")}),
        entry(QObject::tr("Hide or show a series"), {QObject::tr("Click its legend entry")}),
    };
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
    std::vector<ShortcutEntry> entries = shortcutEntries(window);
    for (ShortcutEntry& gesture : mouseGestureEntries())
        entries.push_back(std::move(gesture));
    for (const ShortcutEntry& entry : entries) {
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
