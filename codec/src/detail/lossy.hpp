#pragma once
// The one way encoders handle a value their format cannot hold (DESIGN section 3): fail with
// errc::unrepresentable and the value's path, or, under lossy=allow, record the fallback.

#include <string>
#include <string_view>

#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// The error for value `v` that `what` describes, e.g. "NaN is not representable in json".
inline error unrepresentable(value v, std::string what) {
    error e;
    e.code = errc::unrepresentable;
    e.path = v.doc()->pointer_to(v.index());
    e.has_path = true;
    e.message = std::move(what);
    return e;
}

/// Under lossy=allow records the fallback `kind` ("nan_to_null") and returns true; otherwise
/// returns false and the encoder fails with unrepresentable(v, what). `kind` must be a string
/// literal: it becomes a metric label.
inline bool allow_lossy(const encode_options& opt, value v, std::string_view kind,
                        std::string_view what) {
    if (!opt.lossy) {
        return false;
    }
    if (opt.report != nullptr) {
        opt.report->push_back({v.doc()->pointer_to(v.index()), kind, std::string(what)});
    }
    return true;
}

}  // namespace polycodec::detail
