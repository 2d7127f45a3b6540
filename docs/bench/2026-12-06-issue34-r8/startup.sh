#!/bin/bash
# A host's start, to its URL on stdout: the build before the timer slack
# (a9a6e69) and after (which executes itself once as it starts),
# alternated, N runs each, each in a fresh DSH home. Prints each run (µs)
# and the medians. Usage: startup.sh BEFORE AFTER [N]
before=$1 after=$2 n=${3:-30}
one() {
  local bin=$1 home t0 t1
  home=$(mktemp -d)
  t0=$(date +%s%N)
  {
    read -r _
    t1=$(date +%s%N)
    kill "$(cat "$home/pid")"
  } < <(sh -c 'echo $$ > "$1/pid"; exec "$0" --addr 127.0.0.1:0 --dsh-home "$1" --log-level error' "$bin" "$home" 2>/dev/null)
  sleep 0.3
  rm -rf "$home"
  echo $(((t1 - t0) / 1000))
}
runs=$(mktemp)
for i in $(seq "$n"); do
  echo "before $(one "$before")"
  echo "after $(one "$after")"
done | tee "$runs"
for k in before after; do
  awk -v k=$k '$1 == k {print $2}' "$runs" | sort -n | awk -v k=$k '{a[NR] = $1}
  END {p = int(NR * 0.9); if (p < 1) p = 1
    printf "%s: median %.1f ms, p90 %.1f ms (%d runs)\n", k, a[int((NR + 1) / 2)] / 1000, a[p] / 1000, NR}'
done
rm -f "$runs"
