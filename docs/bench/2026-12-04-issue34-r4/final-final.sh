#!/bin/bash
# Issue 34, fourth round: the final figures, every binary in the same rounds.
# base = main before this round (e39dbc1); after = this round (the store's statements);
# nopse, nohb, nowatch = after with one thing taken out (experiments, not kept).
cd "$WORK" # a scratch folder: bins/ holds the binaries, final/ the output
OUT=final
L=bins/notch-load
B=bins
ulimit -n $(ulimit -Hn)
stamp() { { date -u; uptime; } >> $OUT/window-load.txt; }
stamp
$L idle -bin $B/after -base $B/base -also nopse=$B/nopse -also nohb=$B/nohb -also nowatch=$B/nowatch -rows 20 -duration 20s -runs 3 -out $OUT/idle-20.jsonl > $OUT/idle-20.md 2>>$OUT/window.err
stamp
$L idle -bin $B/after -base $B/base -rows 200 -duration 20s -runs 3 -out $OUT/idle-200.jsonl > $OUT/idle-200.md 2>>$OUT/window.err
stamp
for i in 1 2; do
  for b in base after; do
    echo "## $b, round $i" >> $OUT/one-change.md
    $L -bin $B/$b -streams 1 -runs 1 -changes 40 -settings=false -slow=false -follow=false -posts 10 -out $OUT/one-change-$b.jsonl >> $OUT/one-change.md 2>>$OUT/window.err
  done
done
stamp
cd "$REPO/host/store" # store-base.test: go test -c at e39dbc1 plus BenchmarkWriteOne; store-new.test: at 0daa8fd
for i in 1 2 3 4 5 6; do for v in base new; do "$WORK"/store-$v.test -test.run '^$' -test.bench 'WriteOne|WriterEvent' -test.benchmem -test.count 1 | grep Benchmark | sed "s/^/$v /"; done; done > "$WORK"/$OUT/writeone-ab.txt
stamp
echo done >> $OUT/window-load.txt
