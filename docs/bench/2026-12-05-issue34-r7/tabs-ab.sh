#!/bin/bash
# 1,000 tabs: r6's after (d894b16) and this round's (aacd021) alternated, three
# rounds, each run followed by a run of the floor.
cd "$WORK"
OUT=out; B=bins; L=$B/notch-load-after
ulimit -n $(ulimit -Hn)
{ echo "== tabs-ab start"; date -u; uptime; } >> $OUT/window-load.txt
for i in 1 2 3; do
  for b in notch-web-d894b16 notch-web-after; do
    echo "## $b, round $i" >> $OUT/tabs-ab.md
    $L -bin $B/$b -streams 1000 -runs 1 -settings=false -slow=false -follow=false -posts 10 -out $OUT/tabs-ab-$b.jsonl >> $OUT/tabs-ab.md 2>>$OUT/window.err
  done
done
{ echo "== tabs-ab"; date -u; uptime; } >> $OUT/window-load.txt
