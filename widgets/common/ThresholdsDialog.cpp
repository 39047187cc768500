#include "widgets/common/ThresholdsDialog.h"

#include "model/text/Text.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <cmath>

namespace gapscope {

namespace {

// How a threshold is shown; what it allows comes from GapThresholds::range.
struct ThresholdInfo
{
    QString title;
    QString meaning;
    double step = 0.01;
    int decimals = 3;
};

ThresholdInfo infoOf(std::string_view name)
{
    if (name == "gap_ratio_threshold")
        return {ThresholdsDialog::tr("Gap ratio"),
                ThresholdsDialog::tr("Nothing is reported unless the gap (device used − allocator reserved) "
                                     "reaches this share of the device total at some sample. Lower it to "
                                     "see smaller gaps."),
                0.01, 3};
    if (name == "gap_spike_zscore")
        return {ThresholdsDialog::tr("Spike z-score"),
                ThresholdsDialog::tr("A sample whose gap lies more than this many standard deviations above "
                                     "the mean gap is a transient spike; critical above twice this. Higher "
                                     "keeps only sharper spikes."),
                0.1, 2};
    if (name == "gap_drift_r_squared")
        return {ThresholdsDialog::tr("Drift r²"),
                ThresholdsDialog::tr("A rising gap is a persistent drift when a straight line over time "
                                     "explains at least this share of its variation (r²; 1 is a perfect "
                                     "line); critical above 0.85."),
                0.05, 3};
    if (name == "gap_fragmentation_ratio")
        return {ThresholdsDialog::tr("Fragmentation ratio"),
                ThresholdsDialog::tr("The trace is fragmentation-like when on average this share of what the "
                                     "allocator reserved is not allocated ((reserved − allocated) / "
                                     "reserved); critical above 0.5."),
                0.05, 3};
    return {qs(name), {}, 0.1, 3};
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
    auto* intro = new QLabel(tr("Used by the gap analysis of stormlog traces and by the OS-vs-allocator "
                                "gap rule of memory-budget logs. Changes take effect when you press Apply "
                                "or OK, re-run the analysis and are remembered."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    const GapThresholds defaults;
    for (std::string_view name : GapThresholds::names()) {
        const ThresholdInfo info = infoOf(name);
        const GapThresholds::Range range = GapThresholds::range(name).value_or(GapThresholds::Range{});
        const double def = defaults.get(name).value_or(0);
        auto* spin = new QDoubleSpinBox(this);
        spin->setObjectName(qs(name));
        spin->setRange(range.minimum, range.maximum);
        spin->setSingleStep(info.step);
        spin->setDecimals(info.decimals);
        // rich text, so the tooltip wraps instead of running across the screen
        const QString tip = tr("<p>%1</p><p>Allowed: %2 to %3 · default %4<br>"
                               "<code>--set %5=VALUE</code> on the command line</p>")
                                .arg(info.meaning.toHtmlEscaped())
                                .arg(range.minimum)
                                .arg(range.maximum)
                                .arg(def)
                                .arg(spin->objectName());
        spin->setToolTip(tip);
        auto* row = new QHBoxLayout;
        row->addWidget(spin, 1);
        auto* defaultLabel = new QLabel(tr("default %1").arg(def), this);
        defaultLabel->setEnabled(false);
        row->addWidget(defaultLabel);
        auto* label = new QLabel(info.title + QLatin1Char(':'), this);
        label->setToolTip(tip);
        label->setBuddy(spin);
        form->addRow(label, row);
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ThresholdsDialog::updateApplyButton);
        m_spins.emplace_back(name, spin);
    }
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Apply |
                                             QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults,
                                         this);
    m_apply = buttons->button(QDialogButtonBox::Apply);
    m_apply->setToolTip(tr("Re-run the analysis with these values and keep the dialog open"));
    buttons->button(QDialogButtonBox::RestoreDefaults)
        ->setToolTip(tr("Fill in the defaults; Apply or OK makes them take effect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ThresholdsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ThresholdsDialog::reject);
    connect(m_apply, &QAbstractButton::clicked, this, &ThresholdsDialog::apply);
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
    showEdited(thresholds);
}

GapThresholds ThresholdsDialog::editedThresholds() const
{
    GapThresholds edited = m_thresholds;
    for (const auto& [name, spin] : m_spins)
        edited.set(name, spin->value());
    return edited;
}

void ThresholdsDialog::showEdited(const GapThresholds& thresholds)
{
    for (const auto& [name, spin] : m_spins) {
        const QSignalBlocker quiet(spin);
        spin->setValue(thresholds.get(name).value_or(0));
    }
    updateApplyButton();
}

void ThresholdsDialog::updateApplyButton()
{
    if (m_apply)
        m_apply->setEnabled(editedThresholds() != m_thresholds);
}

void ThresholdsDialog::restoreDefaults()
{
    showEdited(GapThresholds{});
}

void ThresholdsDialog::apply()
{
    const GapThresholds edited = editedThresholds();
    if (edited == m_thresholds)
        return;
    m_thresholds = edited;
    QSettings settings;
    saveThresholds(settings, m_thresholds);
    updateApplyButton();
    emit thresholdsChanged(m_thresholds);
}

void ThresholdsDialog::accept()
{
    apply();
    QDialog::accept();
}

void ThresholdsDialog::reject()
{
    showEdited(m_thresholds); // the next opening shows what is in effect
    QDialog::reject();
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
