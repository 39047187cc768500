#include "analysis/Thresholds.h"

namespace gapscope {

namespace {

double GapThresholds::*memberFor(std::string_view name)
{
    if (name == "gap_ratio_threshold")
        return &GapThresholds::gapRatio;
    if (name == "gap_spike_zscore")
        return &GapThresholds::spikeZScore;
    if (name == "gap_drift_r_squared")
        return &GapThresholds::driftRSquared;
    if (name == "gap_fragmentation_ratio")
        return &GapThresholds::fragmentation;
    return nullptr;
}

} // namespace

const std::vector<std::string_view>& GapThresholds::names()
{
    static const std::vector<std::string_view> kNames{"gap_ratio_threshold", "gap_spike_zscore",
                                                      "gap_drift_r_squared", "gap_fragmentation_ratio"};
    return kNames;
}

std::optional<double> GapThresholds::get(std::string_view name) const
{
    if (const auto member = memberFor(name))
        return this->*member;
    return std::nullopt;
}

std::optional<GapThresholds::Range> GapThresholds::range(std::string_view name)
{
    if (!memberFor(name))
        return std::nullopt;
    // a z-score beyond 100 is no spike any series can have; the others are shares of a whole
    if (name == "gap_spike_zscore")
        return Range{0, 100};
    return Range{0, 1};
}

bool GapThresholds::set(std::string_view name, double value)
{
    const auto member = memberFor(name);
    const auto allowed = range(name);
    // written so that NaN fails every comparison and is refused
    if (!member || !allowed || !(value >= allowed->minimum && value <= allowed->maximum))
        return false;
    this->*member = value;
    return true;
}

} // namespace gapscope
