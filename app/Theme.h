#pragma once
// View > Theme: the desktop's own look (System), or the Fusion style with a light or a dark
// palette whatever the desktop uses. The choice is remembered (QSettings "view/theme") and
// applied at start-up; every view follows palette changes (ChartColors), so switching needs
// no restart.

#include <QObject>
#include <QPalette>
#include <QString>

#include <optional>

class QActionGroup;
class QMenu;

namespace gapscope {

enum class Theme
{
    System,
    Light,
    Dark,
};
QString toString(Theme theme); // "system", "light", "dark"
std::optional<Theme> themeFromString(const QString& text);

// Fusion's dark palette: light text on dark grey, a blue highlight; disabled text dimmed.
QPalette darkFusionPalette();

// Sets the application's style and palette. The first call remembers the desktop's style and
// palette, which System restores.
void applyTheme(Theme theme);
Theme currentTheme();
Theme savedTheme(); // System when nothing (or nothing valid) is saved
void saveTheme(Theme theme);

// The View > Theme submenu: System, Light, Dark, one checked; choosing one applies and saves it.
class ThemeMenu : public QObject
{
    Q_OBJECT
public:
    explicit ThemeMenu(QMenu* parentMenu);
    QMenu* menu() const { return m_menu; }
    // Checks the entry of the theme in use.
    void updateChecked();

private:
    QMenu* m_menu;
    QActionGroup* m_group;
};

} // namespace gapscope
