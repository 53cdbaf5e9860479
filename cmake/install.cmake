# `cmake --install`: the codec library as a package (find_package(polycodec) and pkg-config),
# the binaries, their man pages and the docs; CPack turns the same rules into Debian packages.
#   component devel:   libpolycodec.a (or .so), include/polycodec, lib/cmake/polycodec,
#                      lib/pkgconfig/polycodec.pc                  -> libpolycodec-dev_*.deb
#   component runtime: bin/polycodec, bin/polycodec-loadtest, man1, share/doc/polycodec,
#                      share/polycodec/fixtures (the load test's default data),
#                      a shared libpolycodec.so.* when BUILD_SHARED_LIBS=ON -> polycodec_*.deb
include(CMakePackageConfigHelpers)

set(POLYCODEC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/polycodec)
get_target_property(_codec_type polycodec_codec TYPE)
if(_codec_type STREQUAL "SHARED_LIBRARY")
    set(POLYCODEC_SHARED ON)
else()
    set(POLYCODEC_SHARED OFF)
endif()

install(TARGETS polycodec_codec EXPORT polycodec-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
            NAMELINK_COMPONENT devel
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY codec/include/polycodec DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT devel FILES_MATCHING PATTERN "*.hpp")
install(EXPORT polycodec-targets NAMESPACE polycodec:: DESTINATION ${POLYCODEC_CMAKE_DIR}
    FILE polycodec-targets.cmake COMPONENT devel)
configure_package_config_file(cmake/polycodec-config.cmake.in
    ${PROJECT_BINARY_DIR}/polycodec-config.cmake INSTALL_DESTINATION ${POLYCODEC_CMAKE_DIR})
# 0.x: a minor release may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/polycodec-config-version.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/polycodec-config.cmake
              ${PROJECT_BINARY_DIR}/polycodec-config-version.cmake
        DESTINATION ${POLYCODEC_CMAKE_DIR} COMPONENT devel)

# pkg-config: a static consumer adds --static for Requires.private (simdjson, expat).
if(POLYCODEC_SHARED)
    set(POLYCODEC_PC_REQUIRES_PRIVATE "")
else()
    set(POLYCODEC_PC_REQUIRES_PRIVATE "simdjson expat zlib libzstd snappy")
endif()
file(RELATIVE_PATH POLYCODEC_PC_PREFIX_FROM_PCDIR
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" POLYCODEC_PC_PREFIX_FROM_PCDIR "${POLYCODEC_PC_PREFIX_FROM_PCDIR}")
configure_file(cmake/polycodec.pc.in ${PROJECT_BINARY_DIR}/polycodec.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/polycodec.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)

# The binaries and their man pages, written at build time from their own usage text.
set(_man_pages)
function(polycodec_man target summary see_also)
    set(page ${PROJECT_BINARY_DIR}/man/${target}.1)
    add_custom_command(OUTPUT ${page}
        # (a sanitizer build's leak check at exit has no say in a man page)
        COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
                ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${target}> -DNAME=${target}
                "-DSUMMARY=${summary}" -DVERSION=${PROJECT_VERSION} -DOUT=${page}
                "-DDOCDIR=${CMAKE_INSTALL_FULL_DOCDIR}" "-DSEE_ALSO=${see_also}" ${ARGN}
                -P ${PROJECT_SOURCE_DIR}/cmake/man.cmake
        DEPENDS ${target} ${PROJECT_SOURCE_DIR}/cmake/man.cmake
        COMMENT "Writing man page ${target}.1 from `${target} --help`" VERBATIM)
    add_custom_target(${target}-man ALL DEPENDS ${page})
    install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
    install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
endfunction()
if(TARGET polycodec)
    polycodec_man(polycodec "convert between serialization formats; the transcoding service"
        "polycodec\\-loadtest(1)" "-DEXTRA=serve --help" "-DEXTRA_TITLE=SERVE FLAGS")
endif()
if(TARGET polycodec-loadtest)
    polycodec_man(polycodec-loadtest "benchmark table and load generator for polycodec"
        "polycodec(1)")
endif()

# The data polycodec-loadtest reads by default (fixtures_dir() in loadtest/dataset.hpp).
install(DIRECTORY fixtures/ DESTINATION ${CMAKE_INSTALL_DATADIR}/polycodec/fixtures
        COMPONENT runtime)

install(FILES README.md docs/ARCHITECTURE.md docs/BENCHMARKS.md docs/RELIABILITY.md
              docs/SECURITY.md docs/SERVICE.md proto/PROTOCOL.md proto/POSTCARD-SCHEMA.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY docs/formats DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime
        FILES_MATCHING PATTERN "*.md")

# CPack: `cpack -G DEB` in a build directory (scripts/package) writes polycodec_*.deb
# (binaries, man pages, docs) and libpolycodec-dev_*.deb (library, headers, CMake package,
# pkg-config). Runtime Depends come from dpkg-shlibdeps (needs dpkg-dev and file).
set(CPACK_PACKAGE_NAME polycodec)
set(CPACK_PACKAGE_VENDOR "polycodec")
set(CPACK_PACKAGE_CONTACT "polycodec maintainers <polycodec@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)  # cpack -B DIR overrides
set(CPACK_COMPONENTS_ALL runtime devel)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME polycodec)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "serialization transcoding service and CLI (21 formats)\nThe polycodec binary (convert, formats, serve: HTTP and binary TCP) and\npolycodec-loadtest, with their man pages and the documentation.")
set(CPACK_DEBIAN_DEVEL_PACKAGE_NAME libpolycodec-dev)
set(CPACK_DEBIAN_DEVEL_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEVEL_DESCRIPTION
    "serialization codec library, C++20 (development files)\nThe polycodec::codec library, its headers, the CMake package\n(find_package(polycodec)) and the pkg-config file (polycodec.pc).")
# The public headers include tl/expected.hpp; a static library's consumer links the private
# libraries too (their -dev packages carry the CMake/pkg-config files find_dependency needs).
if(POLYCODEC_SHARED)
    set(CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS "libexpected-dev, polycodec (= ${PROJECT_VERSION})")
else()
    set(CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS
        "libexpected-dev, libsimdjson-dev, libexpat1-dev, pkg-config")
endif()
if(PROJECT_IS_TOP_LEVEL)
    include(CPack)
endif()
