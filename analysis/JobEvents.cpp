#include "analysis/JobEvents.h"

#include <algorithm>

namespace gapscope {

void JobEvents::reserve(size_t rows)
{
    timestampNs.reserve(rows);
    used.reserve(rows);
    reserved.reserve(rows);
    total.reserve(rows);
    source.reserve(rows);
    flags.reserve(rows);
}

void JobEvents::append(int64_t timestamp, int64_t usedBytes, int64_t reservedBytes, int64_t totalBytes,
                       uint32_t sourceIndex, uint8_t eventFlags)
{
    timestampNs.push_back(timestamp);
    used.push_back(usedBytes);
    reserved.push_back(reservedBytes);
    total.push_back(totalBytes);
    source.push_back(sourceIndex);
    flags.push_back(eventFlags);
}

size_t JobEvents::rankCount() const
{
    std::vector<bool> referenced(sources.size(), false);
    for (const uint32_t s : source)
        referenced[s] = true;
    std::vector<int64_t> ranks;
    for (size_t s = 0; s < sources.size(); ++s)
        if (referenced[s])
            ranks.push_back(sources[s].rank);
    std::sort(ranks.begin(), ranks.end());
    return static_cast<size_t>(std::unique(ranks.begin(), ranks.end()) - ranks.begin());
}

namespace {

// The code points of UTF-8 text; a byte that starts no valid sequence is U+FFFD (which no
// test below matches).
std::u32string decodeUtf8(std::string_view text)
{
    std::u32string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        size_t length = lead < 0x80           ? 1
                        : (lead >> 5) == 0x6  ? 2
                        : (lead >> 4) == 0xE  ? 3
                        : (lead >> 3) == 0x1E ? 4
                                              : 0;
        char32_t cp = length == 1   ? lead
                      : length == 2 ? (lead & 0x1F)
                      : length == 3 ? (lead & 0x0F)
                                    : (lead & 0x07);
        bool valid = length != 0 && i + length <= text.size();
        for (size_t k = 1; valid && k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            valid = (next & 0xC0) == 0x80;
            cp = (cp << 6) | (next & 0x3F);
        }
        out.push_back(valid ? cp : U'\uFFFD');
        i += valid ? length : 1;
    }
    return out;
}

// str.isspace() of Python
bool isPythonSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

// Whether the code points spell "sample" once mapped: only ASCII letters map to its letters
// under lower() (no other character lowers to s, a, m, p, l or e); casefold() maps 'ſ' to 's'
// as well.
bool spellsSample(std::u32string_view text, bool longSIsS)
{
    constexpr std::string_view kSample = "sample";
    if (text.size() != kSample.size())
        return false;
    for (size_t i = 0; i < text.size(); ++i) {
        char32_t c = text[i];
        if (c >= U'A' && c <= U'Z')
            c += U'a' - U'A';
        if (longSIsS && c == U'\u017F')
            c = U's';
        if (c != char32_t(kSample[i]))
            return false;
    }
    return true;
}

} // namespace

bool isSampleByStripLower(std::string_view eventType)
{
    if (eventType == "sample")
        return true;
    const std::u32string text = decodeUtf8(eventType);
    size_t begin = 0, end = text.size();
    while (begin < end && isPythonSpace(text[begin]))
        ++begin;
    while (end > begin && isPythonSpace(text[end - 1]))
        --end;
    return spellsSample(std::u32string_view(text).substr(begin, end - begin), false);
}

bool isSampleByCasefold(std::string_view eventType)
{
    if (eventType == "sample")
        return true;
    return spellsSample(decodeUtf8(eventType), true);
}

} // namespace gapscope
