#pragma once
// Help > Keyboard Shortcuts (`?`): every action of a window that has a shortcut, grouped by the
// menu it is in, read from the window's QActions each time the sheet opens, so the sheet never
// lists a key that is gone or misses a new one.

#include <QDialog>
#include <QString>
#include <QStringList>

#include <vector>

class QAction;
class QTreeWidget;

namespace gapscope {

struct ShortcutEntry
{
    QString group;    // "File", "View › Chart Overlays"; "Other" outside the menu bar
    QString action;   // its text without mnemonics ("Open…")
    QStringList keys; // native text of each shortcut ("Ctrl+O")
    QAction* source = nullptr;
};

// An action's text as the sheet shows it: "&Open…" -> "Open…", "Save && Quit" -> "Save & Quit".
QString textWithoutMnemonics(QString text);

// The actions with a shortcut among window's descendants (and the window's own), each once,
// in menu-bar order, then the rest. Once also means once by text and keys: each view's copy of
// the same action (every document's "Remove Bookmark") is one row.
std::vector<ShortcutEntry> shortcutEntries(const QWidget* window);

// The gap chart's mouse gestures (GapChartView, ChartNavigation), group "Mouse (gap chart)";
// written here because gestures are not QActions the sheet could read.
std::vector<ShortcutEntry> mouseGestureEntries();

class ShortcutSheet : public QDialog
{
    Q_OBJECT
public:
    // Lists shortcutEntries(window) as they are now, then mouseGestureEntries().
    explicit ShortcutSheet(const QWidget* window, QWidget* parent = nullptr);
    QTreeWidget* view() const { return m_view; }

private:
    QTreeWidget* m_view = nullptr;
};

} // namespace gapscope
