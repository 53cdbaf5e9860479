# Writes a man page from a program's own usage text, so the page says what the binary says:
#   cmake -DEXE=path -DNAME=polycodec -DSUMMARY="..." -DVERSION=0.1.0 -DOUT=file.1 -DDOCDIR=dir
#         [-DEXTRA="serve --help"] [-DEXTRA_TITLE="SERVE FLAGS"] -P man.cmake
# Each usage text goes into a no-fill block with roff's special characters escaped
# (backslashes, '-' as \- so options copy as ASCII, a leading '.' or "'").
foreach(var EXE NAME SUMMARY VERSION OUT DOCDIR)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "man.cmake: ${var} is not set")
    endif()
endforeach()

function(usage_of out_var)
    execute_process(COMMAND ${EXE} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR text STREQUAL "")
        message(FATAL_ERROR "man.cmake: `${EXE} ${ARGN}` failed (${rc}): ${err}")
    endif()
    string(REPLACE "\\" "\\e" text "${text}")
    string(REPLACE "-" "\\-" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

string(TOUPPER "${NAME}" title)
string(REPLACE "-" "\\-" name_roff "${NAME}")
usage_of(usage --help)
set(page ".TH ${title} 1 \"\" \"${NAME} ${VERSION}\" \"User Commands\"
.SH NAME
${name_roff} \\- ${SUMMARY}
.SH USAGE
.nf
${usage}.fi
")
if(DEFINED EXTRA AND NOT EXTRA STREQUAL "")
    separate_arguments(extra_args UNIX_COMMAND "${EXTRA}")
    usage_of(extra ${extra_args})
    string(APPEND page ".SH ${EXTRA_TITLE}
.nf
${extra}.fi
")
endif()
string(APPEND page ".SH SEE ALSO
${SEE_ALSO}
.PP
The documentation in ${DOCDIR} (README.md, SERVICE.md, formats/).
")
file(WRITE "${OUT}" "${page}")
