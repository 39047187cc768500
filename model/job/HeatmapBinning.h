#pragma once
// The cells of one heatmap row: per pixel column the sample value of largest magnitude, so a
// spike narrower than a pixel still colours its column (a mean would dilute it, a sample
// picked at random would miss it). Columns without a sample between two samples no further
// apart than a hold limit show the earlier sample's value: the series is a sampled counter
// that keeps its value until the next sample; wider holes (a stalled sampler, a pruned
// segment) and the time before the first or after the last sample stay empty (NaN).
// Plain C++ over the row indirection of model/store/Decimation, no Qt.

#include "analysis/Int64Math.h"
#include "model/store/Decimation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace gapscope {

struct HeatmapColumns
{
    int64_t beginNs = 0;
    int64_t endNs = 0;
    int columns = 0;

    // The column ns falls in, as decimateMinMax counts them: floor of its fraction of the
    // range times the columns, times outside the range held to the first or last column.
    int64_t columnOf(int64_t ns) const
    {
        const double spanNs = double(std::max<int64_t>(saturatingSub(endNs, beginNs), 1));
        const double column = std::floor(double(saturatingSub(ns, beginNs)) * (double(columns) / spanNs));
        return std::clamp<int64_t>(int64_t(std::clamp(column, -1.0, double(columns))), 0,
                                   std::max(columns, 1) - 1);
    }
};

// The row's cells over `range` (columns() values, NaN for an empty one). rows are positions
// into the time and value columns in ascending time; valueAt(row) gives a row's value, NaN
// when it has none (such a row never wins a column). pyramid, when given, must be built over
// these rows and valueAt: it makes a wide range cost O(columns * levels) instead of O(rows).
// holdLimitNs 0: no column is held.
template <typename ValueAt>
std::vector<double> binLargestMagnitude(std::span<const int64_t> timeNs, std::span<const uint32_t> rows,
                                        const HeatmapColumns& range, int64_t holdLimitNs, ValueAt&& valueAt,
                                        const MinMaxPyramid* pyramid = nullptr)
{
    constexpr double kEmpty = std::numeric_limits<double>::quiet_NaN();
    const int columns = std::max(range.columns, 0);
    std::vector<double> cells(size_t(columns), kEmpty);
    if (columns == 0 || rows.empty() || range.endNs < range.beginNs)
        return cells;
    const RowSpan span = rowsInTimeRange(timeNs, rows, range.beginNs, range.endNs);
    std::vector<bool> sampled(size_t(columns), false);
    if (!span.empty()) {
        // the smallest and the largest value of each column are among these positions
        const std::vector<uint32_t> kept =
            pyramid ? pyramid->decimate(timeNs, rows, span, range.beginNs, range.endNs, columns, valueAt)
                    : decimateMinMax(timeNs, rows, span, range.beginNs, range.endNs, columns, valueAt);
        for (uint32_t position : kept) {
            const uint32_t row = rows[position];
            const auto column = size_t(range.columnOf(timeNs[row]));
            const double value = valueAt(row);
            if (std::isnan(value))
                continue; // a column of missing values only is empty
            sampled[column] = true;
            // strictly larger: the earliest of equal magnitudes wins, as in decimateMinMax
            if (std::isnan(cells[column]) || std::abs(value) > std::abs(cells[column]))
                cells[column] = value;
        }
    }
    if (holdLimitNs <= 0)
        return cells;
    // Runs of columns without a sample: held when the samples either side are close enough.
    for (int column = 0; column < columns;) {
        if (sampled[size_t(column)]) {
            ++column;
            continue;
        }
        int runEnd = column;
        while (runEnd < columns && !sampled[size_t(runEnd)])
            ++runEnd;
        // the first row of a later column (columnOf is monotonic in time): the row after the run
        const auto first = rows.begin() + std::ptrdiff_t(span.first);
        const auto next =
            std::partition_point(first, rows.begin() + std::ptrdiff_t(span.last),
                                 [&](uint32_t row) { return range.columnOf(timeNs[row]) < column; });
        if (next != rows.begin() && next != rows.end()) {
            const uint32_t before = *(next - 1);
            if (saturatingSub(timeNs[*next], timeNs[before]) <= holdLimitNs)
                std::fill(cells.begin() + column, cells.begin() + runEnd, valueAt(before));
        }
        column = runEnd;
    }
    return cells;
}

} // namespace gapscope
