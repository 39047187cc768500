#include "analysis/PyRound.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gapscope {

namespace {

// Python's limits (floatobject.c): beyond them the result is x itself, or zero.
constexpr int kMaxDigits = 323;  // (DBL_MANT_DIG - DBL_MIN_EXP) * 0.30103
constexpr int kMinDigits = -308; // -(DBL_MAX_EXP + 1) * 0.30103

// Rounds a non-negative integral double to a multiple of 10^places (places > 0), ties to
// even, where `fractionIsZero` tells whether the original value had nothing after the
// point (a tie needs the exact value, fraction included).
double roundIntegerPart(double integral, bool fractionIsZero, int places)
{
    // glibc prints integral doubles exactly.
    char digits[400];
    const int length = std::snprintf(digits, sizeof digits, "%.0f", integral);
    if (length <= places) {
        // The result is 0 or 10^places: 10^places only when the value exceeds half of it.
        const std::string half = "5" + std::string(static_cast<size_t>(places - 1), '0');
        const std::string value(digits, static_cast<size_t>(length));
        bool above = false;
        if (length == places) {
            const int cmp = value.compare(half);
            above = cmp > 0 || (cmp == 0 && !fractionIsZero);
        }
        return above ? std::strtod(("1e" + std::to_string(places)).c_str(), nullptr) : 0.0;
    }
    std::string kept(digits, static_cast<size_t>(length - places));
    const std::string dropped(digits + (length - places), static_cast<size_t>(places));
    const std::string half = "5" + std::string(static_cast<size_t>(places - 1), '0');
    const int cmp = dropped.compare(half);
    const bool odd = (kept.back() - '0') % 2 == 1;
    const bool roundUp = cmp > 0 || (cmp == 0 && (!fractionIsZero || odd));
    if (roundUp) {
        int i = static_cast<int>(kept.size()) - 1;
        while (i >= 0 && kept[static_cast<size_t>(i)] == '9')
            kept[static_cast<size_t>(i--)] = '0';
        if (i < 0)
            kept.insert(kept.begin(), '1');
        else
            ++kept[static_cast<size_t>(i)];
    }
    kept += "e" + std::to_string(places);
    return std::strtod(kept.c_str(), nullptr);
}

} // namespace

double pyRound(double x, int ndigits)
{
    if (!std::isfinite(x) || x == 0.0)
        return x;
    if (ndigits > kMaxDigits)
        return x;
    if (ndigits < kMinDigits)
        return 0.0 * x;
    if (ndigits >= 0) {
        // glibc's printf is exact: it rounds the binary value half to even, as Python's
        // dtoa in mode 3 does; strtod then gives the nearest double, as Python does.
        // Longest output: 309 integer digits + point + 323 decimals + sign.
        char buffer[700];
        std::snprintf(buffer, sizeof buffer, "%.*f", ndigits, x);
        return std::strtod(buffer, nullptr);
    }
    double integral = 0;
    const double fraction = std::modf(std::fabs(x), &integral);
    const double rounded = roundIntegerPart(integral, fraction == 0.0, -ndigits);
    return std::copysign(rounded, x);
}

} // namespace gapscope
