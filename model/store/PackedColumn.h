#pragma once
// A column of integers (or an enum) that vary little from one row to the next: timestamps
// taken at a steady rate, counters that move by a few MB, string and source ids. Stored in
// blocks of kBlockRows rows; each block keeps a line base + step * i through its values
// (step 0: plain frame of reference; else the slope from its first to its last value, which
// leaves only the jitter of regularly sampled timestamps) and every row the difference from
// that line in as few *bits* as the block needs (none when the line is exact). Random access
// by row stays O(1); forEachBlock and blockAt decode one block at a time for the readers that
// walk many rows. Append-only; plain C++, no Qt.
//
// For signed T, the smallest value (kNullInt for int64) is the null marker of the store; it
// gets its own code in a block (the all-ones code) so a null among ordinary values costs
// nothing. All arithmetic is modulo 2^64, so any value from INT64_MIN to INT64_MAX packs and
// comes back exactly.

#include "analysis/ColumnView.h"

#include <algorithm>
#include <array>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace gapscope {

// Gives back a vector's spare capacity when it is more than 1/32 of it: less is not worth a
// copy of the whole vector (a column reserved from a good estimate keeps its few spare rows).
template <typename Vector> void shrinkIfMuchSpare(Vector& vector)
{
    if (vector.capacity() - vector.size() > vector.capacity() / 32)
        vector.shrink_to_fit();
}

namespace detail {
// One block's rows decoded on the stack, left uninitialised: a std::array in a std::tuple is
// value-initialised, which zeroed 8 KB per column on every pass, even over rows that are not
// decoded at all (the unsealed tail of a small store).
template <typename T> struct BlockBuffer
{
    BlockBuffer() {} // NOLINT(modernize-use-equals-default): = default would zero the rows
    T rows[kColumnBlockRows];
};
template <typename T, bool = std::is_enum_v<T>> struct PackedCodeOf
{
    using type = T;
};
template <typename T> struct PackedCodeOf<T, true>
{
    using type = std::underlying_type_t<T>;
};
} // namespace detail

template <typename T> class PackedColumn
{
    using Integer = typename detail::PackedCodeOf<T>::type;
    static_assert(std::is_integral_v<Integer> && sizeof(T) <= 8);

public:
    using value_type = T;
    static constexpr size_t kBlockRows = kColumnBlockRows;
    static constexpr size_t kFirstTailRows = 16;
    // 64-bit words of a block of `bits` bits per row (kBlockRows is a multiple of 64)
    static constexpr size_t wordsPerBlock(unsigned bits) { return kBlockRows * bits / 64; }

    // One sealed block as stored, for a serialiser: row i holds base + step * i + code(i)
    // (modulo 2^64, then cast to T), code(i) being the bits [i * bits, (i + 1) * bits) of words
    // (least significant bit first); with hasNull the all-ones code is the null marker.
    struct RawBlock
    {
        uint64_t base = 0;
        uint64_t step = 0;
        uint8_t bits = 0;
        bool hasNull = false;
        std::span<const uint64_t> words; // wordsPerBlock(bits) words
    };

    PackedColumn() = default;
    PackedColumn(std::initializer_list<T> values) { *this = values; }
    PackedColumn& operator=(std::initializer_list<T> values)
    {
        clear();
        for (T value : values)
            push_back(value);
        return *this;
    }

    size_t size() const { return sealedRows() + m_tail.size(); }
    bool empty() const { return size() == 0; }
    // Rows the column was told to expect (reserveRows), at least size(): what a loader
    // compares its next rows with before reserving again.
    size_t capacity() const { return std::max(m_capacityRows, size()); }

    T operator[](size_t row) const
    {
        const size_t blockIndex = row / kBlockRows;
        if (blockIndex >= m_blocks.size())
            return m_tail[row - sealedRows()];
        return valueIn(m_blocks[blockIndex], row % kBlockRows);
    }
    T front() const { return (*this)[0]; }
    T back() const { return (*this)[size() - 1]; }

    // Rows of the block holding row: a sealed block decoded into buffer (kBlockRows values),
    // or the rows not yet sealed as they are.
    ColumnRows<T> blockAt(size_t row, T* buffer) const
    {
        const size_t sealed = sealedRows();
        if (row >= sealed)
            return {m_tail.data(), sealed, m_tail.size()};
        const size_t blockIndex = row / kBlockRows;
        decode(m_blocks[blockIndex], buffer);
        return {buffer, blockIndex * kBlockRows, kBlockRows};
    }
    // Calls f(firstRow, rows) for the rows [begin, end) one block at a time (a sealed block
    // decoded into a buffer on the stack), in row order.
    template <typename F> void forEachBlock(size_t begin, size_t end, F&& f) const
    {
        forEachBlockOf(begin, end, f, *this);
    }

    // Reads by index, for the standard algorithms (lower_bound on timestamps, say).
    class const_iterator
    {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using reference = T;
        using pointer = void;
        const_iterator() = default;
        const_iterator(const PackedColumn* column, size_t row) : m_column(column), m_row(row) {}
        T operator*() const { return (*m_column)[m_row]; }
        T operator[](difference_type n) const { return (*m_column)[size_t(difference_type(m_row) + n)]; }
        const_iterator& operator++() { return ++m_row, *this; }
        const_iterator operator++(int) { return {m_column, m_row++}; }
        const_iterator& operator--() { return --m_row, *this; }
        const_iterator operator--(int) { return {m_column, m_row--}; }
        const_iterator& operator+=(difference_type n)
        {
            return m_row = size_t(difference_type(m_row) + n), *this;
        }
        const_iterator& operator-=(difference_type n) { return *this += -n; }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
        friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b)
        {
            return difference_type(a.m_row) - difference_type(b.m_row);
        }
        bool operator==(const const_iterator& other) const { return m_row == other.m_row; }
        auto operator<=>(const const_iterator& other) const { return m_row <=> other.m_row; }

    private:
        const PackedColumn* m_column = nullptr;
        size_t m_row = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    void push_back(T value)
    {
        // The first row makes room for kFirstTailRows: a vector grown from empty reallocates at
        // 1, 2, 4 and 8 rows, which in every column of a small read (a follower's look, a
        // window of a few lines) was most of its allocations.
        if (m_tail.capacity() == 0) [[unlikely]]
            m_tail.reserve(kFirstTailRows);
        m_tail.push_back(value);
        if (m_tail.size() == kBlockRows && !m_unpacked)
            seal();
    }
    // Appends the rows of src, each through map (a value -> value function).
    template <typename Map> void append(const PackedColumn& src, Map&& map)
    {
        src.forEachBlock(0, src.size(), [&](size_t, std::span<const T> rows) {
            for (T value : rows)
                push_back(map(value));
        });
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
            if (block.bits == 0 && block.step == 0) {
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
    void keepUnpacked()
    {
        m_unpacked = true;
        m_tail.reserve(m_capacityRows);
    }
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
    // Room for `rows` rows without growing, the packed words estimated from the rows so far
    // (an unpacked column reserves its rows).
    void reserveRows(size_t rows)
    {
        m_capacityRows = std::max(m_capacityRows, rows);
        if (rows <= size())
            return;
        if (m_unpacked) {
            m_tail.reserve(rows);
            return;
        }
        m_blocks.reserve(rows / kBlockRows + 1);
        if (!m_blocks.empty())
            m_words.reserve(m_words.size() * (rows / kBlockRows + 1) / m_blocks.size());
    }
    void reserve(size_t rows) { reserveRows(rows); }
    void assign(size_t count, T value)
    {
        clear();
        for (size_t i = 0; i < count; ++i)
            push_back(value);
    }
    // Keeps the first `count` rows, or appends T{} up to `count`.
    void resize(size_t count)
    {
        if (count >= size()) {
            while (size() < count)
                push_back(T{});
            return;
        }
        if (count >= sealedRows()) {
            m_tail.resize(count - sealedRows());
            return;
        }
        const size_t blockIndex = count / kBlockRows;
        std::vector<T> rows(kBlockRows);
        decode(m_blocks[blockIndex], rows.data());
        rows.resize(count % kBlockRows);
        m_words.resize(m_blocks[blockIndex].wordOffset);
        m_blocks.resize(blockIndex);
        m_tail = std::move(rows);
    }
    // Removes the rows; the capacity stays (a chunk refilled window after window).
    void clear()
    {
        m_blocks.clear();
        m_words.clear();
        m_tail.clear();
    }

    std::vector<T> toVector() const
    {
        std::vector<T> values;
        values.reserve(size());
        forEachBlock(0, size(), [&values](size_t, std::span<const T> rows) {
            values.insert(values.end(), rows.begin(), rows.end());
        });
        return values;
    }
    // A copy of every row (tests and small inputs; the readers of a large store go by block).
    operator std::vector<T>() const { return toVector(); }
    bool operator==(const PackedColumn& other) const
    {
        if (size() != other.size())
            return false;
        T buffer[kBlockRows];
        bool same = true;
        forEachBlock(0, size(), [&](size_t first, std::span<const T> rows) {
            const ColumnRows<T> theirs = other.blockAt(first, buffer);
            same = same && std::equal(rows.begin(), rows.end(), theirs.rows + (first - theirs.first));
        });
        return same;
    }

    friend bool operator==(const PackedColumn& column, const std::vector<T>& values)
    {
        if (column.size() != values.size())
            return false;
        bool same = true;
        column.forEachBlock(0, column.size(), [&](size_t first, std::span<const T> rows) {
            same = same && std::equal(rows.begin(), rows.end(), values.begin() + std::ptrdiff_t(first));
        });
        return same;
    }

    // Gives back the spare capacity of the vectors (after loading), and forgets the rows
    // reserved beyond the size when they are more than 1/32 of them (shrinkIfMuchSpare's rule).
    void shrink_to_fit()
    {
        m_blocks.shrink_to_fit();
        shrinkIfMuchSpare(m_words);
        m_tail.shrink_to_fit();
        if (capacity() - size() > capacity() / 32)
            m_capacityRows = size();
    }

    // Heap bytes held (capacity, not size).
    size_t memoryBytes() const
    {
        return m_blocks.capacity() * sizeof(Block) + m_words.capacity() * sizeof(uint64_t) +
               m_tail.capacity() * sizeof(T);
    }

    // Raw access for a serialiser: the sealed blocks, then the rows after them.
    size_t blockCount() const { return m_blocks.size(); }
    RawBlock rawBlock(size_t index) const
    {
        const Block& block = m_blocks[index];
        return {block.base, block.step, block.bits, block.hasNull,
                std::span<const uint64_t>(m_words.data() + block.wordOffset, wordsPerBlock(block.bits))};
    }
    std::span<const T> tail() const { return m_tail; }
    // Appends a block read back from rawBlock(); false (nothing appended) when it cannot be
    // one: rows not yet sealed before it, more than 64 bits, a word count that does not match,
    // or a null in a column without a null marker.
    bool appendRawBlock(const RawBlock& raw)
    {
        if (!m_tail.empty() || raw.bits > 64 || raw.words.size() != wordsPerBlock(raw.bits) ||
            (raw.hasNull && (!kNullable || raw.bits == 0)))
            return false;
        Block block{raw.base, raw.step, m_words.size(), raw.bits, raw.hasNull};
        m_words.insert(m_words.end(), raw.words.begin(), raw.words.end());
        m_blocks.push_back(block);
        return true;
    }

    // Whether every value is below limit (ids checked against the table they index): a block
    // whose values cannot reach limit (its line's end plus the largest code) is passed without
    // reading its rows.
    bool allBelow(T limit) const requires std::is_unsigned_v<T>
    {
        for (const Block& block : m_blocks) {
            // the line rises from base to its top without passing 2^64, and the top plus the
            // largest code stays below limit (< 2^32 for a uint32 column: no truncation either)
            constexpr uint64_t kSpan = kBlockRows - 1;
            if (block.step <= (~uint64_t(0) - block.base) / kSpan) {
                const uint64_t top = block.base + block.step * kSpan;
                if (top < uint64_t(limit) && uint64_t(limit) - top > mask(block.bits))
                    continue;
            }
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
        out.u64(m_words.size());
        out.u64(m_tail.size());
        for (const Block& block : m_blocks) {
            out.u64(block.base);
            out.u64(block.step);
            out.u64(block.wordOffset);
            out.u8(block.bits);
            out.u8(block.hasNull ? 1 : 0);
        }
        out.bytes(m_words.data(), m_words.size() * sizeof(uint64_t));
        out.bytes(m_tail.data(), m_tail.size() * sizeof(T));
    }
    // Reads what writeTo wrote; false (and the column empty) when the bytes cannot be such a
    // column: every count is checked against what `in` has left and every block against the
    // packed words before a row is read. `in` has bool u8(&), bool u64(&), remaining() and
    // view(size) (a pointer to that many bytes, or nullptr).
    template <typename In> bool readFrom(In& in)
    {
        clear();
        m_unpacked = false;
        uint8_t unpacked = 0;
        uint64_t blocks = 0, words = 0, tail = 0;
        if (!in.u8(unpacked) || unpacked > 1 || !in.u64(blocks) || !in.u64(words) || !in.u64(tail))
            return false;
        constexpr size_t kBlockBytes = 3 * sizeof(uint64_t) + 2;
        if (blocks > in.remaining() / kBlockBytes || words > in.remaining() / sizeof(uint64_t) ||
            tail > in.remaining() / sizeof(T) || (!unpacked && tail >= kBlockRows) ||
            (unpacked && blocks > 0))
            return false;
        m_blocks.resize(blocks);
        for (Block& block : m_blocks) {
            uint8_t bits = 0, hasNull = 0;
            if (!in.u64(block.base) || !in.u64(block.step) || !in.u64(block.wordOffset) || !in.u8(bits) ||
                !in.u8(hasNull) || bits > 64 || hasNull > 1 || (hasNull && (!kNullable || bits == 0)))
                return fail();
            block.bits = bits;
            block.hasNull = hasNull != 0;
            // valueIn and decode read wordsPerBlock(bits) words from wordOffset: within m_words
            if (block.wordOffset > words || words - block.wordOffset < wordsPerBlock(bits))
                return fail();
        }
        const unsigned char* packed = in.view(words * sizeof(uint64_t));
        if (!packed)
            return fail();
        m_words.resize(words);
        if (words > 0) // an empty vector's data() may be null, and memcpy must not get one
            std::memcpy(m_words.data(), packed, words * sizeof(uint64_t));
        const unsigned char* rows = in.view(tail * sizeof(T));
        if (!rows)
            return fail();
        m_tail.resize(tail);
        if (tail > 0)
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
    static constexpr bool kNullable = std::is_signed_v<Integer>;
    static constexpr Integer kNull = kNullable ? std::numeric_limits<Integer>::min() : Integer(0);
    static constexpr uint64_t kSignBit = uint64_t(1) << 63;

    struct Block
    {
        uint64_t base = 0;       // the line's value at row 0 of the block
        uint64_t step = 0;       // added per row (modulo 2^64)
        uint64_t wordOffset = 0; // into m_words
        uint8_t bits = 0;        // per row
        bool hasNull = false;
    };

    static constexpr uint64_t mask(unsigned bits)
    {
        return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    }
    static uint64_t codeOf(T value)
    {
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<Integer>(value)));
    }
    static T valueOf(uint64_t code) { return static_cast<T>(static_cast<Integer>(code)); }
    static bool isNull(T value) { return kNullable && static_cast<Integer>(value) == kNull; }

    size_t sealedRows() const { return m_blocks.size() * kBlockRows; }

    static uint64_t field(const uint64_t* words, size_t index, unsigned bits)
    {
        const size_t bit = index * bits;
        const unsigned shift = bit & 63;
        uint64_t code = words[bit >> 6] >> shift;
        if (shift + bits > 64)
            code |= words[(bit >> 6) + 1] << (64 - shift);
        return code & mask(bits);
    }

    T valueIn(const Block& block, size_t index) const
    {
        uint64_t code = 0;
        if (block.bits != 0) {
            code = field(m_words.data() + block.wordOffset, index, block.bits);
            if (block.hasNull && code == mask(block.bits))
                return valueOf(static_cast<uint64_t>(static_cast<int64_t>(kNull)));
        }
        return valueOf(block.base + block.step * index + code);
    }

    void decode(const Block& block, T* out) const
    {
        uint64_t line = block.base;
        if (block.bits == 0) {
            for (size_t i = 0; i < kBlockRows; ++i, line += block.step)
                out[i] = valueOf(line);
            return;
        }
        const uint64_t* words = m_words.data() + block.wordOffset;
        const uint64_t all = mask(block.bits);
        const T null = valueOf(static_cast<uint64_t>(static_cast<int64_t>(kNull)));
        for (size_t i = 0; i < kBlockRows; ++i, line += block.step) {
            const uint64_t code = field(words, i, block.bits);
            out[i] = block.hasNull && code == all ? null : valueOf(line + code);
        }
    }

    // The spread of the rows' distances from the line step * i, as (smallest distance, largest
    // minus smallest), the distances compared as int64 (any order works modulo 2^64; this one
    // keeps the spread small for values on both sides of zero).
    std::pair<uint64_t, uint64_t> spreadAbout(uint64_t step) const
    {
        uint64_t low = ~uint64_t(0), high = 0;
        for (size_t i = 0; i < kBlockRows; ++i) {
            if (isNull(m_tail[i]))
                continue;
            const uint64_t key = (codeOf(m_tail[i]) - step * i) ^ kSignBit;
            low = std::min(low, key);
            high = std::max(high, key);
        }
        return {low ^ kSignBit, high - low};
    }
    // Bits a block needs for codes 0..range, plus the all-ones null code; 65 when it cannot.
    static unsigned bitsFor(uint64_t range, bool hasNull)
    {
        unsigned bits = unsigned(std::bit_width(range));
        if (hasNull && range == mask(bits))
            ++bits;
        return bits;
    }

    void seal()
    {
        // one pass: the first and last value, the nulls, and the spread of the values
        size_t first = kBlockRows, last = 0;
        bool hasNull = false;
        uint64_t lowKey = ~uint64_t(0), highKey = 0;
        for (size_t i = 0; i < kBlockRows; ++i) {
            if (isNull(m_tail[i])) {
                hasNull = true;
                continue;
            }
            first = std::min(first, i);
            last = i;
            const uint64_t key = codeOf(m_tail[i]) ^ kSignBit;
            lowKey = std::min(lowKey, key);
            highKey = std::max(highKey, key);
        }
        Block block;
        block.wordOffset = m_words.size();
        if (first == kBlockRows) { // nulls only
            block.base = codeOf(m_tail[0]);
            m_blocks.push_back(block);
            m_tail.clear();
            return;
        }
        // frame of reference, or the line from the first value to the last when that one
        // leaves fewer bits (timestamps: the jitter only)
        uint64_t low = lowKey ^ kSignBit;
        unsigned bits = bitsFor(highKey - lowKey, hasNull);
        uint64_t step = 0;
        if (last > first && bits > 0) {
            const auto rise = static_cast<int64_t>(codeOf(m_tail[last]) - codeOf(m_tail[first]));
            const auto slope = static_cast<uint64_t>(rise / static_cast<int64_t>(last - first));
            if (slope != 0) {
                const auto [lineLow, lineRange] = spreadAbout(slope);
                const unsigned lineBits = bitsFor(lineRange, hasNull);
                if (lineBits < bits) {
                    low = lineLow;
                    bits = lineBits;
                    step = slope;
                }
            }
        }
        block.base = low;
        block.step = step;
        block.bits = uint8_t(bits);
        block.hasNull = hasNull;
        if (bits > 0) {
            const size_t needed = m_words.size() + wordsPerBlock(bits);
            if (needed > m_words.capacity()) {
                // grow by 1/8, not 2x: capacity is resident memory; but a column told how many
                // rows to expect (reserveRows) makes room for them at the bits a row so far,
                // instead of copying itself at every 1/8 (that cost 4x the packing)
                size_t room = needed + std::max<size_t>(m_words.size() / 8, 512);
                if (m_capacityRows > sealedRows() + 2 * kBlockRows)
                    room = std::max(room, needed / (m_blocks.size() + 1) * (m_capacityRows / kBlockRows + 1));
                m_words.reserve(room);
            }
            m_words.resize(needed); // zeros
            uint64_t* out = m_words.data() + block.wordOffset;
            const uint64_t all = mask(bits);
            uint64_t line = low;
            for (size_t i = 0; i < kBlockRows; ++i, line += step) {
                const uint64_t code = isNull(m_tail[i]) ? all : codeOf(m_tail[i]) - line;
                const size_t bit = i * bits;
                const unsigned shift = bit & 63;
                out[bit >> 6] |= code << shift;
                if (shift + bits > 64)
                    out[(bit >> 6) + 1] |= code >> (64 - shift);
            }
        }
        m_blocks.push_back(block);
        m_tail.clear();
    }

    std::vector<Block> m_blocks;
    std::vector<uint64_t> m_words; // the sealed blocks' codes, block after block
    std::vector<T> m_tail;         // rows after the last sealed block
    size_t m_capacityRows = 0;     // reserveRows()
    bool m_unpacked = false;       // keepUnpacked(): every row stays in m_tail
};

// Calls f(firstRow, rows of columns[0], rows of columns[1], ...) for the rows [begin, end) of
// columns of one length, in pieces that lie in one block of every column (each block decoded
// once, into a buffer on the stack), in row order: how a pass over many rows reads them.
template <typename F, typename... Columns>
void forEachBlockOf(size_t begin, size_t end, F&& f, const Columns&... columns)
{
    end = std::min({end, columns.size()...});
    [&]<size_t... I>(std::index_sequence<I...>)
    {
        const std::tuple<const Columns&...> all(columns...);
        std::tuple<ColumnRows<typename Columns::value_type>...> blocks;
        std::tuple<detail::BlockBuffer<typename Columns::value_type>...> buffers;
        while (begin < end) {
            size_t last = end;
            (
                [&](auto& block, const auto& column, auto& buffer) {
                    if (begin - block.first >= block.count) // not in the block read last
                        block = column.blockAt(begin, buffer.rows);
                    last = std::min(last, block.first + block.count);
                }(std::get<I>(blocks), std::get<I>(all), std::get<I>(buffers)),
                ...);
            f(begin, std::span<const typename Columns::value_type>(
                         std::get<I>(blocks).rows + (begin - std::get<I>(blocks).first), last - begin)...);
            begin = last;
        }
    }
    (std::index_sequence_for<Columns...>{});
}

} // namespace gapscope
