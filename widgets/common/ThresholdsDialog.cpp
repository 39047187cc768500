#include "widgets/common/ThresholdsDialog.h"

#include "model/text/Text.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include <cmath>

namespace gapscope {

namespace {

struct ThresholdInfo
{
    QString title;
    QString help;
    double minimum = 0;
    double maximum = 1;
    double step = 0.01;
    int decimals = 3;
};

ThresholdInfo infoOf(std::string_view name)
{
    if (name == "gap_ratio_threshold")
        return {ThresholdsDialog::tr("Gap ratio"),
                ThresholdsDialog::tr("No findings unless some |gap| / device total reaches this ratio."),
                0,
                1,
                0.01,
                3};
    if (name == "gap_spike_zscore")
        return {ThresholdsDialog::tr("Spike z-score"),
                ThresholdsDialog::tr("A gap above mean + z × std is a spike; critical above twice this."),
                0,
                100,
                0.1,
                2};
    if (name == "gap_drift_r_squared")
        return {ThresholdsDialog::tr("Drift r²"),
                ThresholdsDialog::tr("A rising gap is a persistent drift when the fit's r² reaches this."),
                0,
                1,
                0.05,
                3};
    if (name == "gap_fragmentation_ratio")
        return {
            ThresholdsDialog::tr("Fragmentation ratio"),
            ThresholdsDialog::tr("Average (reserved - allocated) / reserved that counts as fragmentation."),
            0,
            1,
            0.05,
            3};
    return {qs(name), {}, 0, 1000, 0.1, 3};
}

QString settingsKey(std::string_view name)
{
    return QStringLiteral("thresholds/") + qs(name);
}

} // namespace

ThresholdsDialog::ThresholdsDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Gap Analysis Thresholds"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Changes re-run the analysis at once and are remembered."), this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    const GapThresholds defaults;
    for (std::string_view name : GapThresholds::names()) {
        const ThresholdInfo info = infoOf(name);
        auto* spin = new QDoubleSpinBox(this);
        spin->setObjectName(qs(name));
        spin->setRange(info.minimum, info.maximum);
        spin->setSingleStep(info.step);
        spin->setDecimals(info.decimals);
        spin->setKeyboardTracking(false); // re-run on Enter/arrows, not on every keystroke
        const double def = defaults.get(name).value_or(0);
        spin->setToolTip(QStringLiteral("%1\n%2").arg(info.help, spin->objectName()));
        auto* row = new QHBoxLayout;
        row->addWidget(spin, 1);
        auto* defaultLabel = new QLabel(tr("default %1").arg(def), this);
        defaultLabel->setEnabled(false);
        row->addWidget(defaultLabel);
        form->addRow(info.title + QLatin1Char(':'), row);
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ThresholdsDialog::valueEdited);
        m_spins.emplace_back(name, spin);
    }
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QAbstractButton::clicked, this,
            &ThresholdsDialog::restoreDefaults);
    layout->addWidget(buttons);
    setThresholds(m_thresholds);
}

QDoubleSpinBox* ThresholdsDialog::spinBox(std::string_view name) const
{
    for (const auto& [n, spin] : m_spins)
        if (n == name)
            return spin;
    return nullptr;
}

void ThresholdsDialog::setThresholds(const GapThresholds& thresholds)
{
    m_thresholds = thresholds;
    m_updating = true;
    for (const auto& [name, spin] : m_spins)
        spin->setValue(thresholds.get(name).value_or(0));
    m_updating = false;
}

void ThresholdsDialog::restoreDefaults()
{
    setThresholds(GapThresholds{});
    QSettings settings;
    saveThresholds(settings, m_thresholds);
    emit thresholdsChanged(m_thresholds);
}

void ThresholdsDialog::valueEdited()
{
    if (m_updating)
        return;
    GapThresholds edited = m_thresholds;
    for (const auto& [name, spin] : m_spins)
        edited.set(name, spin->value());
    if (edited == m_thresholds)
        return;
    m_thresholds = edited;
    QSettings settings;
    saveThresholds(settings, m_thresholds);
    emit thresholdsChanged(m_thresholds);
}

GapThresholds ThresholdsDialog::loadThresholds(QSettings& settings)
{
    GapThresholds thresholds;
    for (std::string_view name : GapThresholds::names()) {
        bool ok = false;
        const double value = settings.value(settingsKey(name)).toDouble(&ok);
        if (ok && std::isfinite(value) && value >= 0)
            thresholds.set(name, value);
    }
    return thresholds;
}

void ThresholdsDialog::saveThresholds(QSettings& settings, const GapThresholds& thresholds)
{
    for (std::string_view name : GapThresholds::names())
        settings.setValue(settingsKey(name), thresholds.get(name).value_or(0));
}

} // namespace gapscope
