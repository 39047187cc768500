#include "app/pages/OverlayToggles.h"

#include "model/trace/AnalysisRunner.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QSettings>

namespace gapscope {

namespace {

const QString kLegacyGroup = QStringLiteral("chart/overlay/");
const QString kGroup = QStringLiteral("chart/overlays/");

bool isCounter(ChartOverlay overlay)
{
    return overlay == ChartOverlay::Allocated || overlay == ChartOverlay::Reserved ||
           overlay == ChartOverlay::DeviceUsed;
}

} // namespace

TraceKind traceKindOf(const AnalysisResult& result)
{
    return result.usableRows.empty() && !result.counterRows.empty() ? TraceKind::Cpu : TraceKind::Gpu;
}

QString settingsKey(TraceKind kind)
{
    return kind == TraceKind::Cpu ? QStringLiteral("cpu") : QStringLiteral("gpu");
}

OverlayToggles::OverlayToggles(std::vector<std::pair<ChartOverlay, QAction*>> actions)
    : m_actions(std::move(actions))
{
    for (const auto& [overlay, action] : m_actions) {
        const bool on = action->isChecked();
        choice(TraceKind::Gpu)[overlay] = on;
        // nothing else to draw for a capture without a device total
        choice(TraceKind::Cpu)[overlay] = on || isCounter(overlay);
    }
}

void OverlayToggles::showKind(TraceKind kind)
{
    m_shown = kind;
    m_applying = true;
    for (const auto& [overlay, action] : m_actions)
        action->setChecked(choice(kind)[overlay]);
    m_applying = false;
}

void OverlayToggles::remember(ChartOverlay overlay, bool on)
{
    if (!m_applying)
        choice(m_shown.value_or(TraceKind::Gpu))[overlay] = on;
}

bool OverlayToggles::isOn(TraceKind kind, ChartOverlay overlay) const
{
    const auto it = choice(kind).find(overlay);
    return it != choice(kind).end() && it->second;
}

void OverlayToggles::adoptChoices(const OverlayToggles& other)
{
    m_choices = other.m_choices;
    showKind(m_shown.value_or(TraceKind::Gpu));
}

void OverlayToggles::restore(const QSettings& settings)
{
    for (const TraceKind kind : {TraceKind::Gpu, TraceKind::Cpu}) {
        for (const auto& [overlay, action] : m_actions) {
            const QVariant on =
                settings.value(kGroup + settingsKey(kind) + QLatin1Char('/') + action->data().toString());
            if (on.isValid())
                choice(kind)[overlay] = on.toBool();
        }
    }
    showKind(m_shown.value_or(TraceKind::Gpu));
}

void OverlayToggles::save(QSettings& settings) const
{
    for (const auto& [overlay, action] : m_actions) {
        settings.remove(kLegacyGroup + action->data().toString());
        for (const TraceKind kind : {TraceKind::Gpu, TraceKind::Cpu})
            settings.setValue(kGroup + settingsKey(kind) + QLatin1Char('/') + action->data().toString(),
                              isOn(kind, overlay));
    }
}

} // namespace gapscope
