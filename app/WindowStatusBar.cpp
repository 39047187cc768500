#include "app/WindowStatusBar.h"

#include "model/store/LoadProblem.h"
#include "model/text/Text.h"

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QStyle>
#include <QToolButton>

#include <algorithm>

namespace gapscope {

WindowStatusBar::WindowStatusBar(QStatusBar* bar) : QObject(bar), m_bar(bar)
{
    m_cursorLabel = new QLabel(bar);
    m_cursorLabel->setObjectName(QStringLiteral("cursorValues"));
    m_cursorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // permanent: transient messages (left) must not cover the values at the cursor
    bar->addPermanentWidget(m_cursorLabel);

    m_problemsButton = new QToolButton(bar);
    m_problemsButton->setObjectName(QStringLiteral("problemsButton"));
    m_problemsButton->setAutoRaise(true);
    m_problemsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_problemsButton->setIcon(bar->style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_problemsButton->setToolTip(tr("Show the records that could not be loaded"));
    connect(m_problemsButton, &QToolButton::clicked, this, &WindowStatusBar::problemsRequested);
    m_problemsButton->hide();
    bar->addPermanentWidget(m_problemsButton);

    m_progressLabel = new QLabel(bar);
    m_progressLabel->hide();
    bar->addPermanentWidget(m_progressLabel);
    m_progress = new QProgressBar(bar);
    m_progress->setObjectName(QStringLiteral("loadProgress"));
    m_progress->setMaximumWidth(180);
    m_progress->setMaximumHeight(bar->fontMetrics().height() + 4);
    m_progress->setRange(0, 1000);
    m_progress->hide();
    bar->addPermanentWidget(m_progress);
    m_cancelButton = new QToolButton(bar);
    m_cancelButton->setObjectName(QStringLiteral("cancelLoadButton"));
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setIcon(bar->style()->standardIcon(QStyle::SP_DialogCancelButton));
    m_cancelButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->hide();
    connect(m_cancelButton, &QToolButton::clicked, this, &WindowStatusBar::cancelRequested);
    bar->addPermanentWidget(m_cancelButton);
}

void WindowStatusBar::setCursorValues(const QString& text)
{
    m_cursorLabel->setText(text);
}

QString WindowStatusBar::cursorValues() const
{
    return m_cursorLabel->text();
}

void WindowStatusBar::showProblemCount(const ProblemLog* problems)
{
    const qint64 errors = problems ? problems->errorCount() : 0;
    const qint64 warnings = problems ? problems->warningCount() : 0;
    if (errors + warnings == 0) {
        m_problemsButton->hide();
        return;
    }
    QString text = errors > 0 ? englishPlural(tr("%n rejected record(s)", nullptr, int(errors)), errors)
                              : englishPlural(tr("%n warning(s)", nullptr, int(warnings)), warnings);
    if (errors > 0 && warnings > 0)
        text += englishPlural(tr(", %n warning(s)", nullptr, int(warnings)), warnings);
    m_problemsButton->setText(text);
    m_problemsButton->setIcon(m_bar->style()->standardIcon(errors > 0 ? QStyle::SP_MessageBoxWarning
                                                                      : QStyle::SP_MessageBoxInformation));
    m_problemsButton->show();
}

QString WindowStatusBar::problemsButtonText() const
{
    return m_problemsButton->isHidden() ? QString() : m_problemsButton->text();
}

void WindowStatusBar::setLoading(bool loading, const QString& path)
{
    m_progress->setVisible(loading);
    m_progressLabel->setVisible(loading);
    m_cancelButton->setVisible(loading);
    if (loading) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(0);
        m_progressLabel->setText(tr("Loading %1").arg(QFileInfo(path).fileName()));
        m_bar->clearMessage();
    }
}

void WindowStatusBar::setProgress(qint64 bytesRead, qint64 totalBytes)
{
    if (totalBytes <= 0) {
        m_progress->setRange(0, 0); // busy indicator when the size is unknown
        return;
    }
    m_progress->setRange(0, 1000);
    m_progress->setValue(
        int(std::clamp<double>(double(bytesRead) * 1000.0 / double(totalBytes), 0.0, 1000.0)));
    m_progress->setToolTip(tr("%1 of %2 read").arg(bytesText(bytesRead), bytesText(totalBytes)));
}

} // namespace gapscope
