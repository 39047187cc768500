#include "model/trace/StormlogSchema.h"

#include <cstring>
#include <vector>

namespace gapscope::detail {

std::optional<Field> findField(std::string_view key)
{
    constexpr size_t kMaxLength = 32;
    struct Table
    {
        std::array<std::vector<Field>, kMaxLength + 1> byLength;
        Table()
        {
            for (size_t i = 0; i < kFieldCount; ++i)
                byLength[kFields[i].name.size()].push_back(static_cast<Field>(i));
        }
    };
    static const Table table;
    if (key.size() > kMaxLength)
        return std::nullopt;
    for (Field f : table.byLength[key.size()]) {
        const std::string_view name = nameOf(f);
        // the last byte tells most same-length names apart without a memcmp call
        if (!key.empty() && name.back() == key.back() &&
            std::memcmp(name.data(), key.data(), key.size()) == 0)
            return f;
    }
    return std::nullopt;
}

} // namespace gapscope::detail
