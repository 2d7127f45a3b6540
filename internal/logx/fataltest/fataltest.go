// Package fataltest checks, in tests, that a panic on one of the host's
// goroutines became the standard fatal record and exit 2 (logx.Guard):
// the tests stand in for the exit with logx.SetExit and hand Wait the
// codes it was given and the log written.
package fataltest

import (
	"strings"
	"testing"
	"time"
)

// Wait waits (at most a generous deadline, which fails the test) for the
// stand-in exit's code, and checks it is 2 and log() holds the fatal
// ERROR record of a panic whose words include message.
func Wait(t testing.TB, codes <-chan int, log func() string, message string) {
	t.Helper()
	select {
	case c := <-codes:
		if c != 2 {
			t.Fatalf("exit %d, want 2", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit within 30 s; the log: %s", log())
	}
	for _, want := range []string{`"level":"ERROR"`, `"fatal":true`, `"name":"Panic"`, message} {
		if !strings.Contains(log(), want) {
			t.Errorf("record lacks %s: %s", want, log())
		}
	}
}
