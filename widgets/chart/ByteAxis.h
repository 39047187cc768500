#pragma once
// The ticks and the range of a byte axis (gap chart, budget breakdown, job heatmap legend).
// Ticks are 1-2-5 steps in ONE IEC unit per axis ("1.30 GiB, 1.35 GiB, 1.40 GiB", never
// 1/32 GiB steps or "512 MiB" among GiB labels), so neighbouring labels differ by the same
// readable amount. The unit follows the largest magnitude on the axis and drops to the next
// smaller unit while a label would need more than two decimals (a 100 KiB span near 1.3 GiB
// reads "1331.20 MiB, 1331.22 MiB", not "1.30002 GiB"). Pure: no widgets, tested on its own.

#include <QString>

#include <vector>

namespace gapscope {

// How a byte axis chooses its range from the visible data.
enum class ByteRangeMode
{
    FitData,  // the data's own extent (zero kept when the data nearly reaches it)
    FromZero, // always includes zero: sizes read against zero
};

struct ByteRange
{
    double min = 0;
    double max = 0;
    bool operator==(const ByteRange&) const = default;
};

// The axis range for data in [low, high] (bytes). A degenerate extent (high - low < 1 B) is
// padded so a flat line sits in the middle; no data (low > high) gives [0, 1 GiB].
ByteRange byteAxisRange(double low, double high, ByteRangeMode mode);

struct ByteAxis
{
    double min = 0; // the axis range, bytes
    double max = 0;
    double step = 1;   // bytes between two ticks: 1, 2 or 5 times a power of ten, in the unit
    int unitPower = 0; // the unit is 1024^unitPower bytes: 0 B, 1 KiB, 2 MiB, 3 GiB, ...
    int decimals = 0;  // of every label: enough that neighbouring ticks read differently

    // Ticks over [min, max] with at most maxTicks steps across the range (at least one).
    static ByteAxis forRange(double min, double max, int maxTicks);

    double unitBytes() const;
    QString unitName() const; // "B", "KiB", "MiB", ...
    // The multiples of step inside [min, max], ascending.
    std::vector<double> ticks() const;
    // A value in the axis unit with the axis decimals: "1.35 GiB", "0 GiB", "-512 MiB".
    QString label(double bytes) const;
};

// Ticks of a logarithmic byte axis over [min, max] (min > 0): powers of two, every
// stride-th power (stride 1, 2, 5, 10, 20, ...: the smallest giving at most maxTicks ticks),
// so the powers of 1024 are among them ("1 KiB, 32 KiB, 1 MiB, 32 MiB, 1 GiB"). Ascending.
std::vector<double> logByteTicks(double min, double max, int maxTicks);
// The exact label of a power of two bytes in its own unit: "512 MiB", "1 GiB", "32 B".
QString logByteTickLabel(double powerOfTwo);

} // namespace gapscope
