#!/usr/bin/env bash
# Regenerates the accuracy study of the triangular solvers: the CSV and the
# plot.
#
#   bench/accuracy/run.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR holds bin/trsv-accuracy (built when MPFR and OpenBLAS are found:
# cmake --build BUILD_DIR --target trsv-accuracy). OUT_DIR defaults to
# bench/results: it gets accuracy.csv (trsv-accuracy's output, columns
# n,family,system,seed,cond_target,cond,method,err,ulps,steps) and
# accuracy.png (gnuplot with the pngcairo terminal: Debian's gnuplot-nox).
# TRSV_ACCURACY_ARGS adds arguments (default: n = 40 and 200, cond 1e5 to
# 1e40, 3 systems per decade, 10 exactly representable solutions per n).
# About 1 minute on one core. The summary of the expected properties is
# printed at the end (and kept in OUT_DIR/accuracy_summary.txt).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2
  exit 2
fi
build_dir=$1
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out_dir=${2:-$script_dir/../results}
study=$build_dir/bin/trsv-accuracy
if [[ ! -x $study ]]; then
  echo "$0: $study not found (build the trsv-accuracy target; it needs MPFR and OpenBLAS)" >&2
  exit 2
fi
if ! command -v gnuplot >/dev/null; then
  echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2
  exit 2
fi
mkdir -p "$out_dir"

extra=()
if [[ -n ${TRSV_ACCURACY_ARGS:-} ]]; then read -r -a extra <<<"$TRSV_ACCURACY_ARGS"; fi

tmp=$(mktemp "$out_dir/accuracy.csv.XXXXXX")
log=$(mktemp)
trap 'rm -f "$tmp" "$log"' EXIT
"$study" "${extra[@]}" >"$tmp" 2> >(tee "$log" | grep -v '^n=' >&2)
chmod 644 "$tmp"
mv "$tmp" "$out_dir/accuracy.csv"
grep -v '^n=' "$log" >"$out_dir/accuracy_summary.txt" || true

gnuplot -e "csv='$out_dir/accuracy.csv'; png='$out_dir/accuracy.png'" "$script_dir/plot.gp"
echo "wrote $out_dir/accuracy.csv, $out_dir/accuracy.png, $out_dir/accuracy_summary.txt" >&2
