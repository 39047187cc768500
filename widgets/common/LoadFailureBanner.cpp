#include "widgets/common/LoadFailureBanner.h"

#include "model/document/LoadFailure.h"
#include "model/text/Text.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QStyle>

namespace gapscope {

LoadFailureBanner::LoadFailureBanner(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("loadFailureBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    {
        // a warm tint of the window colour: noticeable in light and dark palettes
        QPalette pal = palette();
        const QColor base = pal.color(QPalette::Window);
        const QColor warn(220, 120, 20);
        pal.setColor(QPalette::Window, QColor::fromRgbF(base.redF() * 0.8f + warn.redF() * 0.2f,
                                                        base.greenF() * 0.8f + warn.greenF() * 0.2f,
                                                        base.blueF() * 0.8f + warn.blueF() * 0.2f));
        setPalette(pal);
    }
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(32, 32));
    icon->setAlignment(Qt::AlignTop);
    layout->addWidget(icon, 0, Qt::AlignTop);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("loadFailureText"));
    m_label->setTextFormat(Qt::RichText);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    layout->addWidget(m_label, 1);
    m_dismiss = new QPushButton(tr("Dismiss"), this);
    m_dismiss->setObjectName(QStringLiteral("dismissLoadFailure"));
    m_dismiss->setToolTip(tr("Hide this message (Esc)"));
    connect(m_dismiss, &QPushButton::clicked, this, &LoadFailureBanner::dismiss);
    layout->addWidget(m_dismiss, 0, Qt::AlignTop);
    hide();
}

void LoadFailureBanner::showFailure(const LoadFailureExplanation& e)
{
    struct Line
    {
        QString label;
        QString text;
    };
    const Line lines[] = {
        {tr("Why"), e.reason},
        {tr("Tried"), e.tried},
        {tr("The file"), e.looksLike},
        {tr("gapscope opens"), e.accepted},
    };
    QString html =
        QStringLiteral("<b>%1</b><br><span>%2</span>").arg(htmlEscape(e.title), htmlEscape(e.path));
    m_plainText = e.title + QLatin1Char('\n') + e.path;
    html += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    for (const Line& line : lines) {
        if (line.text.isEmpty())
            continue;
        html += QStringLiteral("<tr><td valign='top'><b>%1:</b>&nbsp;</td><td>%2</td></tr>")
                    .arg(htmlEscape(line.label), htmlEscape(line.text));
        m_plainText += QLatin1Char('\n') + line.label + QStringLiteral(": ") + line.text;
    }
    html += QStringLiteral("</table>");
    m_label->setText(html);
    show();
}

QString LoadFailureBanner::text() const
{
    return isHidden() ? QString() : m_plainText;
}

void LoadFailureBanner::dismiss()
{
    hide();
}

void LoadFailureBanner::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape) {
        dismiss();
        event->accept();
        return;
    }
    QFrame::keyPressEvent(event);
}

} // namespace gapscope
