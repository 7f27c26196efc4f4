#!/usr/bin/env python3
"""Turns bench/results/blas1.csv (run_blas1.sh output) into the Markdown table
of bench/README.md: per configuration, the median over passes of our time, the
OpenBLAS and naive times and the ratio ours / OpenBLAS, every pass's ratio
listed, and the issue's target. Usage: summarize_blas1.py [CSV]"""
import collections
import csv
import statistics
import sys

TARGETS = {  # (routine, n, data, threads) -> target ratio against OpenBLAS
    # "in cache (n = 1e4): <= 6x", read as applying to every data kind
    ("sum", 10**4, "uniform", None): 6.0, ("dot", 10**4, "uniform", None): 6.0,
    ("sum", 10**4, "wide", None): 6.0, ("dot", 10**4, "wide", None): 6.0,
    ("sum", 10**7, "uniform", 2): 1.5, ("dot", 10**7, "uniform", 2): 1.2,
    ("sum", 10**7, "wide", 2): 2.0, ("dot", 10**7, "wide", 2): 2.0,
}


def fmt_time(s):
    return f"{s * 1e6:.2f} µs" if s < 1e-4 else f"{s * 1e3:.2f} ms"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/blas1.csv"
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in csv.DictReader(open(path)):
        key = (r["routine"], int(r["n"]), r["data"], r["backend"], int(r["threads"]))
        g = groups[key]
        g["ours"].append(float(r["seconds"]))
        g[r["baseline"]].append(float(r["baseline_seconds"]))
        if r["baseline"] == "openblas":
            g["ratio"].append(float(r["ratio"]))
    order = {"sum": 0, "dot": 1, "asum": 2}
    print("| routine | n | data | backend (threads) | ours | OpenBLAS | **ours / OpenBLAS** "
          "| all passes | naive | ours / naive | target | met? |")
    print("|---|---:|---|---|---:|---:|---:|---|---:|---:|---:|:---:|")
    for key in sorted(groups, key=lambda k: (order[k[0]], k[1], k[2], k[3])):
        routine, n, data, be, th = key
        g = groups[key]
        ours = statistics.median(g["ours"])
        ob = statistics.median(g["openblas"]) if g["openblas"] else float("nan")
        nv = statistics.median(g["naive"])
        ratio = statistics.median(g["ratio"]) if g["ratio"] else float("nan")
        tgt = TARGETS.get((routine, n, data, th), TARGETS.get((routine, n, data, None)))
        over = ratio / tgt if tgt else 0
        met = "—" if tgt is None else ("yes" if ratio <= tgt else
                                       f"no (+{(over - 1) * 100:.0f}%)" if over < 2 else f"no ({over:.1f}× over)")
        print(f"| {routine} | {('1e%d' % len(str(n)[1:]))} | {data} | {be} ({th}) | {fmt_time(ours)} | {fmt_time(ob)} "
              f"| **{ratio:.2f}×** | {', '.join(f'{x:.2f}' for x in g['ratio'])} | {fmt_time(nv)} "
              f"| {ours / nv:.2f}× | {'—' if tgt is None else f'≤ {tgt:g}×'} | {met} |")


if __name__ == "__main__":
    main()
