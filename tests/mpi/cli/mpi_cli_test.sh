#!/usr/bin/env bash
# mpi_cli_test.sh - `exala ... --backend mpi` under mpirun against the
# single-process command (registered by tests/mpi/cli.cmake).
#
# usage: mpi_cli_test.sh MODE EXALA MPIEXEC NP SCRATCH DATA
#   MODE     one of the functions at the end (np1, np2, np3, np4, solve, ...)
#   EXALA    the tool; MPIEXEC: mpirun; NP: the rank count
#   SCRATCH  a folder of its own (emptied first); DATA: tests/cli/data
# The single-process command is the reference: the distributed run's stdout
# (or -o file) must be the same bytes, and its errors the same line (naming
# the failing rank when it is not rank 0), printed once, with exit status 2.
# Every mpirun runs under a timeout, so a hang fails the test. Prints what it
# runs; exits 1 on the first failure.
set -u

mode=$1 exala=$2 mpiexec=$3 np=$4 scratch=$5 data=$6
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1

fail() { echo "FAIL: $*"; exit 1; }
show() { echo "--- $1"; cat "$1"; }

# single ARGS...: the single-process command -> s.out, s.err, $src
single() {
  "$exala" "$@" >s.out 2>s.err
  src=$?
}
# parallel ARGS...: the same under mpirun -np $np with --backend mpi -> m.out, m.err, $mrc
parallel() {
  timeout 120 "$mpiexec" -np "$np" --oversubscribe "$exala" "$@" --backend mpi >m.out 2>m.err
  mrc=$?
  [ "$mrc" -ne 124 ] || { show m.err; fail "mpirun -np $np timed out (a hang)"; }
}
# split ARGS... [+ MPI_ARGS...]: the arguments of both runs, and those of
# the distributed run only (after '+').
split() {
  both=() only=()
  local seen=0 a
  for a in "$@"; do
    if [ "$a" = "+" ]; then seen=1
    elif [ "$seen" -eq 0 ]; then both+=("$a")
    else only+=("$a"); fi
  done
}

# same ARGS... [+ MPI_ARGS...]: both succeed with the same stdout (or the
# same -o file, OUT=FILE), and the distributed run prints nothing on stderr.
same() {
  split "$@"
  echo "+ exala ${both[*]}  |  mpirun -np $np ... ${only[*]} --backend mpi"
  local out=${OUT:-}
  if [ -n "$out" ]; then
    rm -f "$out"
    single "${both[@]}" -o "$out"
    [ "$src" -eq 0 ] || { show s.err; fail "single-process run: exit status $src"; }
    mv "$out" "single_$out"
    parallel "${both[@]}" "${only[@]}" -o "$out"
  else
    single "${both[@]}"
    [ "$src" -eq 0 ] || { show s.err; fail "single-process run: exit status $src"; }
    parallel "${both[@]}" "${only[@]}"
  fi
  [ "$mrc" -eq 0 ] || { show m.err; fail "mpirun: exit status $mrc"; }
  [ ! -s m.err ] || { show m.err; fail "stderr is not empty"; }
  if [ -n "$out" ]; then
    [ ! -s m.out ] || { show m.out; fail "stdout is not empty with -o"; }
    cmp "single_$out" "$out" || fail "$out differs from the single-process one"
  else
    [ -s s.out ] || fail "no output"
    cmp s.out m.out || { show s.out; show m.out; fail "stdout differs"; }
  fi
  echo "same bytes"
  if [ -n "${EXPECT:-}" ]; then  # exact-arithmetic answer (tests/cli/data)
    cmp "$data/$EXPECT" "${out:-m.out}" || fail "differs from $EXPECT"
    echo "equal to $EXPECT"
  fi
}

# one_error_line FILE: FILE has exactly one 'exala: error:' line (mpirun's
# own notice about the exit status may follow); prints it.
one_error_line() {
  local k
  k=$(grep -c '^exala: error: ' "$1")
  [ "$k" -eq 1 ] || { show "$1"; fail "$k error lines, expected 1"; }
  grep '^exala: error: ' "$1"
}

# error RANK ARGS... [+ MPI_ARGS...]: both fail with exit status 2; the
# distributed run prints one error line: the single-process line, with
# 'rank RANK: ' after 'exala: error: ' when RANK > 0 (RANK 'any': with or
# without 'rank K: ' for any K), and nothing on stdout.
error() {
  local rank=$1
  shift
  split "$@"
  echo "+ exala ${both[*]}  |  mpirun -np $np ... ${only[*]} --backend mpi  (must fail)"
  single "${both[@]}"
  [ "$src" -eq 2 ] || { show s.err; fail "single-process run: exit status $src, expected 2"; }
  [ "$(wc -l <s.err)" -eq 1 ] || { show s.err; fail "single-process stderr is not one line"; }
  parallel "${both[@]}" "${only[@]}"
  [ "$mrc" -eq 2 ] || { show m.err; fail "mpirun: exit status $mrc, expected 2"; }
  [ ! -s m.out ] || { show m.out; fail "stdout is not empty"; }
  local want got
  want=$(cat s.err)
  got=$(one_error_line m.err)
  if [ "$rank" = any ]; then
    got=$(printf '%s\n' "$got" | sed -E 's/^exala: error: rank [0-9]+: /exala: error: /')
  elif [ "$rank" -gt 0 ]; then
    want="exala: error: rank $rank: ${want#exala: error: }"
  fi
  [ "$got" = "$want" ] || fail "error line '$got', expected '$want'"
  echo "one line: $got"
}

# mpi_error RE ARGS...: the distributed run alone fails with one error line
# matching RE (options of the MPI mode).
mpi_error() {
  local re=$1
  shift
  echo "+ mpirun -np $np exala $* --backend mpi  (must fail)"
  parallel "$@"
  [ "$mrc" -eq 2 ] || { show m.err; fail "mpirun: exit status $mrc, expected 2"; }
  [ ! -s m.out ] || { show m.out; fail "stdout is not empty"; }
  local got
  got=$(one_error_line m.err)
  [[ "$got" =~ $re ]] || fail "error line '$got' does not match '$re'"
  echo "one line: $got"
}

# refused RE MPIRUN_ARGS...: `mpirun --oversubscribe MPIRUN_ARGS...` (an MPMD
# launch, or the rank_files.sh wrapper: ranks that run different commands
# or see different files) must end within 30 s with exit status 2, nothing
# on stdout (STDOUT=text: exactly that) and one error line matching RE.
refused() {
  local re=$1
  shift
  echo "+ mpirun $*  (must be refused)"
  timeout 30 "$mpiexec" --oversubscribe "$@" >m.out 2>m.err
  mrc=$?
  [ "$mrc" -ne 124 ] || { show m.err; fail "mpirun timed out (a hang)"; }
  [ "$mrc" -eq 2 ] || { show m.out; show m.err; fail "mpirun: exit status $mrc, expected 2"; }
  if [ -n "${STDOUT:-}" ]; then
    [ "$(cat m.out)" = "$STDOUT" ] || { show m.out; fail "stdout is not '$STDOUT'"; }
  else
    [ ! -s m.out ] || { show m.out; fail "stdout is not empty"; }
  fi
  local got
  got=$(one_error_line m.err)
  [[ "$got" =~ $re ]] || fail "error line '$got' does not match '$re'"
  echo "one line: $got"
}

# ---- data (awk's generator, seeded: the same files in both runs) ----

# vector FILE N SEED: N values over a wide exponent range, with cancellation.
vector() {
  awk -v n="$2" -v s="$3" 'BEGIN {
    srand(s); print "%%MatrixMarket matrix array real general"; print "% test vector"; print n, 1
    for (i = 0; i < n; i++) {
      v = (rand() - 0.5) * 2 ^ int(rand() * 80 - 40)
      printf "%.17g\n", (i % 5 == 4) ? -prev : v; prev = v
    } }' >"$1"
}
# matrix FILE M N SEED: dense M x N, several values a line.
matrix() {
  awk -v m="$2" -v n="$3" -v s="$4" 'BEGIN {
    srand(s); print "%%MatrixMarket matrix array real general"; print "% test matrix"; print m, n
    for (i = 0; i < m * n; i++)
      printf "%.17g%s", (rand() - 0.5) * 2 ^ int(rand() * 40 - 20), (i % 3 == 2 ? "\n" : " ")
    print "" }' >"$1"
}
# triangular FILE N SEED: both triangles filled, a dominant diagonal; one
# value a line. (Every generated file has 3 lines before its values.)
triangular() {
  awk -v n="$2" -v s="$3" 'BEGIN {
    srand(s); print "%%MatrixMarket matrix array real general"; print "% test matrix"; print n, n
    for (j = 0; j < n; j++) for (i = 0; i < n; i++)
      printf "%.17g\n", i == j ? 1 + rand() : (rand() - 0.5) / n }' >"$1"
}
# bad FILE SRC K TOKEN: SRC (one value a line after 3 lines) with value K
# (0-based) replaced by TOKEN.
bad() { awk -v k="$3" -v t="$4" 'NR == k + 4 { print t; next } { print }' "$2" >"$1"; }

# ---- modes ----

# Rank counts 1..4: each runs a few commands (mpirun costs seconds here);
# together they cover sum, asum, dot, gemv N/T (with y, alpha, beta),
# trsv (uplo, trans, diag, rounding, block sizes), uneven splits, ranks
# with no data (n < P), every local backend on the CPU, -o, and errors on
# one rank's part of a file.
np1() {
  vector v1001.mtx 1001 11
  same sum v1001.mtx + --local-backend reference
  EXPECT=expected_l23_gemv_wide_t.mtx same gemv "$data/l23_wide_a.mtx" "$data/l23_wide_xt.mtx" \
    --trans T --alpha 0.1 --beta -3 --y "$data/l23_wide_yt.mtx"
  EXPECT=expected_l23_x_ill40.mtx same trsv "$data/l23_ill40.mtx" "$data/l23_ill40_b.mtx" + --block 3
}
np2() {
  # 4099 entries: 2050 + 2049.
  same dot "$data/big_x.mtx" "$data/big_y.mtx" + --local-backend omp --threads 2
  EXPECT=expected_l23_gemv_wide.mtx OUT=y.mtx same gemv "$data/l23_wide_a.mtx" \
    "$data/l23_wide_x.mtx" --alpha 0.1 --beta -3 --y "$data/l23_wide_y.mtx"
  # A bad entry in rank 1's half (entries 5..9), and one more after it.
  vector v10.mtx 10 3
  bad b1.mtx v10.mtx 6 1.5e
  bad b10.mtx b1.mtx 8 x
  error 1 sum b10.mtx
  mpi_error "^exala: error: option '--method naive' does not apply to '--backend mpi'" \
    trsv "$data/l23_ill40.mtx" "$data/l23_ill40_b.mtx" --method naive
}
np3() {
  # 2 entries over 3 ranks: rank 2 has none.
  same asum "$data/two.mtx"
  # gemv T on A 6 x 2: A^T's 2 rows over 3 ranks.
  matrix a62.mtx 6 2 5
  vector x6.mtx 6 6
  vector y2.mtx 2 7
  same gemv a62.mtx x6.mtx --trans T --y y2.mtx --beta 0.5 + --local-backend simd
  triangular t13.mtx 13 8
  vector b13.mtx 13 9
  same trsv t13.mtx b13.mtx --uplo U --trans T --rounding down + --block 1
}
np4() {
  # 3 entries over 4 ranks, a tie decided by a far sticky bit.
  same sum "$data/tie_sticky.mtx"
  # gemv N on A 5 x 3: 3 columns over 4 ranks.
  matrix a53.mtx 5 3 10
  vector x3.mtx 3 11
  same gemv a53.mtx x3.mtx --alpha -2 + --local-backend reference
  triangular t9.mtx 9 12
  vector b9.mtx 9 13
  same trsv t9.mtx b9.mtx --diag U --rounding up + --block 2
  # --block 2: rows 4-5 are rank 2's, rows 2-3 rank 1's. The first bad
  # value (4: row 4) is rank 2's; rank 1's (11: row 2) comes later in the
  # file: the line reported is rank 2's, as one process reports it.
  bad tb1.mtx t9.mtx 11 0x1q
  bad tb.mtx tb1.mtx 4 nope
  error 2 trsv tb.mtx b9.mtx + --block 2
}

# Ranks that disagree (np >= 2): each rank reads its own copy of a file
# (the wrapper rank_files.sh puts the rank where '@R' is), or an MPMD launch
# gives rank 0 one command line and the others another. The lowest rank
# that differs from rank 0 (here the last one, or rank 1) is named in the
# one error line, with rank 0, the file or setting and what differs; nobody
# hangs and nobody prints a result.
agree() {
  [ "$np" -ge 2 ] || fail "mode agree needs 2 ranks or more"
  local last=$((np - 1)) rest=$((np - 1)) wrap=rank_files.sh
  printf '%s\n' '#!/usr/bin/env bash' \
    "# rank_files.sh EXALA ARGS...: EXALA with '@R' in each argument replaced by the rank." \
    'rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:?no MPI rank in the environment}}}' \
    'exe=$1' 'shift' 'args=()' 'for a in "$@"; do args+=("${a//@R/$rank}"); done' \
    'exec "$exe" "${args[@]}"' >"$wrap"
  # ranked NAME FILE_FIRST FILE_LAST: NAME<r>.mtx for every rank r, the last
  # rank's a copy of FILE_LAST, the others' copies of FILE_FIRST (NAME
  # starts with p: no copy overwrites a source).
  ranked() {
    local r
    for r in $(seq 0 "$last"); do
      if [ "$r" -eq "$last" ]; then cp "$3" "$1$r.mtx"; else cp "$2" "$1$r.mtx"; fi ||
        fail "cannot copy to $1$r.mtx"
    done
  }
  local head="^exala: error: rank $last: input" one="^exala: error: rank 1: "
  local shape='[0-9]+ bytes, checksum [0-9a-f]{16}'
  # The issue's case: entries 1 2 3 (sum 6) on the first ranks, 1 2 3 4 5
  # (sum 15) on the last. (It printed 12 with exit status 0.)
  printf '%s\n' '%%MatrixMarket matrix array real general' '3 1' 1 2 3 >s3.mtx
  printf '%s\n' '%%MatrixMarket matrix array real general' '5 1' 1 2 3 4 5 >s5.mtx
  ranked pv s3.mtx s5.mtx
  refused "$head FILE is 'pv$last.mtx' \\(5 x 1, $shape\\) here but 'pv0.mtx' \\(3 x 1, $shape\\) on rank 0 \\(different sizes\\): every rank must read the same files$" \
    -np "$np" bash "$wrap" "$exala" sum pv@R.mtx --backend mpi
  # One digit differs: the same size, other contents.
  vector w.mtx 40 31
  awk 'NR == 10 { c = substr($0, length($0)); $0 = substr($0, 1, length($0) - 1) (c == 1 ? 2 : 1) }
    { print }' w.mtx >w_bad.mtx
  cmp -s w.mtx w_bad.mtx && fail "w_bad.mtx is w.mtx"
  [ "$(wc -c <w.mtx)" -eq "$(wc -c <w_bad.mtx)" ] || fail "w_bad.mtx has another size"
  ranked pu w.mtx w_bad.mtx
  refused "$head FILE is 'pu$last.mtx' \\(40 x 1, $shape\\) here but 'pu0.mtx' \\(40 x 1, $shape\\) on rank 0 \\(same size, different contents\\): " \
    -np "$np" bash "$wrap" "$exala" asum pu@R.mtx --backend mpi
  # X and Y both one entry longer on the last rank (so that its own size
  # check passes).
  vector w41.mtx 41 31
  vector y40.mtx 40 32
  vector y41.mtx 41 32
  ranked px w.mtx w41.mtx
  ranked py y40.mtx y41.mtx
  refused "$head X is 'px$last.mtx' \\(41 x 1, $shape\\) here but 'px0.mtx' \\(40 x 1, " \
    -np "$np" bash "$wrap" "$exala" dot px@R.mtx py@R.mtx --backend mpi
  matrix a1.mtx 6 4 33
  matrix a2.mtx 6 4 34
  vector x4.mtx 4 35
  ranked pa a1.mtx a2.mtx
  refused "$head A is 'pa$last.mtx' \\(6 x 4, " \
    -np "$np" bash "$wrap" "$exala" gemv pa@R.mtx x4.mtx --backend mpi
  triangular t1.mtx 7 36
  triangular t2.mtx 7 37
  vector b7.mtx 7 38
  vector c7.mtx 7 39
  ranked pt t1.mtx t2.mtx
  refused "$head T is 'pt$last.mtx' \\(7 x 7, " \
    -np "$np" bash "$wrap" "$exala" trsv pt@R.mtx b7.mtx --backend mpi
  # B is read by rank 0 alone, and still must be every rank's.
  ranked pb b7.mtx c7.mtx
  refused "$head B is 'pb$last.mtx' \\(7 x 1, " \
    -np "$np" bash "$wrap" "$exala" trsv t1.mtx pb@R.mtx --backend mpi
  triangular sa1.mtx 12 40
  triangular sa2.mtx 12 41
  matrix sb.mtx 12 1 42
  ranked psa sa1.mtx sa2.mtx
  refused "$head A is 'psa$last.mtx' \\(12 x 12, " \
    -np "$np" bash "$wrap" "$exala" solve psa@R.mtx sb.mtx --stripe 4 --substripe 2 --quiet \
    --backend mpi
  # Copies with the same bytes under other paths are the same input.
  ranked pc w.mtx w.mtx
  single asum w.mtx
  echo "+ mpirun -np $np rank_files.sh exala asum pc@R.mtx --backend mpi"
  timeout 30 "$mpiexec" -np "$np" --oversubscribe bash "$wrap" "$exala" asum pc@R.mtx \
    --backend mpi >m.out 2>m.err
  [ "$?" -eq 0 ] || { show m.err; fail "copies under other paths were refused"; }
  cmp s.out m.out || fail "stdout differs"
  # MPMD: other commands or settings on ranks 1.. than on rank 0.
  refused "${one}runs 'asum' here but 'sum' on rank 0: every rank must run the same command$" \
    -np 1 "$exala" sum w.mtx --backend mpi : -np "$rest" "$exala" asum w.mtx --backend mpi
  refused "${one}runs 'gemv' here but 'dot' on rank 0: " \
    -np 1 "$exala" dot x4.mtx x4.mtx --backend mpi : \
    -np "$rest" "$exala" gemv a1.mtx x4.mtx --backend mpi
  # gemv N on rank 0 and T on the others (A square): it hung.
  vector x6.mtx 6 43
  matrix a66.mtx 6 6 44
  refused "${one}option '--trans' is 'T' here but 'N' on rank 0: every rank must give the same options$" \
    -np 1 "$exala" gemv a66.mtx x6.mtx --backend mpi : \
    -np "$rest" "$exala" gemv a66.mtx x6.mtx --trans T --backend mpi
  refused "${one}option '--rounding' is 'up' here but 'nearest' on rank 0: " \
    -np 1 "$exala" sum w.mtx --backend mpi : \
    -np "$rest" "$exala" sum w.mtx --rounding up --backend mpi
  refused "${one}option '--block' is '2' here but '256' on rank 0: " \
    -np 1 "$exala" trsv t1.mtx b7.mtx --backend mpi : \
    -np "$rest" "$exala" trsv t1.mtx b7.mtx --block 2 --backend mpi
  refused "${one}option '-o' is 'o1.mtx' here but 'o0.mtx' on rank 0: " \
    -np 1 "$exala" gemv a1.mtx x4.mtx -o o0.mtx --backend mpi : \
    -np "$rest" "$exala" gemv a1.mtx x4.mtx -o o1.mtx --backend mpi
  [ ! -e o0.mtx ] || fail "a refused run wrote o0.mtx"
  refused "${one}option '--stripe' is '6' here but '4' on rank 0: " \
    -np 1 "$exala" solve sa1.mtx sb.mtx --stripe 4 --quiet --backend mpi : \
    -np "$rest" "$exala" solve sa1.mtx sb.mtx --stripe 6 --quiet --backend mpi
  # A rank that runs no command (it waited in MPI_Finalize while the others
  # waited for it: a hang).
  refused "${one}runs no command \\(--help or --version\\) here but 'sum' on rank 0: " \
    -np 1 "$exala" sum w.mtx --backend mpi : -np "$rest" "$exala" --version --backend mpi
  STDOUT="$("$exala" --version)" refused \
    "${one}runs 'sum' here but no command \\(--help or --version\\) on rank 0: " \
    -np 1 "$exala" --version --backend mpi : -np "$rest" "$exala" sum w.mtx --backend mpi
  # Each rank's own resources may differ.
  single dot y40.mtx w.mtx
  echo "+ mpirun: dot with another --local-backend and --threads on ranks 1.."
  timeout 30 "$mpiexec" --oversubscribe -np 1 "$exala" dot y40.mtx w.mtx --backend mpi : \
    -np "$rest" "$exala" dot y40.mtx w.mtx --local-backend reference --threads 2 --backend mpi \
    >m.out 2>m.err
  [ "$?" -eq 0 ] || { show m.err; fail "per-rank --local-backend and --threads were refused"; }
  cmp s.out m.out || fail "stdout differs"
  # --cache on rank 0 only (the others take the default: collectives that
  # only they made, and MPI aborted the job).
  "$exala" generate dense --n 60 --seed 6 --workdir wd --stripe 20 --quiet || fail "generate"
  "$exala" solve --workdir wd --stripe 16 --substripe 8 --quiet -o x_ref.mtx || fail "solve"
  echo "+ mpirun: solve --workdir with --cache on rank 0 only"
  timeout 30 "$mpiexec" --oversubscribe -np 1 "$exala" solve --workdir wd --stripe 16 \
    --substripe 8 --cache 100K --quiet -o x.mtx --backend mpi : -np "$rest" "$exala" solve \
    --workdir wd --stripe 16 --substripe 8 --quiet -o x.mtx --backend mpi >m.out 2>m.err
  mrc=$?
  [ "$mrc" -ne 124 ] || { show m.err; fail "mpirun timed out (a hang)"; }
  [ "$mrc" -eq 0 ] || { show m.err; fail "--cache on rank 0 only: exit status $mrc"; }
  cmp x_ref.mtx x.mtx || fail "x.mtx differs from the single-process solution"
}

# Long: every command at this rank count, more shapes, every local backend.
sweep() {
  local lb
  vector v1.mtx 1 1
  vector v5.mtx 5 2
  vector v4099.mtx 4099 3
  vector w4099.mtx 4099 4
  for f in v1.mtx v5.mtx v4099.mtx "$data/tie.mtx" "$data/tie_odd.mtx" "$data/subnormal.mtx" \
           "$data/inf_minus_inf.mtx" "$data/neg_zero.mtx" "$data/empty_matrix.mtx"; do
    same sum "$f"
    same asum "$f"
  done
  same sum "$data/one_minus_one.mtx" --rounding down
  for lb in reference simd omp; do
    same dot v4099.mtx w4099.mtx + --local-backend "$lb" --threads 2
  done
  matrix a.mtx 11 7 5
  vector x7.mtx 7 6
  vector x11.mtx 11 7
  vector y11.mtx 11 8
  vector y7.mtx 7 9
  same gemv a.mtx x7.mtx
  same gemv a.mtx x7.mtx --y y11.mtx --alpha 3 --beta -0.25 --rounding zero
  same gemv a.mtx x11.mtx --trans T
  same gemv a.mtx x11.mtx --trans T --y y7.mtx --beta 2 + --local-backend omp
  triangular t.mtx 37 10
  vector b.mtx 37 11
  local ul tr dg nb
  for ul in L U; do for tr in N T; do for dg in N U; do
    for nb in 1 5 256; do
      same trsv t.mtx b.mtx --uplo $ul --trans $tr --diag $dg + --block $nb
    done
  done; done; done
  EXPECT=expected_l23_x_ill120.mtx same trsv "$data/l23_ill120.mtx" "$data/l23_ill120_b.mtx" + --block 7
  # Errors everywhere in the files.
  error 0 trsv "$data/l23_singular.mtx" "$data/l23_ones2.mtx"
  error any sum "$data/too_few.mtx"
  error any sum "$data/too_many.mtx"
  error 0 dot v5.mtx v1.mtx
  error 0 gemv a.mtx x11.mtx
  error 0 sum "$data/coordinate.mtx"
  error 0 sum no_such_file.mtx
  if [ "$np" -gt 1 ]; then
    bad vb.mtx v4099.mtx 4098 "--"
    error $((np - 1)) sum vb.mtx
  fi
}

# solve --workdir and solve A B: the same solution file as one process.
solve() {
  local f="--stripe 32 --substripe 16"
  "$exala" generate dense --n 240 --seed 3 --workdir wd --stripe 50 --quiet || fail "generate"
  OUT=x.mtx same solve --workdir wd $f --cache 600K --quiet
  [ -d wd/mpi/rank-$((np - 1)) ] || fail "no rank work directory wd/mpi/rank-$((np - 1))"
  # Progress and summary from rank 0 only; the default cache (per rank).
  parallel solve --workdir wd $f --restart --progress-interval 0 -o x2.mtx \
    --rank-workdir "rw/r%r"
  [ "$mrc" -eq 0 ] || { show m.err; fail "exit status $mrc"; }
  [ "$(grep -c '^exala: solved n = 240' m.err)" -eq 1 ] || { show m.err; fail "not one summary"; }
  [ -d rw/r0 ] || fail "--rank-workdir rw/r%r made no rw/r0"
  cmp single_x.mtx x2.mtx || fail "x2.mtx differs"
  # Rank 0 stored the solution in the set: exala export solution gives its bits.
  "$exala" export solution --workdir wd --quiet -o xs2.mtx || fail "export solution"
  cmp x2.mtx xs2.mtx || fail "the stored solution differs from x2.mtx"
  # The forward error against generate's reference (rank 0's summary): the
  # single-process line, since the solution has the same bits.
  grep '^  forward error: ' m.err >m.fe
  [ "$(wc -l <m.fe)" -eq 1 ] || { show m.err; fail "not one forward-error line"; }
  "$exala" solve --workdir wd $f --cache 600K -o x3.mtx 2>s3.err || fail "single-process solve"
  grep '^  forward error: ' s3.err | cmp - m.fe || { show s3.err; fail "the forward-error lines differ"; }
  # In core, from Matrix Market files.
  awk 'BEGIN { srand(21); n = 150; print "%%MatrixMarket matrix array real general"; print n, n
    for (j = 0; j < n; j++) for (i = 0; i < n; i++) printf "%.17g\n", rand() - 0.5 }' >a.mtx
  matrix b.mtx 150 2 22
  OUT=xi.mtx same solve a.mtx b.mtx $f --quiet
}

# A run that fails on a full disk (EXALA_FAULT_WRITE_BYTES on every rank)
# stops every rank with one error line; the rerun resumes and gives the
# uninterrupted run's bits.
resume() {
  local f="--stripe 32 --substripe 16 --cache 300K"
  "$exala" generate dense --n 320 --seed 4 --workdir wd --stripe 40 --quiet || fail "generate"
  "$exala" solve --workdir wd $f --quiet -o x_ref.mtx || fail "single-process solve"
  # (1.2 MB a rank: a few pivot groups are done when a write fails.)
  echo "+ EXALA_FAULT_WRITE_BYTES=1200000 mpirun -np $np exala solve --workdir wd $f (must fail)"
  EXALA_FAULT_WRITE_BYTES=1200000 parallel solve --workdir wd $f --quiet -o x.mtx
  [ "$mrc" -eq 2 ] || { show m.err; fail "exit status $mrc, expected 2"; }
  one_error_line m.err | grep -E "no space left on device" || fail "not the full disk"
  [ ! -e x.mtx ] || fail "a failed run wrote x.mtx"
  parallel solve --workdir wd $f -o x.mtx
  [ "$mrc" -eq 0 ] || { show m.err; fail "rerun: exit status $mrc"; }
  cat m.err
  grep -Eq "resumed \([1-9][0-9]* pivot groups? (was|were) already done\)" m.err ||
    fail "not resumed"
  cmp x_ref.mtx x.mtx || fail "the resumed solution differs"
}

# SIGKILL of the whole mpirun job mid-factorization, then a rerun: the same
# bits (long).
kill_resume() {
  local f="--stripe 64 --substripe 32 --cache 6M"
  "$exala" generate dense --n 2400 --seed 5 --workdir wd --stripe 100 --quiet || fail "generate"
  "$exala" solve --workdir wd $f --quiet -o x_ref.mtx || fail "single-process solve"
  local k killed=0
  for k in 1 2 3; do
    setsid "$mpiexec" -np "$np" --oversubscribe "$exala" solve --workdir wd $f --backend mpi \
      --progress-interval 0 -o x.mtx >/dev/null 2>run.txt &
    local pid=$!
    # Killed once its progress lines show 8% more of the factorization's
    # flops than its first line did (progress, not time: a loaded machine
    # changes nothing).
    local first="" pct line
    while kill -0 "$pid" 2>/dev/null; do
      line=$(grep -E '^exala: factor: step' run.txt | tail -n 1)
      pct=$(printf '%s\n' "$line" | sed -nE 's/^[^(]*\(([0-9]+)\..*/\1/p')
      if [ -n "$pct" ]; then
        [ -n "$first" ] || first=$pct
        [ "$pct" -lt $((first + 8)) ] || break
      fi
      sleep 0.02
    done
    if kill -0 "$pid" 2>/dev/null; then
      # Open MPI puts each rank in a process group of its own (in mpiexec's
      # session): a rank would outlive its killed mpiexec, still holding its
      # directory's lock, so the whole session is killed and waited for.
      pkill -KILL -s "$pid" 2>/dev/null
      killed=$((killed + 1))
      echo "run $k killed at: $line"
    fi
    wait "$pid" 2>/dev/null
    local t=0
    while ps -o stat= -s "$pid" 2>/dev/null | grep -q '^[^Z]'; do  # (zombies hold no lock)
      [ "$t" -lt 500 ] || fail "the ranks of killed run $k did not end"
      sleep 0.02
      t=$((t + 1))
    done
  done
  [ "$killed" -ge 2 ] || fail "only $killed runs were killed"
  parallel solve --workdir wd $f -o x.mtx
  [ "$mrc" -eq 0 ] || { show m.err; fail "final run: exit status $mrc"; }
  cat m.err
  grep -Eq "resumed \([1-9][0-9]* pivot groups? (was|were) already done\)" m.err ||
    fail "not resumed"
  cmp x_ref.mtx x.mtx || fail "the resumed solution differs"
}

"$mode"
echo "ok"
