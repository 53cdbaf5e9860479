#pragma once
// google.protobuf.Timestamp and Duration as text, for the protobuf codec (its natural values)
// and protojson (their JSON forms): Timestamp as RFC 3339 UTC with 0, 3, 6 or 9 fraction
// digits, Duration as "-?S[.fff|.ffffff|.fffffffff]s".

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "detail/epoch_time.hpp"

namespace polycodec::protobuf {

/// ".123", ".123456" or ".123456789" (ProtoJSON's 0, 3, 6 or 9 digits); "" for 0. `nanos` is
/// 0 .. 999999999.
inline std::size_t format_fraction(std::int32_t nanos, char* out) noexcept {
    if (nanos == 0) {
        return 0;
    }
    int digits = nanos % 1000000 == 0 ? 3 : nanos % 1000 == 0 ? 6 : 9;
    std::int32_t v = digits == 3 ? nanos / 1000000 : digits == 6 ? nanos / 1000 : nanos;
    out[0] = '.';
    for (int k = digits; k >= 1; --k) {
        out[k] = static_cast<char>('0' + v % 10);
        v /= 10;
    }
    return static_cast<std::size_t>(digits) + 1;
}

/// A Timestamp's text into `out` (48 bytes); 0 outside 0000..9999 (detail::format_epoch).
inline std::size_t format_timestamp(std::int64_t seconds, std::int32_t nanos, char* out) noexcept {
    std::size_t n = detail::format_epoch(seconds, 0, out);
    if (n == 0) {
        return 0;
    }
    --n;  // drop the 'Z'
    n += format_fraction(nanos, out + n);
    out[n++] = 'Z';
    return n;
}

/// A Duration's text into `out` (48 bytes): seconds and nanos of one sign, |nanos| < 10^9.
inline std::size_t format_duration(std::int64_t seconds, std::int32_t nanos, char* out) noexcept {
    std::size_t n = 0;
    if (seconds < 0 || nanos < 0) {
        out[n++] = '-';
    }
    std::uint64_t s = seconds < 0 ? 0 - static_cast<std::uint64_t>(seconds) : static_cast<std::uint64_t>(seconds);
    n = static_cast<std::size_t>(std::to_chars(out + n, out + 24, s).ptr - out);
    n += format_fraction(nanos < 0 ? -nanos : nanos, out + n);
    out[n++] = 's';
    return n;
}

/// "-?S[.1-9 digits]s" with |S| <= 315,576,000,000 as seconds and nanos of one sign.
inline bool parse_duration(std::string_view t, std::int64_t& seconds, std::int32_t& nanos) noexcept {
    if (t.size() < 2 || t.back() != 's') {
        return false;
    }
    t.remove_suffix(1);
    bool neg = t[0] == '-';
    if (neg) {
        t.remove_prefix(1);
    }
    std::size_t dot = t.find('.');
    std::string_view whole = t.substr(0, dot);
    std::string_view frac = dot == std::string_view::npos ? std::string_view() : t.substr(dot + 1);
    if (whole.empty() || whole.size() > 12 || (dot != std::string_view::npos && (frac.empty() || frac.size() > 9))) {
        return false;
    }
    std::int64_t s = 0;
    for (char c : whole) {
        if (c < '0' || c > '9') return false;
        s = s * 10 + (c - '0');
    }
    std::int32_t n = 0;
    for (std::size_t i = 0; i < 9; ++i) {
        char c = i < frac.size() ? frac[i] : '0';
        if (c < '0' || c > '9') return false;
        n = n * 10 + (c - '0');
    }
    if (s > 315576000000) {
        return false;
    }
    seconds = neg ? -s : s;
    nanos = neg ? -n : n;
    return true;
}

}  // namespace polycodec::protobuf
