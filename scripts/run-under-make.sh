#!/bin/sh
# run-under-make.sh PROGRAM [ARG...] runs PROGRAM for `make run` and stops
# it when make is stopped, however that is done.
#
# A Ctrl-C in the terminal reaches the whole process group, PROGRAM
# included. But a SIGINT sent to make's process alone (an IDE's Stop,
# `kill -INT`) is not passed on: GNU make's handler waits for its recipe
# to end, with SIGINT blocked meanwhile, and PROGRAM would hold the port
# for ever. So this shell, make's child, watches make once a second: when
# make blocks SIGINT (it is handling one) or is gone (SIGKILL), PROGRAM is
# sent SIGTERM and waited for. A SIGTERM to make reaches this shell (make
# passes that one on) and is passed on the same way.
"$@" &
pid=$!
stop() {
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM HUP
make=$PPID
# SIGINT is signal 2: the second bit of ps's mask of blocked signals, in
# its last hex digit.
# Without ps (a bare container) only make's end is watched.
interrupted() {
	command -v ps >/dev/null 2>&1 || return 1
	mask=$(ps -o blocked= -p "$make" 2>/dev/null | tr -d ' ')
	case $mask in
	'' | *[2367abefABEF]) return 0 ;;
	esac
	return 1
}
while kill -0 "$pid" 2>/dev/null; do
	if ! kill -0 "$make" 2>/dev/null || interrupted; then
		stop 130
	fi
	sleep 1
done
wait "$pid"
