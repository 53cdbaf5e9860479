#pragma once
// step: what a reader's internal parse functions return, "went on" or an error, in one pointer.
//
// result<void> (tl::expected<void, error>) holds the error, about 100 bytes, inline; GCC 12
// value-initialises that union and so zero-fills all of it on every `return {}` (a `rep stosq`
// per call that does not inline: 13% of sexpr decode's time under `perf record`). A step is
// a null pointer when it went on and owns a heap copy of the error otherwise, so success costs
// one register and only the error path allocates. It converts both ways with result<T> at the
// reader's edge: `return fail(...)` and POLYCODEC_TRY(a result<T>) work in a function returning
// step, and POLYCODEC_TRY(a step) works in one returning result<T> (detail/try.hpp).
#include <memory>
#include <utility>

#include "polycodec/result.hpp"

namespace polycodec::detail {

class [[nodiscard]] step {
public:
    step() noexcept = default;
    step(tl::unexpected<polycodec::error> e)  // NOLINT(google-explicit-constructor): `return fail(...)`
        : error_(std::make_unique<polycodec::error>(std::move(e).value())) {}
    /// The error of a result<void> that failed, or nothing when it went on.
    step(result<void> r) {  // NOLINT(google-explicit-constructor)
        if (!r) {
            error_ = std::make_unique<polycodec::error>(std::move(r).error());
        }
    }

    explicit operator bool() const noexcept { return !error_; }
    bool has_value() const noexcept { return !error_; }
    /// Only when it failed.
    polycodec::error error() && { return std::move(*error_); }
    const polycodec::error& error() const& { return *error_; }

    /// The reader's edge: a result<void> for callers outside the reader.
    result<void> to_result() && {
        if (error_) {
            return fail(std::move(*error_));
        }
        return {};
    }

private:
    std::unique_ptr<polycodec::error> error_;
};

}  // namespace polycodec::detail
