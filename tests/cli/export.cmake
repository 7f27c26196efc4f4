# Cli tests of `exala export` (issue 20 item 4) and of the forward-error line
# of `exala solve --workdir` (included from CMakeLists.txt after stripe.cmake,
# whose empty work directory and exala_cli_error_regex it uses). Golden tests
# of argument errors (exit status 2, one line on stderr, nothing on stdout),
# and scripted whole runs (export_test.sh): round trips compared with cmp,
# the exact 17-digit tokens of special values, atomic output, the forward
# error against awk's computation from the exported files, the solution that
# solve --workdir stores, the lock.
set(export_dir ${CMAKE_CURRENT_BINARY_DIR}/export)
set(export_tests)

exala_cli_test(export_help STDOUT_REGEX "^  export matrix\\|rhs\\|solution\\|reference$" ARGS --help)

# ---- argument errors (all found before a file is read) ----
foreach(case
    "no_workdir#export needs '--workdir DIR'#export matrix"
    "no_part#export needs 1 operand (exala export matrix|rhs|solution|reference), got 0#export"
    "two_parts#export needs 1 operand (exala export matrix|rhs|solution|reference), got 2#export matrix rhs"
    "unknown_part#export: unknown part 'system' (expected matrix|rhs|solution|reference)#export system --workdir ${stripe_dir}/empty"
    "threads#option '--threads' does not apply to 'export'#export rhs --workdir ${stripe_dir}/empty --threads 2"
    "backend#option '--backend' does not apply to 'export'#export rhs --workdir ${stripe_dir}/empty --backend simd"
    "rounding#option '--rounding' does not apply to 'export'#export rhs --workdir ${stripe_dir}/empty --rounding up"
    "cache#option '--cache' does not apply to 'export' (see 'exala --help')#export rhs --workdir ${stripe_dir}/empty --cache 1M"
    "force#option '--force' does not apply to 'export' (see 'exala --help')#export rhs --workdir ${stripe_dir}/empty --force"
    "workdir_twice#option '--workdir' names 'a' twice#export rhs --workdir a,a"
    "progress_interval#option '--progress-interval' needs a number of seconds >= 0, got '-1'#export matrix --workdir ${stripe_dir}/empty --progress-interval=-1"
    "buffer_zero#option '--buffer' needs a positive size, got '0'#export matrix --workdir ${stripe_dir}/empty --buffer 0"
    "missing_workdir#work directory '${export_dir}/no-such-dir' does not exist#export rhs --workdir ${export_dir}/no-such-dir"
    "output_dir_missing#${export_dir}/no-such-dir/x.mtx: cannot create file: No such file or directory#export rhs --workdir ${stripe_dir}/empty -o ${export_dir}/no-such-dir/x.mtx"
    "output_is_dir#${stripe_dir}/empty: is a directory#export rhs --workdir ${stripe_dir}/empty -o ${stripe_dir}/empty")
  string(REPLACE "#" ";" fields "${case}")
  list(POP_FRONT fields name message args)
  string(REPLACE " " ";" args "${args}")
  exala_cli_error(export_${name} "${message}" ${args})
  list(APPEND export_tests cli.export_${name})
endforeach()
# A directory without a system: the library's message names the manifest.
exala_cli_error_regex(export_empty_workdir "file '[^']*/empty/manifest': missing: "
                      export matrix --workdir ${stripe_dir}/empty)
list(APPEND export_tests cli.export_empty_workdir)
set_tests_properties(${export_tests} PROPERTIES FIXTURES_REQUIRED cli_stripe_empty)

# ---- whole runs (export_test.sh) ----
foreach(mode roundtrip special_values atomic_output killed forward_error stored_solution locked)
  add_test(NAME cli.export_${mode}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/export_test.sh ${mode} $<TARGET_FILE:exala>
                   ${export_dir}/${mode} ${EXALA_CLI_DATA})
  set_tests_properties(cli.export_${mode} PROPERTIES LABELS cli TIMEOUT 120)
endforeach()
