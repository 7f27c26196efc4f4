#!/usr/bin/env python3
"""Writes the small Matrix Market systems of the stripe LU cli tests
(tests/cli/data/stripe_*.mtx; stripe.cmake and stripe_test.sh use them).

Each matrix is written twice: in a coordinate form (general with the entries
shuffled and comments among them, symmetric lower triangle, skew-symmetric
strict lower triangle, integer and real fields) and as the equivalent dense
array file. The tests import the coordinate form and check that the solution
has the same bits as the in-core solve of the array form: the reader, the
mirroring of symmetric entries and the passes of `exala import` must give
exactly the same matrix. Values are written with repr (17 significant digits
at most), so they read back to the same doubles.

Also Wilkinson's matrix (stripe_growth.mtx) and a right-hand side for it:
a system on which the refined solve fails.

usage: make_stripe_data.py [DATA_DIR]   (default: the data/ folder beside it)
"""
import os
import random
import sys

N = 8


def array_text(rows, cols, values, field="real"):
    """values: column-major list."""
    out = ["%%%%MatrixMarket matrix array %s general" % field, "%d %d" % (rows, cols)]
    out += [fmt(v, field) for v in values]
    return "\n".join(out) + "\n"


def fmt(v, field):
    return str(int(v)) if field == "integer" else repr(float(v))


def coordinate_text(rows, cols, entries, field="real", symmetry="general", comments=True):
    """entries: list of (i, j, v), 0-based."""
    out = ["%%%%MatrixMarket matrix coordinate %s %s" % (field, symmetry),
           "% written by make_stripe_data.py", "%d %d %d" % (rows, cols, len(entries))]
    for k, (i, j, v) in enumerate(entries):
        if comments and k == len(entries) // 2:
            out.append("% a comment among the entries")
            out.append("")
        out.append("%d %d %s" % (i + 1, j + 1, fmt(v, field)))
    return "\n".join(out) + "\n"


def colmajor(dense, rows, cols):
    return [dense[i][j] for j in range(cols) for i in range(rows)]


def write(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "data")
    rng = random.Random(20240611)

    # General: about a third of the entries zero, a strong diagonal.
    a = [[0.0] * N for _ in range(N)]
    for i in range(N):
        for j in range(N):
            if i == j:
                a[i][j] = rng.uniform(2, 4) * rng.choice([-1, 1])
            elif rng.random() < 0.65:
                a[i][j] = rng.uniform(-1, 1)
    b = [[rng.uniform(-1, 1) for _ in range(2)] for _ in range(N)]
    write(folder, "stripe_a.mtx", array_text(N, N, colmajor(a, N, N)))
    write(folder, "stripe_b.mtx", array_text(N, 2, colmajor(b, N, 2)))
    entries = [(i, j, a[i][j]) for i in range(N) for j in range(N) if a[i][j] != 0.0]
    rng.shuffle(entries)
    write(folder, "stripe_a_coord.mtx", coordinate_text(N, N, entries))
    write(folder, "stripe_b_coord.mtx",
          coordinate_text(N, 2, [(i, j, b[i][j]) for j in range(2) for i in range(N)]))

    # Symmetric (real): the lower triangle is stored.
    s = [[0.0] * N for _ in range(N)]
    for i in range(N):
        for j in range(i + 1):
            v = rng.uniform(3, 5) if i == j else (rng.uniform(-1, 1) if rng.random() < 0.7 else 0.0)
            s[i][j] = s[j][i] = v
    write(folder, "stripe_sym.mtx",
          coordinate_text(N, N, [(i, j, s[i][j]) for j in range(N) for i in range(j, N)
                                 if s[i][j] != 0.0], symmetry="symmetric"))
    write(folder, "stripe_sym_full.mtx", array_text(N, N, colmajor(s, N, N)))

    # Skew-symmetric (integer): the strict lower triangle is stored; the
    # diagonal is zero (N even: nonsingular for these entries).
    k = [[0] * N for _ in range(N)]
    for i in range(N):
        for j in range(i):
            v = rng.choice([-3, -2, -1, 1, 2, 3]) if (i - j == 1 or rng.random() < 0.5) else 0
            k[i][j], k[j][i] = v, -v
    write(folder, "stripe_skew.mtx",
          coordinate_text(N, N, [(i, j, k[i][j]) for j in range(N) for i in range(j + 1, N)
                                 if k[i][j] != 0], field="integer", symmetry="skew-symmetric"))
    write(folder, "stripe_skew_full.mtx", array_text(N, N, colmajor(k, N, N), field="integer"))

    # Wilkinson's matrix of order 100 (1 on the diagonal and in the last
    # column, -1 below the diagonal): partial pivoting leaves it as it is and
    # the last column of U grows to 2^99, so the LU backward error is O(1)
    # and refinement with the exact residual cannot recover it (its condition
    # number is only ~ 45). `exala solve` must then fail, not print x.
    # (Its own generator: the files above do not change.)
    w_rng = random.Random(15)
    W = 100
    w = [[1 if (i == j or j == W - 1) else (-1 if i > j else 0) for j in range(W)] for i in range(W)]
    write(folder, "stripe_growth.mtx", array_text(W, W, colmajor(w, W, W), field="integer"))
    write(folder, "stripe_growth_b.mtx",
          array_text(W, 1, [w_rng.uniform(-0.5, 0.5) for _ in range(W)]))


if __name__ == "__main__":
    main()
