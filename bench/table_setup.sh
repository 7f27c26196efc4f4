# Sourced by the exala-bench table scripts (run_blas1.sh, run_blas23.sh,
# run_level3.sh), after they set script_dir: the common set-up and finish,
# and the idle wait (settle.sh).
#
# table_setup DEFAULT_CSV DEFAULT_PASSES HEADER "$@": checks the arguments
# (BUILD_DIR [OUT_CSV]) and sets
#   build_dir, out (OUT_CSV, default bench/results/DEFAULT_CSV),
#   bench      the exala-bench binary (exit 2 when missing),
#   extra      EXALA_BENCH_ARGS split into words (for every call),
#   passes     EXALA_BENCH_PASSES (default DEFAULT_PASSES; exit 2 unless a
#              positive integer),
#   tmp        a file next to OUT_CSV holding HEADER, removed on exit unless
#              table_finish moves it into place (no half-written table).
# shellcheck source=settle.sh
source "$script_dir/settle.sh"

table_setup() {
  local default_csv=$1 default_passes=$2 header=$3
  shift 3
  if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: $0 BUILD_DIR [OUT_CSV]" >&2
    exit 2
  fi
  build_dir=$1
  out=${2:-$script_dir/results/$default_csv}
  bench=$build_dir/bin/exala-bench
  if [[ ! -x $bench ]]; then
    echo "$0: $bench not found or not executable (build the exala-bench target)" >&2
    exit 2
  fi
  mkdir -p "$(dirname "$out")"
  extra=()
  if [[ -n ${EXALA_BENCH_ARGS:-} ]]; then read -r -a extra <<<"$EXALA_BENCH_ARGS"; fi
  tmp=$(mktemp "$out.XXXXXX")
  chmod 644 "$tmp"
  trap 'rm -f "$tmp"' EXIT
  echo "$header" >"$tmp"
  passes=${EXALA_BENCH_PASSES:-$default_passes}
  if ! [[ $passes =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: EXALA_BENCH_PASSES must be a positive integer, got '$passes'" >&2
    exit 2
  fi
}

table_finish() {
  mv "$tmp" "$out"
  trap - EXIT
  echo "wrote $out" >&2
}
