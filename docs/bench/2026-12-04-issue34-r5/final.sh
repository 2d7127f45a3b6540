#!/bin/bash
# Issue 34, fifth round: the final figures, every binary in the same rounds.
# before = main before this round (c83e100); after = this round (75cdeb7: the
# splice, the hub-less build's tag, the inode watch); omit-hub = after built
# with -tags notch_omit_hub. web-*.test: go test -c ./web/ at each.
cd "$WORK" # a scratch folder: bins/ holds the binaries, final/ the output (kept here as final-<name>)
OUT=final
L=bins/notch-load
B=bins
mkdir -p $OUT
ulimit -n $(ulimit -Hn)
stamp() { { date -u; uptime; } >> $OUT/window-load.txt; }
stamp
# Idle, a settings.json present (a user who changed a setting), 20 and 200 rows.
$L idle -bin $B/after -base $B/before -also omit-hub=$B/omit -pane '{}' -rows 20 -duration 20s -runs 3 -out $OUT/idle-20.jsonl > $OUT/idle-20.md 2>>$OUT/window.err
stamp
$L idle -bin $B/after -base $B/before -also omit-hub=$B/omit -pane '{}' -rows 200 -duration 20s -runs 3 -out $OUT/idle-200.jsonl > $OUT/idle-200.md 2>>$OUT/window.err
stamp
# Idle, a fresh install (no settings.json: the folder's names are watched).
$L idle -bin $B/after -base $B/before -also omit-hub=$B/omit -rows 20 -duration 20s -runs 3 -out $OUT/idle-20-fresh.jsonl > $OUT/idle-20-fresh.md 2>>$OUT/window.err
stamp
# One change, one tab: before and after alternated.
for i in 1 2; do
  for b in before after; do
    echo "## $b, round $i" >> $OUT/one-change.md
    $L -bin $B/$b -streams 1 -runs 1 -changes 40 -settings=false -slow=false -follow=false -posts 10 -out $OUT/one-change-$b.jsonl >> $OUT/one-change.md 2>>$OUT/window.err
  done
done
stamp
# The splice: a change's render and diff, before and after alternated six times.
for i in 1 2 3 4 5 6; do for v in before after; do
  $B/web-$v.test -test.run '^$' -test.bench 'Refresh40|Fanout$' -test.benchmem -test.count 1 | grep Benchmark | sed "s/^/$v /"
done; done > $OUT/splice-ab.txt
stamp
# What holds today, after only: 1,000 and 10,000 tabs beside the floor.
$L -bin $B/after -streams 1000,10000 -runs 3 -settings=false -slow=false -follow=false -posts 10 -out $OUT/tabs.jsonl > $OUT/tabs.md 2>>$OUT/window.err
stamp
echo done >> $OUT/window-load.txt
