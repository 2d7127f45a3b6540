#!/bin/bash
# The contract's beat alone: run each BEAT_MODE of beat_test.go.txt (built as
# $WORK/bins/beat.test) for 15 s and report its CPU ms/s and wake-ups/s.
sum() { local s=0 c=0; for t in /proc/$1/task/*; do s=$((s + $(awk '{print $1}' $t/schedstat))); c=$((c + $(grep -E "^(non)?voluntary_ctxt" $t/status | awk '{s+=$2} END {print s}'))); done; echo "$s $c"; }
run() {
  BEAT_MODE=$1 $WORK/bins/beat.test -test.run TestBeatAlone -test.count 1 > /dev/null &
  pid=$!; sleep 2
  read s0 c0 < <(sum $pid); sleep 15; read s1 c1 < <(sum $pid)
  wait $pid
  awk -v m=$1 -v s=$((s1-s0)) -v c=$((c1-c0)) 'BEGIN {printf "%s: %.2f CPU ms/s, %.1f wake-ups/s\n", m, s/1e6/15, c/15}'
}
for i in 1 2 3; do run tick; run write; run raw; done
