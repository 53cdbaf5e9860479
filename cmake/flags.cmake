# Warning and sanitizer flags live on INTERFACE targets, never in the global CMAKE_CXX_FLAGS.
add_library(polycodec_warnings INTERFACE)
target_compile_options(polycodec_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wno-missing-field-initializers)
if(POLYCODEC_WERROR)
    target_compile_options(polycodec_warnings INTERFACE -Werror)
endif()

add_library(polycodec_flags INTERFACE)
if(POLYCODEC_NATIVE)
    target_compile_options(polycodec_flags INTERFACE -march=native)
endif()
if(POLYCODEC_SANITIZE)
    target_compile_options(polycodec_flags INTERFACE -fsanitize=${POLYCODEC_SANITIZE}
                           -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(polycodec_flags INTERFACE -fsanitize=${POLYCODEC_SANITIZE})
endif()
if(POLYCODEC_FUZZ)
    # Coverage instrumentation for libFuzzer in every library the targets link.
    target_compile_options(polycodec_flags INTERFACE -fsanitize=fuzzer-no-link)
endif()
