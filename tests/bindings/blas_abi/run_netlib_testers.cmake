# run_netlib_testers.cmake - Netlib's own BLAS and CBLAS testers (Debian
# package libblas-test) with LD_PRELOAD=libexala_blas.so in front of the
# reference BLAS (Debian libblas3, selected with LD_LIBRARY_PATH so that the
# system's update-alternatives choice is not touched). Issue 15, row 14.
#
#   cmake -DLIB=<libexala_blas.so> -DTESTERS=<dir of xdcblat2 & co.> -DWORK=<scratch dir>
#         -P run_netlib_testers.cmake
#
# The testers check every routine's results against their own reference
# computation (test ratio < 16) and its error exits: each illegal argument
# must reach the handler (the testers' own xerbla_ / cblas_xerbla) with the
# reference's number. Netlib's CBLAS hands cblas_xerbla the number of the
# column-major call it makes, and for row-major calls the handler maps it back
# to the cblas_ position itself (from the global RowMajorStrg), so a library
# that passed the final position failed here ("XERBLA WAS CALLED WITH INFO = 4
# INSTEAD OF 3"). Passes when
#  * xdcblat1/2/3 and xblat1d/2d/3d exit 0 and report no failure;
#  * every routine libexala_blas.so provides passed its error exits and its
#    computational tests in both layouts;
#  * the ExaLA routines were really the ones called (the dynamic linker's
#    bindings, LD_DEBUG=bindings, name libexala_blas.so for them).
# Prints "SKIPPED: ..." (ctest SKIP_REGULAR_EXPRESSION) when libblas-test or
# the reference libblas.so.3 beside it is missing.
foreach(v LIB TESTERS WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_netlib_testers.cmake: -D${v}=... is missing")
  endif()
endforeach()

set(programs xdcblat1 xdcblat2 xdcblat3 xblat1d xblat2d xblat3d)
foreach(p IN LISTS programs)
  if(NOT EXISTS "${TESTERS}/${p}")
    message(STATUS "SKIPPED: ${TESTERS}/${p} not found: install Debian's libblas-test "
                   "(Netlib's BLAS and CBLAS testers) to run this test")
    return()
  endif()
endforeach()
if(NOT EXISTS "${TESTERS}/libblas.so.3")
  message(STATUS "SKIPPED: ${TESTERS}/libblas.so.3 (the reference BLAS of Debian's libblas3) "
                 "not found: install libblas3 to run this test")
  return()
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(failures 0)
# message(STATUS) prints the captured outputs verbatim (SEND_ERROR rewraps
# them); the arguments are concatenated.
macro(fail)
  string(CONCAT fail_text ${ARGV})
  message(STATUS "FAILED: ${fail_text}")
  math(EXPR failures "${failures} + 1")
endmacro()

# Runs tester `prog` (stdin from `input` if not empty) in WORK under the
# preload; sets out/err/rc. With DEBUG, the dynamic linker's symbol bindings
# go to ${WORK}/bindings.<pid>.
function(run_tester prog input)
  cmake_parse_arguments(R "DEBUG" "" "" ${ARGN})
  set(envs LD_LIBRARY_PATH=${TESTERS} LD_PRELOAD=${LIB} OMP_WAIT_POLICY=passive)
  if(R_DEBUG)
    list(APPEND envs LD_DEBUG=bindings LD_DEBUG_OUTPUT=${WORK}/bindings)
  endif()
  set(in)
  if(input)
    set(in INPUT_FILE ${input})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${envs} ${TESTERS}/${prog} ${in}
                  WORKING_DIRECTORY ${WORK} OUTPUT_VARIABLE o ERROR_VARIABLE e RESULT_VARIABLE r
                  TIMEOUT 300)
  set(out "${o}" PARENT_SCOPE)
  set(err "${e}" PARENT_SCOPE)
  set(rc "${r}" PARENT_SCOPE)
endfunction()

# Failure markers of the Netlib testers' reports.
set(bad_patterns "FAIL" "INSTEAD OF" "NOT DETECTED" "SUSPECT" "FATAL ERROR" "WRONG")
function(check_report name text)
  foreach(p IN LISTS bad_patterns)
    string(FIND "${text}" "${p}" at)
    if(NOT at EQUAL -1)
      string(REGEX MATCHALL "[^\n]*${p}[^\n]*" lines "${text}")
      list(JOIN lines "\n  " shown)
      message(STATUS "FAILED: ${name} reports '${p}':\n  ${shown}")
      set(check_failed 1 PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# ---- CBLAS level 1: ten routines, each "----- PASS -----".
run_tester(xdcblat1 "" DEBUG)
set(check_failed 0)
check_report(xdcblat1 "${out}")
string(REGEX MATCHALL "----- PASS -----" passes "${out}")
list(LENGTH passes npass)
if(NOT rc EQUAL 0 OR check_failed OR NOT npass EQUAL 10)
  fail("xdcblat1: exit ${rc}, ${npass} of 10 routines passed:\n${out}\n${err}")
else()
  message(STATUS "xdcblat1: 10 of 10 routines passed")
endif()

# The drop-in library was in effect: the calls of the CBLAS testers bound to it.
file(GLOB binding_logs "${WORK}/bindings.*")
set(bindings "")
foreach(f IN LISTS binding_logs)
  file(READ "${f}" t)
  string(APPEND bindings "${t}")
endforeach()
foreach(sym cblas_ddot cblas_dnrm2 cblas_idamax cblas_drotg)
  if(NOT bindings MATCHES "libexala_blas[^\n]*`${sym}'")
    fail("xdcblat1: ${sym} was not bound to libexala_blas.so (LD_PRELOAD had no effect?)")
  endif()
endforeach()

# ---- CBLAS levels 2 and 3 (summary on stdout).
foreach(level 2 3)
  if(level EQUAL 2)
    set(mine cblas_dgemv cblas_dger cblas_dsymv cblas_dtrmv cblas_dtrsv cblas_dsyr cblas_dsyr2)
    set(input "${TESTERS}/din2")
  else()
    set(mine cblas_dgemm cblas_dsymm cblas_dtrmm cblas_dtrsm cblas_dsyrk cblas_dsyr2k)
    set(input "${TESTERS}/din3")
  endif()
  run_tester(xdcblat${level} "${input}")
  set(check_failed 0)
  check_report(xdcblat${level} "${out}")
  if(NOT rc EQUAL 0 OR check_failed)
    fail("xdcblat${level}: exit ${rc}\n${out}\n${err}")
  endif()
  foreach(r IN LISTS mine)
    foreach(what "PASSED THE TESTS OF ERROR-EXITS" "PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS"
                 "PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS")
      if(NOT out MATCHES "${r} +${what}")
        fail("xdcblat${level}: no '${r} ${what}'")
      endif()
    endforeach()
  endforeach()
  if(failures EQUAL 0)
    message(STATUS "xdcblat${level}: error exits and both layouts passed for ${mine}")
  endif()
endforeach()

# ---- Fortran BLAS: level 1 on stdout, levels 2 and 3 in the summary files
# named by their input files (dblat2.out, dblat3.out in WORK).
run_tester(xblat1d "")
set(check_failed 0)
check_report(xblat1d "${out}")
string(REGEX MATCHALL "----- PASS -----" passes "${out}")
list(LENGTH passes npass)
if(NOT rc EQUAL 0 OR check_failed OR npass LESS 10)
  fail("xblat1d: exit ${rc}, ${npass} routines passed:\n${out}\n${err}")
else()
  message(STATUS "xblat1d: ${npass} routines passed")
endif()
foreach(level 2 3)
  if(level EQUAL 2)
    set(mine DGEMV DGER DSYMV DTRMV DTRSV DSYR DSYR2)
  else()
    set(mine DGEMM DSYMM DTRMM DTRSM DSYRK DSYR2K)
  endif()
  file(REMOVE "${WORK}/dblat${level}.out")
  run_tester(xblat${level}d "${TESTERS}/dblat${level}.in")
  set(summary "")
  if(EXISTS "${WORK}/dblat${level}.out")
    file(READ "${WORK}/dblat${level}.out" summary)
  endif()
  set(check_failed 0)
  check_report(xblat${level}d "${summary}")
  if(NOT rc EQUAL 0 OR check_failed OR summary STREQUAL "")
    fail("xblat${level}d: exit ${rc}\n${summary}\n${out}\n${err}")
  endif()
  foreach(r IN LISTS mine)
    foreach(what "PASSED THE TESTS OF ERROR-EXITS" "PASSED THE COMPUTATIONAL TESTS")
      if(NOT summary MATCHES " ${r} +${what}")
        fail("xblat${level}d: no '${r} ${what}'")
      endif()
    endforeach()
  endforeach()
  if(failures EQUAL 0)
    message(STATUS "xblat${level}d: error exits and computational tests passed for ${mine}")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) of Netlib's testers failed")
endif()
message(STATUS "Netlib's BLAS and CBLAS testers pass with libexala_blas.so preloaded")
