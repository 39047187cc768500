#pragma once
// A read-only view of an int64 column that is either a dense array (a span, a vector) or a
// packed column of the store (model/store/PackedColumn.h), so the analyses read both without
// knowing the store and without unpacking a whole column. Random access by row is O(1);
// Int64ColumnReader keeps the block of the last row it read (kColumnBlockRows rows decoded into
// its own buffer), so a pass in row order decodes each block once. Plain C++, no Qt.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace gapscope {

// Rows per block of a packed column: the unit a reader decodes at once.
inline constexpr size_t kColumnBlockRows = 1024;

// Rows [first, first + count) of a column, contiguous.
template <typename T> struct ColumnRows
{
    const T* rows = nullptr;
    size_t first = 0;
    size_t count = 0;
};

class Int64ColumnView
{
public:
    Int64ColumnView() = default;
    Int64ColumnView(std::span<const int64_t> dense) : m_dense(dense.data()), m_size(dense.size()) {}
    Int64ColumnView(const std::vector<int64_t>& dense) : Int64ColumnView(std::span<const int64_t>(dense)) {}
    // Any column with O(1) operator[] and blockAt(row, buffer): the rows of the block holding
    // row, decoded into buffer (kColumnBlockRows values) or pointing at rows kept unpacked.
    template <typename Column>
    requires std::is_same_v<decltype(std::declval<const Column&>().blockAt(size_t(0), (int64_t*)nullptr)),
                            ColumnRows<int64_t>>
    Int64ColumnView(const Column& column)
        : m_column(&column), m_size(column.size()),
          m_at([](const void* c, size_t row) { return int64_t((*static_cast<const Column*>(c))[row]); }),
          m_block([](const void* c, size_t row, int64_t* buffer) {
              return static_cast<const Column*>(c)->blockAt(row, buffer);
          })
    {
    }

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    int64_t operator[](size_t row) const { return m_dense ? m_dense[row] : m_at(m_column, row); }
    // The rows around row: all of them for a dense column, else its block decoded into buffer.
    ColumnRows<int64_t> blockAt(size_t row, int64_t* buffer) const
    {
        if (m_dense || !m_column)
            return {m_dense, 0, m_size};
        return m_block(m_column, row, buffer);
    }

private:
    const int64_t* m_dense = nullptr;
    const void* m_column = nullptr;
    size_t m_size = 0;
    int64_t (*m_at)(const void*, size_t) = nullptr;
    ColumnRows<int64_t> (*m_block)(const void*, size_t, int64_t*) = nullptr;
};

// Reads a column by row, decoding a block only when the row leaves the block read last: a pass
// in ascending rows decodes each block once; a jump costs one block. Holds its buffer inline
// (8 KB): one reader per thread.
class Int64ColumnReader
{
public:
    explicit Int64ColumnReader(const Int64ColumnView& view) : m_view(view) {}
    Int64ColumnReader(const Int64ColumnReader& other) : m_view(other.m_view) {} // the copy decodes anew
    Int64ColumnReader& operator=(const Int64ColumnReader&) = delete;

    int64_t operator[](size_t row)
    {
        const size_t index = row - m_rows.first; // wraps for a row before the block
        if (index < m_rows.count) [[likely]]
            return m_rows.rows[index];
        // A block is decoded for a walk (rows ascending a few apart, or the first read); a
        // row far from the last one is read alone: the chart's decimation reads a few rows
        // at each pixel column's edges, and decoding 1024 rows for them doubled a pan.
        const bool walking = m_runLength >= kWalkRows || m_lastRow == kNoRow;
        m_runLength = row > m_lastRow && row - m_lastRow <= kWalkStep ? m_runLength + 1 : 0;
        m_lastRow = row;
        if (!walking)
            return m_view[row];
        m_rows = m_view.blockAt(row, m_buffer.data());
        return m_rows.rows[row - m_rows.first];
    }

private:
    static constexpr size_t kNoRow = ~size_t(0);
    static constexpr size_t kWalkRows = 64; // rows read ascending before a block is decoded
    static constexpr size_t kWalkStep = 64; // at most this far apart
    Int64ColumnView m_view;
    ColumnRows<int64_t> m_rows;
    size_t m_lastRow = kNoRow;
    size_t m_runLength = 0;
    std::array<int64_t, kColumnBlockRows> m_buffer;
};

} // namespace gapscope
