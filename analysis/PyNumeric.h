#pragma once
// Python's and numpy's arithmetic where upstream's numbers depend on it: int / int, numpy's
// pairwise summation (np.sum, np.mean, np.std), np.median and statistics.median. The analyses
// that reproduce upstream (GapAnalysis, CollectiveAttribution, CrossRankAnalysis) share them, so
// one rounding rule holds everywhere.

#include "analysis/Int64Math.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <future>
#include <limits>
#include <span>
#include <thread>
#include <vector>

namespace gapscope {

// Python's int / int: the exact quotient, correctly rounded. Doubles are exact below 2^53,
// which covers every realistic byte count; beyond, long double keeps 64 bits.
inline double trueDivide(int64_t numerator, int64_t denominator)
{
    constexpr int64_t kExactLimit = int64_t{1} << 53;
    if (numerator > -kExactLimit && numerator < kExactLimit && denominator > -kExactLimit &&
        denominator < kExactLimit)
        return static_cast<double>(numerator) / static_cast<double>(denominator);
    return static_cast<double>(static_cast<long double>(numerator) / static_cast<long double>(denominator));
}

// numpy's pairwise summation (blocks of 128 summed with 8 accumulators, halves above
// that): upstream sums with np.mean / np.std, and this order keeps the rounding error at
// O(log n) on 10 million samples without materialising the terms. term(i) gives the i-th
// summand; Value may be any type with + and += (several sums in one pass).
inline constexpr size_t kPairwiseBlock = 128;

template <typename Value, typename Term> Value pairwiseSum(size_t first, size_t count, const Term& term)
{
    if (count < 8) {
        Value sum{};
        for (size_t i = 0; i < count; ++i)
            sum += term(first + i);
        return sum;
    }
    if (count <= kPairwiseBlock) {
        Value partial[8];
        for (size_t j = 0; j < 8; ++j)
            partial[j] = term(first + j);
        size_t i = 8;
        for (; i < count - (count % 8); i += 8)
            for (size_t j = 0; j < 8; ++j)
                partial[j] += term(first + i + j);
        Value sum = ((partial[0] + partial[1]) + (partial[2] + partial[3])) +
                    ((partial[4] + partial[5]) + (partial[6] + partial[7]));
        for (; i < count; ++i)
            sum += term(first + i);
        return sum;
    }
    size_t half = count / 2;
    half -= half % 8;
    return pairwiseSum<Value>(first, half, term) + pairwiseSum<Value>(first + half, count - half, term);
}

// pairwiseSum over [0, count) with its top split on two threads when count is large: the
// same two halves added the same way, so the result is the same to the bit. (10 M samples:
// the sums are most of an analysis.) makeTerm() makes the term of each thread, for terms that
// keep state (column readers that hold the block they read last).
template <typename Value, typename MakeTerm>
Value pairwiseSumOnCoresWith(size_t count, const MakeTerm& makeTerm)
{
    constexpr size_t kTwoThreadsFrom = size_t(1) << 20;
    if (count < kTwoThreadsFrom || std::thread::hardware_concurrency() < 2)
        return pairwiseSum<Value>(0, count, makeTerm());
    size_t half = count / 2;
    half -= half % 8;
    auto left = std::async(std::launch::async, [&] { return pairwiseSum<Value>(0, half, makeTerm()); });
    const Value right = pairwiseSum<Value>(half, count - half, makeTerm());
    return left.get() + right;
}

// pairwiseSumOnCoresWith for a term without state, shared by both threads.
template <typename Value, typename Term> Value pairwiseSumOnCores(size_t count, const Term& term)
{
    return pairwiseSumOnCoresWith<Value>(count, [&term]() -> const Term& { return term; });
}

// np.median of doubles: the middle value, or the mean of the two middle values (their sum
// halved, as np.mean of two does). Reorders `values` (nth_element); O(n). NaN for none.
inline double numpyMedian(std::span<double> values)
{
    const size_t n = values.size();
    if (n == 0)
        return std::nan("");
    const size_t upper = n / 2;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(upper), values.end());
    const double high = values[upper];
    if (n % 2 == 1)
        return high;
    const double low = *std::max_element(values.begin(), values.begin() + std::ptrdiff_t(upper));
    return (low + high) / 2.0;
}

// int(statistics.median(values)) of Python ints: the middle value, or for an even count the
// two middle values' sum divided by 2 as Python's true division rounds it (an odd sum of
// more than 2^53 rounds to even), truncated towards zero. Values must be positive (they are
// the time between samples), so the sum fits 64 unsigned bits. Reorders `values`; O(n).
// 0 for none (the caller decides what no median means).
inline int64_t pythonIntMedian(std::span<int64_t> values)
{
    const size_t n = values.size();
    if (n == 0)
        return 0;
    const size_t upper = n / 2;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(upper), values.end());
    const int64_t high = values[upper];
    if (n % 2 == 1)
        return high;
    const int64_t low = *std::max_element(values.begin(), values.begin() + std::ptrdiff_t(upper));
    const WideInt sum = WideInt(low) + high;
    if (sum >= 0 && sum <= (WideInt(1) << 53))
        return static_cast<int64_t>(sum / 2);
    // long double holds any 64-bit sum exactly, and halving it is exact: one rounding only
    const long double half = static_cast<long double>(sum) / 2.0L;
    return toInt64(static_cast<double>(half)).value_or(std::numeric_limits<int64_t>::max());
}

} // namespace gapscope
