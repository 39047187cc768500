#pragma once
// A fast 64-bit checksum for the trace cache (model/cache/TraceCache): xxHash64's round and
// avalanche over four independent lanes, fed incrementally (the cache is written in pieces
// and checked in one pass over the mapped file). Not cryptographic: it finds a cut, a flipped
// or a stale byte, not a forgery. Plain C++, no Qt.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gapscope {

class Hash64
{
public:
    explicit Hash64(uint64_t seed = 0)
        : m_lanes{seed + kPrime1 + kPrime2, seed + kPrime2, seed, seed - kPrime1}, m_seed(seed)
    {
    }

    void update(const void* data, size_t size)
    {
        const auto* bytes = static_cast<const unsigned char*>(data);
        m_total += size;
        if (m_buffered > 0) { // complete the stripe begun by the last call
            const size_t take = size < kStripe - m_buffered ? size : kStripe - m_buffered;
            std::memcpy(m_buffer + m_buffered, bytes, take);
            m_buffered += take;
            bytes += take;
            size -= take;
            if (m_buffered < kStripe)
                return;
            consumeStripe(m_buffer);
            m_buffered = 0;
        }
        while (size >= kStripe) {
            consumeStripe(bytes);
            bytes += kStripe;
            size -= kStripe;
        }
        std::memcpy(m_buffer, bytes, size);
        m_buffered = size;
    }

    uint64_t digest() const
    {
        uint64_t hash = 0;
        if (m_total >= kStripe) {
            hash = rotl(m_lanes[0], 1) + rotl(m_lanes[1], 7) + rotl(m_lanes[2], 12) + rotl(m_lanes[3], 18);
            for (uint64_t lane : m_lanes)
                hash = (hash ^ round(0, lane)) * kPrime1 + kPrime4;
        } else {
            hash = m_seed + kPrime5;
        }
        hash += m_total;
        size_t at = 0;
        for (; at + 8 <= m_buffered; at += 8)
            hash = rotl(hash ^ round(0, load64(m_buffer + at)), 27) * kPrime1 + kPrime4;
        for (; at < m_buffered; ++at)
            hash = rotl(hash ^ (m_buffer[at] * kPrime5), 11) * kPrime1;
        hash ^= hash >> 33;
        hash *= kPrime2;
        hash ^= hash >> 29;
        hash *= kPrime3;
        hash ^= hash >> 32;
        return hash;
    }

    static uint64_t of(const void* data, size_t size, uint64_t seed = 0)
    {
        Hash64 hash(seed);
        hash.update(data, size);
        return hash.digest();
    }

private:
    static constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
    static constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
    static constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
    static constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
    static constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;
    static constexpr size_t kStripe = 32;

    static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
    static uint64_t round(uint64_t lane, uint64_t input)
    {
        return rotl(lane + input * kPrime2, 31) * kPrime1;
    }
    static uint64_t load64(const unsigned char* p)
    {
        uint64_t value;
        std::memcpy(&value, p, sizeof value);
        return value;
    }
    void consumeStripe(const unsigned char* p)
    {
        m_lanes[0] = round(m_lanes[0], load64(p));
        m_lanes[1] = round(m_lanes[1], load64(p + 8));
        m_lanes[2] = round(m_lanes[2], load64(p + 16));
        m_lanes[3] = round(m_lanes[3], load64(p + 24));
    }

    uint64_t m_lanes[4];
    uint64_t m_seed;
    uint64_t m_total = 0;
    unsigned char m_buffer[kStripe]{};
    size_t m_buffered = 0;
};

} // namespace gapscope
