#!/bin/bash
# Issue 34, eighth round: the timer slack (93ba19c) beside the build before
# it (a9a6e69), in one run. bins/ holds make build's binaries of 93ba19c,
# notch-web-before (a9a6e69's bin/notch-web) and web.test (go test -c
# ./web/); out/ the output; $REPO is the checkout.
cd "$WORK"
OUT=out
B=bins
L=$B/notch-load
mkdir -p $OUT
ulimit -n $(ulimit -Hn)
stamp() { { echo "== $1"; date -u; uptime; } >> $OUT/window-load.txt; }
stamp start
# Idle, 60 s spells: before, after, the bare floor and the floor with the
# contract's beat in each round (the hub's build too, at 20 rows).
$L idle -base $B/notch-web-before -bin $B/notch-web -also hub-build=$B/notch-web-hub -pane '{}' -rows 20 -duration 60s -runs 3 -out $OUT/idle-20.jsonl > $OUT/idle-20.md 2>>$OUT/window.err
stamp idle-20
$L idle -base $B/notch-web-before -bin $B/notch-web -pane '{}' -rows 200 -duration 60s -runs 3 -out $OUT/idle-200.jsonl > $OUT/idle-200.md 2>>$OUT/window.err
stamp idle-200
$L idle -base $B/notch-web-before -bin $B/notch-web -rows 20 -duration 60s -runs 3 -out $OUT/idle-20-fresh.jsonl > $OUT/idle-20-fresh.md 2>>$OUT/window.err
stamp idle-20-fresh
# One change, one tab, and 1,000 tabs: before and after alternated, three
# rounds, each run followed by a run of the floor.
for i in 1 2 3; do
  for b in notch-web-before notch-web; do
    echo "## $b, round $i" >> $OUT/one-change.md
    $L -bin $B/$b -streams 1 -runs 1 -changes 100 -settings=false -slow=false -follow=false -posts 10 -out $OUT/one-change-$b.jsonl >> $OUT/one-change.md 2>>$OUT/window.err
    echo "## $b, round $i" >> $OUT/tabs-1000.md
    $L -bin $B/$b -streams 1000 -runs 1 -settings=false -slow=false -follow=false -posts 10 -out $OUT/tabs-1000-$b.jsonl >> $OUT/tabs-1000.md 2>>$OUT/window.err
  done
done
stamp one-change-and-1000
$L -bin $B/notch-web -streams 10000 -runs 3 -settings=false -slow=false -follow=false -posts 10 -out $OUT/tabs-10000.jsonl > $OUT/tabs-10000.md 2>>$OUT/window.err
stamp tabs-10000
# The clicks, a push, a hook's reply with the history, the render: six
# runs at the kernel's slack and six at the host's (set on the shell
# that executes web.test, which its threads inherit).
for s in 50000 1000000; do
  (cd "$REPO/web" && sh -c 'echo $1 > /proc/$$/timerslack_ns && exec "$0" -test.run "^\$" -test.bench "ApproveClick|QuestionClick|PushNeedsYou|HookReplyHistory|RenderBoard40Groups8" -test.benchmem -test.count 6' "$WORK/$B/web.test" $s) > $OUT/holds-slack-$s.txt 2>>$OUT/window.err
done
stamp holds
$L mesh -bin $B/notch-web-hub > $OUT/mesh.md 2>>$OUT/window.err
stamp mesh
echo done >> $OUT/window-load.txt
