#include "app/pages/OverlayToggles.h"

#include "model/trace/AnalysisRunner.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QSettings>

#include <algorithm>

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

constexpr std::array<TraceKind, kTraceKinds> kKinds{TraceKind::Gpu, TraceKind::Cpu, TraceKind::Blind};

TraceKind traceKindOf(const AnalysisResult& result)
{
    if (result.usableRows.empty() && !result.counterRows.empty())
        return TraceKind::Cpu;
    const bool blind = findNotice(result.notices, notice_code::kGapNotObservable) != nullptr;
    return blind ? TraceKind::Blind : TraceKind::Gpu;
}

QString settingsKey(TraceKind kind)
{
    switch (kind) {
    case TraceKind::Cpu:
        return QStringLiteral("cpu");
    case TraceKind::Blind:
        return QStringLiteral("blind");
    case TraceKind::Gpu:
        break;
    }
    return QStringLiteral("gpu");
}

OverlayToggles::OverlayToggles(std::vector<std::pair<ChartOverlay, QAction*>> actions)
    : m_actions(std::move(actions))
{
    for (const auto& [overlay, action] : m_actions) {
        const bool on = action->isChecked();
        choice(TraceKind::Gpu)[overlay] = on;
        // nothing else to draw for a capture without a device total
        choice(TraceKind::Cpu)[overlay] = on || isCounter(overlay);
        // nor beside a gap that is 0 by construction (device used is reserved there)
        choice(TraceKind::Blind)[overlay] =
            on || overlay == ChartOverlay::Allocated || overlay == ChartOverlay::Reserved;
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
    for (const TraceKind kind : kKinds) {
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
        for (const TraceKind kind : kKinds)
            settings.setValue(kGroup + settingsKey(kind) + QLatin1Char('/') + action->data().toString(),
                              isOn(kind, overlay));
    }
}

} // namespace gapscope
