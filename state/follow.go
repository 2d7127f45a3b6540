package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// Follower mirrors a state.json that another host writes (follow mode),
// through fsx.WatchWith: the file's directory is watched (a writer's
// rename into place replaces the inode) and the file is also read every
// Interval, because file events are lost on some file systems and a
// directory may not exist yet.
//
// It keeps the last good document: a file that is half-written, truncated,
// of another schema or not JSON is reported to OnError and the last good
// document stays. A good document is passed through Sanitize: its strings
// lose their control characters and are bounded, its settings clamped.
// Whether that document is current is docs/contract.md rule 3's question (docs/contract.md):
// see Stale.
type Follower struct {
	Path string
	// OnDocument hears each new document (a re-read of identical bytes is
	// not news). Called from Run's goroutine.
	OnDocument func(Document)
	// OnError hears a failed read, once per distinct failure until the
	// next good read, so a file that stays broken does not flood the log.
	// Called from Run's goroutine; nil drops the errors.
	OnError func(error)
	// Interval is the polling fallback's period; 0 means Heartbeat.
	Interval time.Duration

	mu   sync.Mutex
	last Document
	have bool
}

// Last returns the last good document and whether there has been one. It
// is safe to call from any goroutine while Run runs.
func (f *Follower) Last() (Document, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.have
}

// Run follows Path until ctx ends, then returns nil.
func (f *Follower) Run(ctx context.Context) error {
	if f.Path == "" {
		return errors.New("state: Follower needs a Path")
	}
	interval := f.Interval
	if interval <= 0 {
		interval = Heartbeat
	}
	var (
		lastBytes []byte
		lastErr   string
	)
	report := func(err error) {
		if msg := err.Error(); msg != lastErr {
			lastErr = msg
			if f.OnError != nil {
				f.OnError(err)
			}
		}
	}
	read := func() {
		data, err := fsx.ReadFileLimit(f.Path, MaxStateFile)
		var doc Document
		if err == nil {
			doc, err = Decode(data)
		}
		if err != nil {
			report(fmt.Errorf("following %s: %w", f.Path, err))
			return
		}
		lastErr = ""
		if bytes.Equal(data, lastBytes) {
			return
		}
		lastBytes = data
		// Another host's file is outside input: what the board draws and
		// republishes is its sanitised copy.
		doc = Sanitize(doc)
		f.mu.Lock()
		f.last, f.have = doc, true
		f.mu.Unlock()
		if f.OnDocument != nil {
			f.OnDocument(doc)
		}
	}

	// No debounce: a writer renames whole files into place, and a mirror
	// must not lag its source.
	return fsx.WatchWith(ctx, []string{f.Path}, read, fsx.WatchOptions{Poll: interval, OnError: func(err error) {
		report(fmt.Errorf("following %s: %w", f.Path, err))
	}})
}

// Stale reports docs/contract.md rule 3: a document whose wallMs is more than StaleAfter
// older than now (or that has no wallMs at all) says nothing about the
// present, and its summary must be shown as unknown.
func Stale(d Document, now time.Time) bool {
	return d.WallMs <= 0 || now.UnixMilli() >= staleMs(d.WallMs)
}

// StaleAt is the first instant at which d is Stale (the zero time when it
// has no wallMs: stale already): what a view of a followed host must be
// drawn again at, with nothing else changed.
func StaleAt(d Document) time.Time {
	if d.WallMs <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(staleMs(d.WallMs))
}

// staleMs is the first ms at which a document written at wallMs is stale:
// more than StaleAfter after it.
func staleMs(wallMs int64) int64 { return wallMs + StaleAfter.Milliseconds() + 1 }
