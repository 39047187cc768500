#pragma once
// The gap analysis' thresholds: their names, defaults and the values each one allows.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// The four thresholds of the upstream gap analysis, with its defaults.
struct GapThresholds
{
    double gapRatio = 0.05;     // gap_ratio_threshold
    double spikeZScore = 2.0;   // gap_spike_zscore
    double driftRSquared = 0.6; // gap_drift_r_squared
    double fragmentation = 0.3; // gap_fragmentation_ratio

    // Upstream names, in the order the CLI and the dialog list them.
    static const std::vector<std::string_view>& names();
    std::optional<double> get(std::string_view name) const;
    // The values a threshold allows, ends included (ratios and r^2 0..1, the z-score 0..100);
    // nullopt for an unknown name.
    struct Range
    {
        double minimum = 0;
        double maximum = 1;
    };
    static std::optional<Range> range(std::string_view name);
    // false for an unknown name or a value outside its range, NaN included (the value is
    // left unchanged)
    bool set(std::string_view name, double value);
    bool operator==(const GapThresholds&) const = default;
};

} // namespace gapscope
