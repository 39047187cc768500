#pragma once
// The cells of one heatmap row: per pixel column the sample value of largest magnitude, so a
// spike narrower than a pixel still colours its column (a mean would dilute it, a sample
// picked at random would miss it). Columns without a sample between two samples no further
// apart than a hold limit show the earlier sample's value: the series is a sampled counter
// that keeps its value until the next sample; wider holes (a stalled sampler, a pruned
// segment) and the time before the first or after the last sample stay empty (NaN).
//
// A redraw of 64 ranks x 100 000 samples must take a few milliseconds. MinMaxPyramid
// (model/store/Decimation) took 57 ms for it: with ~66 samples per column its per-column
// search for the column's end costs more than the samples themselves. Here the column ends
// are computed once per redraw as integer offsets, and the rows are walked in order, taking
// whole buckets of a MagnitudePyramid wherever one lies inside the current column.
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

// The pixel columns of a heatmap row: model/store/Decimation's, as decimateMinMax counts them.
using HeatmapColumns = PixelColumns;

// The largest magnitude of every aligned bucket of kFanOut, kFanOut^2, ... positions of a
// row list (the earliest of equal magnitudes; NaN for a bucket of missing values only), with
// the time of the bucket's last row: whether a bucket ends inside a pixel column is read here,
// next to its value, instead of from the time column kFanOut^k rows ahead (a cache miss for
// every large bucket tried: 75 % of a redraw at a million samples per rank). 16 bytes per
// kFanOut rows, ~2.3 bytes per row over all levels.
class MagnitudePyramid
{
public:
    static constexpr size_t kFanOut = 8;
    struct Bucket
    {
        double value = std::numeric_limits<double>::quiet_NaN();
        int64_t lastNs = 0;
    };

    MagnitudePyramid() = default;
    template <typename ValueAt>
    MagnitudePyramid(const Int64ColumnView& timeNs, std::span<const uint32_t> rows, ValueAt&& valueAt)
    {
        m_rowCount = rows.size();
        std::vector<Bucket> level((rows.size() + kFanOut - 1) / kFanOut);
        Int64ColumnReader time(timeNs); // rows ascend: each block decoded once
        for (size_t pos = 0; pos < rows.size(); ++pos) {
            Bucket& bucket = level[pos / kFanOut];
            merge(bucket.value, valueAt(rows[pos]));
            bucket.lastNs = time[rows[pos]];
        }
        while (!level.empty()) {
            std::vector<Bucket> above(level.size() / kFanOut); // whole buckets only
            for (size_t b = 0; b < above.size() * kFanOut; ++b) {
                merge(above[b / kFanOut].value, level[b].value);
                above[b / kFanOut].lastNs = level[b].lastNs;
            }
            m_levels.push_back(std::move(level));
            level = std::move(above);
        }
    }

    size_t rowCount() const { return m_rowCount; }
    size_t levelCount() const { return m_levels.size(); }
    // Level l holds buckets of kFanOut^(l + 1) positions.
    const std::vector<Bucket>& level(size_t l) const { return m_levels[l]; }
    size_t memoryBytes() const
    {
        size_t bytes = 0;
        for (const auto& level : m_levels)
            bytes += level.capacity() * sizeof(Bucket);
        return bytes;
    }
    // best becomes value when value's magnitude is strictly larger (or best is NaN).
    static void merge(double& best, double value)
    {
        if (!std::isnan(value) && (std::isnan(best) || std::abs(value) > std::abs(best)))
            best = value;
    }

private:
    size_t m_rowCount = 0;
    std::vector<std::vector<Bucket>> m_levels; // [0] = buckets of kFanOut positions
};

// The row's cells over `range` (columns() values, NaN for an empty one). rows are positions
// into the time and value columns in ascending time; valueAt(row) gives a row's value, NaN
// when it has none (such a row never wins a column). pyramid, when given, must be built over
// timeNs, these rows and valueAt. columnStarts, when given, must be range.columnStarts() (rows of a
// heatmap with one span and width share them). holdLimitNs 0: no column is held.
template <typename ValueAt>
std::vector<double> binLargestMagnitude(const Int64ColumnView& timeNs, std::span<const uint32_t> rows,
                                        const HeatmapColumns& range, int64_t holdLimitNs, ValueAt&& valueAt,
                                        const MagnitudePyramid* pyramid = nullptr,
                                        const std::vector<int64_t>* columnStarts = nullptr)
{
    constexpr double kEmpty = std::numeric_limits<double>::quiet_NaN();
    const int columns = std::max(range.columns, 0);
    std::vector<double> cells(size_t(columns), kEmpty);
    if (columns == 0 || rows.empty() || range.endNs < range.beginNs)
        return cells;
    if (pyramid && pyramid->rowCount() != rows.size())
        pyramid = nullptr; // built for another row list
    std::vector<int64_t> ownStarts;
    if (!columnStarts || columnStarts->size() != size_t(columns) + 1) {
        ownStarts = range.columnStarts();
        columnStarts = &ownStarts;
    }
    const std::vector<int64_t>& starts = *columnStarts;
    const RowSpan span = rowsInTimeRange(timeNs, rows, range.beginNs, range.endNs);
    std::vector<bool> sampled(size_t(columns), false);
    Int64ColumnReader time(timeNs); // positions ascend: each block decoded once
    auto offsetAt = [&](size_t position) { return saturatingSub(time[rows[position]], range.beginNs); };
    size_t column = 0;
    int64_t nextStart = starts[1];
    double best = kEmpty;
    auto flush = [&] {
        if (!std::isnan(best)) {
            cells[column] = best;
            sampled[column] = true;
        }
        best = kEmpty;
    };
    for (size_t position = span.first; position < span.last;) {
        const int64_t offset = offsetAt(position);
        if (position == span.first || offset >= nextStart) {
            flush();
            column = size_t(range.columnOfOffset(offset));
            nextStart = starts[column + 1];
        }
        // the largest aligned bucket from here that ends inside this column and the span
        size_t size = 1;
        double value = kEmpty;
        if (pyramid) {
            size_t bucketSize = MagnitudePyramid::kFanOut;
            for (size_t level = 0; level < pyramid->levelCount();
                 ++level, bucketSize *= MagnitudePyramid::kFanOut) {
                if (position % bucketSize != 0 || position + bucketSize > span.last ||
                    position / bucketSize >= pyramid->level(level).size())
                    break;
                const MagnitudePyramid::Bucket& bucket = pyramid->level(level)[position / bucketSize];
                if (saturatingSub(bucket.lastNs, range.beginNs) >= nextStart)
                    break;
                value = bucket.value;
                size = bucketSize;
            }
        }
        if (size == 1)
            value = valueAt(rows[position]);
        MagnitudePyramid::merge(best, value);
        position += size;
    }
    flush();
    if (holdLimitNs <= 0)
        return cells;
    // Runs of columns without a sample: held when the samples either side are close enough.
    for (int c = 0; c < columns;) {
        if (sampled[size_t(c)]) {
            ++c;
            continue;
        }
        int runEnd = c;
        while (runEnd < columns && !sampled[size_t(runEnd)])
            ++runEnd;
        // the first row of a later column: the row after the run
        const auto first = rows.begin() + std::ptrdiff_t(span.first);
        const auto next = std::partition_point(first, rows.begin() + std::ptrdiff_t(span.last),
                                               [&](uint32_t row) { return range.columnOf(timeNs[row]) < c; });
        if (next != rows.begin() && next != rows.end()) {
            const uint32_t before = *(next - 1);
            if (saturatingSub(timeNs[*next], timeNs[before]) <= holdLimitNs)
                std::fill(cells.begin() + c, cells.begin() + runEnd, valueAt(before));
        }
        c = runEnd;
    }
    return cells;
}

} // namespace gapscope
