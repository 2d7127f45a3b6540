package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/notch-web/notch-web/internal/fsx"
)

// Follower mirrors a state.json that another host writes (follow mode). It
// watches the file's directory rather than the file: a writer that renames
// a new file into place replaces the inode, and a watch on the old one
// would go silent. It re-reads on create, write and rename of the file,
// and also polls every Interval, because file events are lost on some
// file systems (network shares, some containers), kqueue (macOS, BSD) may
// not report a rename over a name the directory already held, and a watch
// cannot be placed on a directory that does not exist yet.
//
// It keeps the last good document: a file that is half-written, truncated,
// of another schema or not JSON is reported to OnError and the last good
// document stays. A good document is passed through Sanitize: its strings
// lose their control characters and are bounded, its settings clamped. Whether that document is current is rule 3's question:
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

// Run follows Path until ctx ends, then returns nil. It returns an error
// only when it cannot start at all.
func (f *Follower) Run(ctx context.Context) error {
	if f.Path == "" {
		return errors.New("state: Follower needs a Path")
	}
	interval := f.Interval
	if interval <= 0 {
		interval = Heartbeat
	}
	dir, base := filepath.Dir(f.Path), filepath.Base(f.Path)
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

	var events <-chan fsnotify.Event
	var watchErrs <-chan error
	w, err := fsnotify.NewWatcher()
	if err != nil {
		report(fmt.Errorf("following %s: watching is unavailable, polling only: %w", f.Path, err))
	} else {
		defer w.Close()
		events, watchErrs = w.Events, w.Errors
	}
	// watch (re)places the directory watch; it is retried on every poll,
	// since the directory may not exist yet or may have been replaced.
	watch := func() {
		if w != nil && len(w.WatchList()) == 0 {
			w.Add(dir) // failure is fine: polling covers until it works
		}
	}

	watch()
	read()
	poll := time.NewTicker(interval)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Base(ev.Name) == base && ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Rename) {
				read()
			}
		case err, ok := <-watchErrs:
			if !ok {
				watchErrs = nil
				continue
			}
			report(fmt.Errorf("following %s: %w", f.Path, err))
		case <-poll.C:
			watch()
			read()
		}
	}
}

// Stale reports rule 3: a document whose wallMs is more than StaleAfter
// older than now (or that has no wallMs at all) says nothing about the
// present, and its summary must be shown as unknown.
func Stale(d Document, now time.Time) bool {
	return d.WallMs <= 0 || now.UnixMilli()-d.WallMs > StaleAfter.Milliseconds()
}
