#!/usr/bin/env bash
# export_test.sh - whole-run checks of `exala export` (issue 20 item 4) and of
# the forward-error line of `exala solve --workdir`, registered by export.cmake.
#
# usage: export_test.sh MODE EXALA SCRATCH DATA
#   MODE     one of the functions below
#   EXALA    the tool
#   SCRATCH  a folder of its own (emptied first)
#   DATA     tests/cli/data
# Round trips are checked with cmp (byte for byte): an exported system
# imported again and exported again gives the same files, and the same
# solution bits. Prints what it runs; exits 1 on the first failure.
set -u

mode=$1 exala=$2 scratch=$3 data=$4
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1

. "$(dirname "$0")/cli_test_lib.sh"
hasnt() {  # hasnt FILE RE
  ! grep -Eq -- "$2" "$1" || { cat "$1"; fail "$1 has a line matching '$2'"; }
}
no_temporaries() {
  local left
  left=$(find . -name '*.tmp.*')
  [ -z "$left" ] || fail "temporary files left: $left"
}

# A generated system (n = 37, 3 right-hand sides, on two disks) exported,
# imported back with another stripe height, exported again: the same files
# byte for byte, whatever the panel width of the matrix export (--buffer of
# one column, of 5 columns, the default) and to stdout; the two sets solve to
# the same bits; a regenerated set (another stored stripe height: the same
# system) exports the same files.
roundtrip() {
  local n=37
  run generate dense --n $n --seed 5 --nrhs 3 --cond 1e4 --workdir d1,d2 --stripe 8 --quiet
  run export matrix --workdir d1,d2 -o A.mtx
  has log "^exala: exported the matrix \($n x $n\) of d1,d2 to 'A.mtx', "
  run export rhs --workdir d1 --workdir d2 -o B.mtx
  has log "^exala: exported the right-hand sides \($n x 3\) of d1,d2 to 'B.mtx', "
  run export reference --workdir d1,d2 -o X.mtx --quiet
  [ ! -s log ] || fail "--quiet printed on stderr"
  [ "$(sed -n 2p A.mtx)" = "$n $n" ] || fail "A.mtx size line $(sed -n 2p A.mtx)"
  [ "$(sed -n 2p B.mtx)" = "$n 3" ] || fail "B.mtx size line $(sed -n 2p B.mtx)"
  [ "$(sed -n 2p X.mtx)" = "$n 3" ] || fail "X.mtx size line $(sed -n 2p X.mtx)"
  [ "$(wc -l <A.mtx)" -eq $((n * n + 2)) ] || fail "A.mtx has $(wc -l <A.mtx) lines"
  run export matrix --workdir d1,d2 --buffer $((8 * n)) -o A_col.mtx --quiet
  run export matrix --workdir d1,d2 --buffer $((8 * n * 5 + 7)) -o A_5.mtx --progress-interval 0
  # Progress (stderr is a file: plain lines), one per panel of 5 columns.
  has log "^exala: export: step 1/8 \(13\.5%\), .* elapsed, ETA .*, read .* MB/s$"
  has log "^exala: export: step 8/8 \(100\.0%\), .* elapsed, ETA .*, read .* MB/s$"
  [ "$(grep -c '^exala: export: step' log)" -eq 8 ] || { cat log; fail "not 8 progress lines"; }
  "$exala" export matrix --workdir d1,d2 --quiet >A_stdout.mtx || fail "export to stdout failed"
  "$exala" export rhs --workdir d1,d2 -o - --quiet >B_stdout.mtx || fail "export to - failed"
  same A.mtx A_col.mtx A_5.mtx A_stdout.mtx
  same B.mtx B_stdout.mtx
  run import A.mtx B.mtx --workdir wd2 --stripe 5 --buffer 2K --quiet
  run export matrix --workdir wd2 -o A2.mtx --quiet
  run export rhs --workdir wd2 -o B2.mtx --quiet
  same A.mtx A2.mtx
  same B.mtx B2.mtx
  run generate dense --n $n --seed 5 --nrhs 3 --cond 1e4 --workdir wd3 --stripe 37 --quiet
  run export matrix --workdir wd3 -o A3.mtx --quiet
  run export reference --workdir wd3 -o X3.mtx --quiet
  same A.mtx A3.mtx
  same X.mtx X3.mtx
  # The same solution bits from the original set, the re-imported one, and
  # the in-core solve of the exported files.
  local f="--stripe 10 --substripe 5"
  run solve --workdir d1,d2 $f --cache 1M --quiet -o x1.mtx
  run solve --workdir wd2 $f --cache 1M --quiet -o x2.mtx
  run solve A.mtx B.mtx $f --quiet -o x3.mtx
  same x1.mtx x2.mtx x3.mtx
  no_temporaries
}

# Values that need every bit: -0, subnormals (the smallest, the largest, one
# in between), DBL_MAX (input as a hex float), 0.1, 1/3 and an integer that
# need 17 digits: the export writes each one as the exact 17-digit token
# (expected_export_special_*.mtx, printf %.17g of the same numbers), and an
# import of the export exports the same files.
special_values() {
  run import "$data/export_special_a.mtx" "$data/export_special_b.mtx" --workdir wd --quiet
  run export matrix --workdir wd -o A.mtx --quiet
  run export rhs --workdir wd -o B.mtx --quiet
  same "$data/expected_export_special_a.mtx" A.mtx
  same "$data/expected_export_special_b.mtx" B.mtx
  run import A.mtx B.mtx --workdir wd2 --quiet
  run export matrix --workdir wd2 -o A2.mtx --quiet
  run export rhs --workdir wd2 -o B2.mtx --quiet
  same A.mtx A2.mtx
  same B.mtx B2.mtx
  # A --buffer below one column (3 doubles) is refused before anything is written.
  fails_with "^exala: error: export: --buffer 16 B holds less than one column of the matrix \(24 bytes\): give a larger --buffer$" \
    export matrix --workdir wd --buffer 16 -o A3.mtx
  [ ! -e A3.mtx ] || fail "A3.mtx was written"
  # No reference solution in an imported set.
  fails_with "^exala: error: export: the work directory set wd holds no reference solution" \
    export reference --workdir wd -o X.mtx
  [ ! -e X.mtx ] || fail "X.mtx was written"
}

# A full disk, or a damaged stripe file met halfway, leaves the previous
# output file byte for byte and no temporary; the next export replaces it.
atomic_output() {
  run generate dense --n 60 --seed 2 --workdir wd --stripe 16 --quiet
  printf 'old content\n' >A.mtx
  cp A.mtx A.old
  local budget
  for budget in 0 100 20000; do  # the matrix file has about 80 KB
    echo "+ EXALA_FAULT_WRITE_BYTES=$budget"
    EXALA_FAULT_WRITE_BYTES=$budget fails_with \
      "^exala: error: A\.mtx: cannot write file: No space left on device; the previous file is kept unchanged$" \
      export matrix --workdir wd -o A.mtx --buffer 960
    same A.old A.mtx
    no_temporaries
  done
  EXALA_FAULT_WRITE_BYTES=50 fails_with \
    "^exala: error: new\.mtx: cannot write file: No space left on device; no file was written$" \
    export rhs --workdir wd -o new.mtx
  [ ! -e new.mtx ] || fail "new.mtx was written"
  # A damaged stripe (rows 48..59) is met in every panel: the temporary is
  # removed, the old file stays.
  cp -r wd wd_bad
  flip wd_bad/orig_3.bin
  fails_with "^exala: error: stripe 3: file 'wd_bad/orig_3\.bin': .*corrupt" \
    export matrix --workdir wd_bad -o A.mtx --buffer 960
  same A.old A.mtx
  no_temporaries
  run export matrix --workdir wd -o A.mtx --quiet
  [ "$(sed -n 2p A.mtx)" = "60 60" ] || fail "A.mtx was not replaced"
}

# SIGKILL while the matrix is written (once its temporary is seen): the old
# file stays byte for byte (the temporary beside it is all a kill leaves);
# an export left to finish gives the whole file.
killed() {
  run generate dense --n 1000 --seed 8 --workdir wd --stripe 100 --quiet
  run export matrix --workdir wd -o full.mtx --quiet
  printf 'old content\n' >K.mtx
  cp K.mtx K.old
  local attempt pid seen=0 i
  for attempt in 1 2 3 4 5; do
    "$exala" export matrix --workdir wd -o K.mtx --buffer 80000 --quiet 2>/dev/null &
    pid=$!
    for i in $(seq 1 2000); do
      if compgen -G 'K.mtx.tmp.*' >/dev/null; then
        kill -KILL "$pid" 2>/dev/null && seen=1
        break
      fi
      kill -0 "$pid" 2>/dev/null || break
    done
    wait "$pid" 2>/dev/null
    if [ "$seen" -eq 1 ]; then
      echo "killed while writing (attempt $attempt)"
      same K.old K.mtx
      rm -f K.mtx.tmp.*
      break
    fi
    same full.mtx K.mtx  # it finished first: the whole file
    cp K.old K.mtx
  done
  [ "$seen" -eq 1 ] || fail "no export was caught while writing in 5 attempts"
}

# The forward-error line of the solve summary: present for a generated set
# (it stores the reference solution), with the value that awk computes from
# the exported reference and the solution (max over the columns of max_i
# |x_i - xref_i| / max_i |xref_i|, each operation rounded once in double, as
# the tool does), printed with 3 significant digits; absent for an imported
# set, and not printed with --quiet.
forward_error() {
  local n=40
  run generate dense --n $n --seed 9 --nrhs 2 --cond 1e8 --workdir wd --stripe 10 --quiet
  run export reference --workdir wd -o xref.mtx --quiet
  log=solve.log run solve --workdir wd --stripe 10 --substripe 5 --cache 1M --no-refine -o x.mtx
  cat solve.log
  local expected
  expected=$(awk -v n=$n 'FNR <= 2 || /^%/ { next }
    FNR == NR { ref[FNR - 3] = $1 + 0; next }
    { x[FNR - 3] = $1 + 0 }
    END {
      worst = 0
      for (k = 0; k < 2; ++k) {
        d = 0; m = 0
        for (i = 0; i < n; ++i) {
          r = ref[k * n + i]; v = x[k * n + i] - r
          if (v < 0) v = -v
          if (r < 0) r = -r
          if (v > d) d = v
          if (r > m) m = r
        }
        if (d / m > worst) worst = d / m
      }
      printf "%.2e", worst
    }' xref.mtx x.mtx)
  echo "expected forward error: $expected"
  has solve.log "^  forward error: $expected \(max \|x_i - xref_i\| / max \|xref_i\| against the stored reference solution xref, largest over the right-hand sides\)$"
  # cond 1e8: the error is far above u and below cond u; not zero.
  awk -v e="$expected" 'BEGIN { exit !(e + 0 > 1e-15 && e + 0 < 1e-6) }' ||
    fail "forward error $expected out of range for cond 1e8"
  # The line comes last in the summary, after the refinement line.
  [ "$(tail -1 solve.log | cut -c1-16)" = "  forward error:" ] || fail "not the last line"
  # An imported set holds no reference: no line.
  run export matrix --workdir wd -o A.mtx --quiet
  run export rhs --workdir wd -o B.mtx --quiet
  run import A.mtx B.mtx --workdir wd2 --quiet
  log=solve2.log run solve --workdir wd2 --stripe 10 --substripe 5 --cache 1M --no-refine -o x2.mtx
  has solve2.log "^  refinement: off"
  hasnt solve2.log "forward error"
  same x.mtx x2.mtx
  log=solve3.log run solve --workdir wd --quiet -o x3.mtx
  [ ! -s solve3.log ] || fail "--quiet printed on stderr"
  # With refinement, one right-hand side: the wording without the max over them.
  run generate dense --n $n --seed 9 --cond 10 --workdir wd4 --quiet
  log=solve4.log run solve --workdir wd4 --cache 1M -o x4.mtx
  has solve4.log "^  forward error: [0-9]\.[0-9]{2}e[-+][0-9]+ \(max \|x_i - xref_i\| / max \|xref_i\| against the stored reference solution xref\)$"
}

# The solution that solve --workdir stores: none before the first solve, the
# bits solve wrote (to -o or stdout) after each one (another stripe height,
# --no-refine, two disks), none after a failed solve or a new system; a full
# disk while storing it is a warning (exit 0, the solution on stdout) and
# keeps the previous one.
stored_solution() {
  local f="--stripe 10 --substripe 5 --cache 1M"
  run generate dense --n 40 --seed 4 --nrhs 2 --workdir d1,d2 --stripe 12 --quiet
  fails_with "^exala: error: export: no solution is stored in the work directory set d1,d2 yet \('exala solve --workdir d1,d2' stores the solution it computes\)$" \
    export solution --workdir d1,d2 -o xs.mtx
  [ ! -e xs.mtx ] || fail "xs.mtx was written"
  run solve --workdir d1,d2 $f --quiet -o x1.mtx
  run export solution --workdir d1,d2 -o xs1.mtx
  has log "^exala: exported the solution \(40 x 2\) of d1,d2 to 'xs1\.mtx', "
  "$exala" export solution --workdir d1,d2 --quiet >xs1_stdout.mtx || fail "export to stdout failed"
  same x1.mtx xs1.mtx xs1_stdout.mtx
  [ -e d1/solution.bin ] || fail "no d1/solution.bin"
  [ ! -e d2/solution.bin ] || fail "d2/solution.bin: the solution belongs in the first directory"
  # Unrefined (uniform entries: refinement takes a step, other bits).
  log=nr.log run solve --workdir d1,d2 $f --no-refine -o x_nr.mtx
  run export solution --workdir d1,d2 -o xs_nr.mtx --quiet
  same x_nr.mtx xs_nr.mtx
  cmp -s x1.mtx x_nr.mtx && fail "the refined and unrefined solutions have the same bits: the test sees nothing"
  # A full disk when the solution is stored (the factorization is done: the
  # store is the only write): a warning, exit 0, the solution on stdout, the
  # previous (unrefined) one kept.
  echo "+ EXALA_FAULT_WRITE_BYTES=0 exala solve --workdir d1,d2 $f --quiet"
  EXALA_FAULT_WRITE_BYTES=0 "$exala" solve --workdir d1,d2 $f --quiet >x_full.mtx 2>full.err ||
    { cat full.err; fail "solve failed on a full disk at the store"; }
  cat full.err
  [ "$(wc -l <full.err)" -eq 1 ] || fail "stderr has $(wc -l <full.err) lines, expected 1"
  has full.err "^exala: warning: the solution is not stored in d1,d2 \('exala export solution' gives the previous one, if any\): .*no space left on device"
  same x1.mtx x_full.mtx
  run export solution --workdir d1,d2 -o xs_full.mtx --quiet
  same x_nr.mtx xs_full.mtx
  no_temporaries
  # Another factorization (--restart, another stripe height): its solution.
  run solve --workdir d1,d2 --stripe 20 --substripe 20 --cache 1M --restart --quiet -o x20.mtx
  run export solution --workdir d1,d2 -o xs20.mtx --quiet
  same x20.mtx xs20.mtx
  # A solve that fails (element growth: refinement stays far above its
  # bound) stores nothing.
  run import "$data/stripe_growth.mtx" "$data/stripe_growth_b.mtx" --workdir g --quiet
  fails_with "^exala: error: solve: after refinement the backward error is" \
    solve --workdir g --quiet --refine=3
  fails_with "^exala: error: export: no solution is stored in the work directory set g yet" \
    export solution --workdir g
  # A new system in the set removes the old one's solution.
  run generate dense --n 40 --seed 5 --workdir d1,d2 --stripe 12 --quiet --force
  [ ! -e d1/solution.bin ] || fail "the old system's solution.bin is still there"
  fails_with "^exala: error: export: no solution is stored in the work directory set d1,d2 yet" \
    export solution --workdir d1,d2
}

# The work directory set is locked while it is exported: a command that
# holds it (here this shell, by flock on the directory) makes export stop at
# once, naming the directory; once released, export runs.
locked() {
  run generate dense --n 20 --workdir wd --quiet
  exec 9<wd || fail "cannot open wd"
  flock -n 9 || fail "cannot lock wd"
  fails_with "^exala: error: work directory 'wd' is in use by another exala command" \
    export rhs --workdir wd -o B.mtx
  [ ! -e B.mtx ] || fail "B.mtx was written"
  exec 9<&-
  run export rhs --workdir wd -o B.mtx --quiet
  [ "$(sed -n 2p B.mtx)" = "20 1" ] || fail "B.mtx size line $(sed -n 2p B.mtx)"
}

"$mode"
echo "ok"
