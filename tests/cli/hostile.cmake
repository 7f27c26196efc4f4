# Cli tests of hostile input and faults (issue 15; included from
# CMakeLists.txt): sizes whose products overflow or exceed any memory, lines
# and values beyond the reader's limits, results known to be wrong, option
# errors named by the option. Inputs are written by make_hostile_data.py.

# ---- sizes (rows 2 and 12) ----
# Valid empty operands whose product would have 2^64 (wraps to 0 in int64)
# and 2^62 entries: refused naming the sizes, never a crash or a
# std::vector message.
set(addressable "more than the 2^60 - 1 ExaLA can address")
exala_cli_error(gemm_c_2_64
  "gemm: C would have 4294967296 x 4294967296 = 18446744073709551616 entries (2^64), ${addressable} (A is 4294967296 x 0 in empty_rows32.mtx, B is 0 x 4294967296 in empty_cols32.mtx)"
  gemm empty_rows32.mtx empty_cols32.mtx)
exala_cli_error(gemm_c_2_62
  "gemm: C would have 2147483648 x 2147483648 = 4611686018427387904 entries (2^62), ${addressable} (A is 2147483648 x 0 in empty_rows31.mtx, B is 0 x 2147483648 in empty_cols31.mtx)"
  gemm empty_rows31.mtx empty_cols31.mtx)
exala_cli_error(gemm_c_2_64_trans
  "gemm: C would have 4294967296 x 4294967296 = 18446744073709551616 entries (2^64), ${addressable} (A^T is 4294967296 x 0 in empty_cols32.mtx, B^T is 0 x 4294967296 in empty_rows32.mtx)"
  gemm empty_cols32.mtx empty_rows32.mtx --transa T --transb T)
# Representable sizes that no memory holds: the bytes needed, not bad_alloc.
set(memory_re "8796093022208 bytes \\(8.00 TiB\\), more than this machine's memory of [0-9.]+ [KMGTP]iB")
exala_cli_test(gemv_y_2_40 RC 2 STDERR_LINES 1
  STDERR_REGEX "^exala: error: gemv: Y would have 1099511627776 x 1 = 1099511627776 entries \\(2\\^40\\): ${memory_re} \\(A is 1099511627776 x 0 in empty_rows40.mtx\\)$"
  ARGS gemv empty_rows40.mtx empty_cols40.mtx)
exala_cli_test(gemm_c_2_40 RC 2 STDERR_LINES 1
  STDERR_REGEX "^exala: error: gemm: C would have 1099511627776 x 1 = 1099511627776 entries \\(2\\^40\\): ${memory_re} "
  ARGS gemm empty_rows40.mtx empty_0x1.mtx)
# Empty results of huge operands are fine.
exala_cli_test(gemm_empty_result STDOUT_FILE expected_empty_0x0.mtx
               ARGS gemm empty_cols32.mtx empty_rows32.mtx)
exala_cli_result(sum_empty_rows32 0 sum empty_rows32.mtx)

# ---- line and value limits (row 12) ----
set(line_limit "is longer than 1024 characters (the Matrix Market line limit)")
exala_cli_error(size_line_long "size_line_long.mtx:2: size line ${line_limit}"
                sum size_line_long.mtx)
exala_cli_error(header_line_long "header_line_long.mtx:1: header line ${line_limit}"
                sum header_line_long.mtx)
exala_cli_error(coord_line_long "coord_line_long.mtx:3: entry line ${line_limit}"
                solve coord_line_long.mtx l23_ones2.mtx --quiet)
string(REPEAT "0" 62 zeros)
exala_cli_error(value_long
  "value_long.mtx:3: value '0.${zeros}...' is longer than 1024 characters"
  sum value_long.mtx)
# At the limit, and beyond it where there is none (comments, value lines).
exala_cli_result(value_1024 0.5 sum value_1024.mtx)
exala_cli_result(comment_long 6 sum comment_long.mtx)
exala_cli_result(values_one_line 45150 sum values_one_line.mtx)

# ---- results known to be wrong ----
# x = (1e318, -1e318, 1): x(2) = -inf is computed from x(1) = inf (inf has
# no digits: it could as well stand for a finite value), and x(3) would be
# NaN for the finite value 1: an error for every method, not a printout.
foreach(method exact refined compensated double-double naive)
  exala_cli_error(trsv_overflow_${method}
    "trsv: x(2) = -inf was computed from x(1) = inf although l23_overflow.mtx and l23_overflow_b.mtx are finite: the solution overflows the double range, so the result cannot be trusted (scale the system)"
    trsv l23_overflow.mtx l23_overflow_b.mtx --method ${method})
endforeach()
# x = (1e308, 1e308, 1): exact and refined give it; the substitutions in
# double overflow on the way (1 - 10 * 1e308 + 10 * 1e308) and give NaN.
foreach(method exact refined)
  exala_cli_matrix(trsv_overflow_mid_${method} x_overflow_mid
                   trsv l23_overflow_mid.mtx l23_overflow_mid_b.mtx --method ${method})
endforeach()
foreach(method compensated double-double naive)
  exala_cli_error(trsv_overflow_mid_${method}
    "trsv: x(3) is NaN although l23_overflow_mid.mtx and l23_overflow_mid_b.mtx are finite: an intermediate result overflowed the double range, so the result is known to be wrong (--method exact has no intermediate overflow)"
    trsv l23_overflow_mid.mtx l23_overflow_mid_b.mtx --method ${method})
endforeach()
# An entry beyond the range computed from finite values only is IEEE's inf.
exala_cli_test(trsv_inf_alone STDOUT_REGEX "^inf$" ARGS trsv l23_inf1.mtx l23_inf1_b.mtx)

# ---- messages name the option or the file:line, not a C++ argument ----
exala_cli_error(trsv_rounding_refined
  "option '--rounding' applies to --method exact only (refined rounds its corrections to nearest)"
  trsv l23_third.mtx l23_ones2.mtx --method refined --rounding up)
exala_cli_test(help_rounding_trsv STDOUT_REGEX "trsv: --method exact only\\)" ARGS --help)
exala_cli_error(unknown_local_backend
  "option '--local-backend' has unknown value 'gpu' (expected reference|simd|omp|opencl|cuda)"
  sum cancel.mtx --local-backend gpu --backend mpi)
if(TARGET exala::mpi)  # --backend mpi initializes MPI (a singleton)
  set_tests_properties(cli.unknown_local_backend PROPERTIES LABELS "cli;mpi")
endif()

# ---- the same under --backend mpi (rank 0 checks and writes x) ----
# mpirun prints its own lines after the error: the one 'exala: error' line
# is matched. (The environment of tests/mpi/mpi.cmake: Open MPI as root in
# CI containers, no CMA single copy.)
if(TARGET exala::mpi AND MPIEXEC_EXECUTABLE)
  function(exala_cli_mpi_error name re)
    add_test(NAME cli.${name}
             COMMAND sh ${EXALA_CLI_DRIVER} --rc 2 --stderr-regex "^exala: error: ${re}$" --
                     ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe
                     $<TARGET_FILE:exala> ${ARGN} --backend mpi
             WORKING_DIRECTORY ${EXALA_CLI_DATA})
    set_tests_properties(cli.${name} PROPERTIES LABELS "cli;mpi" TIMEOUT 120 PROCESSORS 2
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_hwloc_base_binding_policy=none;OMP_NUM_THREADS=1")
  endfunction()
  exala_cli_mpi_error(mpi_trsv_overflow
    "trsv: x\\(2\\) = -inf was computed from x\\(1\\) = inf although l23_overflow.mtx and l23_overflow_b.mtx are finite: .* \\(scale the system\\)"
    trsv l23_overflow.mtx l23_overflow_b.mtx)
  exala_cli_mpi_error(mpi_trsv_singular
    "l23_singular.mtx:7: exact zero on the diagonal at T\\(2, 2\\): the triangular matrix is singular"
    trsv l23_singular.mtx l23_ones2.mtx --trans T)
endif()

# A refined backward error far above 2u is refused on every rank alike, as
# one process refuses it (issue 15 row 4; tests/cli/stripe.cmake).
if(TARGET exala::mpi AND MPIEXEC_EXECUTABLE)
  exala_cli_mpi_error(mpi_solve_growth
    "solve: after refinement the backward error is [0-9.]+e-[0-9]+, far above the 2u = 2\\.2e-16 that refinement reaches from sound factors \\(limit 2\\^10 u = 1\\.1e-13\\): no solution is written .*"
    solve stripe_growth.mtx stripe_growth_b.mtx --quiet)
  # The stripe LU near the ends of the range (issue 15 row 1), as one process.
  exala_cli_mpi_error(mpi_solve_overflow
    "stripe LU: the solution of right-hand side 0 \\(0-based\\) is not finite at row 1 \\(0-based\\): it exceeds the double range.*"
    solve stripe_overflow_a.mtx stripe_overflow_b.mtx --quiet)
  # The work directory checks, the same as one process's (check_workdirs_exist).
  exala_cli_mpi_error(mpi_solve_workdir_missing "work directory 'nosuch-dir' does not exist"
                      solve --workdir nosuch-dir)
  exala_cli_mpi_error(mpi_solve_workdir_file "work directory 'stripe_a.mtx' is not a directory"
                      solve --workdir stripe_a.mtx)
  add_test(NAME cli.mpi_solve_range
           COMMAND sh ${EXALA_CLI_DRIVER} --stdout-file expected_stripe_range_x.mtx --
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe
                   $<TARGET_FILE:exala> solve stripe_range_a.mtx stripe_range_b.mtx --quiet
                   --backend mpi
           WORKING_DIRECTORY ${EXALA_CLI_DATA})
  set_tests_properties(cli.mpi_solve_range PROPERTIES LABELS "cli;mpi" TIMEOUT 120 PROCESSORS 2
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_hwloc_base_binding_policy=none;OMP_NUM_THREADS=1")
  # Out of core on two ranks with the default cache (room for every stripe):
  # each pivot group's two members are factored during the previous group's
  # sweep, and the summary says so.
  set(la_dir ${CMAKE_CURRENT_BINARY_DIR}/mpi_lookahead)
  add_test(NAME cli.mpi_solve_workdir_lookahead
           COMMAND sh ${EXALA_CLI_DRIVER}
                   --stderr-regex "^  stripes: S = 16, S' = 8, order meta-zigzag, meta 2, lookahead 2, pivoting local, engine cpu$" --
                   sh -c "rm -rf '${la_dir}' && '$<TARGET_FILE:exala>' generate dense --workdir '${la_dir}' --n 96 && ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe '$<TARGET_FILE:exala>' solve --workdir '${la_dir}' --backend mpi --stripe 16 --substripe 8 --order meta-zigzag --meta 2 --threads 1 -o '${la_dir}/x.mtx'")
  set_tests_properties(cli.mpi_solve_workdir_lookahead PROPERTIES LABELS "cli;mpi" TIMEOUT 120 PROCESSORS 2
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_hwloc_base_binding_policy=none;OMP_NUM_THREADS=1")
endif()
