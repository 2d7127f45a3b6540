package fsx

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch calls changed whenever one of files is created, written, renamed or
// removed, until ctx ends. It watches the files' directories, not the files:
// an editor's or a writer's rename-into-place replaces the file, and a watch
// on the old file would go deaf. Events are debounced briefly; a directory
// that does not exist yet (or was removed or renamed away) is polled for
// every second, and changed called on each poll while it is missing, so a
// file that appears is not missed. While every directory is watched
// nothing polls: a host where nothing happens is not woken for it (issue
// 34). changed is also called once the watches are in place, for what
// changed before them. On Linux it watches each file's inode instead
// (WatchOptions.Inodes). onError hears watcher errors; it may be nil.
func Watch(ctx context.Context, files []string, changed func(), onError func(error)) error {
	return WatchWith(ctx, files, changed, WatchOptions{Debounce: 20 * time.Millisecond, OnError: onError, Inodes: true})
}

// WatchOptions tune WatchWith.
type WatchOptions struct {
	// Poll, when > 0, also calls changed every Poll, whatever the events
	// say: file events are lost on some file systems (network shares, some
	// containers), and kqueue (macOS, BSD) may not report a rename over a
	// name the directory already held. With Poll, a watcher that cannot
	// start at all is reported to OnError and polling carries on alone.
	Poll time.Duration
	// Debounce waits this long after an event before calling changed, so
	// an editor's burst of writes is one call; 0 calls it at once (a
	// follower that must not add latency).
	Debounce time.Duration
	// OnError hears watcher errors; nil drops them.
	OnError func(error)
	// Inodes, on Linux and without Poll, watches each file's inode while
	// it exists, its directory only for its own removal, and the names
	// made in it only while the file is missing: so the other files of
	// the directory wake nothing (state.json's 340 ms beat is written
	// beside settings.json; issue 34). A file replaced (renamed over,
	// removed, made again) or a symlink retargeted is watched again at
	// its name. Elsewhere it is ignored.
	Inodes bool
}

// WatchWith is Watch with its options.
func WatchWith(ctx context.Context, files []string, changed func(), o WatchOptions) error {
	if o.Inodes && o.Poll <= 0 && inodeWatch {
		return watchInodes(ctx, files, changed, o)
	}
	period, onError := o.Poll, o.OnError
	report := func(err error) {
		if onError != nil {
			onError(err)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		if period <= 0 {
			return fmt.Errorf("starting the file watcher: %w", err)
		}
		report(fmt.Errorf("file events are unavailable, polling every %v: %w", period, err))
		w = nil
	} else {
		defer w.Close()
	}
	want := map[string]bool{}
	var dirs []string
	for _, f := range files {
		f = filepath.Clean(f)
		want[f] = true
		if d := filepath.Dir(f); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	// addDirs (re)places the directory watches, reporting whether every
	// directory is watched: one that is missing, or was removed (which
	// drops its watch), is retried on the next poll.
	addDirs := func() bool {
		if w == nil {
			return true
		}
		have := w.WatchList()
		all := true
		for _, d := range dirs {
			if !slices.Contains(have, d) && w.Add(d) != nil {
				all = false
			}
		}
		return all
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	complete := addDirs()
	// The caller read the files before calling Watch; anything that
	// changed before the watches were in place would be missed: read again.
	changed()
	tick := period
	if tick <= 0 {
		tick = time.Second
	}
	// The poll runs when asked for (Poll), and otherwise only while a
	// directory is not watched.
	poll := time.NewTimer(tick)
	defer poll.Stop()
	var pollC <-chan time.Time
	arm := func() {
		if period > 0 || !complete {
			poll.Reset(tick)
			pollC = poll.C
		} else {
			poll.Stop()
			pollC = nil
		}
	}
	arm()
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			name := filepath.Clean(ev.Name)
			if want[name] {
				if o.Debounce <= 0 {
					changed()
				} else {
					debounce = time.After(o.Debounce)
				}
			}
			// A watched directory removed or renamed away takes its watch
			// with it: poll until it is back.
			if complete && ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 && slices.Contains(dirs, name) {
				complete = false
				arm()
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			report(err)
		case <-debounce:
			debounce = nil
			changed()
		case <-pollC:
			// Read on every poll when asked to, while a directory is
			// missing, and once when its watch has just been placed: that
			// read, after the watch, sees what was written before it.
			complete = addDirs()
			changed()
			arm()
		}
	}
}
