#!/bin/sh
echo 500000 > /proc/$$/timerslack_ns
exec "$(dirname "$0")"/bins/notch-web-before "$@"
