#!/bin/sh
# run_cli_test.sh - runs one exala command and compares its exit status,
# standard output and standard error exactly with the expected ones.
#
# usage: run_cli_test.sh [--rc N] [--stdout TEXT] [--stdout-file FILE]
#                        [--stdout-regex RE] [--stderr TEXT] [--stderr-regex RE]
#                        [--stderr-lines N] [--stdin FILE] [--out FILE EXPECTED]
#                        -- COMMAND [ARGS...]
#   --rc N           expected exit status (default 0)
#   --stdout TEXT    expected stdout: TEXT and a newline (default: nothing)
#   --stdout-file F  expected stdout: the contents of F
#   --stdout-regex R stdout must contain a line matching the extended regex R
#   --stderr TEXT    expected stderr: TEXT and a newline (default: nothing)
#   --stderr-regex R stderr must contain a line matching the extended regex R
#                    (instead of --stderr; for messages with varying parts)
#   --stderr-lines N stderr must have exactly N lines
#   --stdin FILE     standard input of the command (default /dev/null)
#   --out FILE EXP   the command must write FILE (removed first) equal to EXP
# Exits 0 when everything matches, 1 otherwise (printing what differed).
set -u

rc_expected=0
stdout_text=""
stdout_file=""
stdout_regex=""
stderr_text=""
stderr_regex=""
stderr_lines=""
stdin_file=/dev/null
out_file=""
out_expected=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rc) rc_expected=$2; shift 2 ;;
    --stdout) stdout_text=$2; shift 2 ;;
    --stdout-file) stdout_file=$2; shift 2 ;;
    --stdout-regex) stdout_regex=$2; shift 2 ;;
    --stderr) stderr_text=$2; shift 2 ;;
    --stderr-regex) stderr_regex=$2; shift 2 ;;
    --stderr-lines) stderr_lines=$2; shift 2 ;;
    --stdin) stdin_file=$2; shift 2 ;;
    --out) out_file=$2; out_expected=$3; shift 3 ;;
    --) shift; break ;;
    *) echo "run_cli_test.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[ $# -gt 0 ] || { echo "run_cli_test.sh: no command given" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -z "$out_file" ] || rm -f "$out_file"

"$@" <"$stdin_file" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?

# Expected text: TEXT plus a newline, or nothing at all for an empty TEXT.
expect() { if [ -n "$1" ]; then printf '%s\n' "$1"; fi; }

status=0
fail() { echo "FAIL: $*"; status=1; }
same() {  # same NAME ACTUAL EXPECTED
  if ! cmp -s "$2" "$3"; then
    fail "$1 differs (expected, then actual):"
    echo "--- expected"; cat "$3"; echo "--- actual"; cat "$2"; echo "---"
  fi
}

echo "command: $*"
[ "$rc" = "$rc_expected" ] || fail "exit status $rc, expected $rc_expected"
if [ -n "$stdout_regex" ]; then
  grep -Eq -- "$stdout_regex" "$tmp/stdout" || fail "stdout has no line matching '$stdout_regex'"
elif [ -n "$stdout_file" ]; then
  same stdout "$tmp/stdout" "$stdout_file"
else
  expect "$stdout_text" >"$tmp/stdout.expected"
  same stdout "$tmp/stdout" "$tmp/stdout.expected"
fi
if [ -n "$stderr_regex" ]; then
  grep -Eq -- "$stderr_regex" "$tmp/stderr" || {
    fail "stderr has no line matching '$stderr_regex':"; cat "$tmp/stderr"; }
else
  expect "$stderr_text" >"$tmp/stderr.expected"
  same stderr "$tmp/stderr" "$tmp/stderr.expected"
fi
if [ -n "$stderr_lines" ]; then
  lines=$(wc -l <"$tmp/stderr" | tr -d ' ')
  [ "$lines" = "$stderr_lines" ] || fail "stderr has $lines lines, expected $stderr_lines"
fi
if [ -n "$out_file" ]; then
  if [ -f "$out_file" ]; then same "$out_file" "$out_file" "$out_expected"
  else fail "$out_file was not written"; fi
fi
[ "$status" -ne 0 ] || echo "ok"
exit "$status"
