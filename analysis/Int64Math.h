#pragma once
// Arithmetic on int64 values that come from files: timestamps in nanoseconds, byte counts,
// streak counters. A file may hold any int64, so the sum, difference or scaling of two of
// them need not fit, and signed overflow is undefined behaviour (a wrapped slot index once
// wrote outside a vector). Such arithmetic goes through these helpers:
// - checked*: the exact result, or nullopt when it does not fit (the caller reports it);
// - saturating*: the result clamped to the int64 range, where "further than anything" is
//   the right answer (distances between ticks, slot numbers, window bounds);
// - WideInt: 128 bits hold every sum, difference and product of two int64 exactly.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace gapscope {

using WideInt = __int128;

constexpr int64_t saturateToInt64(WideInt value)
{
    constexpr WideInt lo = std::numeric_limits<int64_t>::min();
    constexpr WideInt hi = std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(std::clamp(value, lo, hi));
}

constexpr std::optional<int64_t> checkedAdd(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

constexpr std::optional<int64_t> checkedSub(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

constexpr std::optional<int64_t> checkedMul(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

constexpr int64_t saturatingAdd(int64_t a, int64_t b)
{
    return saturateToInt64(WideInt(a) + b);
}

constexpr int64_t saturatingSub(int64_t a, int64_t b)
{
    return saturateToInt64(WideInt(a) - b);
}

constexpr int64_t saturatingMul(int64_t a, int64_t b)
{
    return saturateToInt64(WideInt(a) * b);
}

// numerator / denominator rounded to the nearest integer, halves away from zero, saturated
// to int64; denominator > 0. The tick clock uses it to count periods between timestamps.
constexpr int64_t roundedDivide(WideInt numerator, int64_t denominator)
{
    const WideInt magnitude = numerator < 0 ? -numerator : numerator;
    const WideInt quotient = (magnitude + denominator / 2) / denominator;
    return saturateToInt64(numerator < 0 ? -quotient : quotient);
}

// value converted to int64 (truncated towards zero) when it lies within the int64 range;
// nullopt for NaN, infinities and magnitudes of 2^63 and more, whose conversion is undefined.
constexpr std::optional<int64_t> toInt64(double value)
{
    constexpr double kTwoTo63 = 9223372036854775808.0; // exact as a double
    if (!(value >= -kTwoTo63 && value < kTwoTo63))
        return std::nullopt;
    return static_cast<int64_t>(value);
}

// to - from as a double, for any two int64 (the rounding of one conversion only).
constexpr double differenceAsDouble(int64_t to, int64_t from)
{
    return static_cast<double>(WideInt(to) - from);
}

} // namespace gapscope
