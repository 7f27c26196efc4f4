# Cli tests of the stripe LU commands: generate dense, import, solve
# (included from CMakeLists.txt). Golden tests of argument and file errors
# (exit status 2, one line on stderr, nothing on stdout), and scripted checks
# (stripe_test.sh) of whole runs: the solution's bits do not depend on the
# thread count, the cache, the traversal order, the number of import passes,
# in core or out of core, nor on the run having been killed (SIGKILL), having
# hit a full disk, and resumed. Inputs: data/stripe_*.mtx (make_stripe_data.py
# and hand-written bad files). Work directories live under the build tree.
set(stripe_dir ${CMAKE_CURRENT_BINARY_DIR}/stripe)
set(wd ${stripe_dir}/golden_wd)
# An empty work directory (no system in it), made before the tests that use it.
add_test(NAME cli.stripe_setup COMMAND ${CMAKE_COMMAND} -E make_directory ${stripe_dir}/empty)
set_tests_properties(cli.stripe_setup PROPERTIES LABELS cli FIXTURES_SETUP cli_stripe_empty)

# `exala ARGS...` must fail with exit status 2 and one line on stderr
# matching the extended regex RE (for messages of the library, whose numbers
# and wording are its own).
function(exala_cli_error_regex name re)
  exala_cli_test(${name} RC 2 STDERR_REGEX "^exala: error: ${re}" STDERR_LINES 1 ARGS ${ARGN})
endfunction()

# ---- help ----
exala_cli_test(stripe_help_solve STDOUT_REGEX "^  solve \\[A B\\] " ARGS --help)
exala_cli_test(stripe_help_import STDOUT_REGEX "^  import A B " ARGS --help)
exala_cli_test(stripe_help_generate STDOUT_REGEX "^  generate trsv\\|dense$" ARGS --help)
exala_cli_test(stripe_help_workdir STDOUT_REGEX "^  --workdir DIR " ARGS --help)
exala_cli_test(stripe_help_refine STDOUT_REGEX "^  --refine\\[=STEPS\\] " ARGS --help)
exala_cli_test(stripe_help_resume STDOUT_REGEX "^  --resume +continue a partial run" ARGS help)

# ---- sizes: --cache, --buffer ----
set(size_message "needs a size in bytes such as 1048576, 512MiB or 2G (suffixes K, M, G, T, KiB, MiB, GiB, TiB), got")
foreach(bad 12XB 1GB 1.5x abc 0x10 1e9 G "1 G" 99999999999999999999 16E 8388608T)
  string(MAKE_C_IDENTIFIER "${bad}" id)
  exala_cli_error(stripe_cache_bad_${id} "option '--cache' ${size_message} '${bad}'"
                  solve --workdir ${stripe_dir}/empty --cache=${bad})
endforeach()
exala_cli_error(stripe_cache_empty "option '--cache' ${size_message} ''"
                solve --workdir ${stripe_dir}/empty --cache=)
foreach(bad 0 0K 0.0001 -1 -2GiB)
  string(MAKE_C_IDENTIFIER "${bad}" id)
  exala_cli_error(stripe_cache_nonpositive_${id} "option '--cache' needs a positive size, got '${bad}'"
                  solve --workdir ${stripe_dir}/empty --cache=${bad})
endforeach()
exala_cli_error(stripe_buffer_bad "option '--buffer' ${size_message} '1.5Q'"
                import stripe_a.mtx stripe_b.mtx --workdir ${wd} --buffer 1.5Q)
exala_cli_error(stripe_buffer_zero "option '--buffer' needs a positive size, got '0'"
                import stripe_a.mtx stripe_b.mtx --workdir ${wd} --buffer 0)
# Accepted spellings: the check stops at the next problem (the empty work directory).
foreach(good 1048576 512K 512k 1.5M 2MiB 2mib 1G 0.5GiB 1T 3B)
  string(MAKE_C_IDENTIFIER "${good}" id)
  exala_cli_error_regex(stripe_cache_ok_${id} "file '[^']*/empty/manifest': "
                        solve --workdir ${stripe_dir}/empty --cache ${good} --quiet)
endforeach()

# ---- solve options ----
set(s solve --workdir ${stripe_dir}/empty)
exala_cli_error(stripe_order_unknown
  "option '--order' has unknown value 'spiral' (expected basic|zigzag|meta-zigzag)"
  ${s} --order spiral)
exala_cli_error(stripe_pivot_unknown
  "option '--pivot' has unknown value 'full' (expected local|partial)" ${s} --pivot full)
exala_cli_error(stripe_meta_needs_order "option '--meta' needs '--order meta-zigzag'"
                ${s} --meta 2)
exala_cli_error(stripe_meta_zero "option '--meta' needs an integer from 1 to 1000000, got '0'"
                ${s} --order meta-zigzag --meta 0)
exala_cli_error(stripe_stripe_zero
  "option '--stripe' needs an integer from 1 to 1152921504606846975, got '0'" ${s} --stripe 0)
exala_cli_error(stripe_stripe_negative
  "option '--stripe' needs an integer from 1 to 1152921504606846975, got '-64'"
  ${s} --stripe=-64)
exala_cli_error(stripe_substripe_text
  "option '--substripe' needs an integer from 1 to 1152921504606846975, got '8x'"
  ${s} --substripe 8x)
exala_cli_error(stripe_substripe_larger "option '--substripe' (128) exceeds '--stripe' (64)"
                ${s} --stripe 64 --substripe 128)
exala_cli_error(stripe_io_threads_zero
  "option '--io-threads' needs an integer from 1 to 64, got '0'" ${s} --io-threads 0)
exala_cli_error(stripe_threads_zero
  "option '--threads' needs an integer from 1 to 1024, got '0'" ${s} --threads 0)
exala_cli_error(stripe_refine_text "option '--refine' needs an integer from 0 to 100, got 'yes'"
                ${s} --refine=yes)
exala_cli_error(stripe_refine_large "option '--refine' needs an integer from 0 to 100, got '101'"
                ${s} --refine=101)
exala_cli_error(stripe_refine_empty "option '--refine' needs a value after '='" ${s} --refine=)
exala_cli_error(stripe_refine_both "options '--refine' and '--no-refine' exclude each other"
                ${s} --refine --no-refine)
exala_cli_error(stripe_no_refine_value "option '--no-refine' takes no value" ${s} --no-refine=3)
exala_cli_error(stripe_restart_resume "options '--restart' and '--resume' exclude each other"
                ${s} --restart --resume)
exala_cli_error(stripe_progress_interval
  "option '--progress-interval' needs a number of seconds >= 0, got '-1'"
  ${s} --progress-interval=-1)
exala_cli_error(stripe_progress_interval_text
  "option '--progress-interval' needs a real number, got 'often'" ${s} --progress-interval often)
exala_cli_error(stripe_backend "option '--backend' does not apply to 'solve'"
                ${s} --backend simd)
exala_cli_error(stripe_rounding "option '--rounding' does not apply to 'solve'"
                ${s} --rounding up)
exala_cli_error(stripe_buffer_for_solve
  "option '--buffer' does not apply to 'solve' (see 'exala --help')" ${s} --buffer 1G)
exala_cli_error(stripe_force_for_solve
  "option '--force' does not apply to 'solve' (see 'exala --help')" ${s} --force)

# ---- work directories ----
exala_cli_error(stripe_solve_nothing
  "solve needs 2 operands (exala solve A B) or '--workdir DIR', got 0" solve)
exala_cli_error(stripe_solve_one_operand
  "solve needs 2 operands (exala solve A B) or '--workdir DIR', got 1" solve stripe_a.mtx)
exala_cli_error(stripe_solve_both
  "solve takes A B (in core) or --workdir DIR (out of core), not both"
  solve stripe_a.mtx stripe_b.mtx --workdir ${wd})
exala_cli_error(stripe_workdir_missing "work directory 'nosuch-dir' does not exist"
                solve --workdir nosuch-dir)
exala_cli_error(stripe_workdir_file "work directory 'stripe_a.mtx' is not a directory"
                solve --workdir stripe_a.mtx)
exala_cli_error(stripe_workdir_second_missing "work directory 'nosuch-dir' does not exist"
                solve --workdir ${stripe_dir}/empty,nosuch-dir)
exala_cli_error(stripe_workdir_empty_name "option '--workdir' needs directory names, got 'a,,b'"
                solve --workdir a,,b)
exala_cli_error(stripe_workdir_trailing_comma
  "option '--workdir' needs directory names, got 'a,'" solve --workdir a,)
exala_cli_error(stripe_workdir_twice "option '--workdir' names 'a' twice"
                solve --workdir a,b --workdir a)
exala_cli_error(stripe_workdir_value "option '--workdir' needs a value" solve --workdir)
# A directory without a system: the library names the manifest it lacks.
exala_cli_error_regex(stripe_workdir_no_system "file '${stripe_dir}/empty/manifest': "
                      solve --workdir ${stripe_dir}/empty)
exala_cli_error(stripe_import_no_workdir "import needs '--workdir DIR'"
                import stripe_a.mtx stripe_b.mtx)
exala_cli_error(stripe_generate_no_workdir "generate dense needs '--workdir DIR'"
                generate dense --n 10)

# Out-of-core-only options are rejected in core.
foreach(opt "--cache=1G" "--io-threads=2" "--restart" "--resume" "--sync" "--drop-page-cache"
            "--order=basic" "--meta=2")
  string(REGEX REPLACE "=.*" "" name "${opt}")
  string(MAKE_C_IDENTIFIER "${name}" id)
  exala_cli_error(stripe_in_core_${id}
    "option '${name}' applies to an out-of-core solve (--workdir) only"
    solve stripe_a.mtx stripe_b.mtx ${opt})
endforeach()

# Options are checked before any file is read.
exala_cli_error(stripe_options_before_files
  "option '--pivot' has unknown value 'full' (expected local|partial)"
  solve nosuch.mtx nosuch.mtx --pivot full)
exala_cli_error(stripe_import_options_before_files
  "option '--buffer' needs a positive size, got '0'"
  import nosuch.mtx nosuch.mtx --workdir ${wd} --buffer 0)
exala_cli_error(stripe_output_unwritable
  "/nonexistent-dir/x.mtx: cannot create file: No such file or directory"
  solve nosuch.mtx nosuch.mtx -o /nonexistent-dir/x.mtx)

# ---- generate dense options ----
set(g generate dense --workdir ${wd} --force)
exala_cli_error(stripe_generate_no_n "generate dense needs '--n N'" ${g})
exala_cli_error(stripe_generate_n_zero
  "option '--n' needs an integer from 1 to 1000000000, got '0'" ${g} --n 0)
exala_cli_error(stripe_generate_n_huge
  "option '--n' needs an integer from 1 to 1000000000, got '1000000001'" ${g} --n 1000000001)
# A system larger than the disk is refused before anything is written or
# allocated (it used to start writing, or be killed for memory); the largest n
# needs 6.9 EiB. The directory is left without a system.
exala_cli_error_regex(stripe_generate_no_space
  "file '[^']*no_space_wd': the system's files need 6\\.9 EiB on this file system, which has [0-9.]+ [KMGTPE]i?B available \\(n = 1000000000;.*"
  generate dense --workdir ${stripe_dir}/no_space_wd --force --n 1000000000)
exala_cli_error(stripe_generate_cond
  "option '--cond' needs 0 (uniform entries) or a finite number >= 1, got '0.5'"
  ${g} --n 10 --cond 0.5)
exala_cli_error(stripe_generate_cond_inf
  "option '--cond' needs 0 (uniform entries) or a finite number >= 1, got 'inf'"
  ${g} --n 10 --cond inf)
exala_cli_error(stripe_generate_nrhs
  "option '--nrhs' needs an integer from 1 to 1000000, got '0'" ${g} --n 10 --nrhs 0)
exala_cli_error(stripe_generate_seed "option '--seed' needs a non-negative integer, got '-3'"
                ${g} --n 10 --seed=-3)
exala_cli_error(stripe_generate_output
  "option '-o' does not apply to 'generate dense' (it writes to --workdir)" ${g} --n 10 -o x)
exala_cli_error(stripe_generate_threads "option '--threads' does not apply to 'generate dense'"
                ${g} --n 10 --threads 2)
exala_cli_error(stripe_generate_force_value "option '--force' takes no value" ${g} --n 10 --force=yes)
exala_cli_error(stripe_generate_trsv_workdir
  "option '--workdir' does not apply to 'generate trsv' (see 'exala --help')"
  generate trsv --n 3 --cond 10 -o ${stripe_dir}/trsv --workdir ${wd})
exala_cli_error(stripe_generate_cache
  "option '--cache' does not apply to 'generate' (see 'exala --help')" ${g} --n 10 --cache 1G)

# ---- import: file errors name the file and the line ----
set(i import --workdir ${wd} --force --quiet)
exala_cli_error(stripe_import_output
  "option '-o' does not apply to 'import' (it writes to --workdir)"
  ${i} stripe_a.mtx stripe_b.mtx -o x.mtx)
exala_cli_error(stripe_import_missing "nosuch.mtx: cannot open file: No such file or directory"
                ${i} nosuch.mtx stripe_b.mtx)
exala_cli_error(stripe_import_not_square "import: stripe_rect.mtx (3 x 4) is not square"
                ${i} stripe_rect.mtx stripe_b.mtx)
exala_cli_error(stripe_import_b_rows
  "import: stripe_b5.mtx (5 x 1) does not fit stripe_a.mtx (8 x 8): B needs 8 rows, one column per right-hand side"
  ${i} stripe_a.mtx stripe_b5.mtx)
exala_cli_error(stripe_import_buffer_small
  "import: --buffer 63 B holds 0 rows of stripe_a.mtx (64 bytes a row): give a larger --buffer"
  ${i} stripe_a.mtx stripe_b.mtx --buffer 63)
exala_cli_error(stripe_import_buffer_stripe
  "import: --buffer 200 B holds 3 rows of stripe_a.mtx (64 bytes a row), fewer than one stripe (--stripe 4)"
  ${i} stripe_a.mtx stripe_b.mtx --buffer 200 --stripe 4)
exala_cli_test(stripe_import_stdin_passes RC 2 STDIN stripe_a.mtx
  STDERR "exala: error: import: <stdin> can be read only once, but --buffer 200 B holds 3 rows of <stdin> (64 bytes a row): give a file, or a --buffer of at least 512 B"
  ARGS ${i} - stripe_b.mtx --buffer 200 --stripe 1)
foreach(case
    "bad_row|5: row index '9' is not an integer from 1 to 3"
    "bad_col|4: column index '0' is not an integer from 1 to 3"
    "bad_upper|4: entry (1, 2) is above the diagonal: a symmetric file stores the lower triangle only"
    "bad_skew_diag|4: entry (2, 2) is on the diagonal: a skew-symmetric file stores the strict lower triangle only"
    "bad_dup|6: entry (2, 2) is given twice"
    "bad_few|5: too few entries, expected 4, found 3 before the end of the file"
    "bad_many|6: too many entries, expected 3"
    "bad_line|4: bad entry line '2 2', expected 'I J VALUE'"
    "bad_value|4: 'x2' is not a real number"
    "bad_nnz|2: 7 entries do not fit a 3 x 3 symmetric matrix (6 positions in the stored triangle)"
    "bad_size|2: bad size line '3 3', expected 'M N NNZ' (three counts) for a coordinate file"
    "bad_complex|1: field 'complex' is not supported yet, expected 'real' or 'integer'"
    "bad_hermitian|1: symmetry 'hermitian' is not supported yet, expected 'general', 'symmetric' or 'skew-symmetric'"
    "bad_array_sym|1: symmetry 'symmetric' is supported for coordinate files only, expected 'general' for an array file"
    "bad_sym_rect|2: a symmetric matrix must be square, got 3 x 4"
    # Non-finite values: the file and line, not the C++ argument (issue 15 row 12).
    "bad_nan|5: entry (3, 1) is nan: the matrix must be finite"
    "bad_inf|4: entry (2, 2) is inf: the matrix must be finite")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 stem)
  list(GET fields 1 message)
  # As A of import (one pass, then passes of one row; each test its own
  # work directory, as tests run in parallel), and of an in-core solve.
  exala_cli_error(stripe_import_${stem} "stripe_${stem}.mtx:${message}"
                  import --workdir ${stripe_dir}/golden_${stem} --force --quiet
                  stripe_${stem}.mtx stripe_b3.mtx)
  exala_cli_error(stripe_import_passes_${stem} "stripe_${stem}.mtx:${message}"
                  import --workdir ${stripe_dir}/golden_passes_${stem} --force --quiet
                  stripe_${stem}.mtx stripe_b3.mtx --buffer 30 --stripe 1)
  exala_cli_error(stripe_solve_${stem} "stripe_${stem}.mtx:${message}"
                  solve stripe_${stem}.mtx stripe_b3.mtx)
endforeach()
# As B.
exala_cli_error(stripe_import_bad_b "stripe_bad_dup.mtx:6: entry (2, 2) is given twice"
                ${i} stripe_singular.mtx stripe_bad_dup.mtx)
exala_cli_error(stripe_import_bad_b_inf
  "stripe_bad_b_inf.mtx:4: entry (2, 1) is -inf: the right-hand sides must be finite"
  ${i} stripe_singular.mtx stripe_bad_b_inf.mtx)
exala_cli_error(stripe_solve_bad_b_inf
  "stripe_bad_b_inf.mtx:4: entry (2, 1) is -inf: the right-hand sides must be finite"
  solve stripe_singular.mtx stripe_bad_b_inf.mtx)
exala_cli_error(stripe_solve_not_square "solve: stripe_rect.mtx (3 x 4) is not square"
                solve stripe_rect.mtx stripe_b.mtx)
exala_cli_error(stripe_solve_b_rows
  "solve: stripe_b5.mtx (5 x 1) does not fit stripe_a.mtx (8 x 8): B needs 8 rows, one column per right-hand side"
  solve stripe_a.mtx stripe_b5.mtx)
# A singular matrix: the library names the column; the advice names the options.
exala_cli_error_regex(stripe_solve_singular
  "stripe LU: zero pivot at column 1 \\(0-based\\).*try --pivot partial in core or a larger --substripe\\)$"
  solve stripe_singular.mtx stripe_b3.mtx --quiet)

# A refined solution whose backward error stays far above 2u is an error, not
# a result (issue 15 row 4): Wilkinson's matrix, whose LU (partial pivoting
# within the one substripe, or in core) grows like 2^n. Nothing on stdout.
set(growth_message "solve: after refinement the backward error is [0-9.]+e-[0-9]+, far above the 2u = 2\\.2e-16 that refinement reaches from sound factors \\(limit 2\\^10 u = 1\\.1e-13\\): no solution is written")
exala_cli_error_regex(stripe_solve_growth "${growth_message}"
                      solve stripe_growth.mtx stripe_growth_b.mtx --quiet)
exala_cli_error_regex(stripe_solve_growth_partial "${growth_message}"
                      solve stripe_growth.mtx stripe_growth_b.mtx --quiet --pivot partial)
exala_cli_error_regex(stripe_solve_growth_refine3 "${growth_message}"
                      solve stripe_growth.mtx stripe_growth_b.mtx --quiet --refine=3)
# With the summary: it says what refinement did, without "(converged)".
exala_cli_test(stripe_solve_growth_summary RC 2
  STDERR_REGEX "^  refinement: [0-9]+ steps?, backward error [^ ]+ -> [^ ]+, "
  ARGS solve stripe_growth.mtx stripe_growth_b.mtx)

# ---- whole runs (stripe_test.sh) ----
# Each one is a bash script run with the tool, a scratch folder and the data
# folder; it prints what it checks and fails on the first difference.
function(exala_stripe_script name mode)
  add_test(NAME cli.stripe_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/stripe_test.sh ${mode} $<TARGET_FILE:exala>
                   ${stripe_dir}/${name} ${EXALA_CLI_DATA} ${ARGN})
  set_tests_properties(cli.stripe_${name} PROPERTIES LABELS cli TIMEOUT 120)
endfunction()
exala_stripe_script(roundtrip_50 generated 50)
exala_stripe_script(roundtrip_300 generated 300)
exala_stripe_script(import_array_50 import_array 50)
exala_stripe_script(import_array_300 import_array 300)
exala_stripe_script(import_coordinate import_coordinate)
exala_stripe_script(output stdout_and_summary)
exala_stripe_script(pivot_partial pivot_partial)
exala_stripe_script(existing_system existing_system)
exala_stripe_script(kill_resume kill_resume)
exala_stripe_script(disk_full disk_full)
exala_stripe_script(corrupted corrupted)
exala_stripe_script(foreign_files foreign_files)
exala_stripe_script(lock_all_dirs lock_all_dirs)
exala_stripe_script(unreadable_workdir unreadable_workdir)
exala_stripe_script(range range)

# Every test above may use the empty work directory.
get_property(stripe_tests DIRECTORY PROPERTY TESTS)
list(FILTER stripe_tests INCLUDE REGEX "^cli\\.stripe_")
list(REMOVE_ITEM stripe_tests cli.stripe_setup)
set_tests_properties(${stripe_tests} PROPERTIES FIXTURES_REQUIRED cli_stripe_empty)
