# tests/cli/cli_test_lib.sh - the helpers of the scripted CLI tests
# (stripe_test.sh, export_test.sh), sourced after they set $exala and cd into
# their scratch folder. Each prints what it runs; a failure exits 1.

# bg_pid: a background exala run (perhaps stopped) that a failure must end.
bg_pid=
fail() {
  echo "FAIL: $*"
  [ -z "$bg_pid" ] || kill -KILL "$bg_pid" 2>/dev/null
  exit 1
}
# run ARGS...: exala must succeed; stderr goes to the file $log (default log).
log=log
run() {
  echo "+ exala $*"
  "$exala" "$@" 2>"$log"
  local rc=$?
  [ "$rc" -eq 0 ] || { cat "$log"; fail "exit status $rc"; }
}
# fails_with RE ARGS...: exala must exit 2 with one stderr line matching RE
# and print nothing on stdout.
fails_with() {
  local re=$1
  shift
  echo "+ exala $* (must fail)"
  "$exala" "$@" >out.txt 2>err.txt
  local rc=$?
  cat err.txt
  [ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "stderr has $(wc -l <err.txt) lines, expected 1"
  grep -Eq -- "$re" err.txt || fail "stderr does not match '$re'"
  [ ! -s out.txt ] || fail "stdout is not empty"
}
same() {  # same FILE FILE...: all equal to the first, byte for byte
  local first=$1 other
  shift
  for other in "$@"; do
    cmp "$first" "$other" || fail "$other differs from $first"
  done
  echo "same bits: $first $*"
}
has() {  # has FILE RE
  grep -Eq -- "$2" "$1" || { cat "$1"; fail "$1 has no line matching '$2'"; }
}
# flip FILE: complements one byte in the middle of FILE.
flip() {
  local size off b
  size=$(stat -c %s "$1")
  off=$((size / 2))
  b=$(od -An -tu1 -j "$off" -N 1 "$1" | tr -d ' ')
  printf "\\$(printf %o $((b ^ 255)))" | dd of="$1" bs=1 seek="$off" conv=notrunc 2>/dev/null
  echo "flipped byte $off of $1"
}
