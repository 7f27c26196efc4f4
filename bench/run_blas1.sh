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

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=table_setup.sh
source "$script_dir/table_setup.sh"
table_setup blas1.csv 1 "pass,data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio" "$@"

run() {  # run PASS DATA ROUTINE N
  local pass=$1 data=$2 routine=$3 n=$4
  settle
  echo "[pass $pass] exala-bench $routine --n $n --data $data --backend simd,omp" >&2
  "$bench" "$routine" --n "$n" --data "$data" --backend simd,omp --check "${extra[@]}" |
    tail -n +2 | sed "s/^/$pass,$data,/" >>"$tmp"
}

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

table_finish
