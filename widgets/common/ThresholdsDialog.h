#pragma once
// Analysis > Thresholds: the four gap thresholds with their defaults. Every change is applied
// at once (thresholdsChanged) and persisted in QSettings.

#include "analysis/Thresholds.h"

#include <QDialog>

#include <vector>

class QDoubleSpinBox;
class QSettings;

namespace gapscope {

class ThresholdsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ThresholdsDialog(QWidget* parent = nullptr);

    void setThresholds(const GapThresholds& thresholds); // does not emit
    GapThresholds thresholds() const { return m_thresholds; }
    QDoubleSpinBox* spinBox(std::string_view name) const;

    // Persisted values under "thresholds/<upstream name>"; defaults for missing or invalid ones.
    static GapThresholds loadThresholds(QSettings& settings);
    static void saveThresholds(QSettings& settings, const GapThresholds& thresholds);

public slots:
    void restoreDefaults();

signals:
    void thresholdsChanged(const gapscope::GapThresholds& thresholds);

private:
    void valueEdited();

    GapThresholds m_thresholds;
    std::vector<std::pair<std::string_view, QDoubleSpinBox*>> m_spins;
    bool m_updating = false;
};

} // namespace gapscope
