#pragma once
// Min/max decimation of a time series for drawing: per pixel column keep the smallest and the
// largest value (in time order) plus the first and last point, so a line drawn through the
// result has exactly the envelope of the full data at that pixel width. Works through the
// row indirection of the analysis (usableRows) without copying any column. Plain C++, no Qt.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace gapscope {

// Positions [first, last) into a row list (not store rows).
struct RowSpan
{
    size_t first = 0;
    size_t last = 0;
    size_t size() const { return last - first; }
    bool empty() const { return last <= first; }
    bool operator==(const RowSpan&) const = default;
};

// Positions of the rows with beginNs <= timeNs[row] <= endNs; rows must be in ascending time.
// Binary search: O(log n).
RowSpan rowsInTimeRange(std::span<const int64_t> timeNs, std::span<const uint32_t> rows, int64_t beginNs,
                        int64_t endNs);

// The span widened by one row on each side (within [0, rowCount)), so that a line through the
// points reaches the edges of the plot instead of stopping at the last point inside.
RowSpan withNeighbours(RowSpan span, size_t rowCount);

// Min/max decimation of the rows at positions `span` into `columns` equal time columns over
// [beginNs, endNs]. valueAt(storeRow) returns the value as double; NaN marks a missing value,
// which never wins a column (the first and last positions are kept regardless).
// Returns ascending positions into `rows`: at most 2 per column plus the first and the last.
// Points outside [beginNs, endNs] (neighbours) fall into the first or last column.
template <typename ValueAt>
std::vector<uint32_t> decimateMinMax(std::span<const int64_t> timeNs, std::span<const uint32_t> rows,
                                     RowSpan span, int64_t beginNs, int64_t endNs, int columns,
                                     ValueAt&& valueAt)
{
    std::vector<uint32_t> kept;
    span.last = std::min(span.last, rows.size());
    if (span.empty())
        return kept;
    const auto first = uint32_t(span.first);
    const auto last = uint32_t(span.last - 1);
    kept.reserve(std::min<size_t>(span.size(), 2 * size_t(std::max(columns, 0)) + 2));
    kept.push_back(first);
    if (first == last)
        return kept;

    if (columns > 0) {
        // Offsets from beginNs are taken in int64 before converting, so epoch-scale timestamps
        // (~1.8e18 ns) keep their nanosecond resolution.
        const double spanNs = double(std::max<int64_t>(endNs - beginNs, 1));
        const double columnsPerNs = double(columns) / spanNs;
        constexpr uint32_t none = UINT32_MAX;
        int64_t column = -1;
        uint32_t minPos = none;
        uint32_t maxPos = none;
        double minValue = 0;
        double maxValue = 0;
        auto flush = [&] {
            if (minPos == none)
                return;
            if (minPos == maxPos) {
                kept.push_back(minPos);
            } else {
                kept.push_back(std::min(minPos, maxPos));
                kept.push_back(std::max(minPos, maxPos));
            }
            minPos = maxPos = none;
        };
        for (uint32_t pos = first + 1; pos < last; ++pos) {
            const uint32_t row = rows[pos];
            const int64_t offset = timeNs[row] - beginNs;
            const int64_t c = std::clamp<int64_t>(int64_t(std::floor(double(offset) * columnsPerNs)), 0,
                                                  int64_t(columns) - 1);
            if (c != column) {
                flush();
                column = c;
            }
            const double value = valueAt(row);
            if (std::isnan(value))
                continue;
            // strict comparisons: the earliest of equal extremes wins, as argmax does
            if (minPos == none || value < minValue) {
                minPos = pos;
                minValue = value;
            }
            if (maxPos == none || value > maxValue) {
                maxPos = pos;
                maxValue = value;
            }
        }
        flush();
    }
    kept.push_back(last);
    return kept;
}

// Convenience for one nullable int64 column (kNullInt of GapAnalysis.h = missing).
std::vector<uint32_t> decimateMinMax(std::span<const int64_t> timeNs, std::span<const uint32_t> rows,
                                     RowSpan span, int64_t beginNs, int64_t endNs, int columns,
                                     std::span<const int64_t> values);

} // namespace gapscope
