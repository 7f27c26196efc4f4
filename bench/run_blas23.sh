#!/usr/bin/env bash
# Runs the level-2/3 and triangular-solver measurements of issue 3 into CSV.
#
#   bench/run_blas23.sh BUILD_DIR [OUT_CSV]
#
# BUILD_DIR holds bin/exala-bench (configure with -DCMAKE_BUILD_TYPE=Release).
# OUT_CSV defaults to bench/results/blas23.csv next to this script. The CSV is
# exala-bench's output with two leading columns, the pass number and the data:
#   pass,data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
# Configurations (2 threads wherever a routine or baseline is threaded):
#   gemv   n = 4000, uniform and wide, backends simd (1 thread) and omp (2)
#   trsv   n = 4000, backends simd and omp (2)
#   trsv-compensated, trsv-double-double  n = 4000 (sequential; OpenBLAS 2 threads)
#   gemm   n = 2000, uniform and wide (2^-200..2^200), backend omp (2)
#   trsm   n = 2000, 2000 right-hand sides, backend omp (2)
# gemv, trsv and the sequential solvers run with --check (bit equality with
# the reference backend, or between two runs); gemm and trsm are checked
# once per pass at n = 200 on every backend (the reference backend is a
# plain scalar loop: at n = 2000 its check alone would take minutes).
# Environment:
#   EXALA_BENCH_PASSES=K      run the whole set K times (default 3)
#   EXALA_BENCH_WAIT_IDLE=S   before each configuration wait up to S seconds
#                             for a second with the CPUs <= 10% busy (default
#                             0: only warn on stderr)
#   EXALA_BENCH_ARGS="..."    extra arguments for every exala-bench call
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=table_setup.sh
source "$script_dir/table_setup.sh"
table_setup blas23.csv 3 "pass,data,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio" "$@"

run() {  # run PASS DATA ROUTINE ARGS...
  local pass=$1 data=$2 routine=$3
  shift 3
  settle
  echo "[pass $pass] exala-bench $routine $* --data $data" >&2
  "$bench" "$routine" "$@" --data "$data" "${extra[@]}" |
    tail -n +2 | sed "s/^/$pass,$data,/" >>"$tmp"
}

for (( pass = 1; pass <= passes; ++pass )); do
  for data in uniform wide; do
    run "$pass" "$data" gemv --n 4000 --backend simd,omp --threads 2 --check
  done
  run "$pass" uniform trsv --n 4000 --backend simd,omp --threads 2 --check
  run "$pass" uniform trsv-compensated --n 4000 --threads 2 --check
  run "$pass" uniform trsv-double-double --n 4000 --threads 2 --check
  for r in gemm trsm; do  # the bit-for-bit checks, at a size the reference backend handles
    echo "[pass $pass] exala-bench $r --n 200 --backend all --reps 1 --check" >&2
    "$bench" "$r" --n 200 --backend all --reps 1 --check >/dev/null
  done
  for data in uniform wide; do
    run "$pass" "$data" gemm --n 2000 --backend omp --threads 2
  done
  run "$pass" uniform trsm --n 2000 --backend omp --threads 2
done

table_finish
