#!/usr/bin/env bash
# LAPACK's own test programs, plainly and with the drop-in library preloaded:
# what a LAPACK user pays for reproducible BLAS, and whether any test fails.
#
#   bench/run_lapack_preload.sh BUILD_DIR [OUT_CSV]
#
# BUILD_DIR holds lib/libexala_blas.so (a Release build). The programs and
# their inputs come from Debian's liblapack-test (xlintstd with dtest.in,
# xeigtstd with the double-precision eigen inputs); the package is installed
# when missing (as root; otherwise the apt-get command is printed). Each
# (program, input) runs once plainly and once under
# LD_PRELOAD=libexala_blas.so, in the same run; printed per pair and in
# total: both wall times, their ratio and both counts of tests that failed
# their threshold. The CSV (default bench/results/lapack_preload.csv) has
#   program,input,plain_s,preload_s,ratio,plain_failed,preload_failed
# EXALA_BACKEND / EXALA_NUM_THREADS pass through to the drop-in library
# (its default: EXALA_BACKEND=simd, bindings/blas_abi/README.md);
# the plain runs use the system BLAS as configured (update-alternatives).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [OUT_CSV]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${2:-$script_dir/results/lapack_preload.csv}
lib=$build_dir/lib/libexala_blas.so
if [[ ! -e $lib ]]; then
  echo "$0: $lib not found (build the exala_blas target)" >&2
  exit 2
fi
dir=/usr/lib/x86_64-linux-gnu/lapack
if [[ ! -x $dir/xlintstd ]]; then
  if [[ $(id -u) -eq 0 ]]; then
    apt-get install -y liblapack-test >/dev/null
  else
    echo "$0: LAPACK's test programs are missing: apt-get install -y liblapack-test" >&2
    exit 2
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$dir"/*.in "$work"/  # the testers read their inputs and may write next to them
cd "$work"

# Sum of "N out of M tests failed to pass the threshold" plus every other
# failure line the testers print (illegal-argument and error-exit checks).
failures() {
  # ("DGE:    3 out of  3653 tests failed to pass the threshold": the
  # number is the last word before "out of"; plain POSIX awk.)
  awk '/out of .*failed/ { split($0, parts, "out of"); k = split(parts[1], w, " ");
                           n += w[k] + 0; next }
       /failed to pass|FAILED|\*\*\*.*[Ee]rror/ { n += 1 }
       END { print n + 0 }' "$1"
}

pairs=("xlintstd dtest.in")
for f in nep sep se2 svd dec ded dgg dgd dsb dsg dbal dbak dgbal dgbak dbb glm gqr gsv csd lse; do
  [[ -e $f.in ]] && pairs+=("xeigtstd $f.in")
done

mkdir -p "$(dirname "$out")"
echo "program,input,plain_s,preload_s,ratio,plain_failed,preload_failed" >"$out"
printf '%-10s %-10s %10s %10s %7s %8s %8s\n' program input plain_s preload_s ratio fail_pl fail_pre
tp=0 tq=0 fp=0 fq=0
for pair in "${pairs[@]}"; do
  read -r prog input <<<"$pair"
  t0=$(date +%s.%N)
  "$dir/$prog" <"$input" >plain.out 2>&1 || true
  t1=$(date +%s.%N)
  LD_PRELOAD=$lib "$dir/$prog" <"$input" >preload.out 2>&1 || true
  t2=$(date +%s.%N)
  p=$(echo "$t1 - $t0" | bc -l) q=$(echo "$t2 - $t1" | bc -l)
  a=$(failures plain.out) b=$(failures preload.out)
  r=$(echo "$q / $p" | bc -l)
  printf '%-10s %-10s %10.2f %10.2f %7.2f %8d %8d\n' "$prog" "$input" "$p" "$q" "$r" "$a" "$b"
  printf '%s,%s,%.3f,%.3f,%.3f,%d,%d\n' "$prog" "$input" "$p" "$q" "$r" "$a" "$b" >>"$out"
  tp=$(echo "$tp + $p" | bc -l) tq=$(echo "$tq + $q" | bc -l) fp=$((fp + a)) fq=$((fq + b))
done
printf '%-21s %10.2f %10.2f %7.2f %8d %8d\n' total "$tp" "$tq" "$(echo "$tq / $tp" | bc -l)" "$fp" "$fq"
printf 'total,,%.3f,%.3f,%.3f,%d,%d\n' "$tp" "$tq" "$(echo "$tq / $tp" | bc -l)" "$fp" "$fq" >>"$out"
