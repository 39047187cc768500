#include "widgets/chart/TimeAxis.h"

#include "analysis/Int64Math.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kNsPerMinute = 60 * kNsPerSecond;
constexpr int64_t kNsPerHour = 60 * kNsPerMinute;
constexpr int64_t kNsPerDay = 24 * kNsPerHour;

// 128-bit intermediates (analysis/Int64Math.h): a difference of two int64 timestamps always
// fits, and sums that leave the int64 range saturate (saturateToInt64) instead of wrapping.

WideInt roundToWide(double v)
{
    // WideInt holds twice any int64 span; beyond that the caller saturates anyway
    constexpr double limit = 3e19;
    return WideInt(std::nearbyint(std::clamp(v, -limit, limit)));
}

WideInt floorDiv(WideInt a, WideInt b)
{
    WideInt q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

// Decimals (0..9) of seconds needed so that multiples of stepNs print exactly.
int secondDecimals(int64_t stepNs)
{
    int decimals = 0;
    int64_t unit = kNsPerSecond;
    while (decimals < 9 && stepNs % unit != 0) {
        unit /= 10;
        ++decimals;
    }
    return decimals;
}

QString secondsText(int64_t ns, int decimals)
{
    const int64_t whole = ns / kNsPerSecond;
    QString text = QString::number(whole);
    if (decimals > 0) {
        int64_t fraction = ns % kNsPerSecond;
        for (int i = decimals; i < 9; ++i)
            fraction /= 10;
        text += QLatin1Char('.') + QString::number(fraction).rightJustified(decimals, QLatin1Char('0'));
    }
    return text;
}

} // namespace

double TimeAxis::nsPerPixel() const
{
    const double width = pixelWidth();
    return width > 0 ? double(spanNs()) / width : 0.0;
}

double TimeAxis::toPixel(int64_t ns) const
{
    if (ns == beginNs || endNs == beginNs)
        return pixelLeft;
    if (ns == endNs)
        return pixelRight;
    const double fraction = double(WideInt(ns) - beginNs) / double(WideInt(endNs) - beginNs);
    return pixelLeft + fraction * pixelWidth();
}

int64_t TimeAxis::toNs(double pixel) const
{
    if (pixel == pixelLeft || pixelWidth() == 0)
        return beginNs;
    if (pixel == pixelRight)
        return endNs;
    const double fraction = (pixel - pixelLeft) / pixelWidth();
    return saturateToInt64(WideInt(beginNs) + roundToWide(fraction * double(WideInt(endNs) - beginNs)));
}

int64_t TimeAxis::toNsClamped(double pixel) const
{
    return toNs(std::clamp(pixel, std::min(pixelLeft, pixelRight), std::max(pixelLeft, pixelRight)));
}

TimeAxis TimeAxis::zoomedAbout(int64_t anchorNs, double factor) const
{
    TimeAxis zoomed = *this;
    const WideInt span = WideInt(endNs) - beginNs;
    const WideInt newSpan = std::max<WideInt>(1, roundToWide(double(span) * factor));
    const double anchorFraction = span > 0 ? double(WideInt(anchorNs) - beginNs) / double(span) : 0.5;
    const WideInt newBegin = WideInt(anchorNs) - roundToWide(anchorFraction * double(newSpan));
    zoomed.beginNs = saturateToInt64(newBegin);
    zoomed.endNs = saturateToInt64(WideInt(zoomed.beginNs) + newSpan);
    return zoomed;
}

TimeAxis TimeAxis::pannedBy(int64_t deltaNs) const
{
    TimeAxis panned = *this;
    const WideInt span = WideInt(endNs) - beginNs;
    // keep the span when the move hits the int64 limits
    panned.beginNs = saturateToInt64(
        std::min(WideInt(beginNs) + deltaNs, WideInt(std::numeric_limits<int64_t>::max()) - span));
    panned.endNs = saturateToInt64(WideInt(panned.beginNs) + span);
    return panned;
}

TimeAxis TimeAxis::pannedByPixels(double deltaPixels) const
{
    return pannedBy(saturateToInt64(-roundToWide(deltaPixels * nsPerPixel())));
}

TimeAxis TimeAxis::clampedTo(int64_t dataBeginNs, int64_t dataEndNs, int64_t minSpanNs) const
{
    if (dataEndNs < dataBeginNs)
        std::swap(dataBeginNs, dataEndNs);
    minSpanNs = std::max<int64_t>(minSpanNs, 1);
    TimeAxis clamped = *this;
    const WideInt dataSpan = WideInt(dataEndNs) - dataBeginNs;
    const WideInt span = std::max<WideInt>(WideInt(endNs) - beginNs, minSpanNs);
    if (dataSpan < minSpanNs) {
        clamped.beginNs = saturateToInt64(WideInt(dataBeginNs) - (minSpanNs - dataSpan) / 2);
        clamped.endNs = saturateToInt64(WideInt(clamped.beginNs) + minSpanNs);
    } else if (span >= dataSpan) {
        clamped.beginNs = dataBeginNs;
        clamped.endNs = dataEndNs;
    } else {
        clamped.beginNs =
            saturateToInt64(std::clamp<WideInt>(beginNs, dataBeginNs, WideInt(dataEndNs) - span));
        clamped.endNs = saturateToInt64(WideInt(clamped.beginNs) + span);
    }
    return clamped;
}

int64_t niceTimeStepNs(int64_t spanNs, int maxTicks)
{
    maxTicks = std::max(maxTicks, 1);
    spanNs = std::max<int64_t>(spanNs, 1);
    auto fits = [&](int64_t step) { return spanNs / step + (spanNs % step != 0) <= maxTicks; };
    // below ten seconds: 1-2-5 decades
    for (int64_t decade = 1; decade <= kNsPerSecond; decade *= 10) {
        for (int64_t m : {1, 2, 5})
            if (fits(m * decade))
                return m * decade;
    }
    static constexpr int64_t clockSteps[] = {
        10 * kNsPerSecond, 15 * kNsPerSecond, 30 * kNsPerSecond, kNsPerMinute,      2 * kNsPerMinute,
        5 * kNsPerMinute,  10 * kNsPerMinute, 15 * kNsPerMinute, 30 * kNsPerMinute, kNsPerHour,
        2 * kNsPerHour,    3 * kNsPerHour,    6 * kNsPerHour,    12 * kNsPerHour,
    };
    for (int64_t step : clockSteps)
        if (fits(step))
            return step;
    for (int64_t days = 1; days <= 10'000; days *= 10) {
        for (int64_t m : {1, 2, 5})
            if (fits(m * days * kNsPerDay))
                return m * days * kNsPerDay;
    }
    return 100'000 * kNsPerDay; // ~274 years: int64 ns end at ~292
}

std::vector<int64_t> timeTicksNs(int64_t beginNs, int64_t endNs, int64_t originNs, int64_t stepNs)
{
    std::vector<int64_t> ticks;
    if (stepNs <= 0 || endNs < beginNs)
        return ticks;
    const WideInt step = stepNs;
    WideInt tick = WideInt(originNs) + floorDiv(WideInt(beginNs) - originNs + step - 1, step) * step;
    for (; tick <= endNs; tick += step)
        ticks.push_back(int64_t(tick));
    return ticks;
}

QString formatTimeTick(int64_t relativeNs, int64_t stepNs)
{
    const int decimals = secondDecimals(std::max<int64_t>(stepNs, 1));
    const bool negative = relativeNs < 0;
    // magnitude: INT64_MIN has no positive counterpart, saturate it by one ns
    const int64_t ns =
        negative ? (relativeNs == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max()
                                                                      : -relativeNs)
                 : relativeNs;
    QString text;
    if (ns < kNsPerMinute) {
        text = secondsText(ns, decimals) + QStringLiteral(" s");
    } else {
        const int64_t hours = ns / kNsPerHour;
        const int64_t minutes = ns % kNsPerHour / kNsPerMinute;
        const int64_t rest = ns % kNsPerMinute;
        QStringList parts;
        if (hours > 0)
            parts << QStringLiteral("%1 h").arg(hours);
        if (minutes > 0)
            parts << QStringLiteral("%1 min").arg(minutes);
        if (rest > 0)
            parts << secondsText(rest, decimals) + QStringLiteral(" s");
        text = parts.join(QLatin1Char(' '));
    }
    return negative && ns != 0 ? QStringLiteral("-") + text : text;
}

} // namespace gapscope
