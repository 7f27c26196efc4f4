#!/usr/bin/env bash
# The level-3 measurements of issue 17 (exact gemm, blocked trsm, the
# symmetric/triangular family) against OpenBLAS in the same run, into CSV.
#
#   bench/run_level3.sh BUILD_DIR [OUT_CSV]
#
# BUILD_DIR holds bin/exala-bench (a Release build). OUT_CSV defaults to
# bench/results/level3.csv next to this script:
#   pass,data,layout,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
# (exala-bench's columns: medians of interleaved repetitions, ratio = ours /
# OpenBLAS's routine with the same thread count). Configurations, backend
# simd (1 thread) and omp (2 threads) each:
#   gemm   n = 500 and 2000, uniform U[-1,1], row- and column-major
#   gemm   n = 2000, wide data (U[-1,1] * 2^e, e in [-200, 200]), column-major
#   gemm-update-k64  C = C - A B, n = 2000, k = 64 (LAPACK's trailing update)
#   trsm   n = 2000, 2000 right-hand sides (left, lower, N, non-unit), column-major
#   trsm   n = 64, 2000 right-hand sides (LAPACK's panel solves)
#   syrk syr2k symm trmm   n = 500 and 2000, column-major
# Every routine is first checked bit for bit against the reference backend
# at n = 200 on every backend (--check). Repetitions: exala-bench's default
# (about 0.3 s per contender, at least 5) below n = 2000, 3 at n = 2000.
# Environment: EXALA_BENCH_PASSES=K (default 1), EXALA_BENCH_WAIT_IDLE=S
# (wait up to S seconds for idle CPUs before each configuration; default 0:
# only warn), EXALA_BENCH_ARGS="..." (extra arguments for every call).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=table_setup.sh
source "$script_dir/table_setup.sh"
table_setup level3.csv 1 "pass,data,layout,routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio" "$@"

run() {  # run PASS DATA LAYOUT ROUTINE N ARGS...
  local pass=$1 data=$2 lay=$3 routine=$4 n=$5
  shift 5
  local reps=()
  if (( n >= 2000 )); then reps=(--reps 3); fi
  settle
  echo "[pass $pass] exala-bench $routine --n $n --layout $lay --data $data $*" >&2
  "$bench" "$routine" --n "$n" --layout "$lay" --data "$data" --backend simd,omp --threads 2 \
    "${reps[@]}" "$@" "${extra[@]}" | tail -n +2 | sed "s/^/$pass,$data,$lay,/" >>"$tmp"
}

for (( pass = 1; pass <= passes; ++pass )); do
  for r in gemm trsm syrk syr2k symm trmm; do  # bits, at a size the reference backend handles
    echo "[pass $pass] exala-bench $r --n 200 --backend all --reps 1 --check" >&2
    "$bench" "$r" --n 200 --layout col --backend all --reps 1 --check >/dev/null
  done
  for n in 500 2000; do
    for lay in row col; do run "$pass" uniform "$lay" gemm "$n"; done
  done
  run "$pass" wide col gemm 2000
  run "$pass" uniform col gemm 2000 --k 64
  run "$pass" uniform col trsm 2000
  run "$pass" uniform col trsm 64 --nrhs 2000
  for r in syrk syr2k symm trmm; do
    for n in 500 2000; do run "$pass" uniform col "$r" "$n"; done
  done
done

table_finish
