#pragma once
// The error of the binary readers and writers whose internal functions return false on an
// error and keep the error here (cbor, msgpack, bson): a bool return is much cheaper on the
// hot path than result<void> (callgrind, docs/BENCHMARKS.md). The reader or writer derives
// from kept_error and calls set_error; its entry point turns the bool into a result.
// Formats share code only through detail/ (docs/ARCHITECTURE.md).
#include <cstddef>
#include <string>
#include <utility>

#include "polycodec/error.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

class kept_error {
public:
    /// The result of a run that returned `ok`: the error kept when it failed.
    result<void> outcome(bool ok) const {
        if (!ok) {
            return fail(std::move(err_));
        }
        return {};
    }

protected:
    [[gnu::cold]] [[gnu::noinline]] bool set_error(error e) const {
        err_ = std::move(e);
        return false;
    }
    /// A reader's result: the error kept when it failed, else trailing_content when it read
    /// `pos` of `size` bytes: "<expected>, saw N more bytes".
    result<void> read_outcome(bool ok, std::size_t pos, std::size_t size,
                              const char* expected) const {
        if (!ok) {
            return fail(std::move(err_));
        }
        if (pos != size) {
            return fail(make_error(errc::trailing_content, pos,
                                   std::string(expected) + ", saw " + std::to_string(size - pos) +
                                       " more bytes"));
        }
        return {};
    }

    mutable error err_;
};

}  // namespace polycodec::detail
