#pragma once
// POLYCODEC_TRY(expr): evaluates `expr`, a result<T>, and when it holds an error returns that
// error from the enclosing function (whose return type is any result<U>). The one-line form of
//     if (auto r = expr; !r) {
//         return r;
//     }

#include <utility>

#include "polycodec/result.hpp"

#define POLYCODEC_TRY(...)                                                        \
    do {                                                                          \
        if (auto polycodec_try_result_ = (__VA_ARGS__); !polycodec_try_result_) { \
            return ::polycodec::fail(std::move(polycodec_try_result_).error());   \
        }                                                                         \
    } while (false)
