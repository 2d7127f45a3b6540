#!/bin/bash
# The command hook before and after this round's token checks, one run of
# each binary in turn (notch-load hooks -also). bins/: notch-web-after =
# aacd021 (make build), notch-web = the sweep's (7d84150's host code),
# notch-web-static = aacd021 built with CGO_ENABLED=0, notch-web-1a189c8 =
# the build of 2026-11-30 whose figures docs/performance.md's issue 13
# table keeps. hooks-ab.md is the first command, hooks-ab2.md the second.
cd "$WORK"
B=bins
$B/notch-load-after hooks -bin $B/notch-web-after -also before=$B/notch-web -also after-static=$B/notch-web-static > out/hooks-ab.md
$B/notch-load-after hooks -bin $B/notch-web-after -also before=$B/notch-web -also after-static=$B/notch-web-static -also 2026-11-30=$B/notch-web-1a189c8 > out/hooks-ab2.md
