#!/usr/bin/env bash
# Regenerates the BLAS-1 benchmark table as CSV.
#
#   bench/run_blas1.sh BUILD_DIR [OUT_CSV]
#
# BUILD_DIR holds bin/exala-bench (configure with -DCMAKE_BUILD_TYPE=Release).
# OUT_CSV defaults to bench/results/blas1.csv next to this script. The CSV is
# exala-bench's output with a leading `data` column:
#   data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
# Configurations: sum and dot at n = 1e4 and 1e7, data uniform and wide,
# backends simd (1 thread) and omp (2 threads); asum at 1e7 uniform. Every run
# also checks ours against the reference backend bit for bit (--check).
# Extra arguments for every exala-bench call can be given in EXALA_BENCH_ARGS
# (e.g. EXALA_BENCH_ARGS="--reps 50"). Takes about a minute on 2 cores.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [OUT_CSV]" >&2
  exit 2
fi
build_dir=$1
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${2:-$script_dir/results/blas1.csv}
bench=$build_dir/bin/exala-bench
if [[ ! -x $bench ]]; then
  echo "$0: $bench not found or not executable (build the exala-bench target)" >&2
  exit 2
fi
mkdir -p "$(dirname "$out")"

extra=()
if [[ -n ${EXALA_BENCH_ARGS:-} ]]; then read -r -a extra <<<"$EXALA_BENCH_ARGS"; fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio" >"$tmp"

run() {  # run DATA ROUTINE N
  local data=$1 routine=$2 n=$3
  echo "exala-bench $routine --n $n --data $data --backend simd,omp" >&2
  "$bench" "$routine" --n "$n" --data "$data" --backend simd,omp --check "${extra[@]}" |
    tail -n +2 | sed "s/^/$data,/" >>"$tmp"
}

for routine in sum dot; do
  for n in 10000 10000000; do
    for data in uniform wide; do
      run "$data" "$routine" "$n"
    done
  done
done
run uniform asum 10000000

mv "$tmp" "$out"
trap - EXIT
echo "wrote $out" >&2
