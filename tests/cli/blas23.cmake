# Cli tests of gemv, gemm, trsv and generate (included from CMakeLists.txt).
# Inputs data/l23_*.mtx and expected outputs data/expected_l23_*.mtx are
# written by make_blas23_data.py from exact rational arithmetic (the plain
# `naive` trsv loop excepted, whose expected output is that loop in Python
# floats). Every expected output is compared byte for byte.

# `exala ARGS...` must print the Matrix Market file data/expected_l23_STEM.mtx.
function(exala_cli_matrix name stem)
  exala_cli_test(${name} STDOUT_FILE expected_l23_${stem}.mtx ARGS ${ARGN})
endfunction()

set(l23_exec_variants reference simd)
if(EXALA_HAVE_OPENMP)
  list(APPEND l23_exec_variants omp_1 omp_2 omp_3)
endif()
# The exec arguments of a variant name such as omp_2 (--backend omp --threads 2).
function(l23_exec_args variant out)
  string(REPLACE "_" ";" parts ${variant})
  list(POP_FRONT parts backend)
  set(args --backend ${backend})
  if(parts)
    list(APPEND args --threads ${parts})
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# ---- gemv ----
exala_cli_matrix(gemv_small gemv_small gemv l23_a23.mtx l23_ones3.mtx)
exala_cli_matrix(gemv_small_trans gemv_small_t gemv l23_a23.mtx l23_ones2.mtx --trans T)
exala_cli_matrix(gemv_small_alpha_beta gemv_small_ab
                 gemv l23_a23.mtx l23_ones3.mtx --alpha 2 --beta=-1 --y l23_ones2.mtx)
# Without --beta, a given Y is added (beta = 1): 6 + 1, 15 + 1.
exala_cli_matrix(gemv_y_default_beta gemv_small_y gemv l23_a23.mtx l23_ones3.mtx --y l23_ones2.mtx)
# Exact sums in each entry: 1e16 + 1 - 1e16 = 1 (the plain loop gives 0), a
# tie with a far sticky bit, and 1 +- 2^-60 in every rounding direction.
foreach(mode nearest up down zero)
  exala_cli_matrix(gemv_cancel_${mode} gemv_cancel_${mode}
                   gemv l23_cancel.mtx l23_ones3.mtx --rounding ${mode})
endforeach()
# Wide data with cancelling pairs, alpha = 0.1, beta = -3: every backend and
# thread count gives the same bits, also transposed.
foreach(variant IN LISTS l23_exec_variants)
  l23_exec_args(${variant} exec_args)
  exala_cli_matrix(gemv_wide_${variant} gemv_wide gemv l23_wide_a.mtx l23_wide_x.mtx
                   --alpha 0.1 --beta -3 --y l23_wide_y.mtx ${exec_args})
  exala_cli_matrix(gemv_wide_trans_${variant} gemv_wide_t gemv l23_wide_a.mtx l23_wide_xt.mtx
                   --trans T --alpha 0.1 --beta -3 --y l23_wide_yt.mtx ${exec_args})
endforeach()
exala_cli_test(gemv_output_file
  OUT ${CMAKE_CURRENT_BINARY_DIR}/gemv_output_file.mtx
      ${EXALA_CLI_DATA}/expected_l23_gemv_small.mtx
  ARGS gemv l23_a23.mtx l23_ones3.mtx -o ${CMAKE_CURRENT_BINARY_DIR}/gemv_output_file.mtx)

# ---- gemm ----
exala_cli_matrix(gemm_small gemm_small gemm l23_a23.mtx l23_b32.mtx)
exala_cli_matrix(gemm_small_trans gemm_small_tt gemm l23_a23.mtx l23_b32.mtx
                 --transa T --transb T)
exala_cli_matrix(gemm_small_alpha_beta gemm_small_ab gemm l23_a23.mtx l23_b32.mtx
                 --alpha -2 --beta 0.5 --c l23_c22.mtx)
exala_cli_matrix(gemm_cancel gemm_cancel gemm l23_row_cancel.mtx l23_ones3.mtx)
foreach(variant IN LISTS l23_exec_variants)
  l23_exec_args(${variant} exec_args)
  exala_cli_matrix(gemm_wide_${variant} gemm_wide gemm l23_wide_ga.mtx l23_wide_gb.mtx
                   --alpha 0.1 --beta -3 --c l23_wide_gc.mtx ${exec_args})
endforeach()

# ---- trsv ----
# Every uplo x trans x diag, every method: integer solutions (NaN in the
# entries that must not be read).
foreach(tag lnn lnu ltn ltu unn unu utn utu)
  string(SUBSTRING ${tag} 0 1 ul)
  string(SUBSTRING ${tag} 1 1 tr)
  string(SUBSTRING ${tag} 2 1 dg)
  string(TOUPPER ${ul} ul)
  string(TOUPPER ${tr} tr)
  string(TOUPPER ${dg} dg)
  foreach(method exact refined compensated double-double naive)
    exala_cli_matrix(trsv_${tag}_${method} x_${tag} trsv l23_t_${tag}.mtx l23_b_${tag}.mtx
                     --uplo ${ul} --trans ${tr} --diag ${dg} --method ${method})
  endforeach()
endforeach()
# The default method is exact, the default uplo L, trans N, diag N.
exala_cli_matrix(trsv_defaults x_lnn trsv l23_t_lnn.mtx l23_b_lnn.mtx)
# Each x_i is the correctly rounded quotient of the exact numerator, in every
# rounding direction, on every backend.
foreach(mode nearest up down zero)
  exala_cli_matrix(trsv_third_${mode} x_third_${mode}
                   trsv l23_third.mtx l23_ones2.mtx --rounding ${mode})
  exala_cli_matrix(trsv_seventh_${mode} x_seventh_${mode}
                   trsv l23_seventh.mtx l23_seventh_b.mtx --uplo U --rounding ${mode})
endforeach()
foreach(variant IN LISTS l23_exec_variants)
  l23_exec_args(${variant} exec_args)
  exala_cli_matrix(trsv_third_${variant} x_third_nearest trsv l23_third.mtx l23_ones2.mtx
                   ${exec_args})
endforeach()
# Ill-conditioned systems with a representable solution (cond ~ 2.6e12 and
# ~3.2e36): every accurate method returns it exactly at 2.6e12, exact and
# refined at any condition; the plain loop is off by about cond * u.
foreach(method exact refined compensated double-double)
  exala_cli_matrix(trsv_ill40_${method} x_ill40 trsv l23_ill40.mtx l23_ill40_b.mtx
                   --method ${method})
endforeach()
foreach(method exact refined)
  exala_cli_matrix(trsv_ill120_${method} x_ill120 trsv l23_ill120.mtx l23_ill120_b.mtx
                   --method ${method})
endforeach()
exala_cli_matrix(trsv_ill40_naive x_ill40_naive trsv l23_ill40.mtx l23_ill40_b.mtx --method naive)
exala_cli_matrix(trsv_ill120_naive x_ill120_naive trsv l23_ill120.mtx l23_ill120_b.mtx
                 --method naive)

# ---- generate ----
# Writes T (lower, n x n), b and x_exact; the same seed gives the same files,
# and `exala trsv` solves the written system (check_generate.cmake).
add_test(NAME cli.generate_trsv
         COMMAND ${CMAKE_COMMAND} -DEXALA=$<TARGET_FILE:exala>
                 -DDIR=${CMAKE_CURRENT_BINARY_DIR}/generate_trsv
                 -DHAVE_MPFR=${EXALA_HAVE_MPFR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/check_generate.cmake)
set_tests_properties(cli.generate_trsv PROPERTIES LABELS cli TIMEOUT 60)

# ---- bad command lines and operands ----
exala_cli_error(gemv_x_size
  "gemv: l23_ones2.mtx (2 x 1, 2 entries) does not fit l23_a23.mtx (2 x 3, 6 entries): A is 2 x 3, so X needs 3 entries"
  gemv l23_a23.mtx l23_ones2.mtx)
exala_cli_error(gemv_x_size_trans
  "gemv: l23_ones3.mtx (3 x 1, 3 entries) does not fit l23_a23.mtx (2 x 3, 6 entries): A^T is 3 x 2, so X needs 2 entries"
  gemv l23_a23.mtx l23_ones3.mtx --trans T)
exala_cli_error(gemv_y_size
  "gemv: l23_ones3.mtx (3 x 1, 3 entries) does not fit l23_a23.mtx (2 x 3, 6 entries): A is 2 x 3, so Y needs 2 entries"
  gemv l23_a23.mtx l23_ones3.mtx --y l23_ones3.mtx)
exala_cli_error(gemv_y_bad_file
  "too_few.mtx:4: too few values, expected 3 (3 x 1), found 2 before the end of the file"
  gemv l23_a23.mtx l23_ones3.mtx --y too_few.mtx)
exala_cli_error(gemv_a_bad_file "bad_token.mtx:5: '1.5abc' is not a real number"
                gemv bad_token.mtx l23_ones3.mtx)
exala_cli_error(gemv_beta_without_y "option '--beta' needs '--y' (the operand it scales)"
                gemv l23_a23.mtx l23_ones3.mtx --beta 2)
exala_cli_error(gemv_bad_alpha "option '--alpha' needs a real number, got '2x'"
                gemv l23_a23.mtx l23_ones3.mtx --alpha 2x)
exala_cli_error(gemv_bad_trans "option '--trans' has unknown value 'X' (expected N|T)"
                gemv l23_a23.mtx l23_ones3.mtx --trans X)
exala_cli_error(gemv_one_operand "gemv needs 2 operands (exala gemv A X), got 1"
                gemv l23_a23.mtx)
exala_cli_error(gemv_missing_y_value "option '--y' needs a value" gemv l23_a23.mtx l23_ones3.mtx --y)
exala_cli_error(gemm_sizes
  "gemm: l23_a23.mtx (2 x 3, 6 entries) and l23_a23.mtx (2 x 3, 6 entries) do not fit: A is 2 x 3 and B is 2 x 3"
  gemm l23_a23.mtx l23_a23.mtx)
exala_cli_error(gemm_c_shape
  "gemm: l23_ones2.mtx (2 x 1, 2 entries) does not fit: A B is 2 x 2"
  gemm l23_a23.mtx l23_b32.mtx --c l23_ones2.mtx)
exala_cli_error(gemm_bad_transb "option '--transb' has unknown value 'Y' (expected N|T)"
                gemm l23_a23.mtx l23_b32.mtx --transb Y)
exala_cli_error(gemm_beta_without_c "option '--beta' needs '--c' (the operand it scales)"
                gemm l23_a23.mtx l23_b32.mtx --beta 0)
exala_cli_error(trsv_not_square "trsv: l23_a23.mtx (2 x 3, 6 entries) is not square"
                trsv l23_a23.mtx l23_ones2.mtx)
exala_cli_error(trsv_b_size
  "trsv: l23_ones3.mtx (3 x 1, 3 entries) does not fit l23_third.mtx (2 x 2, 4 entries): B needs 2 entries"
  trsv l23_third.mtx l23_ones3.mtx)
exala_cli_error(trsv_bad_uplo "option '--uplo' has unknown value 'lower' (expected L|U)"
                trsv l23_third.mtx l23_ones2.mtx --uplo lower)
exala_cli_error(trsv_bad_diag "option '--diag' has unknown value 'X' (expected N|U)"
                trsv l23_third.mtx l23_ones2.mtx --diag X)
exala_cli_error(trsv_bad_method
  "option '--method' has unknown value 'lu' (expected exact|refined|compensated|double-double|naive)"
  trsv l23_third.mtx l23_ones2.mtx --method lu)
exala_cli_error(trsv_rounding_naive
  "option '--rounding' applies to --method exact only (naive rounds every operation to nearest)"
  trsv l23_third.mtx l23_ones2.mtx --method naive --rounding up)
exala_cli_error(trsv_rounding_compensated
  "option '--rounding' applies to --method exact only (compensated rounds every operation to nearest)"
  trsv l23_third.mtx l23_ones2.mtx --method compensated --rounding down)
# Options are checked before any file is read.
exala_cli_error(trsv_option_before_file "option '--uplo' has unknown value 'x' (expected L|U)"
                trsv nosuch.mtx nosuch.mtx --uplo x)
exala_cli_error(trsv_t_bad_file "bad_comma.mtx:3: '1,5' is not a real number"
                trsv bad_comma.mtx l23_ones2.mtx)
exala_cli_error(option_wrong_command "option '--trans' does not apply to 'sum' (see 'exala --help')"
                sum cancel.mtx --trans T)
exala_cli_error(option_wrong_command_gemm
  "option '--trans' does not apply to 'gemm' (see 'exala --help')"
  gemm l23_a23.mtx l23_b32.mtx --trans T)
# An exact zero on the diagonal, named by its file:line and 1-based position
# (not the library's 0-based row), for every method and op(T).
foreach(method exact naive refined compensated double-double)
  foreach(trans N T)
    exala_cli_error(trsv_singular_${method}_${trans}
      "l23_singular.mtx:7: exact zero on the diagonal at T(2, 2): the triangular matrix is singular"
      trsv l23_singular.mtx l23_ones2.mtx --method ${method} --trans ${trans})
  endforeach()
endforeach()

set(gen_out ${CMAKE_CURRENT_BINARY_DIR}/generate_bad)
exala_cli_error(generate_unknown "generate: unknown problem 'lu' (expected trsv|dense)"
                generate lu --n 3 --cond 10 -o ${gen_out})
exala_cli_error(generate_no_n "generate trsv needs '--n N'" generate trsv --cond 10 -o ${gen_out})
exala_cli_error(generate_no_cond "generate trsv needs '--cond C'"
                generate trsv --n 3 -o ${gen_out})
exala_cli_error(generate_no_dir "generate trsv needs '-o DIR'" generate trsv --n 3 --cond 10)
foreach(n 0 -1 abc 20001 +3 1e3)
  string(MAKE_C_IDENTIFIER "n_${n}" id)
  exala_cli_error(generate_bad_${id}
    "option '--n' needs an integer from 1 to 20000, got '${n}'"
    generate trsv --n=${n} --cond 10 -o ${gen_out})
endforeach()
foreach(cond 0.5 -1 inf nan)
  string(MAKE_C_IDENTIFIER "cond_${cond}" id)
  exala_cli_error(generate_bad_${id} "option '--cond' needs a finite number >= 1, got '${cond}'"
                  generate trsv --n 3 --cond=${cond} -o ${gen_out})
endforeach()
exala_cli_error(generate_bad_cond_text "option '--cond' needs a real number, got '1e'"
                generate trsv --n 3 --cond 1e -o ${gen_out})
exala_cli_error(generate_bad_seed "option '--seed' needs a non-negative integer, got '-1'"
                generate trsv --n 3 --cond 10 --seed=-1 -o ${gen_out})
exala_cli_error(generate_dir_is_file "cancel.mtx: exists and is not a directory"
                generate trsv --n 3 --cond 10 -o cancel.mtx)
exala_cli_error(generate_rounding "option '--rounding' does not apply to 'generate'"
                generate trsv --n 3 --cond 10 -o ${gen_out} --rounding up)
exala_cli_error(generate_wrong_option "option '--method' does not apply to 'generate' (see 'exala --help')"
                generate trsv --n 3 --cond 10 -o ${gen_out} --method naive)
