#include "widgets/trace/SessionPicker.h"

#include "model/items/SessionsModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeView>

namespace gapscope {

SessionPicker::SessionPicker(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* sessionLabel = new QLabel(tr("&Session:"), this);
    layout->addWidget(sessionLabel);

    m_model = new SessionsModel(this);
    m_sessionCombo = new QComboBox(this);
    m_sessionCombo->setObjectName(QStringLiteral("sessionCombo"));
    m_sessionCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_sessionCombo->setMaximumWidth(420);
    // A multi-column popup shows status, host, ranks and events beside each session.
    auto* popup = new QTreeView(m_sessionCombo);
    popup->setRootIsDecorated(false);
    popup->setAllColumnsShowFocus(true);
    popup->setUniformRowHeights(true);
    popup->header()->setStretchLastSection(false);
    popup->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    popup->setMinimumWidth(640);
    m_sessionCombo->setView(popup);
    m_sessionCombo->setModel(m_model);
    m_sessionCombo->setModelColumn(SessionsModel::SessionColumn);
    sessionLabel->setBuddy(m_sessionCombo);
    layout->addWidget(m_sessionCombo, 1);

    m_rankLabel = new QLabel(tr("&Rank:"), this);
    layout->addWidget(m_rankLabel);
    m_rankCombo = new QComboBox(this);
    m_rankCombo->setObjectName(QStringLiteral("rankCombo"));
    m_rankLabel->setBuddy(m_rankCombo);
    layout->addWidget(m_rankCombo);

    connect(m_sessionCombo, &QComboBox::activated, this, &SessionPicker::sessionActivated);
    connect(m_rankCombo, &QComboBox::activated, this, &SessionPicker::rankActivated);
}

void SessionPicker::setTrace(std::shared_ptr<const TraceData> trace, size_t sessionIndex, int64_t rank)
{
    m_model->setTrace(std::move(trace));
    m_sessionCombo->setCurrentIndex(int(sessionIndex));
    fillRanks(int(sessionIndex), rank);
    m_sessionCombo->setEnabled(m_model->rowCount() > 1);
}

int SessionPicker::sessionIndex() const
{
    return m_sessionCombo->currentIndex();
}

qint64 SessionPicker::rank() const
{
    return m_rankCombo->currentData().toLongLong();
}

bool SessionPicker::hasChoice() const
{
    return m_model->rowCount() > 1 || m_rankCombo->count() > 1;
}

void SessionPicker::fillRanks(int sessionIndex, int64_t selectedRank)
{
    m_rankCombo->clear();
    const SessionInfo* session = m_model->session(sessionIndex);
    if (!session)
        return;
    for (int64_t r : session->ranks) {
        m_rankCombo->addItem(QString::number(r), QVariant::fromValue(qlonglong(r)));
        if (r == selectedRank)
            m_rankCombo->setCurrentIndex(m_rankCombo->count() - 1);
    }
    m_rankCombo->setEnabled(m_rankCombo->count() > 1);
}

void SessionPicker::sessionActivated(int row)
{
    const SessionInfo* session = m_model->session(row);
    if (!session)
        return;
    // A new session starts at its lowest rank, as the analysis does by default.
    const int64_t rank = session->ranks.empty() ? 0 : session->ranks.front();
    fillRanks(row, rank);
    emit selectionChanged(row, rank);
}

void SessionPicker::rankActivated(int row)
{
    if (row < 0)
        return;
    emit selectionChanged(sessionIndex(), m_rankCombo->itemData(row).toLongLong());
}

} // namespace gapscope
