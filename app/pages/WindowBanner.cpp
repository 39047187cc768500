#include "app/pages/WindowBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>

namespace gapscope {

WindowBanner::WindowBanner(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("windowBanner"));
    setAutoFillBackground(true);
    {
        QPalette pal = palette();
        const QColor highlight = pal.color(QPalette::Highlight);
        QColor tint = pal.color(QPalette::Window);
        tint = QColor::fromRgbF(tint.redF() * 0.8f + highlight.redF() * 0.2f,
                                tint.greenF() * 0.8f + highlight.greenF() * 0.2f,
                                tint.blueF() * 0.8f + highlight.blueF() * 0.2f);
        pal.setColor(QPalette::Window, tint);
        setPalette(pal);
    }
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxInformation).pixmap(16, 16));
    layout->addWidget(icon);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("windowBannerLabel"));
    layout->addWidget(m_label, 1);
    auto* resetButton = new QPushButton(tr("Reset"), this);
    resetButton->setObjectName(QStringLiteral("resetWindowButton"));
    resetButton->setToolTip(tr("Return to the analysis of the whole run (Ctrl+R)"));
    connect(resetButton, &QPushButton::clicked, this, &WindowBanner::resetRequested);
    layout->addWidget(resetButton);
    hide();
}

void WindowBanner::setText(const QString& text)
{
    m_label->setText(text);
    setVisible(!text.isEmpty());
}

QString WindowBanner::text() const
{
    return isHidden() ? QString() : m_label->text();
}

} // namespace gapscope
