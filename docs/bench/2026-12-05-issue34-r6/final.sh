#!/bin/bash
# Issue 34, sixth round: the final figures, every binary in the same rounds.
# before = main at the start of this round (22279ef), as a plain go install
# built it then (nats-server linked); before-omit = the same with
# -tags notch_omit_hub; after = this round (d894b16) as a plain go install
# builds it now (no nats-server); hub-build = after with -tags notch_hub.
# web-*.test: go test -c ./web/ at each.
cd "$WORK" # a scratch folder: bins/ holds the binaries, out/ the output; $REPO is the checkout
# This run was stopped during the second of the six benchmark rounds, when the
# fresh-clone CI started: holds-ab.txt keeps the first two (the second is
# loaded); the beat's figures in performance.md are development runs of beat.sh.
OUT=out
L=bins/notch-load
B=bins
mkdir -p $OUT
ulimit -n $(ulimit -Hn)
stamp() { { date -u; uptime; } >> $OUT/window-load.txt; }
stamp
idle() { # $1: name, rest: args
  name=$1; shift
  $L idle -bin $B/after -base $B/before -also before-omit=$B/before-omit -also hub-build=$B/after-hub -duration 20s -runs 3 -out $OUT/idle-$name.jsonl "$@" > $OUT/idle-$name.md 2>>$OUT/window.err
  stamp
}
idle 20 -pane '{}' -rows 20
idle 200 -pane '{}' -rows 200
idle 20-fresh -rows 20
# One change, one tab: before and after alternated, each run followed by the floor.
for i in 1 2 3; do
  for b in before after; do
    echo "## $b, round $i" >> $OUT/one-change.md
    $L -bin $B/$b -streams 1 -runs 1 -changes 100 -settings=false -slow=false -follow=false -posts 10 -out $OUT/one-change-$b.jsonl >> $OUT/one-change.md 2>>$OUT/window.err
  done
done
stamp
# What holds today, after only: 1,000 and 10,000 tabs beside the floor.
$L -bin $B/after -streams 1000,10000 -runs 3 -settings=false -slow=false -follow=false -posts 10 -out $OUT/tabs.jsonl > $OUT/tabs.md 2>>$OUT/window.err
stamp
# The clicks, a push, a hook's reply with the history, the renders, a change's hub work: before and after alternated.
for i in 1 2 3 4 5 6; do for v in before after; do
  (cd "$REPO/web" && $WORK/$B/web-$v.test -test.run '^$' -test.bench 'ApproveClick|QuestionClick|PushNeedsYou|HookReplyHistory|RenderBoard40Groups8|Refresh40$|Fanout$/^1$' -test.benchmem -test.count 1) | grep Benchmark | sed "s/^/$v /"
done; done > $OUT/holds-ab.txt
for i in 1 2 3 4 5 6; do for v in before after; do
  (cd "$REPO/web" && $WORK/$B/web-$v.test -test.run '^$' -test.bench 'HookReplyHistory' -test.benchmem -test.count 1) | grep Benchmark | sed "s/^/$v /"
done; done >> $OUT/holds-ab.txt
stamp
# The contract's beat alone, in a bare Go program (beat_test.go.txt): a 340 ms
# ticker that does nothing, that writes a 6.7 KB state.json through
# fsx.Rewriter, and that makes the same seven system calls raw.
WORK=$WORK bash beat.sh > $OUT/beat-alone.txt 2>&1
stamp
echo done >> $OUT/window-load.txt
