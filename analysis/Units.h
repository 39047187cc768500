#pragma once
// Human units for byte counts (IEC: KiB, MiB, GiB, ...), shared by reports, the GUI and
// the finding texts.

#include <string>

namespace gapscope {

// "512 B", "1.50 KiB", "3.25 GiB", "-2.00 MiB": whole bytes below 1 KiB, two decimals above.
// NaN and infinities print as "nan B" / "inf B".
std::string formatBytes(double bytes);

// formatBytes followed by "/s".
std::string formatBytesPerSecond(double bytesPerSecond);

} // namespace gapscope
