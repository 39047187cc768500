#pragma once
// RFC 3339 date-times, as budget logs and other logs of the shared vocabulary write them.

#include <cstdint>
#include <optional>
#include <string_view>

namespace gapscope {

// RFC 3339 date-time ("2026-11-30T09:00:00.123456789+02:00") to ns since the Unix epoch;
// up to 9 fractional digits, Z or a +-hh:mm offset. nullopt when it is not one.
std::optional<int64_t> parseRfc3339Ns(std::string_view text);

} // namespace gapscope
