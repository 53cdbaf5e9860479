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

// POLYCODEC_TRY_ASSIGN(name, expr): evaluates `expr`, a result<T> with a value; on an error
// returns it from the enclosing function, else declares `T name` holding the value:
//     auto name_r = expr;
//     if (!name_r) { return fail(name_r.error()); }
//     T name = std::move(*name_r);
#define POLYCODEC_TRY_ASSIGN(name, ...)                                  \
    auto name##_polycodec_try_ = (__VA_ARGS__);                          \
    if (!name##_polycodec_try_) {                                        \
        return ::polycodec::fail(std::move(name##_polycodec_try_).error()); \
    }                                                                    \
    auto name = std::move(*name##_polycodec_try_)
