#pragma once
// RFC 3339 date-time text <-> seconds and nanoseconds since 1970-01-01T00:00:00Z, for the
// binary formats whose timestamps are instants (MessagePack ext -1, CBOR tags 0 and 1).
// Proleptic Gregorian calendar, years 0000-9999 (the range RFC 3339 text can hold).

#include <cstdint>
#include <string_view>

namespace polycodec::detail {

/// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct civil_date {
    std::int64_t year;
    unsigned month;
    unsigned day;
};

/// The civil date of a day count since 1970-01-01 (H. Hinnant's civil_from_days).
constexpr civil_date civil_from_days(std::int64_t z) noexcept {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return {y + (m <= 2), m, d};
}

constexpr unsigned days_in_month(std::int64_t y, unsigned m) noexcept {
    constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

/// Seconds of 0000-01-01T00:00:00Z and of 9999-12-31T23:59:59Z since the epoch.
inline constexpr std::int64_t epoch_min_seconds = -62167219200;
inline constexpr std::int64_t epoch_max_seconds = 253402300799;

/// Writes the canonical RFC 3339 text of an instant: "YYYY-MM-DDTHH:MM:SS[.f]Z", the fraction
/// with its trailing zeros removed (".5", ".000000001"). `out` needs 30 chars. Returns the
/// length, or 0 when the year is outside 0000-9999 or nanos is not below 10^9.
inline std::size_t format_epoch(std::int64_t seconds, std::uint32_t nanos, char* out) noexcept {
    if (seconds < epoch_min_seconds || seconds > epoch_max_seconds || nanos >= 1000000000u) {
        return 0;
    }
    std::int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
    std::int64_t secs = seconds - days * 86400;
    civil_date c = civil_from_days(days);
    auto two = [](char* p, unsigned v) {
        p[0] = static_cast<char>('0' + v / 10);
        p[1] = static_cast<char>('0' + v % 10);
    };
    unsigned y = static_cast<unsigned>(c.year);
    out[0] = static_cast<char>('0' + y / 1000);
    out[1] = static_cast<char>('0' + y / 100 % 10);
    out[2] = static_cast<char>('0' + y / 10 % 10);
    out[3] = static_cast<char>('0' + y % 10);
    out[4] = '-';
    two(out + 5, c.month);
    out[7] = '-';
    two(out + 8, c.day);
    out[10] = 'T';
    two(out + 11, static_cast<unsigned>(secs / 3600));
    out[13] = ':';
    two(out + 14, static_cast<unsigned>(secs / 60 % 60));
    out[16] = ':';
    two(out + 17, static_cast<unsigned>(secs % 60));
    std::size_t n = 19;
    if (nanos != 0) {
        out[n++] = '.';
        std::uint32_t div = 100000000;
        std::uint32_t rest = nanos;
        while (rest != 0) {
            out[n++] = static_cast<char>('0' + rest / div);
            rest %= div;
            div /= 10;
        }
    }
    out[n++] = 'Z';
    return n;
}

/// An RFC 3339 date-time parsed to an instant.
struct epoch_instant {
    std::int64_t seconds = 0;   ///< since 1970-01-01T00:00:00Z
    std::uint32_t nanos = 0;    ///< 0 .. 999999999
    bool exact = true;          ///< false when the fraction has non-zero digits past 10^-9
    bool leap_second = false;   ///< the seconds field was 60
};

/// Parses "YYYY-MM-DD(T|t| )HH:MM:SS[.frac](Z|z|+HH:MM|-HH:MM)" (RFC 3339 section 5.6,
/// ranges checked). False when `s` is not such a text.
inline bool parse_rfc3339(std::string_view s, epoch_instant& r) noexcept {
    auto digits = [&](std::size_t at, std::size_t n, unsigned& v) {
        if (at + n > s.size()) {
            return false;
        }
        v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (s[i] < '0' || s[i] > '9') {
                return false;
            }
            v = v * 10 + static_cast<unsigned>(s[i] - '0');
        }
        return true;
    };
    unsigned y, mo, d, h, mi, se;
    if (!digits(0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(5, 2, mo) || s[7] != '-' ||
        !digits(8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        !digits(11, 2, h) || s[13] != ':' || !digits(14, 2, mi) || s[16] != ':' ||
        !digits(17, 2, se)) {
        return false;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60) {
        return false;
    }
    std::size_t p = 19;
    std::uint32_t nanos = 0;
    bool exact = true;
    if (p < s.size() && s[p] == '.') {
        ++p;
        std::size_t start = p;
        std::uint32_t scale = 100000000;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
            if (scale != 0) {
                nanos += static_cast<std::uint32_t>(s[p] - '0') * scale;
                scale /= 10;
            } else if (s[p] != '0') {
                exact = false;
            }
            ++p;
        }
        if (p == start) {
            return false;
        }
    }
    std::int64_t offset = 0;
    if (p < s.size() && (s[p] == 'Z' || s[p] == 'z')) {
        ++p;
    } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
        unsigned oh, om;
        if (!digits(p + 1, 2, oh) || p + 3 >= s.size() || s[p + 3] != ':' ||
            !digits(p + 4, 2, om) || oh > 23 || om > 59) {
            return false;
        }
        offset = (s[p] == '-' ? -1 : 1) * static_cast<std::int64_t>(oh * 3600 + om * 60);
        p += 6;
    } else {
        return false;
    }
    if (p != s.size()) {
        return false;
    }
    r.seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
    r.nanos = nanos;
    r.exact = exact;
    r.leap_second = se == 60;
    return true;
}

}  // namespace polycodec::detail
