// Package pace spaces out work that comes in bursts: the hub's renders,
// state.json's writes for a change, the transcript reads of a run of hooks.
// The first piece of work after a quiet spell goes at once; the next waits
// until Gap has passed since the last one that counted.
package pace

import (
	"context"
	"time"
)

// Pace is one such spacing. The zero value (Gap 0) never waits. A Pace is
// used by one goroutine.
type Pace struct {
	Gap  time.Duration
	last time.Time
}

// Wait holds the caller until Gap has passed since the last Mark (at once
// when there was none) and reports true, or false when ctx ends first.
func (p *Pace) Wait(ctx context.Context) bool {
	wait := p.Gap - time.Since(p.last)
	if p.last.IsZero() || wait <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Mark records work that counts towards the pace, done at now. Work that
// does not count (a tick that found nothing, a heartbeat) is not marked, so
// it never delays what comes next.
func (p *Pace) Mark(now time.Time) { p.last = now }
