#include "widgets/chart/ByteAxis.h"

#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

constexpr int kMaxUnitPower = 6; // EiB: int64 byte counts end below 8 EiB
constexpr int kMaxDecimals = 2;
const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

// The smallest 1, 2 or 5 times a power of ten that is >= x (x > 0).
double nice125AtLeast(double x)
{
    const double decade = std::pow(10.0, std::floor(std::log10(x)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        // a hair of tolerance: 0.2 / 0.1 is 2.0000000000000004
        if (m * decade >= x * (1 - 1e-12))
            return m * decade;
    }
    return 10 * decade;
}

// Decimals a 1-2-5 step in the unit needs: 0.05 -> 2, 0.5 -> 1, 5 -> 0.
int decimalsOf(double unitStep)
{
    return std::max(0, int(-std::floor(std::log10(unitStep) + 1e-9)));
}

} // namespace

ByteRange byteAxisRange(double low, double high, ByteRangeMode mode)
{
    if (!(low <= high) || !std::isfinite(low) || !std::isfinite(high))
        return {0, 1024.0 * 1024 * 1024};
    if (mode == ByteRangeMode::FromZero) {
        low = std::min(low, 0.0);
        high = std::max(high, 0.0);
    } else {
        // keep zero in view when the data nearly reaches it: the size reads against it
        if (low > 0 && low < (high - low) * 0.35)
            low = 0;
        if (high < 0 && -high < (high - low) * 0.35)
            high = 0;
    }
    if (high - low < 1) {
        const double pad = std::max(std::abs(high) * 0.05, 1024.0);
        // a flat line at zero stays on the zero line in FromZero mode
        if (mode == ByteRangeMode::FromZero && low >= 0)
            return {0, high + 2 * pad};
        if (mode == ByteRangeMode::FromZero && high <= 0)
            return {low - 2 * pad, 0};
        low -= pad;
        high += pad;
    }
    return {low, high};
}

ByteAxis ByteAxis::forRange(double min, double max, int maxTicks)
{
    ByteAxis axis;
    if (!std::isfinite(min) || !std::isfinite(max))
        min = max = 0;
    if (max < min)
        std::swap(min, max);
    axis.min = min;
    axis.max = max;
    maxTicks = std::max(maxTicks, 1);
    const double magnitude = std::max(std::abs(min), std::abs(max));
    int power = 0;
    while (power < kMaxUnitPower && magnitude >= std::pow(1024.0, power + 1))
        ++power;
    const double span = max - min;
    for (;; --power) {
        const double unit = std::pow(1024.0, power);
        double unitStep = span > 0 ? nice125AtLeast(span / unit / maxTicks) : 1.0;
        if (power == 0)
            unitStep = std::max(unitStep, 1.0); // no fractions of a byte
        const int decimals = decimalsOf(unitStep);
        if (decimals <= kMaxDecimals || power == 0) {
            axis.unitPower = power;
            axis.step = unitStep * unit;
            axis.decimals = decimals;
            break;
        }
    }
    return axis;
}

double ByteAxis::unitBytes() const
{
    return std::pow(1024.0, unitPower);
}

QString ByteAxis::unitName() const
{
    return QLatin1String(kUnits[std::clamp(unitPower, 0, kMaxUnitPower)]);
}

std::vector<double> ByteAxis::ticks() const
{
    std::vector<double> out;
    if (!(step > 0) || !(max >= min))
        return out;
    // counted in steps, not accumulated: no drift over many ticks
    const double tolerance = 1e-9;
    const double first = std::ceil(min / step - tolerance);
    const double last = std::floor(max / step + tolerance);
    for (double k = first; k <= last && out.size() < 10'000; k += 1)
        out.push_back(k * step);
    return out;
}

QString ByteAxis::label(double bytes) const
{
    QString number = QString::number(bytes / unitBytes(), 'f', decimals);
    // "-0.00" of a tick a rounding error below zero
    bool onlyZeros = true;
    for (QChar c : number)
        if (c != QLatin1Char('-') && c != QLatin1Char('0') && c != QLatin1Char('.'))
            onlyZeros = false;
    if (onlyZeros)
        number = QStringLiteral("0");
    return number + QLatin1Char(' ') + unitName();
}

std::vector<double> logByteTicks(double min, double max, int maxTicks)
{
    std::vector<double> out;
    if (!(min > 0) || !(max >= min) || !std::isfinite(max))
        return out;
    maxTicks = std::max(maxTicks, 1);
    // exponents of 2 inside the range, with a hair of tolerance at the ends
    const int first = std::max(0, int(std::ceil(std::log2(min) - 1e-9))); // no fractions of a byte
    const int last = std::min(int(std::floor(std::log2(max) + 1e-9)), 62);
    for (int stride : {1, 2, 5, 10, 20, 30, 40, 50, 60}) {
        out.clear();
        for (int e = first; e <= last; ++e)
            if (e % stride == 0)
                out.push_back(std::ldexp(1.0, e));
        if (qsizetype(out.size()) <= maxTicks)
            break;
    }
    return out;
}

QString logByteTickLabel(double powerOfTwo)
{
    const int exponent = int(std::lround(std::log2(std::max(powerOfTwo, 1.0))));
    const int unit = std::min(exponent / 10, kMaxUnitPower);
    return QString::number(std::ldexp(1.0, exponent - 10 * unit), 'f', 0) + QLatin1Char(' ') +
           QLatin1String(kUnits[unit]);
}

} // namespace gapscope
