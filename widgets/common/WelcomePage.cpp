#include "widgets/common/WelcomePage.h"

#include <QCommandLinkButton>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QStyle>
#include <QVBoxLayout>

namespace gapscope {

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("welcomePage"));
    auto* outer = new QHBoxLayout(this);
    outer->addStretch(1);
    auto* column = new QVBoxLayout;
    column->setSpacing(8);
    outer->addLayout(column, 3);
    outer->addStretch(1);

    column->addStretch(1);
    auto* header = new QHBoxLayout;
    m_icon = new QLabel(this);
    m_icon->setFixedSize(64, 64);
    header->addWidget(m_icon);
    auto* titles = new QVBoxLayout;
    auto* title = new QLabel(tr("gapscope"), this);
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 2.0);
    titleFont.setBold(true);
    title->setFont(titleFont);
    titles->addWidget(title);
    auto* subtitle = new QLabel(
        tr("Find the memory a process holds that its allocator does not account for.\n"
           "Open a stormlog trace (JSON, JSON lines, CSV, legacy) or its append-only sink directory, "
           "or a memory-budget tick log (tracing text or JSON, snapshot JSON lines)."),
        this);
    subtitle->setWordWrap(true);
    titles->addWidget(subtitle);
    header->addLayout(titles, 1);
    column->addLayout(header);
    column->addSpacing(12);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("welcomeMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setStyleSheet(
        QStringLiteral("QLabel { border: 1px solid #c62828; border-radius: 3px; padding: 6px; }"));
    m_message->hide();
    column->addWidget(m_message);

    auto* openFile = new QCommandLinkButton(
        tr("Open Trace or Budget Log..."),
        tr("A stormlog trace or a memory-budget log, told apart by content (Ctrl+O)"), this);
    openFile->setObjectName(QStringLiteral("openFileButton"));
    openFile->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    auto* openDir = new QCommandLinkButton(tr("Open Sink Directory..."),
                                           tr("A directory with manifest.json and segment files"), this);
    openDir->setIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
    auto* openSample = new QCommandLinkButton(
        tr("Open the Bundled Sample"), tr("A GPU training run with phases and a transient spike"), this);
    openSample->setIcon(style()->standardIcon(QStyle::SP_FileIcon));
    openSample->setObjectName(QStringLiteral("openSampleButton"));
    connect(openFile, &QAbstractButton::clicked, this, &WelcomePage::openFileRequested);
    connect(openDir, &QAbstractButton::clicked, this, &WelcomePage::openDirectoryRequested);
    connect(openSample, &QAbstractButton::clicked, this, &WelcomePage::openSampleRequested);
    column->addWidget(openFile);
    column->addWidget(openDir);
    column->addWidget(openSample);

    column->addSpacing(12);
    m_recentTitle = new QLabel(tr("<b>Recent</b>"), this);
    column->addWidget(m_recentTitle);
    m_recentList = new QListWidget(this);
    m_recentList->setObjectName(QStringLiteral("recentList"));
    m_recentList->setMaximumHeight(180);
    m_recentList->setToolTip(tr("Double-click or press Enter to open"));
    connect(m_recentList, &QListWidget::itemActivated, this, &WelcomePage::activateRecent);
    column->addWidget(m_recentList);

    auto* dropHint =
        new QLabel(tr("You can also drop a trace, a budget log or a sink directory on this window."), this);
    dropHint->setEnabled(false); // the disabled text colour: a quiet hint
    column->addWidget(dropHint);
    column->addStretch(2);
    setRecentFiles({});
}

void WelcomePage::setIcon(const QIcon& icon)
{
    m_icon->setPixmap(icon.pixmap(64, 64));
}

void WelcomePage::setRecentFiles(const QStringList& paths)
{
    m_recent = paths;
    m_recentList->clear();
    for (const QString& path : paths) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(
            style()->standardIcon(info.isDir() ? QStyle::SP_DirIcon : QStyle::SP_FileIcon),
            QStringLiteral("%1  —  %2").arg(info.fileName(), info.absolutePath()), m_recentList);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
    }
    m_recentTitle->setVisible(!paths.isEmpty());
    m_recentList->setVisible(!paths.isEmpty());
}

void WelcomePage::setMessage(const QString& message)
{
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

QString WelcomePage::message() const
{
    return m_message->text();
}

void WelcomePage::activateRecent(QListWidgetItem* item)
{
    if (item)
        emit recentFileRequested(item->data(Qt::UserRole).toString());
}

} // namespace gapscope
