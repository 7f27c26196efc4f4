# run_plain_blas.cmake - the "unmodified program" test of libexala_blas.so.
#
#   cmake -DPLAIN=<plain_blas_program> -DLINKED=<..._linked> -DEXALA_ONLY=<..._exala_only>
#         -DEXPECTED=<plain_blas_expected> -DLIB=<libexala_blas.so>
#         [-DHANDLER=<lib with a program xerbla_>] [-DNM=<nm>] [-DREADELF=<readelf>]
#         -P run_plain_blas.cmake
#
# Passes when
#  * PLAIN (linked against the system BLAS only) under LD_PRELOAD=LIB prints
#    exactly EXPECTED's bits for EXALA_BACKEND=simd (default), reference, and
#    omp with EXALA_NUM_THREADS=1 and 2, with nothing on stderr;
#  * PLAIN without the preload differs from EXPECTED in at least one line
#    (so the preload did take effect and the inputs are adversarial);
#  * LINKED (-lexala_blas before the system BLAS) and EXALA_ONLY (no other
#    BLAS) print EXPECTED's bits without any preload;
#  * bad EXALA_BACKEND / EXALA_NUM_THREADS / EXALA_SIMD values give one
#    message each naming the variable and value, and still EXPECTED's bits;
#  * illegal arguments: XERBLA's and cblas_xerbla's reference messages, and
#    the calls return; a program XERBLA in a library after ours (HANDLER,
#    optional) is the one called (run_xerbla.cmake checks the handlers in
#    more settings);
#  * LIB exports exactly the BLAS/CBLAS/ExaLA symbols (no xerbla_ and no
#    cblas_xerbla: it defines no handler) and needs no BLAS/LAPACK.
foreach(v PLAIN LINKED EXALA_ONLY EXPECTED LIB)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_plain_blas.cmake: -D${v}=... is missing")
  endif()
endforeach()

set(failures 0)
macro(fail msg)
  message(SEND_ERROR "${msg}")
  math(EXPR failures "${failures} + 1")
endmacro()

# Runs a command with extra environment entries; sets <prefix>_out/_err/_rc.
function(run prefix)
  cmake_parse_arguments(R "" "" "ENV;COMMAND" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_WAIT_POLICY=passive ${R_ENV} ${R_COMMAND}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 120)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
endfunction()

# Number of lines in which two outputs differ (and the first few of them).
function(count_differences a b result)
  set(${result}_shown "" PARENT_SCOPE)
  if(a STREQUAL b)
    set(${result} 0 PARENT_SCOPE)
    return()
  endif()
  string(REPLACE "\n" ";" la "${a}")
  string(REPLACE "\n" ";" lb "${b}")
  list(LENGTH la na)
  list(LENGTH lb nb)
  if(NOT na EQUAL nb)
    set(${result} "all (line counts ${na} vs ${nb})" PARENT_SCOPE)
    return()
  endif()
  set(count 0)
  set(shown "")
  foreach(x y IN ZIP_LISTS la lb)
    if(NOT x STREQUAL y)
      math(EXPR count "${count} + 1")
      if(count LESS_EQUAL 5)
        string(APPEND shown "\n    got '${x}' expected '${y}'")
      endif()
    endif()
  endforeach()
  set(${result} ${count} PARENT_SCOPE)
  set(${result}_shown "${shown}" PARENT_SCOPE)
endfunction()

run(exp COMMAND ${EXPECTED})
if(NOT exp_rc EQUAL 0 OR exp_out STREQUAL "")
  message(FATAL_ERROR "plain_blas_expected failed (${exp_rc}): ${exp_err}")
endif()
string(REGEX MATCHALL "\n" nl "${exp_out}")
list(LENGTH nl expected_lines)
message(STATUS "expected bits: ${expected_lines} lines")

# 1. The plain program with the system BLAS: must differ somewhere.
run(plain COMMAND ${PLAIN})
if(NOT plain_rc EQUAL 0)
  fail("the plain program failed (${plain_rc}): ${plain_err}")
endif()
count_differences("${plain_out}" "${exp_out}" plain_diff)
if(plain_diff STREQUAL "0")
  fail("the system BLAS gave the correctly rounded bits on every line: the inputs are not "
       "adversarial enough to show that the preload takes effect")
else()
  message(STATUS "system BLAS: ${plain_diff} of ${expected_lines} lines differ from the exact bits")
endif()

# 2. Preloaded, every backend / thread setting: exactly the expected bits.
foreach(cfg "simd:" "reference:" "omp:1" "omp:2")
  string(REPLACE ":" ";" parts "${cfg}")
  list(GET parts 0 backend)
  list(LENGTH parts np)
  set(envs LD_PRELOAD=${LIB})
  if(NOT backend STREQUAL "simd")
    list(APPEND envs EXALA_BACKEND=${backend})
  endif()
  if(np GREATER 1)
    list(GET parts 1 threads)
    if(NOT threads STREQUAL "")
      list(APPEND envs EXALA_NUM_THREADS=${threads})
    endif()
  endif()
  run(pre ENV ${envs} COMMAND ${PLAIN})
  count_differences("${pre_out}" "${exp_out}" d)
  if(NOT pre_rc EQUAL 0 OR NOT d STREQUAL "0")
    fail("preloaded (${envs}): exit ${pre_rc}, ${d} lines differ from the exact bits${d_shown}")
  elseif(NOT pre_err STREQUAL "")
    fail("preloaded (${envs}): unexpected stderr: ${pre_err}")
  else()
    message(STATUS "preloaded (${envs}): all ${expected_lines} lines exact")
  endif()
endforeach()

# 3. Linked with -lexala_blas first, and with no other BLAS.
foreach(prog LINKED EXALA_ONLY)
  run(lk ENV EXALA_BACKEND=omp EXALA_NUM_THREADS=2 COMMAND ${${prog}})
  count_differences("${lk_out}" "${exp_out}" d)
  if(NOT lk_rc EQUAL 0 OR NOT d STREQUAL "0")
    fail("${prog} (${${prog}}): exit ${lk_rc}, ${d} lines differ${d_shown}\n${lk_err}")
  else()
    message(STATUS "${prog}: all lines exact")
  endif()
endforeach()

# 4. Bad environment values: one message each, then the defaults.
run(bad ENV LD_PRELOAD=${LIB} EXALA_BACKEND=bogus EXALA_NUM_THREADS=two EXALA_SIMD=avx9
    COMMAND ${PLAIN})
count_differences("${bad_out}" "${exp_out}" d)
if(NOT bad_rc EQUAL 0 OR NOT d STREQUAL "0")
  fail("bad environment values: exit ${bad_rc}, ${d} lines differ${d_shown}")
endif()
foreach(pattern "EXALA_BACKEND='bogus'" "EXALA_NUM_THREADS='two'" "EXALA_SIMD='avx9'")
  string(FIND "${bad_err}" "${pattern}" at)
  if(at EQUAL -1)
    fail("bad environment values: no message naming ${pattern} on stderr: '${bad_err}'")
  endif()
endforeach()
string(REGEX MATCHALL "libexala_blas:" msgs "${bad_err}")
list(LENGTH msgs nmsgs)
if(NOT nmsgs EQUAL 3)
  fail("bad environment values: expected 3 messages (read once), got ${nmsgs}: '${bad_err}'")
endif()

# 5. Illegal arguments: the default handlers print the reference messages and return.
run(bc COMMAND ${EXALA_ONLY} --bad-calls)
if(NOT bc_rc EQUAL 0 OR NOT bc_out STREQUAL "returned\n")
  fail("--bad-calls with libexala_blas only: exit ${bc_rc}, stdout '${bc_out}'")
endif()
foreach(pattern " ** On entry to DGEMV  parameter number  8 had an illegal value\n"
                "Parameter 3 to routine cblas_dgemv was incorrect\n")
  string(FIND "${bc_err}" "${pattern}" at)
  if(at EQUAL -1)
    fail("--bad-calls: stderr lacks '${pattern}': '${bc_err}'")
  endif()
endforeach()
# Preloaded over the system BLAS: the system BLAS's own handlers (OpenBLAS's
# xerbla_ prints to stdout, libopenblas's cblas_xerbla exits) are skipped and
# our messages go to stderr, with the cblas_ position.
run(bp ENV LD_PRELOAD=${LIB} COMMAND ${PLAIN} --bad-calls)
string(FIND "${bp_err}" "Parameter 3 to routine cblas_dgemv was incorrect" at)
if(NOT bp_rc EQUAL 0 OR NOT bp_out STREQUAL "returned\n" OR at EQUAL -1)
  fail("--bad-calls preloaded: exit ${bp_rc}, stdout '${bp_out}', stderr '${bp_err}'")
endif()
string(FIND "${bp_err}" "parameter number  8" at)
if(at EQUAL -1)
  fail("--bad-calls preloaded: no XERBLA message for DGEMV parameter 8: '${bp_err}'")
endif()

# A program handler in a library loaded after ours is found (the global
# scope) and called; the system BLAS's cblas_xerbla (libopenblas has one that
# exits) is skipped for our default message.
if(HANDLER)
  run(bh ENV "LD_PRELOAD=${LIB} ${HANDLER}" COMMAND ${PLAIN} --bad-calls)
  string(FIND "${bh_err}" "Parameter 3 to routine cblas_dgemv was incorrect" at)
  if(NOT bh_rc EQUAL 0 OR NOT bh_out STREQUAL "program handler: DGEMV  8\nreturned\n" OR at EQUAL -1)
    fail("--bad-calls with a program XERBLA preloaded after ours: exit ${bh_rc}, stdout "
         "'${bh_out}', stderr '${bh_err}'")
  endif()
endif()

# 6. The exported symbols, and no BLAS/LAPACK dependency.
if(NM)
  execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
  string(REGEX MATCHALL "[^ \n]+\n" names "${syms}")
  set(got "")
  foreach(line IN LISTS names)
    string(STRIP "${line}" name)
    list(APPEND got "${name}")
  endforeach()
  list(SORT got)
  set(want
    cblas_dasum cblas_daxpy cblas_dcopy cblas_ddot cblas_dgemm cblas_dgemv cblas_dger
    cblas_dnrm2 cblas_drot cblas_drotg cblas_drotm cblas_dscal cblas_dswap cblas_dsymm
    cblas_dsymv cblas_dsyr cblas_dsyr2 cblas_dsyr2k cblas_dsyrk
    cblas_dtrmm cblas_dtrmv cblas_dtrsm cblas_dtrsv cblas_idamax
    dasum_ daxpy_ dcopy_ ddot_ dgemm_ dgemv_ dger_ dnrm2_ drot_ drotg_ drotm_ dscal_ dswap_
    dsymm_ dsymv_ dsyr_ dsyr2_ dsyr2k_ dsyrk_ dtrmm_ dtrmv_ dtrsm_ dtrsv_
    exala_blas_abi_next exala_blas_abi_version idamax_)
  list(SORT want)
  if(NOT got STREQUAL want)
    fail("exported symbols differ:\n  got  ${got}\n  want ${want}")
  endif()
endif()
if(READELF)
  function(needed file out)
    execute_process(COMMAND ${READELF} -d ${file} OUTPUT_VARIABLE dyn)
    string(REGEX MATCHALL "NEEDED[^\n]*" lines "${dyn}")
    set(${out} "${lines}" PARENT_SCOPE)
  endfunction()
  needed(${LIB} lib_needed)
  if(lib_needed MATCHES "blas|lapack")
    fail("libexala_blas.so depends on a BLAS/LAPACK library: ${lib_needed}")
  endif()
  # The three builds of the program link what they claim to.
  needed(${PLAIN} plain_needed)
  needed(${LINKED} linked_needed)
  needed(${EXALA_ONLY} only_needed)
  if(plain_needed MATCHES "exala" OR NOT plain_needed MATCHES "blas")
    fail("the plain program must link the system BLAS and nothing of ExaLA: ${plain_needed}")
  endif()
  if(NOT linked_needed MATCHES "libexala_blas.*(openblas|libblas)")
    fail("the linked program must need libexala_blas before the system BLAS: ${linked_needed}")
  endif()
  string(REPLACE "libexala_blas" "" only_rest "${only_needed}")
  if(NOT only_needed MATCHES "libexala_blas" OR only_rest MATCHES "blas")
    fail("the exala-only program must need libexala_blas and no other BLAS: ${only_needed}")
  endif()
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) failed")
endif()
message(STATUS "libexala_blas.so drop-in checks passed")
