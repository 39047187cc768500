#pragma once
// Min/max decimation of a time series for drawing: per pixel column keep the smallest and the
// largest value (in time order) plus the first and last point, so a line drawn through the
// result has exactly the envelope of the full data at that pixel width. Works through the
// row indirection of the analysis (usableRows) without copying any column. Plain C++, no Qt.

#include "analysis/ColumnView.h"
#include "analysis/Int64Math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace gapscope {

// The pixel columns of a range [beginNs, endNs] (any int64 unit: ns, us, an entry index), as
// decimateMinMax counts them; the heatmap binning and the snapshot timeline's layout find which
// rows fall into which column with it.
struct PixelColumns
{
    int64_t beginNs = 0;
    int64_t endNs = 0;
    int columns = 0;

    // The column ns falls in, as decimateMinMax counts them: floor of its fraction of the
    // range times the columns, times outside the range held to the first or last column.
    int64_t columnOf(int64_t ns) const { return columnOfOffset(saturatingSub(ns, beginNs)); }
    int64_t columnOfOffset(int64_t offsetNs) const
    {
        const double spanNs = double(std::max<int64_t>(saturatingSub(endNs, beginNs), 1));
        const double column = std::floor(double(offsetNs) * (double(columns) / spanNs));
        return std::clamp<int64_t>(int64_t(std::clamp(column, -1.0, double(columns))), 0,
                                   std::max(columns, 1) - 1);
    }
    // Where each column starts, as an offset from beginNs: the smallest offset columnOf puts
    // into it. columns + 1 values; the last (no column ends there) is INT64_MAX.
    std::vector<int64_t> columnStarts() const
    {
        std::vector<int64_t> starts(size_t(std::max(columns, 0)) + 1, std::numeric_limits<int64_t>::max());
        if (columns <= 0)
            return starts;
        starts[0] = std::numeric_limits<int64_t>::min();
        const double spanNs = double(std::max<int64_t>(saturatingSub(endNs, beginNs), 1));
        for (int c = 1; c < columns; ++c) {
            // the exact answer is within a step or two of the real-valued one
            auto offset = int64_t(std::ceil(double(c) * spanNs / double(columns)));
            while (offset > 0 && columnOfOffset(offset - 1) >= c)
                --offset;
            while (columnOfOffset(offset) < c)
                ++offset;
            starts[size_t(c)] = offset;
        }
        return starts;
    }
};

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
RowSpan rowsInTimeRange(const Int64ColumnView& timeNs, std::span<const uint32_t> rows, int64_t beginNs,
                        int64_t endNs);

// The span widened by one row on each side (within [0, rowCount)), so that a line through the
// points reaches the edges of the plot instead of stopping at the last point inside.
RowSpan withNeighbours(RowSpan span, size_t rowCount);

// Position of the row nearest in time to ns (the earlier one on a tie); rows must be in
// ascending time. nullopt without rows. Binary search: O(log n).
std::optional<size_t> nearestRowPosition(const Int64ColumnView& timeNs, std::span<const uint32_t> rows,
                                         int64_t ns);

// Min/max decimation of the rows at positions `span` into `columns` equal time columns over
// [beginNs, endNs]. valueAt(storeRow) returns the value as double; NaN marks a missing value,
// which never wins a column (the first and last positions are kept regardless).
// Returns ascending positions into `rows`: at most 2 per column plus the first and the last.
// Points outside [beginNs, endNs] (neighbours) fall into the first or last column.
template <typename ValueAt>
requires std::is_invocable_r_v<double, ValueAt&, uint32_t> std::vector<uint32_t>
decimateMinMax(const Int64ColumnView& timeNs, std::span<const uint32_t> rows, RowSpan span, int64_t beginNs,
               int64_t endNs, int columns, ValueAt&& valueAt)
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
        Int64ColumnReader time(timeNs); // rows ascend: each block of the column decoded once
        for (uint32_t pos = first + 1; pos < last; ++pos) {
            const uint32_t row = rows[pos];
            const int64_t offset = time[row] - beginNs;
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

// A min/max level-of-detail pyramid over one series (valueAt over the rows of a row list),
// built once after loading: buckets of kLeafRows positions, each level kFanOut times coarser,
// each bucket holding its earliest smallest and earliest largest value. decimate() returns
// exactly what decimateMinMax returns, but takes a whole bucket at once wherever the bucket
// lies inside one pixel column, so a redraw costs O(columns * levels) instead of O(rows).
class MinMaxPyramid
{
public:
    static constexpr size_t kLeafRows = 64;
    static constexpr size_t kFanOut = 4;

    MinMaxPyramid() = default;
    template <typename ValueAt> MinMaxPyramid(std::span<const uint32_t> rows, ValueAt&& valueAt)
    {
        m_rowCount = rows.size();
        constexpr uint32_t none = UINT32_MAX;
        std::vector<Bucket> level((rows.size() + kLeafRows - 1) / kLeafRows);
        for (size_t b = 0; b < level.size(); ++b) {
            Bucket& bucket = level[b];
            const size_t end = std::min(rows.size(), (b + 1) * kLeafRows);
            for (size_t pos = b * kLeafRows; pos < end; ++pos) {
                const double value = valueAt(rows[pos]);
                if (std::isnan(value))
                    continue;
                if (bucket.minPos == none || value < bucket.minValue) {
                    bucket.minPos = uint32_t(pos);
                    bucket.minValue = value;
                }
                if (bucket.maxPos == none || value > bucket.maxValue) {
                    bucket.maxPos = uint32_t(pos);
                    bucket.maxValue = value;
                }
            }
        }
        m_levels.push_back(std::move(level));
        while (m_levels.back().size() > 1) {
            const std::vector<Bucket>& below = m_levels.back();
            std::vector<Bucket> above((below.size() + kFanOut - 1) / kFanOut);
            for (size_t b = 0; b < below.size(); ++b)
                above[b / kFanOut].merge(below[b]);
            m_levels.push_back(std::move(above));
        }
    }

    bool empty() const { return m_levels.empty(); }
    size_t rowCount() const { return m_rowCount; }
    size_t memoryBytes() const
    {
        size_t bytes = 0;
        for (const auto& level : m_levels)
            bytes += level.capacity() * sizeof(Bucket);
        return bytes;
    }

    // Same contract and result as decimateMinMax over the rows and valueAt the pyramid was
    // built from (valueAt is still needed for the points at column edges).
    template <typename ValueAt>
    std::vector<uint32_t> decimate(const Int64ColumnView& timeNs, std::span<const uint32_t> rows,
                                   RowSpan span, int64_t beginNs, int64_t endNs, int columns,
                                   ValueAt&& valueAt) const
    {
        if (rows.size() != m_rowCount) // built for another row list: scan the rows themselves
            return decimateMinMax(timeNs, rows, span, beginNs, endNs, columns, valueAt);
        std::vector<uint32_t> kept;
        span.last = std::min(span.last, rows.size());
        if (span.empty())
            return kept;
        const auto first = uint32_t(span.first);
        const auto last = uint32_t(span.last - 1);
        kept.reserve(2 * size_t(std::max(columns, 0)) + 2);
        kept.push_back(first);
        if (first == last)
            return kept;
        if (columns > 0) {
            const double spanNs = double(std::max<int64_t>(endNs - beginNs, 1));
            const double columnsPerNs = double(columns) / spanNs;
            auto columnOf = [&](uint32_t pos) {
                return std::clamp<int64_t>(
                    int64_t(std::floor(double(timeNs[rows[pos]] - beginNs) * columnsPerNs)), 0,
                    int64_t(columns) - 1);
            };
            constexpr uint32_t none = UINT32_MAX;
            Bucket current;
            auto flush = [&] {
                if (current.minPos == none)
                    return;
                if (current.minPos == current.maxPos) {
                    kept.push_back(current.minPos);
                } else {
                    kept.push_back(std::min(current.minPos, current.maxPos));
                    kept.push_back(std::max(current.minPos, current.maxPos));
                }
                current = Bucket{};
            };
            // Column by column: find where the column ends (columnOf is monotonic), then take
            // its rows as the
            // coarsest aligned buckets inside it. Finding each bucket's column instead touched
            // timeNs far away for every level and cost ~10 ms per redraw at 10 M rows.
            uint32_t hint = uint32_t(std::max<size_t>(1, (last - first) / size_t(columns)));
            for (uint32_t pos = first + 1; pos < last;) {
                const int64_t c = columnOf(pos);
                // the end is most likely one previous column further: look there, then widen
                // in doubling steps, then bisect (few rows far apart: each one a cache miss)
                uint32_t inside = pos;  // columnOf(inside) == c
                uint32_t beyond = last; // last, or columnOf(beyond) != c
                const uint32_t guess = last - pos > hint ? pos + hint : last;
                if (guess == last || columnOf(guess) != c) {
                    beyond = guess;
                    for (uint32_t step = 64; beyond - inside > step;
                         step = step > UINT32_MAX / 2 ? UINT32_MAX : step * 2) {
                        const uint32_t probe = beyond - step;
                        if (columnOf(probe) == c) {
                            inside = probe;
                            break;
                        }
                        beyond = probe;
                    }
                } else {
                    inside = guess;
                    for (uint32_t step = 64;; step = step > UINT32_MAX / 2 ? UINT32_MAX : step * 2) {
                        const uint32_t probe = last - inside > step ? inside + step : last;
                        if (probe == last || columnOf(probe) != c) {
                            beyond = probe;
                            break;
                        }
                        inside = probe;
                    }
                }
                while (beyond - inside > 1) {
                    const uint32_t mid = inside + (beyond - inside) / 2;
                    if (columnOf(mid) == c)
                        inside = mid;
                    else
                        beyond = mid;
                }
                const uint32_t end = beyond;
                hint = std::max<uint32_t>(1, end - pos);
                for (uint32_t p = pos; p < end;) {
                    const Bucket* whole = nullptr;
                    size_t size = 0;
                    size_t bucketSize = kLeafRows;
                    for (size_t level = 0; level < m_levels.size(); ++level, bucketSize *= kFanOut) {
                        if (p % bucketSize != 0 || p + bucketSize > end)
                            break;
                        whole = &m_levels[level][p / bucketSize];
                        size = bucketSize;
                    }
                    if (whole) {
                        current.merge(*whole);
                        p += uint32_t(size);
                    } else {
                        current.mergePoint(p, valueAt(rows[p]));
                        ++p;
                    }
                }
                flush();
                pos = end;
            }
            flush();
        }
        kept.push_back(last);
        return kept;
    }

private:
    struct Bucket
    {
        uint32_t minPos = UINT32_MAX; // UINT32_MAX: no value (all NaN)
        uint32_t maxPos = UINT32_MAX;
        double minValue = 0;
        double maxValue = 0;
        // other follows this bucket in row order: strict comparisons keep the earliest extreme
        void merge(const Bucket& other)
        {
            if (other.minPos != UINT32_MAX && (minPos == UINT32_MAX || other.minValue < minValue)) {
                minPos = other.minPos;
                minValue = other.minValue;
            }
            if (other.maxPos != UINT32_MAX && (maxPos == UINT32_MAX || other.maxValue > maxValue)) {
                maxPos = other.maxPos;
                maxValue = other.maxValue;
            }
        }
        void mergePoint(uint32_t pos, double value)
        {
            if (std::isnan(value))
                return;
            merge(Bucket{pos, pos, value, value});
        }
    };

    size_t m_rowCount = 0;
    std::vector<std::vector<Bucket>> m_levels; // [0] = leaves
};

// valueAt of a nullable int64 column (kNullInt of GapAnalysis.h = missing, NaN here) for the
// decimation and the pyramids: reads through a column reader, so a walk over ascending rows
// decodes each block of the column once. One per thread (the reader holds its last block).
class NullableColumnValue
{
public:
    explicit NullableColumnValue(const Int64ColumnView& values) : m_values(values) {}
    double operator()(uint32_t row) const;

private:
    mutable Int64ColumnReader m_values;
};

// valueAt of the gap drawn (device used - allocator reserved as double, NaN when either is
// null), read as NullableColumnValue reads.
class GapValue
{
public:
    GapValue(const Int64ColumnView& used, const Int64ColumnView& reserved)
        : m_used(used), m_reserved(reserved)
    {
    }
    double operator()(uint32_t row) const;

private:
    mutable Int64ColumnReader m_used;
    mutable Int64ColumnReader m_reserved;
};

// Convenience for one nullable int64 column (kNullInt of GapAnalysis.h = missing).
std::vector<uint32_t> decimateMinMax(const Int64ColumnView& timeNs, std::span<const uint32_t> rows,
                                     RowSpan span, int64_t beginNs, int64_t endNs, int columns,
                                     const Int64ColumnView& values);

} // namespace gapscope
