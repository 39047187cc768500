#pragma once
// A column of integers that rarely vary much from one row to the next (nullable counters,
// string and source ids), stored in blocks of kBlockRows rows with frame-of-reference
// encoding: each block keeps its smallest value and every row the difference in as few
// bytes as the block needs (none at all when the whole block holds one value). Random access
// by row stays O(1). Append-only; plain C++, no Qt.
//
// For int64_t, kNullInt (the smallest int64) is the null marker of the store; it gets its own
// code in a block (the all-ones difference) so a null among ordinary values costs nothing.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace gapscope {

// Gives back a vector's spare capacity when it is more than 1/32 of it: less is not worth a
// copy of the whole vector (a column reserved from a good estimate keeps its few spare rows).
template <typename Vector> void shrinkIfMuchSpare(Vector& vector)
{
    if (vector.capacity() - vector.size() > vector.capacity() / 32)
        vector.shrink_to_fit();
}

template <typename T> class PackedColumn
{
    static_assert(std::is_integral_v<T> && sizeof(T) <= 8);

public:
    using value_type = T;
    static constexpr size_t kBlockRows = 1024;

    size_t size() const { return m_blocks.size() * kBlockRows + m_tail.size(); }
    bool empty() const { return size() == 0; }

    T operator[](size_t row) const
    {
        const size_t blockIndex = row / kBlockRows;
        if (blockIndex >= m_blocks.size())
            return m_tail[row - m_blocks.size() * kBlockRows];
        return valueIn(m_blocks[blockIndex], row % kBlockRows);
    }

    void push_back(T value)
    {
        m_tail.push_back(value);
        if (m_tail.size() == kBlockRows && !m_unpacked)
            seal();
    }
    // Appends the rows of src, each through map (a value -> value function).
    template <typename Map> void append(const PackedColumn& src, Map&& map)
    {
        for (const Block& block : src.m_blocks) {
            for (size_t i = 0; i < kBlockRows; ++i)
                push_back(map(src.valueIn(block, i)));
        }
        for (T value : src.m_tail) // an unpacked column holds all its rows here
            push_back(map(value));
    }
    void append(const PackedColumn& src)
    {
        append(src, [](T value) { return value; });
    }

    // Calls f(value, begin, end) for each run of equal values [begin, end), in row order; a
    // block of one value is one step.
    template <typename F> void forEachRun(F&& f) const
    {
        size_t runBegin = 0, row = 0;
        T runValue{};
        auto feed = [&](T value) {
            if (row > 0 && value != runValue) {
                f(runValue, runBegin, row);
                runBegin = row;
            }
            runValue = value;
        };
        for (const Block& block : m_blocks) {
            if (block.width == 0) {
                feed(valueIn(block, 0));
                row += kBlockRows;
                continue;
            }
            for (size_t i = 0; i < kBlockRows; ++i, ++row)
                feed(valueIn(block, i));
        }
        for (T value : m_tail) {
            feed(value);
            ++row;
        }
        if (row > 0)
            f(runValue, runBegin, row);
    }

    // A column that is only filled to be appended to another (the chunk of one parse thread)
    // can leave its rows unpacked: they are packed once, where they are appended, instead of
    // packed, unpacked and packed again. pack() packs the rows and ends the unpacked state.
    void keepUnpacked() { m_unpacked = true; }
    void pack()
    {
        if (!m_unpacked)
            return;
        m_unpacked = false;
        if (m_tail.size() < kBlockRows)
            return;
        std::vector<T> rows;
        rows.swap(m_tail);
        for (T value : rows)
            push_back(value);
    }
    // Room for `rows` rows without growing, the packed bytes estimated from the rows so far.
    void reserveRows(size_t rows)
    {
        if (rows <= size())
            return;
        m_blocks.reserve(rows / kBlockRows + 1);
        const size_t packedRows = m_blocks.size() * kBlockRows;
        if (packedRows > 0)
            m_bytes.reserve(m_bytes.size() * (rows / kBlockRows + 1) / m_blocks.size() + sizeof(uint64_t));
    }
    void assign(size_t count, T value)
    {
        clear();
        for (size_t i = 0; i < count; ++i)
            push_back(value);
    }
    // Removes the rows; the capacity stays (a chunk refilled window after window).
    void clear()
    {
        m_blocks.clear();
        m_bytes.clear();
        m_tail.clear();
    }

    std::vector<T> toVector() const
    {
        std::vector<T> values(size());
        for (size_t row = 0; row < values.size(); ++row)
            values[row] = (*this)[row];
        return values;
    }
    bool operator==(const PackedColumn& other) const
    {
        if (size() != other.size())
            return false;
        for (size_t row = 0; row < size(); ++row) {
            if ((*this)[row] != other[row])
                return false;
        }
        return true;
    }

    // Gives back the spare capacity of the vectors (after loading).
    void shrink_to_fit()
    {
        m_blocks.shrink_to_fit();
        shrinkIfMuchSpare(m_bytes);
        m_tail.shrink_to_fit();
    }

    // Heap bytes held (capacity, not size).
    size_t memoryBytes() const
    {
        return m_blocks.capacity() * sizeof(Block) + m_bytes.capacity() + m_tail.capacity() * sizeof(T);
    }

    // Whether every value is below limit (ids checked against the table they index): a block
    // whose range cannot reach limit is passed without reading its rows.
    bool allBelow(T limit) const requires std::is_unsigned_v<T>
    {
        for (size_t b = 0; b < m_blocks.size(); ++b) {
            const Block& block = m_blocks[b];
            if (block.base >= uint64_t(limit))
                return false;
            if (block.width == 0 || uint64_t(limit) - block.base > mask(block.width))
                continue;
            for (size_t i = 0; i < kBlockRows; ++i) {
                if (valueIn(block, i) >= limit)
                    return false;
            }
        }
        return std::all_of(m_tail.begin(), m_tail.end(), [limit](T value) { return value < limit; });
    }

    // The column as bytes (model/cache/TraceCache): its blocks as they are, so a reopened
    // column is not packed again. `out` takes u8(), u64() and bytes(pointer, size).
    template <typename Out> void writeTo(Out& out) const
    {
        out.u8(m_unpacked ? 1 : 0);
        out.u64(m_blocks.size());
        out.u64(m_bytes.size());
        out.u64(m_tail.size());
        for (const Block& block : m_blocks) {
            out.u64(block.base);
            out.u64(block.offset);
            out.u8(block.width);
            out.u8(block.hasNull ? 1 : 0);
        }
        out.bytes(m_bytes.data(), m_bytes.size());
        out.bytes(m_tail.data(), m_tail.size() * sizeof(T));
    }
    // Reads what writeTo wrote; false (and the column empty) when the bytes cannot be such a
    // column: every count is checked against what `in` has left and every block against the
    // packed bytes before a row is read. `in` has bool u8(&), bool u64(&), remaining() and
    // view(size) (a pointer to that many bytes, or nullptr).
    template <typename In> bool readFrom(In& in)
    {
        clear();
        m_unpacked = false;
        uint8_t unpacked = 0;
        uint64_t blocks = 0, bytes = 0, tail = 0;
        if (!in.u8(unpacked) || unpacked > 1 || !in.u64(blocks) || !in.u64(bytes) || !in.u64(tail))
            return false;
        constexpr size_t kBlockBytes = 2 * sizeof(uint64_t) + 2;
        if (blocks > in.remaining() / kBlockBytes || bytes > in.remaining() ||
            tail > in.remaining() / sizeof(T) || (!unpacked && tail >= kBlockRows) ||
            (bytes > 0 && bytes < sizeof(uint64_t)))
            return false;
        m_blocks.resize(blocks);
        for (Block& block : m_blocks) {
            uint8_t width = 0, hasNull = 0;
            if (!in.u64(block.base) || !in.u64(block.offset) || !in.u8(width) || !in.u8(hasNull) ||
                width > 8 || hasNull > 1)
                return fail();
            block.width = width;
            block.hasNull = hasNull != 0;
            // valueIn reads 8 bytes at the last row's code: they must lie within m_bytes
            if (width > 0 && (block.offset > bytes || (bytes - block.offset) < (kBlockRows - 1) * width + 8))
                return fail();
        }
        const unsigned char* packed = in.view(bytes);
        if (!packed)
            return fail();
        m_bytes.assign(packed, packed + bytes);
        const unsigned char* rows = in.view(tail * sizeof(T));
        if (!rows)
            return fail();
        m_tail.resize(tail);
        std::memcpy(m_tail.data(), rows, tail * sizeof(T));
        m_unpacked = unpacked != 0;
        return true;
    }

private:
    bool fail()
    {
        clear();
        return false;
    }

    // The null marker of a signed column; unsigned columns have none.
    static constexpr T kNull = std::is_signed_v<T> ? std::numeric_limits<T>::min() : T(0);
    static constexpr bool kNullable = std::is_signed_v<T>;

    struct Block
    {
        uint64_t base = 0;   // smallest non-null value (as uint64), or the only value when width is 0
        uint64_t offset = 0; // into m_bytes
        uint8_t width = 0;   // bytes per row
        bool hasNull = false;
    };

    static constexpr uint64_t mask(unsigned width)
    {
        return width >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * width)) - 1;
    }

    T valueIn(const Block& block, size_t index) const
    {
        if (block.width == 0)
            return static_cast<T>(block.base);
        uint64_t code = 0; // m_bytes keeps 8 bytes of padding, so the copy never reads past it
        std::memcpy(&code, m_bytes.data() + block.offset + index * block.width, sizeof code);
        code &= mask(block.width);
        if (block.hasNull && code == mask(block.width))
            return kNull;
        return static_cast<T>(block.base + code);
    }

    void seal()
    {
        Block block;
        bool anyValue = false;
        uint64_t low = 0, high = 0; // order-preserving: value - min fits in uint64 for any T
        for (T value : m_tail) {
            if (kNullable && value == kNull) {
                block.hasNull = true;
                continue;
            }
            const auto key = static_cast<uint64_t>(static_cast<int64_t>(value)) ^ (uint64_t(1) << 63);
            low = anyValue ? std::min(low, key) : key;
            high = anyValue ? std::max(high, key) : key;
            anyValue = true;
        }
        const uint64_t range = high - low;
        const uint64_t base = low ^ (uint64_t(1) << 63); // back to the value's bit pattern
        if (!anyValue || (range == 0 && !block.hasNull)) {
            block.base = anyValue ? base : static_cast<uint64_t>(static_cast<int64_t>(kNull));
            block.hasNull = false;
            m_blocks.push_back(block);
            m_tail.clear();
            return;
        }
        block.base = base;
        block.width = 1;
        // with nulls the all-ones code is taken, so the range must stay below it
        while (block.width < 8 && (block.hasNull ? range >= mask(block.width) : range > mask(block.width)))
            ++block.width;
        const size_t padding = m_bytes.empty() ? 0 : sizeof(uint64_t);
        m_bytes.resize(m_bytes.size() - padding);
        block.offset = m_bytes.size();
        const size_t needed = m_bytes.size() + kBlockRows * block.width + sizeof(uint64_t);
        if (needed > m_bytes.capacity()) // grow by 1/8, not 2x: capacity is resident memory
            m_bytes.reserve(needed + std::max<size_t>(m_bytes.size() / 8, 4096));
        m_bytes.resize(needed);
        uint8_t* out = m_bytes.data() + block.offset;
        for (T value : m_tail) {
            const uint64_t code = (kNullable && value == kNull)
                                      ? mask(block.width)
                                      : static_cast<uint64_t>(static_cast<int64_t>(value)) - base;
            std::memcpy(out, &code, block.width); // little-endian: the low bytes
            out += block.width;
        }
        m_blocks.push_back(block);
        m_tail.clear();
    }

    std::vector<Block> m_blocks;
    std::vector<uint8_t> m_bytes; // sealed blocks, then 8 bytes of padding
    std::vector<T> m_tail;        // rows after the last sealed block
    bool m_unpacked = false;      // keepUnpacked(): every row stays in m_tail
};

} // namespace gapscope
