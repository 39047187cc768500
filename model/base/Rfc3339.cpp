#include "model/base/Rfc3339.h"

#include "analysis/Int64Math.h"

#include <array>

namespace gapscope {

namespace {

constexpr bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

} // namespace

std::optional<int64_t> parseRfc3339Ns(std::string_view s)
{
    const auto digits = [&](size_t pos, size_t count, int& value) {
        if (pos + count > s.size())
            return false;
        value = 0;
        for (size_t i = pos; i < pos + count; ++i) {
            if (!isDigit(s[i]))
                return false;
            value = value * 10 + (s[i] - '0');
        }
        return true;
    };
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(5, 2, month) || s[7] != '-' ||
        !digits(8, 2, day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(11, 2, hour) ||
        s[13] != ':' || !digits(14, 2, minute) || s[16] != ':' || !digits(17, 2, second))
        return std::nullopt;
    static constexpr std::array<int, 12> kDaysInMonth{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month < 1 || month > 12 || day < 1 ||
        day > kDaysInMonth[static_cast<size_t>(month - 1)] + (month == 2 && leap ? 1 : 0) || hour > 23 ||
        minute > 59 || second > 60)
        return std::nullopt;
    size_t pos = 19;
    int64_t fraction = 0;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        size_t count = 0;
        while (pos < s.size() && isDigit(s[pos])) {
            if (++count > 9)
                return std::nullopt;
            fraction = fraction * 10 + (s[pos] - '0');
            ++pos;
        }
        if (count == 0)
            return std::nullopt;
        for (size_t i = count; i < 9; ++i)
            fraction *= 10;
    }
    int64_t offsetSeconds = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int offsetHours = 0, offsetMinutes = 0;
        if (!digits(pos + 1, 2, offsetHours) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
            !digits(pos + 4, 2, offsetMinutes) || offsetHours > 23 || offsetMinutes > 59)
            return std::nullopt;
        offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (s[pos] == '-' ? -1 : 1);
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != s.size())
        return std::nullopt;
    // days from civil (proleptic Gregorian), Howard Hinnant's algorithm
    const int y = year - (month <= 2 ? 1 : 0);
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int mp = (month + 9) % 12;
    const int doy = (153 * mp + 2) / 5 + day - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const int64_t days = static_cast<int64_t>(era) * 146097 + doe - 719468;
    // Years up to 9999 keep the seconds far inside int64; their nanoseconds reach only from
    // 1677 to 2262: beyond, nullopt.
    const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
    const std::optional<int64_t> ns = checkedMul(seconds, 1'000'000'000);
    return ns ? checkedAdd(*ns, fraction) : std::nullopt;
}

} // namespace gapscope
