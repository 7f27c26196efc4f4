#!/usr/bin/env bash
# Regenerates the BLAS-1 benchmark table as CSV.
#
#   bench/run_blas1.sh BUILD_DIR [OUT_CSV]
#
# BUILD_DIR holds bin/exala-bench (configure with -DCMAKE_BUILD_TYPE=Release).
# OUT_CSV defaults to bench/results/blas1.csv next to this script. The CSV is
# exala-bench's output with two leading columns, the pass number and the data:
#   pass,data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
# Configurations: sum and dot at n = 1e4 and 1e7, data uniform and wide,
# backends simd (1 thread) and omp (2 threads); asum at 1e7 uniform. Every run
# also checks ours against the reference backend bit for bit (--check).
# Environment:
#   EXALA_BENCH_PASSES=K      run the whole set K times (default 1), pass after
#                             pass, so that the spread between passes shows
#                             how much the machine's noise moved the numbers
#   EXALA_BENCH_WAIT_IDLE=S   before each configuration wait up to S seconds
#                             for a second with the CPUs <= 10% busy (default
#                             0: only warn on stderr)
#   EXALA_BENCH_ARGS="..."    extra arguments for every exala-bench call
# One pass takes about 35 s on 2 idle cores.
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
# shellcheck source=settle.sh
source "$script_dir/settle.sh"

tmp=$(mktemp "$out.XXXXXX")
chmod 644 "$tmp"
trap 'rm -f "$tmp"' EXIT
echo "pass,data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio" >"$tmp"

run() {  # run PASS DATA ROUTINE N
  local pass=$1 data=$2 routine=$3 n=$4
  settle
  echo "[pass $pass] exala-bench $routine --n $n --data $data --backend simd,omp" >&2
  "$bench" "$routine" --n "$n" --data "$data" --backend simd,omp --check "${extra[@]}" |
    tail -n +2 | sed "s/^/$pass,$data,/" >>"$tmp"
}

passes=${EXALA_BENCH_PASSES:-1}
if ! [[ $passes =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: EXALA_BENCH_PASSES must be a positive integer, got '$passes'" >&2
  exit 2
fi
for (( pass = 1; pass <= passes; ++pass )); do
  for routine in sum dot; do
    for n in 10000 10000000; do
      for data in uniform wide; do
        run "$pass" "$data" "$routine" "$n"
      done
    done
  done
  run "$pass" uniform asum 10000000
done

mv "$tmp" "$out"
trap - EXIT
echo "wrote $out" >&2
