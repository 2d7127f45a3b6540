package window

import (
	"testing"
)

// checkStartNowWait: a refused Start now says how long until one is taken,
// and after that long one is.
func checkStartNowWait(t *testing.T, h *harness) {
	wait := h.sup.StartNow()
	if wait <= 0 || wait > DefaultStartNowGap {
		t.Fatalf("a refused Start now says wait %v, want (0, %v]", wait, DefaultStartNowGap)
	}
	h.clock.Advance(wait)
	if w := h.sup.StartNow(); w != 0 {
		t.Fatalf("after the wait, Start now is refused again (%v)", w)
	}
	h.waitStatus(Waiting, 3)
}
