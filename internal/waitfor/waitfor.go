// Package waitfor is the tests' one way to wait: poll a condition until it
// holds or a generous deadline passes — never a fixed sleep standing in for
// "long enough". The machines the tests run on are shared and slow at
// times, so the deadline is long and only a failing test ever reaches it.
package waitfor

import (
	"testing"
	"time"
)

// Patience is how long Until waits before failing the test.
const Patience = 30 * time.Second

// Until polls cond every few milliseconds until it holds, and fails the test
// naming what it waited for once Patience has passed.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", Patience, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
