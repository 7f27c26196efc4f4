# run_exala_run.cmake - `exala run` / `exala blas-check` and the served-call
# report of libexala_blas.so (issue 17).
#
#   cmake -DEXALA=<exala> -DPROG=<blas_abi_lapack_program> -DLIB=<libexala_blas.so>
#         -DREFDIR=<reference LAPACK directory> -DDEFAULT_LAPACK=<liblapack.so.3 in the
#         default search path> -DWORK=<scratch directory> -P run_exala_run.cmake
#
# Passes when
#  * `exala blas-check -- PROG` prints one line "exala: blas-check: LD_PRELOAD=LIB,
#    EXALA_BLAS_VERBOSE=1; ..." and a report listing dgemm_ and dtrsm_ with
#    nonzero counts, in the documented format, and PROG's output is the bits of
#    PROG run by hand with LD_LIBRARY_PATH=REFDIR LD_PRELOAD=LIB;
#  * `exala run -- PROG` prints the same bits and no report; with --threads 2
#    (omp backend) too, and its report says so;
#  * with the default LAPACK being OpenBLAS's: the line says so and that REFDIR
#    comes first, and PROG's dgesv_ under a plain LD_PRELOAD serves no call
#    (report total 0 and the "no BLAS call reached" line);
#  * EXALA_BLAS_REPORT=FILE collects the reports of two processes;
#  * the program's exit status comes back; a missing program is an error (2).
# Skipped ("-- SKIPPED: ") when REFDIR has no liblapack.so.3.
foreach(v EXALA PROG LIB REFDIR WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_exala_run.cmake: -D${v}=... is missing")
  endif()
endforeach()
if(NOT EXISTS "${REFDIR}/liblapack.so.3")
  message("-- SKIPPED: no reference LAPACK in ${REFDIR} (Debian: apt-get install liblapack3)")
  return()
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(REAL_PATH "${LIB}" lib_real)

set(failures 0)
macro(fail msg)
  message(SEND_ERROR "${msg}")
  math(EXPR failures "${failures} + 1")
endmacro()

# Runs a command under `cmake -E env` with the reporting variables cleared.
function(run prefix)
  cmake_parse_arguments(R "" "" "ENV;COMMAND" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=EXALA_BLAS_VERBOSE
                          --unset=EXALA_BLAS_REPORT --unset=EXALA_BACKEND --unset=EXALA_NUM_THREADS
                          --unset=LD_PRELOAD --unset=EXALA_BLAS_LIBRARY ${R_ENV} ${R_COMMAND}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 120)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
endfunction()

# The expected bits: the reference LAPACK by hand, under the preload.
run(hand ENV LD_LIBRARY_PATH=${REFDIR} LD_PRELOAD=${LIB} COMMAND ${PROG})
if(NOT hand_rc EQUAL 0 OR NOT hand_err STREQUAL "")
  fail("by hand: rc ${hand_rc}, stderr:\n${hand_err}")
endif()
string(REGEX MATCHALL "\n" lines "${hand_out}")
list(LENGTH lines nlines)
if(NOT nlines EQUAL 1529)
  fail("by hand: ${nlines} output lines, expected 1529")
endif()

# The report's format (one process, simd backend).
set(number "[0-9]+")
set(real "[0-9]\\.[0-9][0-9][0-9][0-9][0-9][0-9]e[+-][0-9][0-9]")
set(report_head "libexala_blas: BLAS calls served by ExaLA \\(pid ${number}, backend BACKEND, threads THREADS\\)\n  routine +calls +flops\n")
set(report_row "  ROUTINE +[1-9][0-9]* +${real}\n")

function(check_report text backend threads what)
  string(REPLACE "BACKEND" "${backend}" head "${report_head}")
  string(REPLACE "THREADS" "${threads}" head "${head}")
  if(NOT text MATCHES "${head}(  [a-z_0-9]+ +[1-9][0-9]* +${real}\n)+  total +[1-9][0-9]* +${real}\n")
    message(SEND_ERROR "${what}: the report does not have the documented format:\n${text}")
    set(bad 1 PARENT_SCOPE)
  endif()
  foreach(r dgemm_ dtrsm_)
    string(REPLACE "ROUTINE" "${r}" row "${report_row}")
    if(NOT text MATCHES "${row}")
      message(SEND_ERROR "${what}: no nonzero count for ${r} in the report:\n${text}")
      set(bad 1 PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# The default LAPACK: OpenBLAS's? (Then exala must switch to REFDIR.)
set(default_is_openblas FALSE)
if(DEFINED DEFAULT_LAPACK AND EXISTS "${DEFAULT_LAPACK}")
  file(REAL_PATH "${DEFAULT_LAPACK}" default_real)
  if(default_real MATCHES "openblas")
    set(default_is_openblas TRUE)
  endif()
endif()

# --- blas-check
run(check COMMAND ${EXALA} blas-check -- ${PROG})
if(NOT check_rc EQUAL 0)
  fail("blas-check: rc ${check_rc}\n${check_err}")
endif()
if(NOT check_out STREQUAL hand_out)
  fail("blas-check: the program's output differs from the reference LAPACK's under the preload")
endif()
string(REGEX MATCH "^[^\n]*\n" first_line "${check_err}")
if(NOT first_line MATCHES "^exala: blas-check: LD_PRELOAD=${lib_real}, EXALA_BLAS_VERBOSE=1(, LD_LIBRARY_PATH=[^;\n]*)?; [^\n]+\n$")
  fail("blas-check: unexpected first line: ${first_line}")
endif()
if(default_is_openblas AND NOT first_line MATCHES
   "LD_LIBRARY_PATH=${REFDIR}[:;].* is OpenBLAS's LAPACK.*; the reference LAPACK in ${REFDIR} comes first")
  fail("blas-check: the line does not say that OpenBLAS's LAPACK was replaced: ${first_line}")
endif()
set(bad 0)
check_report("${check_err}" simd 0 "blas-check")
if(bad)
  math(EXPR failures "${failures} + 1")
endif()

# --- run: the same bits, one line, no report
run(plain_run COMMAND ${EXALA} run -- ${PROG})
if(NOT plain_run_rc EQUAL 0 OR NOT plain_run_out STREQUAL hand_out)
  fail("run: rc ${plain_run_rc} or output different from the reference LAPACK's under the preload")
endif()
if(NOT plain_run_err MATCHES "^exala: run: LD_PRELOAD=${lib_real}(, LD_LIBRARY_PATH=[^;\n]*)?; [^\n]+\n$")
  fail("run: stderr is not the one line:\n${plain_run_err}")
endif()

# --- run --report --threads 2: omp backend, the same bits (thread-count independent)
run(threads COMMAND ${EXALA} run --report --threads 2 -- ${PROG})
if(NOT threads_rc EQUAL 0 OR NOT threads_out STREQUAL hand_out)
  fail("run --threads 2: rc ${threads_rc} or output different from the 1-thread bits")
endif()
if(NOT threads_err MATCHES "^exala: run: LD_PRELOAD=${lib_real}, EXALA_BACKEND=omp, EXALA_NUM_THREADS=2, (OMP_WAIT_POLICY=passive, )?EXALA_BLAS_VERBOSE=1(, LD_LIBRARY_PATH=[^;\n]*)?; ")
  fail("run --threads 2: unexpected line:\n${threads_err}")
endif()
set(bad 0)
check_report("${threads_err}" omp 2 "run --report --threads 2")
if(bad)
  math(EXPR failures "${failures} + 1")
endif()

# --- OpenBLAS's own dgesv under a plain preload: nothing served
if(default_is_openblas)
  run(bypass ENV EXALA_BLAS_VERBOSE=1 LD_PRELOAD=${LIB} COMMAND ${PROG} gesv)
  if(NOT bypass_rc EQUAL 0 OR NOT bypass_err MATCHES
     "\n  total +0 +0\\.000000e\\+00\nlibexala_blas: no BLAS call reached this library: ")
    fail("OpenBLAS's dgesv under LD_PRELOAD: expected an empty report, got rc ${bypass_rc}:\n${bypass_err}")
  endif()
else()
  message(STATUS "the default liblapack.so.3 is not OpenBLAS's: the bypass case is not checked")
endif()

# --- EXALA_BLAS_REPORT=FILE: two processes, two reports
foreach(i 1 2)
  run(to_file ENV LD_LIBRARY_PATH=${REFDIR} LD_PRELOAD=${LIB} EXALA_BLAS_REPORT=${WORK}/report.txt
      COMMAND ${PROG})
  if(NOT to_file_rc EQUAL 0 OR NOT to_file_err STREQUAL "")
    fail("EXALA_BLAS_REPORT: rc ${to_file_rc}, stderr:\n${to_file_err}")
  endif()
endforeach()
file(READ ${WORK}/report.txt report_file)
string(REGEX MATCHALL "libexala_blas: BLAS calls served" heads "${report_file}")
list(LENGTH heads nheads)
if(NOT nheads EQUAL 2)
  fail("EXALA_BLAS_REPORT: ${nheads} reports in the file, expected 2:\n${report_file}")
endif()

# --- exit status and errors
run(status COMMAND ${EXALA} run -- sh -c "exit 3")
if(NOT status_rc EQUAL 3)
  fail("run: the program's exit status 3 came back as ${status_rc}")
endif()
run(missing COMMAND ${EXALA} run -- exala-no-such-program)
if(NOT missing_rc EQUAL 2 OR NOT missing_err STREQUAL
   "exala: error: run: program 'exala-no-such-program' not found\n")
  fail("run of a missing program: rc ${missing_rc}, stderr:\n${missing_err}")
endif()
run(none COMMAND ${EXALA} run)
if(NOT none_rc EQUAL 2 OR NOT none_err MATCHES "^exala: error: run needs a program")
  fail("run without a program: rc ${none_rc}, stderr:\n${none_err}")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) failed")
endif()
message(STATUS "exala run / blas-check: the preload served dgemm_ and dtrsm_, same bits")
