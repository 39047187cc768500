#include "app/Theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QToolTip>

namespace gapscope {

namespace {

const QString kThemeKey = QStringLiteral("view/theme");

struct DesktopLook
{
    QString styleName;
    QPalette palette;
};

// what the desktop gave the application before any theme was applied
std::optional<DesktopLook>& desktopLook()
{
    static std::optional<DesktopLook> look;
    return look;
}

Theme& themeInUse()
{
    static Theme theme = Theme::System;
    return theme;
}

} // namespace

QString toString(Theme theme)
{
    switch (theme) {
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::System:
        break;
    }
    return QStringLiteral("system");
}

std::optional<Theme> themeFromString(const QString& text)
{
    for (Theme theme : {Theme::System, Theme::Light, Theme::Dark}) {
        if (text == toString(theme))
            return theme;
    }
    return std::nullopt;
}

QPalette darkFusionPalette()
{
    const QColor window(0x2d, 0x2d, 0x2d);
    const QColor base(0x1f, 0x1f, 0x1f);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x29, 0x29, 0x29));
    p.setColor(QPalette::ToolTipBase, QColor(0x37, 0x37, 0x37));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x38, 0x38, 0x38));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4a, 0x4a));
    p.setColor(QPalette::Midlight, QColor(0x3c, 0x3c, 0x3c));
    p.setColor(QPalette::Mid, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::Dark, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0c));
    p.setColor(QPalette::Highlight, QColor(0x2a, 0x6f, 0xb8)); // white text on it: contrast 5
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xc1, 0x9b, 0xf0));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
    p.setColor(QPalette::Disabled, QPalette::HighlightedText, disabled);
    return p;
}

void applyTheme(Theme theme)
{
    if (!desktopLook())
        desktopLook() = DesktopLook{QApplication::style()->name(), QApplication::palette()};
    themeInUse() = theme;
    QPalette palette;
    if (theme == Theme::System) {
        QApplication::setStyle(QStyleFactory::create(desktopLook()->styleName));
        palette = desktopLook()->palette;
    } else {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        palette = theme == Theme::Dark ? darkFusionPalette() : QApplication::style()->standardPalette();
    }
    QApplication::setPalette(palette);
    QToolTip::setPalette(palette);
}

Theme currentTheme()
{
    return themeInUse();
}

Theme savedTheme()
{
    return themeFromString(QSettings().value(kThemeKey).toString()).value_or(Theme::System);
}

void saveTheme(Theme theme)
{
    QSettings().setValue(kThemeKey, toString(theme));
}

ThemeMenu::ThemeMenu(QMenu* parentMenu)
    : QObject(parentMenu), m_menu(parentMenu->addMenu(tr("&Theme"))), m_group(new QActionGroup(this))
{
    m_group->setExclusive(true);
    const std::pair<Theme, QString> entries[] = {
        {Theme::System, tr("&System")}, {Theme::Light, tr("&Light")}, {Theme::Dark, tr("&Dark")}};
    for (const auto& [theme, text] : entries) {
        QAction* action = m_menu->addAction(text);
        action->setCheckable(true);
        action->setData(toString(theme));
        m_group->addAction(action);
    }
    m_menu->actions()[0]->setStatusTip(tr("The desktop's style and colours"));
    m_menu->actions()[1]->setStatusTip(tr("The Fusion style with light colours"));
    m_menu->actions()[2]->setStatusTip(tr("The Fusion style with dark colours"));
    connect(m_group, &QActionGroup::triggered, this, [](QAction* action) {
        const Theme theme = themeFromString(action->data().toString()).value_or(Theme::System);
        applyTheme(theme);
        saveTheme(theme);
    });
    updateChecked();
}

void ThemeMenu::updateChecked()
{
    for (QAction* action : m_group->actions())
        action->setChecked(action->data().toString() == toString(currentTheme()));
}

} // namespace gapscope
