#!/bin/sh
# atomic_output_test.sh - every file the exala tool writes survives a full
# disk (issue 15, row 8): with the write-fault budget EXALA_FAULT_WRITE_BYTES
# (every write fails as on a full disk after that many bytes), a command
# that writes -o FILE (or generate trsv's DIR) exits 2 with one line naming
# the file and the cause, leaves the previous file(s) byte for byte, and
# leaves no temporary file; without the fault it replaces them whole.
#
# usage: atomic_output_test.sh EXALA DATA_DIR WORK_DIR [HAVE_MPFR]
set -u
exala=$1
data=$2
work=$3
have_mpfr=${4:-OFF}

status=0
fail() { echo "FAIL: $*"; status=1; }

rm -rf "$work"
mkdir -p "$work" || exit 1
cd "$data" || exit 1
out=$work/out
err=$work/err

# run RC CMD...: runs CMD, stdout to $out, stderr to $err; checks the status.
run() {
  want=$1
  shift
  "$@" >"$out" 2>"$err"
  rc=$?
  [ "$rc" = "$want" ] || { fail "$* exited $rc, expected $want"; cat "$err"; }
}
# stderr must be exactly one line TEXT.
stderr_is() {
  printf '%s\n' "$1" >"$work/err.expected"
  cmp -s "$err" "$work/err.expected" || {
    fail "stderr differs (expected, then actual):"; cat "$work/err.expected" "$err"; }
}
no_temporaries() {
  left=$(find "$1" -name '*.tmp.*')
  [ -z "$left" ] || fail "temporary files left: $left"
}

gemm_args="gemm l23_wide_ga.mtx l23_wide_gb.mtx --alpha 0.1 --beta -3 --c l23_wide_gc.mtx"
kept="No space left on device; the previous file is kept unchanged"

# 1. A full disk while writing C: the old C.mtx stays, mode included.
printf 'old content\n' >"$work/C.mtx"
chmod 600 "$work/C.mtx"
cp "$work/C.mtx" "$work/C.old"
for budget in 0 40 100 900; do  # the result has 954 bytes
  EXALA_FAULT_WRITE_BYTES=$budget run 2 "$exala" $gemm_args -o "$work/C.mtx"
  stderr_is "exala: error: $work/C.mtx: cannot write file: $kept"
  cmp -s "$work/C.mtx" "$work/C.old" || fail "budget $budget: C.mtx changed"
  no_temporaries "$work"
done
[ -s "$out" ] && fail "stdout not empty: $(cat "$out")"

# 2. Without the fault the whole result replaces it, keeping its mode.
run 0 "$exala" $gemm_args -o "$work/C.mtx"
cmp -s "$work/C.mtx" expected_l23_gemm_wide.mtx || fail "C.mtx is not the product"
mode=$(stat -c %a "$work/C.mtx")
[ "$mode" = 600 ] || fail "C.mtx mode $mode, expected 600 (kept)"
no_temporaries "$work"

# 3. No previous file: none is left behind.
EXALA_FAULT_WRITE_BYTES=45 run 2 "$exala" gemv l23_a23.mtx l23_ones3.mtx -o "$work/y.mtx"
stderr_is "exala: error: $work/y.mtx: cannot write file: No space left on device; no file was written"
[ -e "$work/y.mtx" ] && fail "a partial y.mtx was left"
no_temporaries "$work"

# 4. Scalars (-o writes a 1 x 1 file), trsv and the in-core solve (the
# stripe commands' -o) go through the same writer.
cp "$work/C.old" "$work/s.mtx"
EXALA_FAULT_WRITE_BYTES=10 run 2 "$exala" sum cancel.mtx -o "$work/s.mtx"
stderr_is "exala: error: $work/s.mtx: cannot write file: $kept"
cmp -s "$work/s.mtx" "$work/C.old" || fail "sum -o: s.mtx changed"
EXALA_FAULT_WRITE_BYTES=60 run 2 "$exala" trsv l23_third.mtx l23_ones2.mtx -o "$work/s.mtx"
cmp -s "$work/s.mtx" "$work/C.old" || fail "trsv -o: s.mtx changed"
EXALA_FAULT_WRITE_BYTES=60 run 2 "$exala" solve l23_third.mtx l23_ones2.mtx --quiet -o "$work/s.mtx"
stderr_is "exala: error: $work/s.mtx: cannot write file: $kept"
cmp -s "$work/s.mtx" "$work/C.old" || fail "solve -o: s.mtx changed"
no_temporaries "$work"

# 5. A symbolic link: its target gets the new file, the link stays.
ln -s C.mtx "$work/link.mtx"
run 0 "$exala" gemv l23_a23.mtx l23_ones3.mtx -o "$work/link.mtx"
[ -L "$work/link.mtx" ] || fail "link.mtx is no longer a symbolic link"
cmp -s "$work/C.mtx" expected_l23_gemv_small.mtx || fail "the link's target is not the result"
no_temporaries "$work"

# 6. '-o -' is standard output; a device is written as a plain stream.
cd "$work" || exit 1  # (a file named '-' would land here, not among the data)
run 0 "$exala" gemv "$data/l23_a23.mtx" "$data/l23_ones3.mtx" -o -
cd "$data" || exit 1
cmp -s "$out" expected_l23_gemv_small.mtx || fail "-o - did not print the result"
[ -e "$work/-" ] && fail "-o - created a file named '-'"
if [ -w /dev/full ]; then
  run 2 "$exala" gemv l23_a23.mtx l23_ones3.mtx -o /dev/full
  stderr_is "exala: error: /dev/full: cannot write file: No space left on device"
fi
run 0 "$exala" gemv l23_a23.mtx l23_ones3.mtx -o /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a device"

# 7. generate trsv: T.mtx, b.mtx (and x_exact.mtx) are replaced together or
# not at all: a full disk while writing any of them keeps every old file.
gen=$work/gen
run 0 "$exala" generate trsv --n 40 --cond 1e6 --seed 1 -o "$gen"
cp -r "$gen" "$work/gen.old"
tsize=$(wc -c <"$gen/T.mtx")
bsize=$(wc -c <"$gen/b.mtx")
budgets="0 100 $((tsize + 30))"
[ -e "$gen/x_exact.mtx" ] && budgets="$budgets $((tsize + bsize + 30))"
for budget in $budgets; do
  EXALA_FAULT_WRITE_BYTES=$budget run 2 "$exala" generate trsv --n 40 --cond 1e6 --seed 2 -o "$gen"
  grep -q "cannot write file: No space left on device" "$err" || {
    fail "generate, budget $budget: unexpected stderr"; cat "$err"; }
  for f in T.mtx b.mtx x_exact.mtx; do
    if [ -e "$work/gen.old/$f" ]; then
      cmp -s "$gen/$f" "$work/gen.old/$f" || fail "generate, budget $budget: $f changed"
    fi
  done
  no_temporaries "$gen"
done
run 0 "$exala" generate trsv --n 40 --cond 1e6 --seed 2 -o "$gen"
cmp -s "$gen/T.mtx" "$work/gen.old/T.mtx" && fail "generate --seed 2 did not replace T.mtx"
if [ "$have_mpfr" = ON ]; then
  cmp -s "$gen/x_exact.mtx" "$work/gen.old/x_exact.mtx" && fail "x_exact.mtx was not replaced"
fi

[ "$status" -ne 0 ] || echo "ok"
exit "$status"
