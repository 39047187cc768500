#include "model/store/Decimation.h"

#include "analysis/GapAnalysis.h" // kNullInt

#include <limits>

namespace gapscope {

RowSpan rowsInTimeRange(const Int64ColumnView& timeNs, std::span<const uint32_t> rows, int64_t beginNs,
                        int64_t endNs)
{
    if (endNs < beginNs)
        return {};
    const auto lower = std::lower_bound(rows.begin(), rows.end(), beginNs,
                                        [&](uint32_t row, int64_t t) { return timeNs[row] < t; });
    const auto upper =
        std::upper_bound(lower, rows.end(), endNs, [&](int64_t t, uint32_t row) { return t < timeNs[row]; });
    return RowSpan{size_t(lower - rows.begin()), size_t(upper - rows.begin())};
}

std::optional<size_t> nearestRowPosition(const Int64ColumnView& timeNs, std::span<const uint32_t> rows,
                                         int64_t ns)
{
    if (rows.empty())
        return std::nullopt;
    const auto it = std::lower_bound(rows.begin(), rows.end(), ns,
                                     [&](uint32_t row, int64_t t) { return timeNs[row] < t; });
    if (it == rows.end())
        return rows.size() - 1;
    size_t pos = size_t(it - rows.begin());
    if (pos > 0 && ns - timeNs[rows[pos - 1]] <= timeNs[rows[pos]] - ns)
        --pos;
    return pos;
}

RowSpan withNeighbours(RowSpan span, size_t rowCount)
{
    if (rowCount == 0)
        return {};
    span.last = std::min(span.last, rowCount);
    span.first = std::min(span.first, span.last);
    if (span.first > 0)
        --span.first;
    if (span.last < rowCount)
        ++span.last;
    return span;
}

std::vector<uint32_t> decimateMinMax(const Int64ColumnView& timeNs, std::span<const uint32_t> rows,
                                     RowSpan span, int64_t beginNs, int64_t endNs, int columns,
                                     const Int64ColumnView& values)
{
    return decimateMinMax(timeNs, rows, span, beginNs, endNs, columns, NullableColumnValue(values));
}

double NullableColumnValue::operator()(uint32_t row) const
{
    const int64_t v = m_values[row];
    return v == kNullInt ? std::numeric_limits<double>::quiet_NaN() : double(v);
}

double GapValue::operator()(uint32_t row) const
{
    const int64_t used = m_used[row];
    const int64_t reserved = m_reserved[row];
    return used == kNullInt || reserved == kNullInt ? std::numeric_limits<double>::quiet_NaN()
                                                    : double(used - reserved);
}

} // namespace gapscope
