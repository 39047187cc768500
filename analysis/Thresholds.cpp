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

bool GapThresholds::set(std::string_view name, double value)
{
    const auto member = memberFor(name);
    if (!member)
        return false;
    this->*member = value;
    return true;
}

} // namespace gapscope
