#!/usr/bin/env python3
"""Writes the hostile-input files of the cli tests (issue 15) into data/:
sizes whose products overflow or exceed any memory (with no values, so the
files are valid and tiny), lines and values beyond the reader's limits, and
a triangular system whose solution overflows. Run from tests/cli:
    python3 make_hostile_data.py
"""
import os

HEADER = "%%MatrixMarket matrix array real general\n"
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def write(name, text):
    with open(os.path.join(DATA, name), "w", newline="\n") as f:
        f.write(text)


def main():
    # Valid empty matrices with huge dimensions: 2^k x 0 and 0 x 2^k.
    for k in (31, 32, 40):
        write("empty_rows%d.mtx" % k, HEADER + "%% 2^%d x 0: no values\n%d 0\n" % (k, 2 ** k))
        write("empty_cols%d.mtx" % k, HEADER + "%% 0 x 2^%d: no values\n0 %d\n" % (k, 2 ** k))
    write("empty_0x1.mtx", HEADER + "0 1\n")
    # A size line of 1104 characters (1101 leading zeros): beyond the
    # 1024-character limit of header and size lines.
    write("size_line_long.mtx", HEADER + "0" * 1101 + "3 1\n1\n2\n3\n")
    # A header line of 1100 characters.
    write("header_line_long.mtx", HEADER.rstrip("\n") + " " * 1059 + "\n1 1\n1\n")
    # A comment line of 5000 characters is skipped (comments have no limit).
    write("comment_long.mtx", HEADER + "%" + "c" * 4999 + "\n3 1\n1\n2\n3\n")
    # A value of 1103 characters (0.000...01): beyond the 1024-character
    # limit of one value.
    write("value_long.mtx", HEADER + "1 1\n0." + "0" * 1100 + "1\n")
    # A value of exactly 1024 characters is read (0.5 with 1021 zeros).
    write("value_1024.mtx", HEADER + "1 1\n0.5" + "0" * 1021 + "\n")
    # 300 values on one line of 1191 characters: value lines have no limit.
    write("values_one_line.mtx",
          HEADER + "300 1\n" + " ".join(str(i) for i in range(1, 301)) + "\n")
    # A coordinate entry line of 1107 characters.
    write("coord_line_long.mtx",
          "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1." + "0" * 1100 +
          "\n2 2 1\n")
    # Lower-triangular T = [1e-10 0 0; 1 1 0; 1 1 1] (column-major) and
    # b = (1e308, 0, 1): the exact solution is x = (1e318, -1e318, 1) with
    # x1 and x2 beyond the double range; x2 = -inf is computed from x1 = inf
    # (and every substitution meets inf - inf in x3: NaN for the value 1).
    write("l23_overflow.mtx", HEADER + "3 3\n1e-10\n1\n1\n0\n1\n1\n0\n0\n1\n")
    write("l23_overflow_b.mtx", HEADER + "3 1\n1e308\n0\n1\n")
    # T = [1 0 0; 0 1 0; 10 -10 1], b = (1e308, 1e308, 1): the exact x =
    # (1e308, 1e308, 1) is representable, but a substitution in double
    # meets 1 - 10 * 1e308 = -inf, then -inf + inf = NaN in x3.
    write("l23_overflow_mid.mtx", HEADER + "3 3\n1\n0\n10\n0\n1\n-10\n0\n0\n1\n")
    write("l23_overflow_mid_b.mtx", HEADER + "3 1\n1e308\n1e308\n1\n")
    write("expected_l23_x_overflow_mid.mtx",
          HEADER + "3 1\n" + "".join("%.17g\n" % v for v in (1e308, 1e308, 1.0)))
    # 1 x 1: x = 1e308 / 1e-10 = 1e318 rounds to inf (IEEE), computed from
    # finite values only: kept.
    write("l23_inf1.mtx", HEADER + "1 1\n1e-10\n")
    write("l23_inf1_b.mtx", HEADER + "1 1\n1e308\n")


if __name__ == "__main__":
    main()
