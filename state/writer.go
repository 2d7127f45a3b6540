package state

import (
	"context"
	"errors"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/pace"
)

// DefaultMinGap is the least time between two writes of state.json.
const DefaultMinGap = 20 * time.Millisecond

// Writer keeps state.json current: it writes at once when notified of a
// change, and otherwise at least every Interval with a fresh wallMs, which
// is the window's heartbeat (docs/contract.md rule 3). Each write is atomic, so a reader
// never sees half a file, but not fsynced (fsx.WriteFileAtomicNoSync): after
// a power cut the next beat rewrites the file anyway.
type Writer struct {
	Path     string
	Interval time.Duration // 0 = Heartbeat
	// Snapshot builds the document to write; it is called from Run's
	// goroutine, so it takes whatever lock guards the fold.
	Snapshot func(now time.Time) Document
	// OnError hears a failed write; Run carries on, because the next beat
	// may succeed and a missed beat is what the window's staleness rule is
	// for. Nil drops the errors.
	OnError func(error)
	// MinGap is the least time between two writes: a burst of changes
	// (every hook of many agents) is written at this pace, the newest
	// document each time; a change after a quiet spell is written at once.
	// 0 means DefaultMinGap.
	MinGap time.Duration
	// OnWritten hears each successful write; nil ignores them. The host
	// spawns the window after the first one.
	OnWritten func()
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Run writes until ctx ends, then returns nil. It writes once at start,
// again on every receive from notify (a nil or closed notify just means
// heartbeats only), and whenever Interval passes without a write. It first
// removes temporary files a killed predecessor left behind.
func (w *Writer) Run(ctx context.Context, notify <-chan struct{}) error {
	if w.Path == "" || w.Snapshot == nil {
		return errors.New("state: Writer needs a Path and a Snapshot func")
	}
	interval := w.Interval
	if interval <= 0 {
		interval = Heartbeat
	}
	if ctx.Err() != nil {
		return nil
	}
	gap := w.MinGap
	if gap <= 0 {
		gap = DefaultMinGap
	}
	fsx.RemoveStaleTemps(w.Path, time.Minute, w.now())
	w.write()
	// A write for a change paces the next; a heartbeat does not, so a
	// change just after one is still written at once.
	p := pace.Pace{Gap: gap}
	beat := time.NewTimer(interval)
	defer beat.Stop()
	for {
		change := false
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-notify:
			if !ok {
				notify = nil // a closed channel would spin; keep beating
				continue
			}
			if !p.Wait(ctx) {
				return nil
			}
			change = true
		case <-beat.C:
		}
		w.write()
		if change {
			p.Mark(time.Now())
		}
		beat.Reset(interval)
	}
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Writer) write() {
	data, err := Encode(w.Snapshot(w.now()))
	if err == nil {
		err = fsx.WriteFileAtomicNoSync(w.Path, data)
	}
	switch {
	case err != nil && w.OnError != nil:
		w.OnError(err)
	case err == nil && w.OnWritten != nil:
		w.OnWritten()
	}
}
