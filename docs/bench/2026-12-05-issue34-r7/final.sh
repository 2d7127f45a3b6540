#!/bin/bash
# Issue 34, seventh round: one sweep of every target, in one run, on main at
# 503e9e4 (the host's code as 7d84150; this round adds the floor with the
# beat to notch-load idle). bins/ holds make build's three binaries and
# web.test (go test -c ./web/); out/ the output; $REPO is the checkout.
cd "$WORK"
OUT=out
B=bins
L=$B/notch-load
mkdir -p $OUT
ulimit -n $(ulimit -Hn)
stamp() { { echo "== $1"; date -u; uptime; } >> $OUT/window-load.txt; }
stamp start
# Idle, 60 s spells as the issue sets them: notch-web, the bare floor and
# the floor with the contract's beat in each round (the hub's build too, at 20 rows).
$L idle -bin $B/notch-web -also hub-build=$B/notch-web-hub -pane '{}' -rows 20 -duration 60s -runs 3 -out $OUT/idle-20.jsonl > $OUT/idle-20.md 2>>$OUT/window.err
stamp idle-20
$L idle -bin $B/notch-web -pane '{}' -rows 200 -duration 60s -runs 3 -out $OUT/idle-200.jsonl > $OUT/idle-200.md 2>>$OUT/window.err
stamp idle-200
$L idle -bin $B/notch-web -rows 20 -duration 60s -runs 3 -out $OUT/idle-20-fresh.jsonl > $OUT/idle-20-fresh.md 2>>$OUT/window.err
stamp idle-20-fresh
# One change, one tab; then 1,000 and 10,000 tabs; each notch-web run beside the floor.
$L -bin $B/notch-web -streams 1 -runs 3 -changes 100 -settings=false -slow=false -follow=false -posts 10 -out $OUT/one-change.jsonl > $OUT/one-change.md 2>>$OUT/window.err
stamp one-change
$L -bin $B/notch-web -streams 1000,10000 -runs 3 -settings=false -slow=false -follow=false -posts 10 -out $OUT/tabs.jsonl > $OUT/tabs.md 2>>$OUT/window.err
stamp tabs
# What an agent waits for, and a joined machine's change beside the local path.
$L hooks -bin $B/notch-web > $OUT/hooks.md 2>>$OUT/window.err
stamp hooks
# (The fan-in part failed here: a plain notch-load cannot run the hub; window.err.
# fanin.md is its rerun at 3846841 with bin/notch-load-hub mesh -no-latency.)
$L mesh -bin $B/notch-web-hub > $OUT/mesh.md 2>>$OUT/window.err
stamp mesh
# The clicks, a push, a hook's reply with the history, the render: six runs.
(cd "$REPO/web" && "$WORK/$B/web.test" -test.run '^$' -test.bench 'ApproveClick|QuestionClick|PushNeedsYou|HookReplyHistory|RenderBoard40Groups8' -test.benchmem -test.count 6) > $OUT/holds.txt 2>>$OUT/window.err
stamp holds
echo done >> $OUT/window-load.txt
