#!/usr/bin/env bash
# The measurements of issue 16 (CPU speed where callers really call us) into
# one CSV, every line a same-run ratio against OpenBLAS (medians):
#
#   bench/run_level2_small.sh BUILD_DIR [OUT_CSV]
#
#   gemv, trsv  n = 4000, --layout row and col, simd (1 thread) and omp (2),
#               each with --check (bit equality with the reference backend)
#   drop-in     exala-bench-blas-abi, n = 4, 16, 64, 256, 1024 for ddot,
#               dasum, dnrm2, idamax, daxpy, dgemv, dtrsv and dgemm
#               (dgemm n <= 256), 1 thread
#               (EXALA_BACKEND=simd), against the linked system BLAS
#   wide data   sum and dot over 1000 binades (--data wide), n = 1e4 (simd)
#               and n = 1e7 (omp, 2 threads); dot n = 1e7 uniform (omp, 2)
# OUT_CSV defaults to bench/results/level2_small.csv; its columns are
# exala-bench's: routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
# (the drop-in rows have backend "blas_abi" and baseline "system").
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [OUT_CSV]" >&2
  exit 2
fi
build_dir=$1
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${2:-$script_dir/results/level2_small.csv}
bench=$build_dir/bin/exala-bench
abi=$build_dir/bin/exala-bench-blas-abi
lib=$build_dir/lib/libexala_blas.so
for f in "$bench" "$abi" "$lib"; do
  [[ -e $f ]] || { echo "$0: $f not found (build exala-bench, exala-bench-blas-abi, exala_blas)" >&2; exit 2; }
done
mkdir -p "$(dirname "$out")"
echo "routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio" >"$out"
keep() { grep -v '^routine,' | tee -a "$out"; }

for routine in gemv trsv; do
  for layout in row col; do
    "$bench" "$routine" --n 4000 --layout "$layout" --backend simd --threads 1 --check | sed "s/^$routine,/$routine-$layout,/" | keep
    "$bench" "$routine" --n 4000 --layout "$layout" --backend omp --threads 2 --check | sed "s/^$routine,/$routine-$layout,/" | keep
  done
done
for n in 4 16 64 256 1024; do
  g=$(( n < 256 ? n : 256 ))
  EXALA_BACKEND=simd "$abi" "$lib" --threads 1 --n-vec "$n" --n-mat "$n" --n-gemm "$g" 2>/dev/null | keep
done
for r in sum dot; do
  "$bench" "$r" --n 10000 --data wide --backend simd --threads 1 | sed "s/^$r,/$r-wide,/" | keep
  "$bench" "$r" --n 1e7 --data wide --backend omp --threads 2 | sed "s/^$r,/$r-wide,/" | keep
done
"$bench" dot --n 1e7 --backend omp --threads 2 | keep
