#!/usr/bin/env bash
# The MPI benchmarks of issue 7 (2-core machine), into CSV files.
#
#   bench/run_mpi.sh BUILD_DIR [dot|dot-avx2|lu-nb|lu ...]
#
# BUILD_DIR holds bin/exala-bench-mpi-dot and bin/exala-bench-mpi-lu (Release
# build). Parts (default: all four):
#   dot       exala-bench-mpi-dot, n = 1e7 per rank, P = 1, 2, 4, 15 repetitions,
#             local backends simd and omp (1 thread)      -> results/mpi_dot.csv
#   dot-avx2  the same with the AVX2 kernel set forced (EXALA_SIMD=avx2), P = 1, 2
#                                                          -> results/mpi_dot_avx2.csv
#   lu-nb     pdgesv alone, n = 4000, every grid of P = 2 and 4 ranks x
#             nb = 64, 128, 192, 256, 3 repetitions       -> results/mpi_lu_nb.csv
#   lu        exala-bench-mpi-lu, n = 4000 (with --check) and 8000, P = 1, 2, 4,
#             3 repetitions, pdgesv with nb = $EXALA_BENCH_NB (default 128) on
#             the near-square grid                       -> results/mpi_lu.csv
# Each CSV is the benchmark's output with a leading `pass` column.
# Environment:
#   EXALA_BENCH_PASSES=K      run each part K times, pass after pass (default 2)
#   EXALA_BENCH_WAIT_IDLE=S   before each run wait up to S seconds for a second
#                             with the CPUs <= 10% busy (default 0: only warn)
#   EXALA_BENCH_NB=NB         pdgesv's block size in the `lu` part (default 128)
# P = 4 on 2 cores is oversubscribed (two ranks per core).
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [dot|dot-avx2|lu-nb|lu ...]" >&2
  exit 2
fi
bin=$1/bin
shift
what=("$@")
[[ ${#what[@]} -gt 0 ]] || what=(dot dot-avx2 lu-nb lu)
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
res=$script_dir/results
mkdir -p "$res"
for b in exala-bench-mpi-dot exala-bench-mpi-lu; do
  [[ -x $bin/$b ]] || { echo "$0: $bin/$b not found (build the $b target)" >&2; exit 2; }
done
passes=${EXALA_BENCH_PASSES:-2}
nb=${EXALA_BENCH_NB:-128}
[[ $passes =~ ^[1-9][0-9]*$ ]] || { echo "$0: EXALA_BENCH_PASSES must be a positive integer" >&2; exit 2; }

# Open MPI as root (containers), shared-memory copies without CMA; one
# OpenBLAS / OpenMP thread per rank.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
mpirun_np() { local p=$1; shift; mpirun --oversubscribe -np "$p" "$@"; }

cpu_times() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat; }
busy_percent() {
  local b0 i0 b1 i1
  read -r b0 i0 < <(cpu_times); sleep 1; read -r b1 i1 < <(cpu_times)
  echo $(( 100 * (b1 - b0) / (b1 - b0 + i1 - i0 + 1) ))
}
wait_idle=${EXALA_BENCH_WAIT_IDLE:-0}
settle() {
  [[ -r /proc/stat ]] || return 0
  local start=$SECONDS busy
  busy=$(busy_percent)
  while (( busy > 10 && SECONDS - start < wait_idle )); do busy=$(busy_percent); done
  if (( busy > 10 )); then
    echo "$0: warning: CPUs ${busy}% busy before this run; timings will be noisy" >&2
  fi
}

# run FILE PASS CMD...: appends CMD's CSV (header once) with a pass column.
run() {
  local file=$1 pass=$2
  shift 2
  settle
  echo "[pass $pass, load $(cut -d' ' -f1 /proc/loadavg)] $*" >&2
  local out
  out=$("$@")
  [[ -s $file ]] || echo "$out" | head -1 | sed 's/^/pass,/' >"$file"
  echo "$out" | tail -n +2 | sed "s/^/$pass,/" | tee -a "$file" >&2
}

for part in "${what[@]}"; do
  case $part in
    dot)
      f=$res/mpi_dot.csv; rm -f "$f"
      for (( pass = 1; pass <= passes; ++pass )); do
        for p in 1 2 4; do
          run "$f" "$pass" mpirun_np "$p" "$bin/exala-bench-mpi-dot" --n 1e7 --reps 15 --backend simd,omp
        done
      done ;;
    dot-avx2)
      f=$res/mpi_dot_avx2.csv; rm -f "$f"
      for (( pass = 1; pass <= passes; ++pass )); do
        for p in 1 2; do
          run "$f" "$pass" env EXALA_SIMD=avx2 mpirun --oversubscribe -x EXALA_SIMD -np "$p" \
            "$bin/exala-bench-mpi-dot" --n 1e7 --reps 15 --backend simd
        done
      done ;;
    lu-nb)
      f=$res/mpi_lu_nb.csv; rm -f "$f"
      for grid in 1x2 2x1 1x4 2x2 4x1; do
        p=$(( ${grid%x*} * ${grid#*x} ))
        for b in 64 128 192 256; do
          run "$f" 1 mpirun_np "$p" "$bin/exala-bench-mpi-lu" --only pdgesv --n 4000 --reps 3 \
            --grid "$grid" --nb "$b"
        done
      done ;;
    lu)
      f=$res/mpi_lu.csv; rm -f "$f"
      for (( pass = 1; pass <= passes; ++pass )); do
        for n in 4000 8000; do
          check=()
          [[ $n -le 4000 ]] && check=(--check)
          for p in 1 2 4; do
            run "$f" "$pass" mpirun_np "$p" "$bin/exala-bench-mpi-lu" --n "$n" --reps 3 --nb "$nb" "${check[@]}"
          done
        done
      done ;;
    *) echo "$0: unknown part '$part' (dot, dot-avx2, lu-nb, lu)" >&2; exit 2 ;;
  esac
  echo "wrote results for $part" >&2
done
