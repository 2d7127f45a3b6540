#!/bin/sh
echo 200000 > /proc/$$/timerslack_ns
exec "$(dirname "$0")"/bins/notch-web-before "$@"
