#!/usr/bin/env python3
"""Turns bench/results/blas23.csv (run_blas23.sh output) into the Markdown
table of bench/README.md: per configuration and baseline, the median over
passes of our time and the baseline's, the median ratio ours / baseline, every
pass's ratio, and the issue's target. Usage: summarize_blas23.py [CSV]"""
import collections
import csv
import statistics
import sys

# (routine, data, backend, baseline) -> (target, "<=" or ">="): the issue's
# targets with 2 threads; compensated must be >= 1.8x faster than
# double-double, i.e. ours / double-double <= 1/1.8.
TARGETS = {
    ("gemv", "uniform", "omp", "openblas"): 1.5,
    ("trsv", "uniform", "omp", "openblas"): 2.0,
    ("trsv-compensated", "uniform", "seq", "openblas"): 2.0,
    ("trsv-compensated", "uniform", "seq", "double-double"): 1 / 1.8,
    ("gemm", "uniform", "omp", "openblas"): 10.0,
}
ORDER = ["gemv", "trsv", "trsv-compensated", "trsv-double-double", "gemm", "trsm"]
BASE_ORDER = ["openblas", "double-double", "naive"]


def fmt_time(s):
    if s < 1e-4:
        return f"{s * 1e6:.1f} µs"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/blas23.csv"
    groups = collections.defaultdict(lambda: {"ours": [], "base": [], "ratio": []})
    for r in csv.DictReader(open(path)):
        key = (r["routine"], int(r["n"]), r["data"], r["backend"], int(r["threads"]), r["baseline"])
        g = groups[key]
        g["ours"].append(float(r["seconds"]))
        g["base"].append(float(r["baseline_seconds"]))
        g["ratio"].append(float(r["ratio"]))
    print("| routine | n | data | backend (threads) | ours | baseline | baseline time "
          "| **ours / baseline** | all passes | target | met? |")
    print("|---|---:|---|---|---:|---|---:|---:|---|---:|:---:|")

    def sort_key(k):
        return (ORDER.index(k[0]), k[2], k[3] != "simd", BASE_ORDER.index(k[5]))

    for key in sorted(groups, key=sort_key):
        routine, n, data, be, th, base = key
        g = groups[key]
        ratio = statistics.median(g["ratio"])
        tgt = TARGETS.get((routine, data, be, base))
        if tgt is None:
            met, tgt_text = "—", "—"
        else:
            tgt_text = f"≤ {tgt:.3g}×" if tgt >= 1 else f"≤ {tgt:.3g}× (≥ {1 / tgt:.3g}× faster)"
            met = "yes" if ratio <= tgt else f"no ({ratio / tgt:.2f}× over)"
        label = {"openblas": "OpenBLAS", "double-double": "double-double", "naive": "naive"}[base]
        print(f"| {routine} | {n} | {data} | {be} ({th}) | {fmt_time(statistics.median(g['ours']))} "
              f"| {label} | {fmt_time(statistics.median(g['base']))} | **{ratio:.2f}×** "
              f"| {', '.join(f'{x:.2f}' for x in g['ratio'])} | {tgt_text} | {met} |")


if __name__ == "__main__":
    main()
