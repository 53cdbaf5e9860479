#pragma once
// The name index of the key nesters: node ids in a power-of-two open-addressing table (0 is an
// empty slot), keyed by the hash of a name under its parent node. Used by detail/unflatten.hpp
// (dotenv, properties) and by ini.cpp's sections and keys.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace polycodec::detail::name_slots {

/// The hash of `name` under the node `parent`.
inline std::uint32_t name_hash(std::uint32_t parent, std::string_view name) {
    std::uint64_t h = 0xcbf29ce484222325ull ^ (parent * 0x9E3779B97F4A7C15ull);
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    }
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

/// The first id from `hash` on for which `same(id)` holds, or 0 when an empty slot comes first.
template <class Same>
std::uint32_t find(const std::vector<std::uint32_t>& slots, std::uint32_t hash, Same same) {
    std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
        std::uint32_t id = slots[i];
        if (id == 0 || same(id)) {
            return id;
        }
    }
}

/// Puts `id` in the first empty slot from `hash` on (the table has room).
inline void place(std::vector<std::uint32_t>& slots, std::uint32_t hash, std::uint32_t id) {
    std::size_t mask = slots.size() - 1;
    std::size_t i = hash & mask;
    while (slots[i] != 0) {
        i = (i + 1) & mask;
    }
    slots[i] = id;
}

/// Before placing the id `next` as the `used + 1`th: when that would fill more than half of
/// the table, doubles it and places ids 1 .. next-1 again (`hash_of(k)` is the hash of id k).
template <class HashOf>
void make_room(std::vector<std::uint32_t>& slots, std::size_t used, std::uint32_t next,
               HashOf hash_of) {
    if ((used + 1) * 2 > slots.size()) {
        slots.assign(slots.size() * 2, 0);
        for (std::uint32_t k = 1; k < next; ++k) {
            place(slots, hash_of(k), k);
        }
    }
}

}  // namespace polycodec::detail::name_slots
