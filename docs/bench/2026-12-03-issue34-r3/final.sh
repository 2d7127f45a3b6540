#!/bin/bash
# The final figures (issue 34, third round): run between 18:42 and 18:52 UTC.
cd /tmp/perf34
OUT=/tmp/perf34/final-out
L=/tmp/perf34/bins/notch-load
B=/tmp/perf34/bins
ulimit -n $(ulimit -Hn)
{ date -u; uptime; } > $OUT/window-load.txt
$L idle -bin $B/final -base $B/base -also fsx=$B/fsx -also watch=$B/watch -rows 20 -duration 20s -runs 2 -out $OUT/idle-20.jsonl > $OUT/idle-20.md 2>>$OUT/window.err
{ date -u; uptime; } >> $OUT/window-load.txt
$L idle -bin $B/final -base $B/base -rows 200 -duration 20s -runs 2 -out $OUT/idle-200.jsonl > $OUT/idle-200.md 2>>$OUT/window.err
{ date -u; uptime; } >> $OUT/window-load.txt
for i in 1 2; do
  for b in base final; do
    echo "## $b, round $i" >> $OUT/one-change.md
    $L -bin $B/$b -streams 1 -runs 1 -changes 40 -settings=false -slow=false -follow=false -posts 10 -out $OUT/one-change-$b.jsonl >> $OUT/one-change.md 2>>$OUT/window.err
  done
done
{ date -u; uptime; } >> $OUT/window-load.txt
