#pragma once
// Analysis > Thresholds: the four gap thresholds with their defaults, meaning and allowed range
// (GapThresholds::range) in each tooltip. Like a settings dialog (Hotspot's, KDE's), edits take
// effect on Apply or OK (thresholdsChanged, persisted in QSettings); Cancel drops edits not yet
// applied, Restore Defaults fills in the defaults to be applied.

#include "analysis/Thresholds.h"

#include <QDialog>

#include <vector>

class QDoubleSpinBox;
class QPushButton;
class QSettings;

namespace gapscope {

class ThresholdsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ThresholdsDialog(QWidget* parent = nullptr);

    void setThresholds(const GapThresholds& thresholds); // the applied values; does not emit
    GapThresholds thresholds() const { return m_thresholds; }
    // What the fields hold now, applied or not.
    GapThresholds editedThresholds() const;
    QDoubleSpinBox* spinBox(std::string_view name) const;
    QPushButton* applyButton() const { return m_apply; }

    // Persisted values under "thresholds/<upstream name>"; defaults for missing or invalid ones.
    static GapThresholds loadThresholds(QSettings& settings);
    static void saveThresholds(QSettings& settings, const GapThresholds& thresholds);

public slots:
    // Puts the defaults in the fields; Apply or OK makes them take effect.
    void restoreDefaults();
    // Applies the edited values: persisted, and thresholdsChanged when they differ.
    void apply();
    void accept() override;
    void reject() override;

signals:
    void thresholdsChanged(const gapscope::GapThresholds& thresholds);

private:
    void showEdited(const GapThresholds& thresholds);
    void updateApplyButton();

    GapThresholds m_thresholds; // applied
    std::vector<std::pair<std::string_view, QDoubleSpinBox*>> m_spins;
    QPushButton* m_apply = nullptr;
};

} // namespace gapscope
