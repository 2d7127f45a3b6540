#!/bin/sh
echo 1000000 > /proc/$$/timerslack_ns
exec "$(dirname "$0")"/bins/notch-web-before "$@"
