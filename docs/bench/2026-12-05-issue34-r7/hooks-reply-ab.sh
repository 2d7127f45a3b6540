#!/bin/bash
# The hook endpoint's reply, 20 sessions × 50 hooks/s for 10 s: the build of
# 2026-11-30 (1a189c8, when it met 2 ms) and this round's (aacd021)
# alternated, three rounds.
cd "$WORK"
OUT=out; B=bins; L=$B/notch-load-after
{ echo "== hooks-reply-ab start"; date -u; uptime; } >> $OUT/window-load.txt
for i in 1 2 3; do
  for b in notch-web-1a189c8 notch-web-after; do
    echo "## $b, round $i" >> $OUT/hooks-reply-ab.md
    $L hooks -bin $B/$b -procs 8 >> $OUT/hooks-reply-ab.md 2>>$OUT/window.err
  done
done
{ echo "== hooks-reply-ab"; date -u; uptime; } >> $OUT/window-load.txt
