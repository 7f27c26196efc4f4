#!/usr/bin/env bash
# The MPI benchmarks of issue 7 (2-core machine), into CSV files.
#
#   bench/run_mpi.sh BUILD_DIR [dot|dot-avx2|lu-nb|lu|lu-s256|lu-hugetlb ...]
#
# BUILD_DIR holds bin/exala-bench-mpi-dot and bin/exala-bench-mpi-lu (Release
# build). Parts (default: all six):
#   dot       exala-bench-mpi-dot, n = 1e7 per rank, P = 1, 2, 4, 15 repetitions,
#             local backends simd and omp (1 thread)      -> results/mpi_dot.csv
#   dot-avx2  the same with the AVX2 kernel set forced (EXALA_SIMD=avx2), P = 1, 2
#                                                          -> results/mpi_dot_avx2.csv
#   lu-nb     pdgesv alone, n = 4000, every grid of P = 2 and 4 ranks x
#             nb = 64, 128, 192, 256, 3 repetitions       -> results/mpi_lu_nb.csv
#   lu        exala-bench-mpi-lu, n = 4000 (with --check) and 8000, P = 1, 2, 4,
#             3 repetitions, pdgesv on the 1 x P grid with nb = $EXALA_BENCH_NB
#             (default 64: the fastest of lu-nb here)     -> results/mpi_lu.csv
#   lu-s256   the same with the stripe height S = 256        -> results/mpi_lu_s256.csv
#   lu-hugetlb  n = 8000, P = 1, 2, default S, with GLIBC_TUNABLES=glibc.malloc.hugetlb=1
#             (glibc backs large allocations with transparent huge pages: first
#             touches of fresh memory are slow in this VM) -> results/mpi_lu_hugetlb.csv
# Each CSV is the benchmark's output with a leading `pass` column and a
# trailing `foreign_cpu_pct` (see run() below).
# Environment:
#   EXALA_BENCH_PASSES=K      run each part K times, pass after pass (default 2)
#   EXALA_BENCH_WAIT_IDLE=S   before each run wait up to S seconds for a second
#                             with the CPUs <= 10% busy (default 0: only warn)
#   EXALA_BENCH_NB=NB         pdgesv's block size in the `lu` part (default 64)
#   EXALA_BENCH_MAX_FOREIGN=F, EXALA_BENCH_RETRIES=K  see run() below
# P = 4 on 2 cores is oversubscribed (two ranks per core).
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [dot|dot-avx2|lu-nb|lu|lu-s256|lu-hugetlb ...]" >&2
  exit 2
fi
bin=$1/bin
shift
what=("$@")
[[ ${#what[@]} -gt 0 ]] || what=(dot dot-avx2 lu-nb lu lu-s256 lu-hugetlb)
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
res=$script_dir/results
mkdir -p "$res"
for b in exala-bench-mpi-dot exala-bench-mpi-lu; do
  [[ -x $bin/$b ]] || { echo "$0: $bin/$b not found (build the $b target)" >&2; exit 2; }
done
passes=${EXALA_BENCH_PASSES:-2}
nb=${EXALA_BENCH_NB:-64}
[[ $passes =~ ^[1-9][0-9]*$ ]] || { echo "$0: EXALA_BENCH_PASSES must be a positive integer" >&2; exit 2; }

# Open MPI as root (containers), shared-memory copies without CMA; one
# OpenBLAS / OpenMP thread per rank.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
mpirun_np() { local p=$1; shift; mpirun --oversubscribe -np "$p" "$@"; }
# shellcheck source=settle.sh
source "$script_dir/settle.sh"

# CPU ticks used by this shell's finished children (fields 16, 17 of
# /proc/$$/stat: mpirun and, through it, the ranks).
child_ticks() { awk '{print $16 + $17}' "/proc/$$/stat"; }
cpu_total() { awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }

# run FILE PASS CMD...: appends CMD's CSV (header once) with a leading pass
# column and a trailing foreign_cpu_pct: the share of the machine's CPU time
# used by other processes during the run (from /proc/stat, minus this run's
# own CPU time). A run with foreign_cpu_pct > EXALA_BENCH_MAX_FOREIGN (default
# 5) is repeated, up to EXALA_BENCH_RETRIES times (default 3); the last try is
# kept either way, so its figure says how disturbed it was.
max_foreign=${EXALA_BENCH_MAX_FOREIGN:-5}
retries=${EXALA_BENCH_RETRIES:-3}
run() {
  local file=$1 pass=$2
  shift 2
  local out try b0 i0 b1 i1 c0 c1 t0 t1 foreign
  for (( try = 0; try <= retries; ++try )); do
    settle
    echo "[pass $pass, try $try, load $(cut -d' ' -f1 /proc/loadavg)] $*" >&2
    read -r b0 i0 < <(cpu_times); t0=$(cpu_total); c0=$(child_ticks)
    out=$("$@")
    read -r b1 i1 < <(cpu_times); t1=$(cpu_total); c1=$(child_ticks)
    foreign=$(( 100 * ((b1 - b0) - (c1 - c0)) / (t1 - t0 + 1) ))
    (( foreign < 0 )) && foreign=0
    echo "  foreign CPU during the run: ${foreign}%" >&2
    (( foreign <= max_foreign )) && break
  done
  [[ -s $file ]] || echo "$out" | head -1 | sed 's/^/pass,/; s/$/,foreign_cpu_pct/' >"$file"
  echo "$out" | tail -n +2 | sed "s/^/$pass,/; s/\$/,$foreign/" | tee -a "$file" >&2
}

# lu_part FILE "N..." "P..." [ARGS...]: exala-bench-mpi-lu, 3 repetitions,
# pdgesv on the 1 x P grid with nb $nb; --check where n <= 4000.
lu_part() {
  local f=$1 ns=$2 ps=$3 pass n p check
  shift 3
  rm -f "$f"
  for (( pass = 1; pass <= passes; ++pass )); do
    for n in $ns; do
      check=()
      [[ $n -le 4000 ]] && check=(--check)
      for p in $ps; do
        run "$f" "$pass" mpirun_np "$p" "$bin/exala-bench-mpi-lu" --n "$n" --reps 3 --grid "1x$p" \
          --nb "$nb" "${check[@]}" "$@"
      done
    done
  done
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
      lu_part "$res/mpi_lu.csv" "4000 8000" "1 2 4" ;;
    lu-s256)
      lu_part "$res/mpi_lu_s256.csv" "4000 8000" "1 2 4" --stripe 256 ;;
    lu-hugetlb)
      GLIBC_TUNABLES=glibc.malloc.hugetlb=1 lu_part "$res/mpi_lu_hugetlb.csv" "8000" "1 2" ;;
    *) echo "$0: unknown part '$part' (dot, dot-avx2, lu-nb, lu, lu-s256, lu-hugetlb)" >&2; exit 2 ;;
  esac
  echo "wrote results for $part" >&2
done
