#pragma once
// The gap chart's series toggles, remembered per kind of trace (issue 17 item 2): a CPU
// capture has no device total, so it shows its counters (allocated, reserved, device used);
// a GPU trace opens on the gap. What the user switches is kept for the kind of trace shown
// only, in memory and in the settings, so one kind never leaks into the other.

#include <QString>

#include <array>
#include <map>
#include <optional>
#include <utility>
#include <vector>

class QAction;
class QSettings;

namespace gapscope {

enum class ChartOverlay;
struct AnalysisResult;

enum class TraceKind
{
    Gpu, // has a device total: the gap is drawn
    Cpu, // no usable gap sample but counters (a CPU capture)
    // a device total but a gap that cannot be observed (gap_not_observable, analysis/Notice.h):
    // the gap is 0 by construction, so allocated and reserved are what there is to see
    Blind,
};
inline constexpr size_t kTraceKinds = 3;

// Cpu when the result has no usable gap sample but has counter rows, Blind when its notices
// say the gap cannot be observed, else Gpu.
TraceKind traceKindOf(const AnalysisResult& result);
// "gpu", "cpu", "blind": the settings group of the kind.
QString settingsKey(TraceKind kind);

class OverlayToggles
{
public:
    // actions: the page's toggles (data() holds each one's settings key), checked as the chart
    // starts (the GPU defaults).
    explicit OverlayToggles(std::vector<std::pair<ChartOverlay, QAction*>> actions);

    // The toggles of kind: checks the actions (their toggled signals draw the chart).
    void showKind(TraceKind kind);
    std::optional<TraceKind> kindShown() const { return m_shown; }
    // What the user switched: remembered for the kind shown.
    void remember(ChartOverlay overlay, bool on);
    bool isOn(TraceKind kind, ChartOverlay overlay) const;
    // A new tab starts with what the user chose for each kind in the tab in front (the checked
    // state of its actions would carry one kind's toggles into the other).
    void adoptChoices(const OverlayToggles& other);

    // Under chart/overlays/<kind>/<key>. The one set of older versions (chart/overlay/<key>,
    // a CPU capture's counters saved for every trace) is dropped.
    void restore(const QSettings& settings);
    void save(QSettings& settings) const;

private:
    using Choice = std::map<ChartOverlay, bool>;
    Choice& choice(TraceKind kind) { return m_choices[size_t(kind)]; }
    const Choice& choice(TraceKind kind) const { return m_choices[size_t(kind)]; }

    std::vector<std::pair<ChartOverlay, QAction*>> m_actions;
    std::array<Choice, kTraceKinds> m_choices{};
    std::optional<TraceKind> m_shown;
    bool m_applying = false;
};

} // namespace gapscope
