#pragma once
// Properties of a grabbed widget picture for the screenshot tests: WCAG luminance and
// contrast, how many pixels have a colour, how much is near white, the commonest colour.

#include <QColor>
#include <QHash>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gapscope::test {

// WCAG relative luminance (0 black .. 1 white) and the contrast ratio of two colours (1 .. 21).
inline double luminance(const QColor& color)
{
    auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) +
           0.0722 * channel(color.blueF());
}

inline double contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Pixels within a small RGB distance (sum of channel differences below tolerance) of color.
inline int pixelsNear(const QImage& image, const QColor& color, int tolerance = 24)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            const int distance = std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                                 std::abs(c.blue() - color.blue());
            n += distance < tolerance ? 1 : 0;
        }
    }
    return n;
}

// Share of the picture that is near white (a light widget left in a dark window).
inline double whiteShare(const QImage& image)
{
    qint64 white = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            white += luminance(image.pixelColor(x, y)) > 0.8 ? 1 : 0;
    }
    return double(white) / double(qint64(image.width()) * image.height());
}

// The colour most of the picture has (every other pixel of every other row).
inline QColor dominantColor(const QImage& image)
{
    QHash<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            ++counts[image.pixel(x, y)];
    }
    QRgb best = 0;
    int most = -1;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (it.value() > most) {
            most = it.value();
            best = it.key();
        }
    }
    return QColor(best);
}

} // namespace gapscope::test
