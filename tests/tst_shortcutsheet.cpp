// Help > Keyboard Shortcuts: the sheet lists every action of the main window that has a
// shortcut (menus, toolbars, context menus), read from the QActions when it opens, so a new
// action or a changed key shows up without anyone editing a list; `?` opens it.
#include "app/MainWindow.h"
#include "tests/WindowAccess.h"
#include "widgets/common/ShortcutSheet.h"

#include <QAction>
#include <QMap>
#include <QSet>
#include <QStandardPaths>
#include <QTest>
#include <QTreeWidget>

using namespace gapscope;

namespace {

// (action, shortcut) pairs the sheet shows
QSet<QPair<QString, QString>> listed(const ShortcutSheet& sheet)
{
    QSet<QPair<QString, QString>> rows;
    QTreeWidget* view = sheet.view();
    for (int g = 0; g < view->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = view->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            for (const QString& key : group->child(i)->text(1).split(QStringLiteral(", ")))
                rows.insert({group->child(i)->text(0), key});
        }
    }
    return rows;
}

} // namespace

class TestShortcutSheet : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void everyActionWithAShortcutIsListed()
    {
        MainWindow window;
        QList<QAction*> actions = window.findChildren<QAction*>();
        actions += window.actions();
        int withShortcut = 0;
        ShortcutSheet sheet(&window);
        const auto rows = listed(sheet);
        QSet<QAction*> counted;
        QSet<QString> distinct; // text and keys: copies of one action are one row
        for (QAction* action : actions) {
            if (action->shortcuts().isEmpty() || counted.contains(action))
                continue;
            counted.insert(action);
            QStringList keys;
            for (const QKeySequence& key : action->shortcuts())
                keys << key.toString(QKeySequence::NativeText);
            if (!distinct.contains(textWithoutMnemonics(action->text()) + u'\n' + keys.join(u'\n'))) {
                distinct.insert(textWithoutMnemonics(action->text()) + u'\n' + keys.join(u'\n'));
                ++withShortcut;
            }
            for (const QKeySequence& key : action->shortcuts()) {
                const QPair<QString, QString> row{textWithoutMnemonics(action->text()),
                                                  key.toString(QKeySequence::NativeText)};
                QVERIFY2(rows.contains(row), qPrintable(row.first + QStringLiteral(": ") + row.second));
            }
        }
        QVERIFY(withShortcut >= 20); // Open, Reload, Close, Quit, zoom, stepping, F7/F8, ...
        QCOMPARE(int(shortcutEntries(&window).size()), withShortcut);
        // grouped by the menu each is in
        QVERIFY(!sheet.view()->findItems(QStringLiteral("File"), Qt::MatchExactly).isEmpty());
        QVERIFY(!sheet.view()->findItems(QStringLiteral("Help"), Qt::MatchExactly).isEmpty());
        QVERIFY(rows.contains({QStringLiteral("Keyboard Shortcuts"),
                               QKeySequence(Qt::Key_Question).toString(QKeySequence::NativeText)}));
    }

    // Every document page has its own "Remove Bookmark" (Delete); the sheet lists it once, and a
    // different action with the same text but another key stays a row of its own.
    void eachActionOnce()
    {
        MainWindow window;
        for (int i = 0; i < 3; ++i) {
            auto* copy = new QAction(QStringLiteral("Remove Bookmark"), &window);
            copy->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Delete));
            window.addAction(copy);
        }
        auto* other = new QAction(QStringLiteral("Remove Bookmark"), &window);
        other->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Backspace));
        window.addAction(other);
        ShortcutSheet sheet(&window);
        QTreeWidget* view = sheet.view();
        QMap<QPair<QString, QString>, int> rows;
        for (int g = 0; g < view->topLevelItemCount(); ++g)
            for (int i = 0; i < view->topLevelItem(g)->childCount(); ++i) {
                const QTreeWidgetItem* row = view->topLevelItem(g)->child(i);
                ++rows[{row->text(0), row->text(1)}];
            }
        for (auto it = rows.cbegin(); it != rows.cend(); ++it)
            QVERIFY2(it.value() == 1, qPrintable(it.key().first + QStringLiteral(": ") + it.key().second));
        QVERIFY(rows.contains(
            {QStringLiteral("Remove Bookmark"),
             QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Delete).toString(QKeySequence::NativeText)}));
        QVERIFY(rows.contains(
            {QStringLiteral("Remove Bookmark"),
             QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Backspace).toString(QKeySequence::NativeText)}));
    }

    void mouseGestures_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("gesture");
        QTest::newRow("wheel zoom") << "Zoom about the pointer"
                                    << "Wheel";
        QTest::newRow("drag zoom") << "Zoom to a range"
                                   << "Drag";
        QTest::newRow("ctrl pan") << "Pan"
                                  << "Ctrl+drag";
        QTest::newRow("middle pan") << "Pan"
                                    << "Middle-drag";
        QTest::newRow("reset") << "Reset zoom"
                               << "Double-click";
        QTest::newRow("analyse window") << "Analyse only that window"
                                        << "Shift+drag";
        QTest::newRow("measure") << "Measure a span"
                                 << "Alt+drag";
        QTest::newRow("measure, Alt taken") << "Measure a span"
                                            << "Ctrl+Shift+drag";
        QTest::newRow("legend") << "Hide or show a series"
                                << "Click its legend entry";
    }
    void mouseGestures()
    {
        QFETCH(QString, action);
        QFETCH(QString, gesture);
        MainWindow window;
        ShortcutSheet sheet(&window);
        const QList<QTreeWidgetItem*> groups =
            sheet.view()->findItems(QStringLiteral("Mouse (gap chart)"), Qt::MatchExactly);
        QCOMPARE(groups.size(), 1);
        QVERIFY(listed(sheet).contains({action, gesture}));
        // each gesture's action is one row
        int rows = 0;
        for (int i = 0; i < groups.front()->childCount(); ++i)
            rows += groups.front()->child(i)->text(0) == action ? 1 : 0;
        QCOMPARE(rows, 1);
    }

    // Generated, not written down: an action added or re-keyed after the window was built
    // shows up in the next sheet as it is.
    void followsTheActions()
    {
        MainWindow window;
        auto* added = new QAction(QStringLiteral("&Brand New Thing"), &window);
        added->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_B));
        window.addAction(added);
        QVERIFY(
            listed(ShortcutSheet(&window))
                .contains({QStringLiteral("Brand New Thing"),
                           QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_B).toString(QKeySequence::NativeText)}));
        added->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_N));
        const auto rows = listed(ShortcutSheet(&window));
        QVERIFY(
            rows.contains({QStringLiteral("Brand New Thing"),
                           QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_N).toString(QKeySequence::NativeText)}));
        QVERIFY(!rows.contains(
            {QStringLiteral("Brand New Thing"),
             QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_B).toString(QKeySequence::NativeText)}));
    }

    void questionMarkOpensIt()
    {
        MainWindow window;
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(!window.findChild<ShortcutSheet*>());
        // the key as the shortcut map sees it once the keyboard layout took the Shift away (the
        // offscreen platform has no layout to ask)
        QTest::keyClick(&window, Qt::Key_Question);
        QTRY_VERIFY(window.findChild<ShortcutSheet*>() && window.findChild<ShortcutSheet*>()->isVisible());
    }
};

QTEST_MAIN(TestShortcutSheet)
#include "tst_shortcutsheet.moc"
