# Sourced by the bench/run_*.sh scripts: waiting for idle CPUs.
#
# Other work on the CPUs spoils the timings, 2-thread OpenMP ones above all
# (on a 2-core machine a busy core slows them down many times).
# busy_percent: the share of CPU time used in the last second, by anyone.
# settle: before a configuration, waits up to EXALA_BENCH_WAIT_IDLE seconds
# (default 0) for a second with the CPUs <= 10% busy, and warns on stderr
# when they are still busy.
cpu_times() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat; }
busy_percent() {
  local b0 i0 b1 i1
  read -r b0 i0 < <(cpu_times); sleep 1; read -r b1 i1 < <(cpu_times)
  echo $(( 100 * (b1 - b0) / (b1 - b0 + i1 - i0 + 1) ))
}
wait_idle=${EXALA_BENCH_WAIT_IDLE:-0}
settle() {
  [[ -r /proc/stat ]] || return 0
  local start=$SECONDS busy
  busy=$(busy_percent)
  while (( busy > 10 && SECONDS - start < wait_idle )); do busy=$(busy_percent); done
  if (( busy > 10 )); then
    echo "$0: warning: CPUs ${busy}% busy before this run; timings will be noisy" >&2
  fi
}
