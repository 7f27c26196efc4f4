#!/usr/bin/env python3
"""numpy.dot and @ under LD_PRELOAD=libexala_blas.so (issue 20, item 3).

    numpy_preload.py <libexala_blas.so> [--no-preload]

On float64 arrays numpy hands dot products, matrix-vector and matrix-matrix
products to CBLAS (cblas_ddot, cblas_dgemv, cblas_dgemm; A @ A.T to
cblas_dsyrk) when the operands are laid out for it (see the README section
"numpy and other BLAS clients"). Under the preload those calls reach ExaLA,
so every entry is the exact value rounded once, whatever the thread count.
What numpy computes itself (np.sum, np.einsum without optimize, @ on strided
views, float32 and complex products, which this library does not provide)
stays as it was.

What the test does, on data built so that every product term is up to 2^48
and the results are about 2^8 (each row pairs a with fl(d - a), so the big
terms cancel and only a small remainder is left): it computes the exact
values in this process with fractions.Fraction (every double is an integer
over a power of two, so the sum of products is one integer over 2^K;
float(Fraction) is correctly rounded), then runs numpy in child processes:

  - plain (the system BLAS, OPENBLAS_NUM_THREADS = 1 and 2): the results must
    differ from the exact values (otherwise the data would not show anything);
  - preloaded, backends simd, reference and omp with 1, 2, 5 and OpenMP's
    default (OMP_NUM_THREADS=3) threads, OPENBLAS_NUM_THREADS 1 and 2: every
    entry must have the bits of its exact value, all runs the same bits, and
    the served-call report (EXALA_BLAS_REPORT) must name the CBLAS routines;
  - np.sum, np.sum(x*y), np.einsum, a float32 dot and @ on strided views must
    give the same bits with and without the preload, and a preloaded process
    that computes only those must serve no BLAS call.

--no-preload runs the "preloaded" children without LD_PRELOAD (a mutation
check: the test must then fail and report the mismatches).

Exit status: 0 on success, 77 (ctest SKIP_RETURN_CODE) when numpy cannot be
imported, 1 on a failure, 2 on bad usage.
"""
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

SKIP = 77
SEED = 20  # issue 20

# Sizes: big enough for ExaLA's omp backend to split the work (dot: 32768
# elements per thread, gemv: 65536 products per thread) and for OpenBLAS to
# thread its ddot (n > 10000); small enough for the exact sums (~1.1 million
# products) to take about a second.
DOT_HALF = 50000              # dot: n = 100000
GEMV_ROWS, GEMV_HALF = 256, 512   # A is 256 x 1024
GEMM_M, GEMM_HALF, GEMM_N = 32, 256, 32   # G is 32 x 512, H is 512 x 32
SMALL_F32 = 1000              # float32 dot (falls through to the system BLAS)

# The routines the "blas" part must have sent to the library, with the least
# number of calls (numpy 1.24: x@y and np.dot(x, y): 2 ddot; A@v, np.dot(A, v)
# and G[0]@H: 3 dgemv; G@H and np.dot(G, H): 2 dgemm; G@G.T: 1 dsyrk).
REQUIRED_CALLS = {"cblas_ddot": 2, "cblas_dgemv": 3, "cblas_dgemm": 2, "cblas_dsyrk": 1}

CHILD = r"""
import ctypes, sys
import numpy as np
data, out, modes = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
d = np.load(data)
x, y, A, v, G, H = (d[k] for k in ("x", "y", "A", "v", "G", "H"))
r = {}
if "blas" in modes:                     # reaches cblas_* (numpy 1.24)
    r["dot"] = np.array([x @ y, np.dot(x, y)])       # cblas_ddot
    r["gemv"] = np.stack([A @ v, np.dot(A, v)])      # cblas_dgemv
    r["vecmat"] = G[0] @ H                           # cblas_dgemv (transposed)
    r["gemm"] = np.stack([G @ H, np.dot(G, H)])      # cblas_dgemm
    r["gram"] = G @ G.T                              # cblas_dsyrk
if "noblas" in modes:                   # numpy's own loops, or not ExaLA's
    r["sum_x"] = np.array([np.sum(x)])               # pairwise summation
    r["sum_xy"] = np.array([np.sum(x * y)])          # products rounded, then summed
    r["einsum"] = np.array([np.einsum("i,i", x, y)]) # einsum's own loop
    xf, yf = x[:%(f32)d].astype(np.float32), y[:%(f32)d].astype(np.float32)
    r["f32"] = np.array([np.dot(xf, yf)])            # cblas_sdot: not in libexala_blas
    r["strided"] = G[:, ::2] @ H[::2, :]             # not blasable: numpy's loop
np.savez(out, **r)
preloaded = hasattr(ctypes.CDLL(None), "exala_blas_abi_version")
print("preloaded", int(preloaded), "numpy", np.__version__)
""" % {"f32": SMALL_F32}


# ----------------------------------------------------------------- the data

def cancelling_rows(np, rng, m, h, e_lo=20, e_hi=40):
    """m rows of length 2h: h big values a (|a| < 2^e_hi) and h values fl(d - a)
    with |d| < 1, so that a + fl(d - a) is a small number (exactly)."""
    a = rng.uniform(-1, 1, (m, h)) * 2.0 ** rng.integers(e_lo, e_hi + 1, (m, h))
    d = rng.uniform(-1, 1, (m, h))
    return np.concatenate([a, d - a], axis=1)


def partner_cols(np, rng, h, n):
    """2h x n: a block b (|b| < 2^8) stacked on itself, so that row i of
    cancelling_rows times column j is sum_l (a_il + fl(d_il - a_il)) b_lj
    exactly: terms up to 2^48, sum about 2^8."""
    b = rng.uniform(-1, 1, (h, n)) * 2.0 ** rng.integers(-8, 9, (h, n))
    return np.concatenate([b, b], axis=0)


def make_data(np):
    rng = np.random.default_rng(SEED)

    def pair(m, h, n):
        left, right = cancelling_rows(np, rng, m, h), partner_cols(np, rng, h, n)
        perm = rng.permutation(2 * h)  # interleave the two halves
        return np.ascontiguousarray(left[:, perm]), np.ascontiguousarray(right[perm, :])

    x, y = pair(1, DOT_HALF, 1)
    A, v = pair(GEMV_ROWS, GEMV_HALF, 1)
    G, H = pair(GEMM_M, GEMM_HALF, GEMM_N)
    return {"x": x[0].copy(), "y": y[:, 0].copy(), "A": A, "v": v[:, 0].copy(), "G": G, "H": H}


# ------------------------------------------------------------- exact values

def ratios(values):
    """Each double as (numerator, k) with value = numerator / 2^k exactly."""
    out = []
    for t in values:
        num, den = float(t).as_integer_ratio()
        out.append((num, den.bit_length() - 1))
    return out


def exact_dot(a, b):
    """sum a_i b_i exactly, a Fraction: one integer over 2^K (a and b from ratios())."""
    terms = [(p * q, r + s) for (p, r), (q, s) in zip(a, b)]
    k = max(t[1] for t in terms)
    return Fraction(sum(n << (k - e) for n, e in terms), 1 << k)


def fraction_dot(a, b):
    """The same sum written the plain way (the cross-check of exact_dot)."""
    return sum((Fraction(float(s)) * Fraction(float(t)) for s, t in zip(a, b)), Fraction(0))


def exact_values(np, data):
    x, y, A, v, G, H = (data[k] for k in ("x", "y", "A", "v", "G", "H"))
    rx, ry, rv = ratios(x), ratios(y), ratios(v)
    rA = [ratios(row) for row in A]
    rG = [ratios(row) for row in G]
    rH = [ratios(col) for col in H.T]
    ex = {}
    ex["dot"] = exact_dot(rx, ry)
    ex["gemv"] = [exact_dot(row, rv) for row in rA]
    ex["gemm"] = [[exact_dot(row, col) for col in rH] for row in rG]
    gram = [[None] * GEMM_M for _ in range(GEMM_M)]
    for i in range(GEMM_M):
        for j in range(i + 1):
            gram[i][j] = gram[j][i] = exact_dot(rG[i], rG[j])
    ex["gram"] = gram
    ex["sum_x"] = sum((Fraction(float(t)) for t in x), Fraction(0))
    # exact_dot against the literal sum of Fraction products, on some entries
    checks = [(x[:20000], y[:20000], exact_dot(rx[:20000], ry[:20000])),
              (A[0], v, ex["gemv"][0]), (A[-1], v, ex["gemv"][-1]),
              (G[0], H[:, 0], ex["gemm"][0][0]), (G[-1], H[:, -1], ex["gemm"][-1][-1]),
              (G[3], G[5], gram[3][5])]
    for a, b, e in checks:
        if fraction_dot(a, b) != e:
            raise AssertionError("exact_dot disagrees with the sum of Fraction products")
    return ex


def rounded(np, ex):
    """The correctly rounded values, as numpy arrays shaped like the results."""
    dot = float(ex["dot"])
    gemv = np.array([float(e) for e in ex["gemv"]])
    gemm = np.array([[float(e) for e in row] for row in ex["gemm"]])
    return {"dot": np.array([dot, dot]), "gemv": np.stack([gemv, gemv]),
            "vecmat": gemm[0].copy(), "gemm": np.stack([gemm, gemm]),
            "gram": np.array([[float(e) for e in row] for row in ex["gram"]])}


# ------------------------------------------------------------- the children

def run_child(tmp, name, env, modes):
    out = os.path.join(tmp, name + ".npz")
    r = subprocess.run([sys.executable, "-c", CHILD, os.path.join(tmp, "data.npz"), out, modes],
                       env=env, capture_output=True, text=True, timeout=300)
    return r, out


def served_calls(path):
    """{routine: calls} from an EXALA_BLAS_REPORT file (None: no report written)."""
    if not os.path.exists(path):
        return None
    calls = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] not in ("routine", "total"):
                try:
                    calls[parts[0]] = calls.get(parts[0], 0) + int(parts[1])
                except ValueError:
                    pass
    return calls


def bits_equal(a, b):
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def wrong_entries(np, got, want):
    """How many entries differ in bits, and the first one (index, got, want)."""
    g, w = got.reshape(-1), want.reshape(-1)
    bad = np.nonzero(g.view(np.uint64) != w.view(np.uint64))[0]
    if bad.size == 0:
        return 0, None
    i = int(bad[0])
    return int(bad.size), (np.unravel_index(i, got.shape), float(g[i]), float(w[i]))


def describe(name, count, first, total):
    if count == 0:
        return "%-7s all %d entries correctly rounded" % (name, total)
    idx, g, w = first
    return ("%-7s %d of %d entries differ from the correctly rounded value, e.g. %s: %r (%s) "
            "instead of %r (%s)" % (name, count, total, tuple(int(t) for t in idx), g, g.hex(), w,
                                    w.hex()))


def main():
    args = [a for a in sys.argv[1:] if a != "--no-preload"]
    mutation = "--no-preload" in sys.argv[1:]
    if len(args) != 1:
        print("usage: numpy_preload.py <libexala_blas.so> [--no-preload]", file=sys.stderr)
        return 2
    lib = os.path.abspath(args[0])
    try:
        import numpy as np
    except Exception as e:  # ImportError, or a broken installation
        print("SKIPPED: numpy cannot be imported by %s (python3 -c 'import numpy' fails: %s); "
              "install python3-numpy (Debian) for this interpreter to run this test"
              % (sys.executable, e))
        return SKIP
    if not os.path.exists(lib):
        print("FAILED: %s does not exist" % lib)
        return 1
    print("numpy %s from %s, python %s" % (np.__version__, os.path.dirname(np.__file__),
                                           sys.executable))
    t0 = time.time()
    data = make_data(np)
    ex = exact_values(np, data)
    want = rounded(np, ex)
    print("data: dot n = %d, gemv %dx%d @ %d, gemm %dx%d @ %dx%d, gram %dx%d @ its transpose; "
          "terms up to 2^48, results about 2^8 (seed %d)"
          % (data["x"].size, GEMV_ROWS, 2 * GEMV_HALF, 2 * GEMV_HALF, GEMM_M, 2 * GEMM_HALF,
             2 * GEMM_HALF, GEMM_N, GEMM_M, 2 * GEMM_HALF, SEED))
    print("exact values (fractions.Fraction, rounded once by float()): %.1f s; x . y = %r (%s)"
          % (time.time() - t0, float(ex["dot"]), float(ex["dot"]).hex()))

    base = dict(os.environ)
    for k in list(base):
        if k.startswith("EXALA_") or k in ("LD_PRELOAD", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            del base[k]
    base["OMP_WAIT_POLICY"] = "passive"

    plain_cfgs = [("plain, OPENBLAS_NUM_THREADS=1", {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}),
                  ("plain, OPENBLAS_NUM_THREADS=2", {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"})]
    exala_cfgs = [
        ("exala simd (default), OPENBLAS_NUM_THREADS=2", {"OPENBLAS_NUM_THREADS": "2"}),
        ("exala reference, OPENBLAS_NUM_THREADS=1", {"EXALA_BACKEND": "reference", "OPENBLAS_NUM_THREADS": "1"}),
        ("exala omp, EXALA_NUM_THREADS=1", {"EXALA_BACKEND": "omp", "EXALA_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}),
        ("exala omp, EXALA_NUM_THREADS=2", {"EXALA_BACKEND": "omp", "EXALA_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}),
        ("exala omp, EXALA_NUM_THREADS=5", {"EXALA_BACKEND": "omp", "EXALA_NUM_THREADS": "5", "OPENBLAS_NUM_THREADS": "2"}),
        ("exala omp, OMP_NUM_THREADS=3", {"EXALA_BACKEND": "omp", "OMP_NUM_THREADS": "3", "OPENBLAS_NUM_THREADS": "1"}),
    ]
    failures = []
    blas_keys = ["dot", "gemv", "vecmat", "gemm", "gram"]
    noblas_keys = ["sum_x", "sum_xy", "einsum", "f32", "strided"]
    sizes = {k: want[k].size for k in blas_keys}

    with tempfile.TemporaryDirectory(prefix="exala_numpy_preload_") as tmp:
        np.savez(os.path.join(tmp, "data.npz"), **data)

        def child(label, extra, modes, preload, report):
            env = dict(base, **extra)
            if preload and not mutation:
                env["LD_PRELOAD"] = lib
            if report:
                env["EXALA_BLAS_REPORT"] = report
            r, out = run_child(tmp, "c%d" % len(results), env, modes)
            if r.returncode != 0 or not os.path.exists(out):
                failures.append("%s: the child failed (status %d):\n%s%s"
                                % (label, r.returncode, r.stdout, r.stderr))
                return None
            if r.stderr.strip():
                print("  [%s] stderr: %s" % (label, r.stderr.strip()))
            if preload and "preloaded 1" not in r.stdout:
                failures.append("%s: libexala_blas.so was not loaded (exala_blas_abi_version "
                                "not found in the process)" % label)
            with np.load(out) as z:
                res = {k: z[k] for k in z.files}
            results.append((label, res))
            return res

        results = []
        # --- plain: the system BLAS; the data must make it wrong
        print("\n--- without the preload (the system BLAS)")
        plain = []
        for label, extra in plain_cfgs:
            res = child(label, extra, "blas,noblas", False, None)
            if res is None:
                continue
            plain.append((label, res))
            print(label + ":")
            for k in blas_keys:
                n, first = wrong_entries(np, res[k], want[k])
                print("  " + describe(k, n, first, sizes[k]))
                if n == 0 and k in ("dot", "gemv", "gemm"):
                    failures.append("%s: %s gave the correctly rounded values without the preload: "
                                    "the data do not show what the preload changes" % (label, k))
        if len(plain) == 2:
            same = all(bits_equal(plain[0][1][k], plain[1][1][k]) for k in blas_keys)
            print("system BLAS with 1 and 2 threads: %s" %
                  ("same bits" if same else "DIFFERENT bits (%s)" % ", ".join(
                      k for k in blas_keys if not bits_equal(plain[0][1][k], plain[1][1][k]))))

        # --- preloaded: exact bits, whatever the backend and thread count
        print("\n--- LD_PRELOAD=%s%s" % (lib, "   [--no-preload: NOT SET, mutation check]" if mutation else ""))
        hashes = {}
        exala = []
        for i, (label, extra) in enumerate(exala_cfgs):
            report = os.path.join(tmp, "report%d.txt" % i)
            res = child(label, extra, "blas,noblas", True, report)
            if res is None:
                continue
            exala.append((label, res))
            h = hashlib.sha256(b"".join(res[k].tobytes() for k in blas_keys)).hexdigest()[:16]
            hashes.setdefault(h, []).append(label)
            print("%s: sha256 %s" % (label, h))
            for k in blas_keys:
                n, first = wrong_entries(np, res[k], want[k])
                if n:
                    print("  " + describe(k, n, first, sizes[k]))
                    failures.append("%s: %s: %d of %d entries are not the correctly rounded value"
                                    % (label, k, n, sizes[k]))
            calls = served_calls(report)
            if calls is None:
                failures.append("%s: no served-call report (EXALA_BLAS_REPORT) was written" % label)
            else:
                print("  served: " + (", ".join("%s %d" % kv for kv in sorted(calls.items())) or "none"))
                for name, least in REQUIRED_CALLS.items():
                    if calls.get(name, 0) < least:
                        failures.append("%s: %s served %d calls, expected at least %d"
                                        % (label, name, calls.get(name, 0), least))
        if exala and not any(f for f in failures if "entries are not" in f):
            print("every entry of x@y, np.dot(x, y), A@v, np.dot(A, v), G[0]@H, G@H, np.dot(G, H) "
                  "and G@G.T has the bits of its exact value, in every run")
        if len(hashes) > 1:
            failures.append("the preloaded runs gave %d different results: %s"
                            % (len(hashes), "; ".join(" / ".join(v) for v in hashes.values())))

        # --- what numpy computes without BLAS: unchanged by the preload
        print("\n--- computed without ExaLA (np.sum, np.sum(x*y), einsum, float32 dot, strided @)")
        report = os.path.join(tmp, "report_noblas.txt")
        res = child("exala simd, no-BLAS part only", {}, "noblas", True, report)
        calls = served_calls(report) if res is not None else {}
        if res is not None:
            print("preloaded process computing only these: served %s"
                  % (", ".join("%s %d" % kv for kv in sorted(calls.items())) if calls else "nothing"))
            if calls is None:
                failures.append("no-BLAS part: no served-call report was written")
            elif calls:
                failures.append("no-BLAS part: libexala_blas served %s" % calls)
        if plain:
            ref = plain[0][1]
            for label, r in exala + ([("no-BLAS part only", res)] if res is not None else []):
                for k in noblas_keys:
                    if not bits_equal(r[k], ref[k]):
                        failures.append("%s: %s changed under the preload" % (label, k))
            exact_sum = float(ex["sum_x"])
            exact_dot_v = float(ex["dot"])
            for k, e, what in (("sum_x", exact_sum, "np.sum(x)          "),
                               ("sum_xy", exact_dot_v, "np.sum(x * y)      "),
                               ("einsum", exact_dot_v, "np.einsum('i,i')   ")):
                g = float(ref[k][0])
                print("%s = %r (%s), the same with and without the preload; exact %r: %s"
                      % (what, g, g.hex(), e, "equal" if g == e else "differs"))
            print("float32 np.dot (cblas_sdot, the system BLAS's) and G[:, ::2] @ H[::2, :] "
                  "(numpy's loop): the same bits with and without the preload")

    if failures:
        print("\nFAILED:")
        for f in failures:
            print("  " + f)
        return 1
    print("\nOK (%.1f s)" % (time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
