#pragma once
// Joins a device-usage log (nvidia-smi's, model/devicelog) to a trace's samples by time: each
// sample takes the device used of the log row nearest to it in time, when that row is close
// enough. Pure functions over columns; no Qt.
//
// Why the nearest row and not a line between the two rows around a sample: nvidia-smi
// reports what the device held at the moment of its row, and device memory moves in steps (a
// buffer is there or it is not). A line between two rows invents values the device never held
// (half of a 3 GiB buffer that lived 240 ms between two rows 100 ms apart on either side);
// the nearest row is a value the device did report, at most half an interval from the sample
// while the log runs. The tolerance leaves samples in a hole of the log, or before and after
// it, unmatched instead of giving them a value from seconds away.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gapscope {

// The log's rows, ascending time, one row per moment (a per-process log summed per moment).
struct DeviceLogSeries
{
    std::span<const int64_t> timestampNs;
    std::span<const int64_t> usedBytes;
    size_t size() const { return timestampNs.size(); }
};

// How far from a sample a row may be and still give it its value: two of the log's median
// intervals (a row lost here and there still matches; a pause of the logger does not); 0 for
// a log of fewer than two rows (a row then matches only a sample at its own moment).
int64_t defaultJoinToleranceNs(std::span<const int64_t> ascendingTimestampsNs);

struct DeviceLogJoin
{
    // Per sample, in the samples' order: the index of the row it takes, or -1 when no row is
    // within the tolerance (the sample keeps its own value).
    std::vector<std::ptrdiff_t> rowOfSample;
    size_t matched = 0;
    size_t unmatched = 0;
    size_t before = 0; // unmatched samples before the log's first row
    size_t after = 0;  // unmatched samples after its last row (the rest are in its holes)
};

// Samples in any order; the series ascending. A sample equally far from two rows takes the
// earlier (the value the device had reported at that moment).
DeviceLogJoin joinNearest(std::span<const int64_t> sampleTimesNs, const DeviceLogSeries& series,
                          int64_t toleranceNs);

} // namespace gapscope
