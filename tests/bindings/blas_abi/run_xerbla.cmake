# run_xerbla.cmake - which error handler runs under LD_PRELOAD=libexala_blas.so
# (issue 15, rows 7 and 13).
#
#   cmake -DLIB=<libexala_blas.so> -DLBLAS=<blas_abi_xerbla_lblas> -DOWN=<blas_abi_xerbla_own>
#         -DOWN_ONLY=<blas_abi_xerbla_own_only> -DHOST=<blas_abi_xerbla_module_host>
#         -DMODULE=<blas_abi_xerbla_module.so> -DLIBDIR=<dir of the system libblas.so>
#         [-DNM=<nm>] [-DLLAPACK=<blas_abi_xerbla_llapack>]
#         -P run_xerbla.cmake
#
# Each program is run with every system BLAS found as LIBDIR/*/libblas.so.3
# (Debian keeps the alternatives there: blas/ the reference, openblas-*/
# OpenBLAS's libblas.so.3 wrapper, ...) selected with LD_LIBRARY_PATH, and
# with the default one. Passes when
#  * LBLAS (linked with -lblas, no handler) prints the reference messages with
#    the cblas_ positions on stderr, returns from every call and exits 0 (the
#    system BLAS's own handlers are skipped: libopenblas's cblas_xerbla
#    exits, reference XERBLA stops);
#  * OWN's handlers (in the executable) receive every report: XERBLA's INFO,
#    and cblas_xerbla Netlib's number with RowMajorStrg = 1 for a row-major
#    call where the reference CBLAS (the only one with RowMajorStrg) is loaded;
#    also from dsyr2_, a routine of the system BLAS only;
#  * OWN_ONLY (linked with libexala_blas.so alone) still reaches its handlers;
#  * LLAPACK (linked with -llapack -lblas, no handler; run with every system
#    LAPACK found as LIBDIR/*/liblapack.so.3 too) prints and returns: the
#    LAPACK library's own xerbla_, first in the global scope, is skipped
#    (the reference one STOPs the program);
#  * HOST's module, loaded with dlopen(RTLD_LOCAL), gets the reports of its
#    own calls in its own handlers, both from ExaLA's routines and from the
#    system BLAS's.
foreach(v LIB LBLAS OWN OWN_ONLY HOST MODULE LIBDIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_xerbla.cmake: -D${v}=... is missing")
  endif()
endforeach()
if(NOT NM)
  set(NM nm)
endif()

set(failures 0)
# message(STATUS) prints the captured outputs verbatim (SEND_ERROR rewraps
# them); the arguments are concatenated.
macro(fail)
  string(CONCAT fail_text ${ARGV})
  message(STATUS "FAILED: ${fail_text}")
  math(EXPR failures "${failures} + 1")
endmacro()

function(run prefix)
  cmake_parse_arguments(R "" "" "ENV;COMMAND" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_WAIT_POLICY=passive ${R_ENV} ${R_COMMAND}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
endfunction()

# The system BLAS implementations: "" (the default libblas.so.3) and every
# alternative directory.
file(GLOB alternatives LIST_DIRECTORIES false "${LIBDIR}/*/libblas.so.3")
set(dirs "default")
foreach(f IN LISTS alternatives)
  get_filename_component(d "${f}" DIRECTORY)
  list(APPEND dirs "${d}")
endforeach()

set(lblas_err_expected
" ** On entry to DGEMV  parameter number  8 had an illegal value
Parameter 3 to routine cblas_dgemv was incorrect
Parameter 3 to routine cblas_dgemv was incorrect
Parameter 9 to routine cblas_dgemm was incorrect
Parameter 6 to routine cblas_dtrsm was incorrect
")

foreach(d IN LISTS dirs)
  set(envs LD_PRELOAD=${LIB})
  if(NOT d STREQUAL "default")
    list(APPEND envs LD_LIBRARY_PATH=${d})
  endif()
  # The reference CBLAS defines RowMajorStrg; OpenBLAS does not.
  if(d STREQUAL "default")
    get_filename_component(blas_file "${LIBDIR}/libblas.so.3" REALPATH)
  else()
    set(blas_file "${d}/libblas.so.3")
  endif()
  set(flag "-")
  set(colflag "-")
  execute_process(COMMAND ${NM} -D --defined-only "${blas_file}" OUTPUT_VARIABLE syms
                  RESULT_VARIABLE nm_rc)
  if(nm_rc EQUAL 0 AND syms MATCHES " RowMajorStrg\n")
    set(flag 1)
    set(colflag 0)
  endif()

  # Row 7: no handler of the program's own; print and return.
  run(lb ENV ${envs} COMMAND ${LBLAS})
  if(NOT lb_rc EQUAL 0 OR NOT lb_out STREQUAL "returned\n" OR NOT lb_err STREQUAL lblas_err_expected)
    fail("blas_abi_xerbla_lblas with libblas.so.3 from ${d}: exit ${lb_rc}, stdout '${lb_out}', "
         "stderr:\n${lb_err}\nexpected exit 0, stdout 'returned', stderr:\n${lblas_err_expected}")
  else()
    message(STATUS "-lblas program, libblas.so.3 from ${d}: messages printed, every call returned")
  endif()

  # The program's own handlers, in the executable.
  run(own ENV ${envs} COMMAND ${OWN})
  set(own_expected
"xerbla_ DGEMV  8
cblas_xerbla 3 cblas_dgemv RowMajorStrg=${colflag}
cblas_xerbla 4 cblas_dgemv RowMajorStrg=${flag}
cblas_xerbla 11 cblas_dgemm RowMajorStrg=${flag}
cblas_xerbla 7 cblas_dtrsm RowMajorStrg=${flag}
xerbla_ DSYR2  2
returned
")
  if(NOT own_rc EQUAL 0 OR NOT own_out STREQUAL own_expected OR NOT own_err STREQUAL "")
    fail("blas_abi_xerbla_own with libblas.so.3 from ${d}: exit ${own_rc}, stdout:\n${own_out}"
         "stderr:\n${own_err}\nexpected stdout:\n${own_expected}")
  else()
    message(STATUS "program handlers, libblas.so.3 from ${d}: every report reached them")
  endif()

  # A module loaded with RTLD_LOCAL keeps its own handlers.
  run(mod ENV ${envs} COMMAND ${HOST} ${MODULE})
  set(mod_expected
"module xerbla_ DGEMM  3
module xerbla_ DSYR2  2
module cblas_xerbla 3 cblas_dgemv
returned
")
  if(NOT mod_rc EQUAL 0 OR NOT mod_out STREQUAL mod_expected OR NOT mod_err STREQUAL "")
    fail("blas_abi_xerbla_module_host with libblas.so.3 from ${d}: exit ${mod_rc}, stdout:\n"
         "${mod_out}stderr:\n${mod_err}\nexpected stdout:\n${mod_expected}")
  else()
    message(STATUS "RTLD_LOCAL module, libblas.so.3 from ${d}: its handlers got every report")
  endif()
endforeach()

# -llapack -lblas: LAPACK's xerbla_ comes first and must be skipped.
if(LLAPACK)
  file(GLOB lapack_alternatives LIST_DIRECTORIES false "${LIBDIR}/*/liblapack.so.3")
  set(lapack_dirs "default")
  foreach(f IN LISTS lapack_alternatives)
    get_filename_component(d "${f}" DIRECTORY)
    list(APPEND lapack_dirs "${d}")
  endforeach()
  foreach(d IN LISTS lapack_dirs)
    set(envs LD_PRELOAD=${LIB})
    if(NOT d STREQUAL "default")
      list(APPEND envs LD_LIBRARY_PATH=${d})
    endif()
    run(lp ENV ${envs} COMMAND ${LLAPACK})
    set(lp_err_expected " ** On entry to DGEMV  parameter number  8 had an illegal value\n")
    if(NOT lp_rc EQUAL 0 OR NOT lp_out STREQUAL "returned\n" OR NOT lp_err STREQUAL lp_err_expected)
      fail("blas_abi_xerbla_llapack with liblapack.so.3 from ${d}: exit ${lp_rc}, stdout "
           "'${lp_out}', stderr:\n${lp_err}\nexpected exit 0, stdout 'returned', stderr:\n"
           "${lp_err_expected}")
    else()
      message(STATUS "-llapack -lblas program, liblapack.so.3 from ${d}: printed and returned")
    endif()
  endforeach()
endif()

# Linked with libexala_blas.so alone: the executable's handlers are exported
# and found; RowMajorStrg exists nowhere.
run(only COMMAND ${OWN_ONLY})
set(only_expected
"xerbla_ DGEMV  8
cblas_xerbla 3 cblas_dgemv RowMajorStrg=-
cblas_xerbla 4 cblas_dgemv RowMajorStrg=-
cblas_xerbla 11 cblas_dgemm RowMajorStrg=-
cblas_xerbla 7 cblas_dtrsm RowMajorStrg=-
returned
")
if(NOT only_rc EQUAL 0 OR NOT only_out STREQUAL only_expected OR NOT only_err STREQUAL "")
  fail("blas_abi_xerbla_own_only: exit ${only_rc}, stdout:\n${only_out}stderr:\n${only_err}\n"
       "expected stdout:\n${only_expected}")
else()
  message(STATUS "program handlers with libexala_blas.so alone: every report reached them")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) failed")
endif()
message(STATUS "error handlers under the preload: all checks passed")
