#pragma once
/// tl::expected until both compilers have std::expected (C++23); change only this alias.

#include <tl/expected.hpp>

#include "polycodec/error.hpp"

namespace polycodec {

template <class T>
using result = tl::expected<T, error>;

/// `return fail(make_error(...))` reads better than tl::make_unexpected at call sites.
inline tl::unexpected<error> fail(error e) { return tl::unexpected<error>(std::move(e)); }

}  // namespace polycodec
