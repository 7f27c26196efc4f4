#!/bin/sh
# The main demo: an out-of-core solve with the stripe LU.
#
#   examples/demo_stripe.sh [BUILD_DIR] [N]
#
# Writes a random n x n system (default n = 6000, 288 MB of matrix) as stripe
# files in a scratch directory, solves it with a 64 MiB host cache (so most
# stripes live on disk), local pivoting and exact-residual refinement, with
# one thread; then solves it again from scratch with two threads and checks
# that the two solutions are the same bits. Where the build has the MPI layer
# and mpirun is installed, it solves it a third time with the distributed
# stripe LU on 2 MPI ranks (each its own stripes, cache and directory) and
# checks those bits too. The progress bar and the summary (backward error
# before and after refinement) go to stderr.
set -eu
build=${1:-build}
n=${2:-6000}
exala=$build/bin/exala
dir=${TMPDIR:-/tmp}/exala-demo-$$
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir -p "$dir"
echo "== exala generate dense: n = $n, written straight to stripes in $dir"
"$exala" generate dense --n "$n" --seed 2026 --workdir "$dir/work" --stripe 256
echo "== exala solve, 1 thread, 64 MiB cache (the matrix is $((n * n * 8 / 1048576)) MiB)"
"$exala" solve --workdir "$dir/work" --cache 64MiB --order meta-zigzag --refine --threads 1 \
  --restart -o "$dir/x1.mtx"
echo "== the same solve from scratch, 2 threads"
"$exala" solve --workdir "$dir/work" --cache 64MiB --order meta-zigzag --refine --threads 2 \
  --restart -o "$dir/x2.mtx"
if cmp -s "$dir/x1.mtx" "$dir/x2.mtx"; then
  echo "== 1 thread and 2 threads: the $n solution entries are bitwise identical"
else
  echo "== 1 thread and 2 threads: the solutions DIFFER" >&2
  exit 1
fi
if command -v mpirun >/dev/null 2>&1 && ! "$exala" --help 2>/dev/null | grep -q "mpi is not compiled in"; then
  echo "== the same solve on 2 MPI ranks (exala --backend mpi), 64 MiB cache per rank"
  if [ "$(id -u)" = 0 ]; then  # Open MPI refuses root unless told
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --oversubscribe -np 2 \
    "$exala" solve --workdir "$dir/work" --backend mpi --rank-workdir "$dir/rank-%r" \
    --cache 64MiB --order meta-zigzag --refine --threads 1 --restart -o "$dir/x3.mtx"
  if cmp -s "$dir/x1.mtx" "$dir/x3.mtx"; then
    echo "== 1 process and 2 MPI ranks: the $n solution entries are bitwise identical"
  else
    echo "== 1 process and 2 MPI ranks: the solutions DIFFER" >&2
    exit 1
  fi
fi
