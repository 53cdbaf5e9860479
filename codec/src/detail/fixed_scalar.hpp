#pragma once
// The fixed-size scalars of the binary encoders' own tape walks (smile, ubjson, pickle):
// null, false and true as one byte each, an int64 and a float64 through the format's writers,
// written at the cursor and the walk's index moved past them. The format supplies the bytes
// and the writers as a hooks type; everything else stays in the format's walk.
#include <cstddef>
#include <cstdint>

#include "detail/tape_walk.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail {

/// Writes the element of kind k at tape index i when it is null, a boolean, an int64 or a
/// float64, moves i past it and returns true; otherwise writes nothing and returns false.
/// The hooks (Hooks):
///   static constexpr unsigned char null_byte, false_byte, true_byte: the one-byte literals;
///   static char* int64_at(char* o, std::int64_t v), float64_at(char* o, std::uint64_t bits):
///     the value written at o; return the new end.
template <class Hooks>
[[gnu::always_inline]] inline bool fixed_scalar_at(char*& o, kind k, const std::uint64_t* t,
                                                   std::size_t& i) {
    switch (k) {
        case kind::null:
            o = literal_at(o, Hooks::null_byte, i);
            return true;
        case kind::boolean_false:
            o = literal_at(o, Hooks::false_byte, i);
            return true;
        case kind::boolean_true:
            o = literal_at(o, Hooks::true_byte, i);
            return true;
        case kind::int64:
            o = Hooks::int64_at(o, static_cast<std::int64_t>(t[i + 1]));
            i += 2;
            return true;
        case kind::float64:
            o = Hooks::float64_at(o, t[i + 1]);
            i += 2;
            return true;
        default:
            return false;
    }
}

}  // namespace polycodec::detail
