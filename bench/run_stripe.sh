#!/usr/bin/env bash
# The stripe LU measurements of issue 4 (2-core machine), into CSV + a plot.
#
#   bench/run_stripe.sh BUILD_DIR WORK_DIR [what...]
#
# BUILD_DIR holds bin/exala-bench-stripe (Release build). WORK_DIR is scratch
# space for the stripe files (n = 30000 needs ~15 GB: the original stripes,
# the factored stripes, and the active parts in flight). what: any of
#   incore   n = 4000 and 8000, in core, ours vs dgetrf (2 threads), 3 reps each
#   table    n = 10000 (800 MB of matrix), cache 128/256/512 MiB x order
#            basic / zigzag / meta-zigzag, stripe 256, page cache dropped after
#            every stripe I/O (a real disk tier); baseline dgetrf n = 10000
#   big      n = 30000 (7.2 GB), cache 1 GiB, meta-zigzag, page cache dropped;
#            baseline dgetrf n = 30000 in the same process afterwards
# (default: all three). Results: bench/results/stripe_<what>.csv; the table is
# also plotted to bench/results/stripe_table.png when gnuplot is installed.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_DIR WORK_DIR [incore|table|big ...]" >&2
  exit 2
fi
bench=$1/bin/exala-bench-stripe
work=$2
shift 2
what=("$@")
[[ ${#what[@]} -gt 0 ]] || what=(incore table big)
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
res=$script_dir/results
mkdir -p "$res" "$work"
[[ -x $bench ]] || { echo "$0: $bench not found (build exala-bench-stripe)" >&2; exit 2; }

# Keeps the CSV header once: run CMD, append its data line(s) to FILE.
append() {
  local file=$1
  shift
  local out
  out=$("$@")
  if [[ ! -s $file ]]; then echo "$out" | head -1 >"$file"; fi
  echo "$out" | tail -n +2 >>"$file"
  echo "$out" | tail -n +2 >&2
}

for w in "${what[@]}"; do
  case $w in
    incore)
      f=$res/stripe_incore.csv
      rm -f "$f"
      for n in 4000 8000; do
        append "$f" "$bench" incore --n "$n" --reps 3 --threads 2
      done
      ;;
    table)
      f=$res/stripe_table.csv
      rm -f "$f"
      d=$work/table
      rm -rf "$d"
      mkdir -p "$d"
      first=1
      for cache in 128MiB 256MiB 512MiB; do
        for order in basic zigzag meta-zigzag; do
          bn=0
          if [[ $first == 1 ]]; then bn=10000; first=0; fi
          append "$f" "$bench" ooc --n 10000 --workdir "$d" --cache "$cache" --order "$order" \
            --stripe 256 --drop-page-cache --baseline-n "$bn"
        done
      done
      rm -rf "$d"
      if command -v gnuplot >/dev/null; then
        python3 - "$f" "$res/stripe_table.dat" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
orders = ["basic", "zigzag", "meta-zigzag"]
caches = sorted({float(r["cache_mib"]) for r in rows})
with open(sys.argv[2], "w") as out:
    out.write("# cache_mib " + " ".join(orders) + "\n")
    for c in caches:
        vals = []
        for o in orders:
            v = [r["gflops"] for r in rows if float(r["cache_mib"]) == c and r["order"] == o]
            vals.append(v[0] if v else "nan")
        out.write(f"{c:.0f} " + " ".join(vals) + "\n")
PY
        gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output "$res/stripe_table.png"
set title "stripe LU out of core, n = 10000 (800 MB), 2 cores: GFLOP/s vs cache and order"
set xlabel "host cache (MiB)"
set ylabel "GFLOP/s"
set logscale x 2
set key bottom right
set grid
plot "$res/stripe_table.dat" using 1:2 with linespoints title "basic", \
     "" using 1:3 with linespoints title "zigzag", \
     "" using 1:4 with linespoints title "meta-zigzag"
GP
      fi
      ;;
    big)
      f=$res/stripe_big.csv
      rm -f "$f"
      d=$work/big
      rm -rf "$d"
      mkdir -p "$d"
      append "$f" "$bench" ooc --n 30000 --workdir "$d" --cache 1GiB --order meta-zigzag \
        --drop-page-cache --baseline-n 30000
      rm -rf "$d"
      ;;
    *)
      echo "$0: unknown part '$w'" >&2
      exit 2
      ;;
  esac
done
