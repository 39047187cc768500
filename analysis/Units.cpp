#include "analysis/Units.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace gapscope {

std::string formatBytes(double bytes)
{
    if (!std::isfinite(bytes))
        return std::string(std::isnan(bytes) ? "nan" : (bytes < 0 ? "-inf" : "inf")) + " B";
    static constexpr std::array<const char*, 7> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"};
    const double magnitude = std::fabs(bytes);
    char buffer[64];
    if (magnitude < 1023.5) // 1023.5 would print as "1024 B"
    {
        std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
        return buffer;
    }
    double scaled = bytes / 1024.0;
    size_t unit = 0;
    // Step up while the value would print as 1024.00 or more in the current unit.
    while (unit + 1 < kUnits.size() && std::fabs(scaled) >= 1023.995) {
        scaled /= 1024.0;
        ++unit;
    }
    std::snprintf(buffer, sizeof buffer, "%.2f %s", scaled, kUnits[unit]);
    return buffer;
}

std::string formatBytesPerSecond(double bytesPerSecond)
{
    return formatBytes(bytesPerSecond) + "/s";
}

} // namespace gapscope
