# Conventions of the test registrations (README "Tests").

# A test script named in a list must exist: a missing one (renamed, not committed) fails
# configuration instead of silently dropping its test.
function(polycodec_require_test_script path)
    if(NOT EXISTS ${path})
        message(FATAL_ERROR "test script ${path} is listed but does not exist")
    endif()
endfunction()

# Every test carries at least one of the suite's labels, so `ctest -L` selects it. Called at
# the end of each CMakeLists.txt that adds tests (tests are visible only in their directory;
# the gtest cases discovered at build time get theirs from gtest_discover_tests PROPERTIES).
set(POLYCODEC_TEST_LABELS unit conformance differential service deploy slow)
function(polycodec_check_test_labels)
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(t IN LISTS tests)
        get_test_property(${t} LABELS labels)
        set(known OFF)
        foreach(l IN LISTS labels)
            if(l IN_LIST POLYCODEC_TEST_LABELS)
                set(known ON)
            elseif(NOT l STREQUAL "NOTFOUND")
                message(FATAL_ERROR "test ${t}: label '${l}' is not one of ${POLYCODEC_TEST_LABELS}")
            endif()
        endforeach()
        if(NOT known)
            message(FATAL_ERROR "test ${t} has no label (one of ${POLYCODEC_TEST_LABELS})")
        endif()
    endforeach()
endfunction()
