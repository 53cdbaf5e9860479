#pragma once
// The intrusive child lists of the scratch trees (first child, last child, next sibling):
// detail/unflatten.hpp, ini, urlform, toml, xml, pickle.

#include <cstdint>

namespace polycodec::detail {

/// Links item `id` after the last child of `parent`: `First` and `Last` are the parent's
/// members holding the list's ends (`none` when empty), `Next` the member of an element of
/// `items` holding its next sibling.
template <auto First, auto Last, auto Next, class Parent, class Items>
void append_child(Parent& parent, Items& items, std::uint32_t id, std::uint32_t none) {
    if (parent.*Last == none) {
        parent.*First = id;
    } else {
        items[parent.*Last].*Next = id;
    }
    parent.*Last = id;
}

}  // namespace polycodec::detail
