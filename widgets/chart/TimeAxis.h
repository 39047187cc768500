#pragma once
// Mapping between a time range [beginNs, endNs] (int64 nanoseconds, epoch scale) and a pixel
// range [pixelLeft, pixelRight], with zoom, pan and clamping, plus the tick steps and labels
// of the relative time axis (time since the trace start, as Hotspot and Perfetto show it).

#include <QString>

#include <cstdint>
#include <vector>

namespace gapscope {

struct TimeAxis
{
    int64_t beginNs = 0;
    int64_t endNs = 0;
    double pixelLeft = 0;
    double pixelRight = 0;

    int64_t spanNs() const { return endNs - beginNs; }
    double pixelWidth() const { return pixelRight - pixelLeft; }
    double nsPerPixel() const;

    // Exact at both edges. Offsets are taken in int64 before converting to double, so
    // timestamps near 1.8e18 ns keep their resolution.
    double toPixel(int64_t ns) const;
    // Saturates instead of overflowing for pixels far outside the range.
    int64_t toNs(double pixel) const;
    // toNs of the pixel moved inside [pixelLeft, pixelRight]: the mouse past an end means that end.
    int64_t toNsClamped(double pixel) const;

    // factor < 1 zooms in; the anchor keeps its pixel position. The span never drops below 1 ns.
    TimeAxis zoomedAbout(int64_t anchorNs, double factor) const;
    TimeAxis pannedBy(int64_t deltaNs) const;
    TimeAxis pannedByPixels(double deltaPixels) const; // positive: content moves right (earlier times)
    // Keeps the span within [minSpanNs, dataEnd - dataBegin] (when the data is shorter than
    // minSpanNs the range is centred on it) and the range inside the data.
    TimeAxis clampedTo(int64_t dataBeginNs, int64_t dataEndNs, int64_t minSpanNs) const;

    bool operator==(const TimeAxis&) const = default;
};

// A 1-2-5 step (in ns) below one minute, then 1/2/5/10/15/30 min and 1/2/3/6/12 h, then
// whole days times 1-2-5: the smallest such step giving at most maxTicks ticks over spanNs.
int64_t niceTimeStepNs(int64_t spanNs, int maxTicks);

// Multiples of stepNs relative to originNs inside [beginNs, endNs], ascending (absolute ns).
std::vector<int64_t> timeTicksNs(int64_t beginNs, int64_t endNs, int64_t originNs, int64_t stepNs);

// A relative time label: "0 s", "1.25 s", "0.000050 s", "2 min 30 s", "1 h 5 min". stepNs
// decides the number of decimals so that neighbouring ticks always read differently.
QString formatTimeTick(int64_t relativeNs, int64_t stepNs);

} // namespace gapscope
