#!/usr/bin/env bash
# LAPACK factorizations and solvers under the drop-in BLAS: what a LAPACK
# user pays for ExaLA's BLAS, and the backward errors with and without it.
#
#   bench/run_lapack_factor.sh [options] BUILD_DIR [OUT_CSV]
#
# BUILD_DIR holds bin/exala-bench-lapack and lib/libexala_blas.so (a Release
# build). Each case (routine, n, threads) runs exala-bench-lapack twice in the
# same run: plainly and under LD_PRELOAD=libexala_blas.so, both with the
# reference LAPACK (LD_LIBRARY_PATH=LAPACK_DIR; its BLAS calls go through the
# dynamic linker) over the system BLAS as update-alternatives chose it (the
# bench prints the file that defines dgemm_: OpenBLAS's libblas.so.3 here).
# Printed per case and written to the CSV (default
# bench/results/lapack_factor.csv):
#   routine,n,threads,reps,plain_s,preload_s,ratio,plain_berr,preload_berr,
#   plain_orth,preload_orth,served_calls,plain_blas,preload_blas,lapack
# times are medians over the repetitions, ratio = preload_s / plain_s, berr
# the backward error (exala-bench-lapack: gesv/posv ||b - A x||_inf /
# (||A||_inf ||x||_inf + ||b||_inf), geqrf ||A - QR||_1 / ||A||_1, syev
# ||A V - V diag(w)||_1 / ||A||_1, every residual correctly rounded by
# exala::gemv/gemm), orth ||Q^T Q - I||_1 or ||V^T V - I||_1, served_calls
# the BLAS calls libexala_blas.so served in the preloaded run (its
# EXALA_BLAS_REPORT, all repetitions and the residual's dorgqr included).
#
# Options (or the environment variable in brackets):
#   --routines "gesv posv geqrf syev"   [ROUTINES]   gesv = dgesv, posv = dpotrf + dpotrs,
#                                                    geqrf = dgeqrf, syev = dsyev ('V', 'L')
#   --sizes "500 2000"                  [SIZES]      orders n for every routine
#   --gesv-sizes "500 1000 2000"        [GESV_SIZES] orders n for gesv
#   --threads "1 2"                     [THREADS]    thread counts
#   --reps 3                            [REPS]       repetitions (median)
#   --big-n 2000 --big-reps 1           [BIG_N, BIG_REPS] n >= BIG_N runs BIG_REPS repetitions
#   --big-threads "1"                   [BIG_THREADS] thread counts run at n >= BIG_N
#   --lapack-dir DIR                    [LAPACK_DIR] default /usr/lib/<arch>/lapack
#   --wait-policy passive               [WAIT_POLICY] OMP_WAIT_POLICY of every run
#                                                    ("" leaves the environment's)
# Threads: plain runs set OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = T (the
# reference LAPACK itself is sequential); preloaded runs use the drop-in
# library's default backend simd for T = 1 and EXALA_BACKEND=omp
# EXALA_NUM_THREADS=T for T > 1 (bindings/blas_abi/README.md), with
# OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = T for the routines the drop-in
# library does not provide (they fall through to the system BLAS).
# OMP_WAIT_POLICY=passive by default: with OpenMP's active waiting the idle
# worker spins while LAPACK's sequential code runs between the BLAS calls,
# and on 2 cores gesv n = 300 with 2 threads took 0.26-0.42 s instead of
# 0.04 s (the README section "LAPACK factorizations under the preload").
set -euo pipefail

routines=${ROUTINES:-gesv posv geqrf syev}
sizes=${SIZES:-500 2000}
gesv_sizes=${GESV_SIZES:-500 1000 2000}
threads=${THREADS:-1 2}
reps=${REPS:-3}
big_n=${BIG_N:-2000}
big_reps=${BIG_REPS:-1}
big_threads=${BIG_THREADS:-1}
arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
lapack_dir=${LAPACK_DIR:-/usr/lib/$arch/lapack}
wait_policy=${WAIT_POLICY-passive}

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --routines) routines=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --gesv-sizes) gesv_sizes=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --big-n) big_n=$2; shift 2 ;;
    --big-reps) big_reps=$2; shift 2 ;;
    --big-threads) big_threads=$2; shift 2 ;;
    --lapack-dir) lapack_dir=$2; shift 2 ;;
    --wait-policy) wait_policy=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "$0: unknown option '$1'" >&2; usage ;;
    *) args+=("$1"); shift ;;
  esac
done
[[ ${#args[@]} -ge 1 && ${#args[@]} -le 2 ]] || usage
build_dir=$(cd "${args[0]}" && pwd)
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${args[1]:-$script_dir/results/lapack_factor.csv}
bench=$build_dir/bin/exala-bench-lapack
lib=$build_dir/lib/libexala_blas.so
for f in "$bench" "$lib"; do
  if [[ ! -e $f ]]; then
    echo "$0: $f not found (build the exala-bench-lapack and exala_blas_abi targets)" >&2
    exit 2
  fi
done
if [[ ! -e $lapack_dir/liblapack.so.3 ]]; then
  echo "$0: no reference LAPACK in $lapack_dir (Debian: apt-get install -y liblapack3)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

contains() { local x; for x in $1; do [[ $x == "$2" ]] && return 0; done; return 1; }

mkdir -p "$(dirname "$out")"
echo "routine,n,threads,reps,plain_s,preload_s,ratio,plain_berr,preload_berr,plain_orth,preload_orth,served_calls,plain_blas,preload_blas,lapack" >"$out"
echo "# $(date -u '+%F %T UTC'), $(uname -n), load average $(cut -d' ' -f1-3 /proc/loadavg)," \
     "OMP_WAIT_POLICY=${wait_policy:-(unset)}; plain: reference LAPACK ($lapack_dir) over" \
     "the BLAS named in the CSV (the file that defines dgemm_)"
printf '%-6s %5s %2s %4s %10s %10s %8s %10s %10s %10s %10s %9s\n' routine n T reps plain_s \
  preload_s ratio plain_berr pre_berr plain_orth pre_orth served
for routine in $routines; do
  ns=$sizes
  [[ $routine == gesv ]] && ns=$gesv_sizes
  for n in $ns; do
    for t in $threads; do
      r=$reps
      if [[ $n -ge $big_n ]]; then
        contains "$big_threads" "$t" || continue
        r=$big_reps
      fi
      common=(env LD_LIBRARY_PATH="$lapack_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
              OPENBLAS_NUM_THREADS="$t" OMP_NUM_THREADS="$t")
      [[ -n $wait_policy ]] && common+=(OMP_WAIT_POLICY="$wait_policy")
      plain=$("${common[@]}" "$bench" "$routine" "$n" --reps "$r")
      if [[ $t -eq 1 ]]; then exala_env=(EXALA_BACKEND=simd)
      else exala_env=(EXALA_BACKEND=omp EXALA_NUM_THREADS="$t"); fi
      rm -f "$work/report"
      pre=$("${common[@]}" "${exala_env[@]}" EXALA_BLAS_REPORT="$work/report" \
            LD_PRELOAD="$lib" "$bench" "$routine" "$n" --reps "$r")
      IFS=, read -r _ _ _ p_med _ p_berr p_orth p_blas p_lapack <<<"$plain"
      IFS=, read -r _ _ _ q_med _ q_berr q_orth q_blas _ <<<"$pre"
      served=$(awk '$1 == "total" { print $2 }' "$work/report" 2>/dev/null || true)
      ratio=$(echo "$q_med / $p_med" | bc -l)
      printf '%-6s %5d %2d %4d %10.4f %10.4f %8.2f %10s %10s %10s %10s %9s\n' "$routine" "$n" "$t" \
        "$r" "$p_med" "$q_med" "$ratio" "$p_berr" "$q_berr" "${p_orth:--}" "${q_orth:--}" "${served:--}"
      printf '%s,%d,%d,%d,%s,%s,%.3f,%s,%s,%s,%s,%s,%s,%s,%s\n' "$routine" "$n" "$t" "$r" "$p_med" \
        "$q_med" "$ratio" "$p_berr" "$q_berr" "$p_orth" "$q_orth" "${served:-}" "$p_blas" "$q_blas" \
        "$p_lapack" >>"$out"
    done
  done
done
