#include "widgets/common/SummaryView.h"

#include "widgets/chart/ChartSupport.h"

#include <QFrame>
#include <QGridLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gapscope {

namespace {

constexpr int kFiguresPerRow = 4;
constexpr int kBelowGateRole = Qt::UserRole + 1; // a findings list item of SummaryContent::belowGate

QLabel* mutedLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

// A JSON value under parent as a tree: objects and arrays as branches, scalars as they read.
void addJson(QTreeWidgetItem* parent, const QString& key, const QJsonValue& value)
{
    auto* item = new QTreeWidgetItem(parent, QStringList{key});
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            addJson(item, it.key(), it.value());
        item->setText(1, QStringLiteral("{%1}").arg(object.size()));
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            addJson(item, QString::number(i), array.at(i));
        item->setText(1, QStringLiteral("[%1]").arg(array.size()));
    } else if (value.isNull()) {
        item->setText(1, QStringLiteral("null"));
    } else if (value.isBool()) {
        item->setText(1, value.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    } else if (value.isDouble()) {
        const double number = value.toDouble();
        // integers as integers (byte counts), not in exponent form
        item->setText(1, number == double(value.toInteger()) ? QString::number(value.toInteger())
                                                             : QString::number(number, 'g', 15));
    } else {
        item->setText(1, value.toString());
        item->setToolTip(1, value.toString());
    }
}

void clearLayout(QLayout* layout)
{
    while (QLayoutItem* item = layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

} // namespace

SummaryView::SummaryView(QWidget* parent) : QWidget(parent)
{
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* body = new QWidget(scroll);
    body->setBackgroundRole(QPalette::Base);
    body->setAutoFillBackground(true);
    scroll->setWidget(body);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(24, 18, 24, 18);
    layout->setSpacing(10);
    m_title = new QLabel(body);
    QFont titleFont = font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.5);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle = mutedLabel(body);
    m_note = new QLabel(body);
    m_note->setWordWrap(true);
    m_notices = new QWidget(body);
    m_notices->setObjectName(QStringLiteral("summaryNotices"));
    m_noticesLayout = new QVBoxLayout(m_notices);
    m_noticesLayout->setContentsMargins(0, 4, 0, 4);
    m_noticesLayout->setSpacing(6);
    m_ooms = new QWidget(body);
    m_oomsLayout = new QVBoxLayout(m_ooms);
    m_oomsLayout->setContentsMargins(0, 4, 0, 4);
    m_oomsLayout->setSpacing(6);
    m_figures = new QWidget(body);
    m_figures->setObjectName(QStringLiteral("summaryFigures"));
    new QGridLayout(m_figures);
    m_figures->layout()->setContentsMargins(0, 4, 0, 4);

    m_findingsTitle = new QLabel(body);
    QFont sectionFont = font();
    sectionFont.setBold(true);
    m_findingsTitle->setFont(sectionFont);
    m_findings = new QListWidget(body);
    m_findings->setObjectName(QStringLiteral("summaryFindings"));
    m_findings->setWordWrap(true);
    m_findings->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_findings->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed); // as tall as its rows
    m_findings->setToolTip(tr("Click a finding (or press Enter) to see it on the chart"));
    // a finding below the gate has no row in the findings table: it is read here, not shown there
    const auto activate = [this](QListWidgetItem* item) {
        if (item && !item->data(kBelowGateRole).toBool())
            emit findingActivated(item->data(Qt::UserRole).toInt());
    };
    connect(m_findings, &QListWidget::itemActivated, this, activate);
    connect(m_findings, &QListWidget::itemClicked, this, activate);

    m_tables = new QWidget(body);
    m_tablesLayout = new QVBoxLayout(m_tables);
    m_tablesLayout->setContentsMargins(0, 0, 0, 0);
    m_tablesLayout->setSpacing(6);

    m_chartButton = new QPushButton(tr("Show the Chart"), body);
    connect(m_chartButton, &QPushButton::clicked, this, &SummaryView::chartRequested);
    auto* buttonRow = new QHBoxLayout;
    buttonRow->addWidget(m_chartButton);
    buttonRow->addStretch(1);

    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    layout->addWidget(m_notices);
    layout->addWidget(m_note);
    layout->addWidget(m_ooms);
    layout->addWidget(m_figures);
    layout->addWidget(m_findingsTitle);
    layout->addWidget(m_findings);
    layout->addWidget(m_tables);
    layout->addLayout(buttonRow);
    layout->addStretch(1);
    rebuild();
}

QList<QTreeWidget*> SummaryView::oomTrees() const
{
    return m_ooms->findChildren<QTreeWidget*>(QStringLiteral("summaryOom"));
}

void SummaryView::setContent(const SummaryContent& content)
{
    m_content = content;
    m_showBelowGate = false;
    rebuild();
}

void SummaryView::setBelowGateShown(bool shown)
{
    if (shown == m_showBelowGate)
        return;
    m_showBelowGate = shown;
    rebuild();
}

void SummaryView::clear()
{
    setContent(SummaryContent{});
}

void SummaryView::rebuild()
{
    const SummaryContent& c = m_content;
    m_title->setText(c.title);
    m_subtitle->setText(c.subtitle);
    m_subtitle->setVisible(!c.subtitle.isEmpty());
    m_note->setText(c.note);
    m_note->setVisible(!c.note.isEmpty());

    // each notice a framed paragraph with a bar in its severity's tint, so it is read first
    clearLayout(m_noticesLayout);
    for (const SummaryNotice& notice : c.notices) {
        auto* frame = new QFrame(m_notices);
        frame->setObjectName(QStringLiteral("summaryNotice"));
        frame->setFrameShape(QFrame::StyledPanel);
        frame->setBackgroundRole(QPalette::AlternateBase);
        frame->setAutoFillBackground(true);
        frame->setToolTip(notice.code);
        auto* row = new QHBoxLayout(frame);
        row->setContentsMargins(0, 0, 8, 0);
        auto* bar = new QFrame(frame);
        bar->setFixedWidth(5);
        bar->setObjectName(QStringLiteral("summaryNoticeBar"));
        // a style sheet: a palette fill is not drawn under every style (Fusion leaves it out)
        bar->setStyleSheet(
            QStringLiteral("background-color: %1;").arg(noticeTint(notice.severity, palette()).name()));
        auto* text = new QLabel(frame);
        text->setObjectName(QStringLiteral("summaryNoticeText"));
        text->setWordWrap(true);
        text->setTextFormat(Qt::RichText);
        text->setTextInteractionFlags(Qt::TextSelectableByMouse);
        text->setText(QStringLiteral("<b>%1</b><br/>%2")
                          .arg(notice.title.toHtmlEscaped(), notice.message.toHtmlEscaped()));
        row->addWidget(bar);
        if (notice.actionText.isEmpty()) {
            row->addWidget(text, 1);
        } else {
            auto* column = new QVBoxLayout;
            column->setContentsMargins(0, 0, 0, 6);
            column->addWidget(text);
            auto* action =
                new QPushButton(m_showBelowGate && !notice.hideActionText.isEmpty() ? notice.hideActionText
                                                                                    : notice.actionText,
                                frame);
            action->setObjectName(QStringLiteral("summaryNoticeAction"));
            // queued: the click rebuilds the notices, this button among them
            connect(
                action, &QPushButton::clicked, this, [this] { setBelowGateShown(!m_showBelowGate); },
                Qt::QueuedConnection);
            auto* actionRow = new QHBoxLayout;
            actionRow->addWidget(action);
            actionRow->addStretch(1);
            column->addLayout(actionRow);
            row->addLayout(column, 1);
        }
        m_noticesLayout->addWidget(frame);
    }
    m_notices->setVisible(!c.notices.empty());
    clearLayout(m_oomsLayout);
    for (const SummaryOom& oom : c.ooms) {
        auto* headline = new QLabel(oom.headline, m_ooms);
        QFont headlineFont = font();
        headlineFont.setPointSizeF(headlineFont.pointSizeF() * 1.2);
        headlineFont.setBold(true);
        headline->setFont(headlineFont);
        // the body paints on Base: the label's text role is Text there, not WindowText
        QPalette red = headline->palette();
        for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text})
            red.setColor(role, oomColor(chartColors(palette())));
        headline->setPalette(red);
        headline->setForegroundRole(QPalette::WindowText);
        headline->setWordWrap(true);
        headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_oomsLayout->addWidget(headline);
        if (!oom.message.isEmpty()) {
            auto* message = new QLabel(oom.message, m_ooms);
            message->setWordWrap(true);
            message->setTextInteractionFlags(Qt::TextSelectableByMouse);
            m_oomsLayout->addWidget(message);
        }
        auto* tree = new QTreeWidget(m_ooms);
        tree->setObjectName(QStringLiteral("summaryOom"));
        tree->setColumnCount(2);
        tree->setHeaderLabels(QStringList{tr("Key"), tr("Value")});
        tree->setAlternatingRowColors(true);
        tree->setUniformRowHeights(true);
        auto* facts = new QTreeWidgetItem(tree, QStringList{tr("Key facts")});
        for (const auto& [label, value] : oom.facts) {
            auto* item = new QTreeWidgetItem(facts, QStringList{label, value});
            item->setToolTip(1, value);
        }
        addJson(tree->invisibleRootItem(), QStringLiteral("metadata.json"), oom.metadata);
        addJson(tree->invisibleRootItem(), QStringLiteral("environment.json"), oom.environment);
        facts->setExpanded(true);
        tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
        // every key fact in view with the two files' rows under them, without scrolling
        tree->setMinimumHeight(tree->sizeHintForRow(0) * int(std::min<size_t>(oom.facts.size() + 5, 24)));
        m_oomsLayout->addWidget(tree);
    }
    m_ooms->setVisible(!c.ooms.empty());

    auto* grid = static_cast<QGridLayout*>(m_figures->layout());
    clearLayout(grid);
    for (size_t i = 0; i < c.figures.size(); ++i) {
        const SummaryFigure& figure = c.figures[i];
        auto* card = new QFrame(m_figures);
        card->setFrameShape(QFrame::StyledPanel);
        card->setBackgroundRole(QPalette::AlternateBase);
        card->setAutoFillBackground(true);
        auto* cardLayout = new QVBoxLayout(card);
        cardLayout->setSpacing(2);
        QLabel* label = mutedLabel(card);
        label->setText(figure.label);
        auto* value = new QLabel(figure.value, card);
        QFont valueFont = font();
        valueFont.setPointSizeF(valueFont.pointSizeF() * 1.4);
        valueFont.setBold(true);
        value->setFont(valueFont);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        QLabel* detail = mutedLabel(card);
        detail->setText(figure.detail);
        detail->setVisible(!figure.detail.isEmpty());
        cardLayout->addWidget(label);
        cardLayout->addWidget(value);
        cardLayout->addWidget(detail);
        cardLayout->addStretch(1);
        grid->addWidget(card, int(i) / kFiguresPerRow, int(i) % kFiguresPerRow);
    }
    m_figures->setVisible(!c.figures.empty());

    m_findings->clear();
    const bool belowGate = m_showBelowGate && !c.belowGate.empty();
    if (c.findingCount == 0 && belowGate) {
        m_findingsTitle->setText(c.belowGate.size() == 1
                                     ? tr("No findings at the gate; 1 below it")
                                     : tr("No findings at the gate; %1 below it").arg(c.belowGate.size()));
    } else if (c.findingCount == 0) {
        m_findingsTitle->setText(c.noFindings.isEmpty() ? tr("No findings") : c.noFindings);
    } else if (c.findings.size() < c.findingCount) {
        m_findingsTitle->setText(tr("Top %1 of %2 findings").arg(c.findings.size()).arg(c.findingCount));
    } else {
        m_findingsTitle->setText(c.findingCount == 1 ? tr("1 finding")
                                                     : tr("%1 findings").arg(c.findingCount));
    }
    for (const SummaryFinding& finding : c.findings) {
        auto* item =
            new QListWidgetItem(QStringLiteral("●  %1 — %2").arg(finding.title, finding.detail), m_findings);
        item->setData(Qt::UserRole, finding.index);
        item->setForeground(severityTint(finding.severity, palette()));
        item->setToolTip(finding.description);
    }
    if (belowGate) {
        for (const SummaryFinding& finding : c.belowGate) {
            auto* item = new QListWidgetItem(
                QStringLiteral("○  %1 %2 — %3").arg(finding.title, c.belowGateMark, finding.detail),
                m_findings);
            item->setData(Qt::UserRole, finding.index);
            item->setData(kBelowGateRole, true);
            item->setForeground(palette().color(QPalette::PlaceholderText));
            item->setToolTip(finding.description);
        }
    }
    m_findings->setVisible(m_findings->count() > 0);

    clearLayout(m_tablesLayout);
    for (const SummaryTable& table : c.tables) {
        auto* title = new QLabel(table.title, m_tables);
        QFont sectionFont = font();
        sectionFont.setBold(true);
        title->setFont(sectionFont);
        m_tablesLayout->addWidget(title);
        if (!table.rows.empty()) {
            auto* view = new QTableWidget(int(table.rows.size()), int(table.header.size()), m_tables);
            view->setHorizontalHeaderLabels(table.header);
            view->verticalHeader()->hide();
            view->setEditTriggers(QAbstractItemView::NoEditTriggers);
            view->setSelectionMode(QAbstractItemView::NoSelection);
            view->setFocusPolicy(Qt::NoFocus);
            view->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
            view->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
            view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
            view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
            view->horizontalHeader()->setStretchLastSection(false);
            for (size_t row = 0; row < table.rows.size(); ++row) {
                for (int column = 0; column < table.rows[row].size() && column < table.header.size();
                     ++column) {
                    auto* item = new QTableWidgetItem(table.rows[row][column]);
                    if (column > 0)
                        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                    view->setItem(int(row), column, item);
                }
            }
            m_tablesLayout->addWidget(view);
        }
        if (!table.note.isEmpty()) {
            QLabel* note = mutedLabel(m_tables);
            note->setText(table.note);
            m_tablesLayout->addWidget(note);
        }
    }
    m_chartButton->setVisible(!c.title.isEmpty());
}

} // namespace gapscope
