#pragma once
// Picks the session and rank of a trace with several: session, status, host, ranks, events.

#include "model/store/TraceData.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;

namespace gapscope {

class SessionsModel;

class SessionPicker : public QWidget
{
    Q_OBJECT
public:
    explicit SessionPicker(QWidget* parent = nullptr);

    // Shows the trace's sessions with (sessionIndex, rank) selected. Does not emit.
    void setTrace(std::shared_ptr<const TraceData> trace, size_t sessionIndex, int64_t rank);
    int sessionIndex() const;
    qint64 rank() const;
    // true when there is anything to pick (several sessions or ranks)
    bool hasChoice() const;
    SessionsModel* sessionsModel() const { return m_model; }
    QComboBox* sessionCombo() const { return m_sessionCombo; }
    QComboBox* rankCombo() const { return m_rankCombo; }

signals:
    void selectionChanged(int sessionIndex, qint64 rank);

private:
    void fillRanks(int sessionIndex, int64_t selectedRank);
    void sessionActivated(int row);
    void rankActivated(int row);

    SessionsModel* m_model = nullptr;
    QComboBox* m_sessionCombo = nullptr;
    QComboBox* m_rankCombo = nullptr;
    QLabel* m_rankLabel = nullptr;
};

} // namespace gapscope
