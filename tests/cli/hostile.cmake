# Cli tests of hostile input and faults (issue 15; included from
# CMakeLists.txt): lines and values beyond the reader's limits. Inputs are
# written by make_hostile_data.py.

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

