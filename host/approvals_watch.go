package host

import (
	"context"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/notch-web/notch-web/adapters/claudecode"
)

// watchPoll is how often the transcripts of pending cards are checked for
// growth when no file event came (a watch that could not be placed, a file
// that did not exist yet, an event the platform dropped). A check is a
// stat; the file is read only when it grew.
const watchPoll = 500 * time.Millisecond

// safetyTicks: every this many polls, watched transcripts are looked at too
// (a stat each), in case the platform dropped an event.
const safetyTicks = 10

// watch reads the transcripts of pending Claude Code cards as they grow,
// so a No or an Esc at Claude Code's own prompt — which fires no hook —
// clears the card and the row within a second: the refusal is written to
// the transcript at once, as the call's tool_result. Nothing is watched,
// and nothing costs, while no card waits.
func (a *approvals) watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		w = nil // polling alone still sees every refusal within watchPoll
	}
	if w != nil {
		defer w.Close()
	}
	type file struct {
		size    int64
		mod     time.Time
		watched bool
	}
	files := map[string]*file{}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	// The poll runs only while some transcript is watched.
	tick := time.NewTicker(watchPoll)
	tick.Stop()
	defer tick.Stop()
	polling := false
	ticks := 0
	check := func(path string, want []string) {
		f := files[path]
		fi, err := os.Stat(path)
		if err != nil {
			return
		}
		if fi.Size() == f.size && fi.ModTime().Equal(f.mod) {
			return
		}
		f.size, f.mod = fi.Size(), fi.ModTime()
		a.fromTranscript(path, claudecode.ToolResults(path, want, claudecode.ResultsTail), time.Now())
	}
	// sync makes the watch set the transcripts of pending cards; new ones
	// are read at once, and with all the others too, those no watch could
	// be placed on (and every one, when all).
	sync := func(all bool) map[string][]string {
		want := a.watched()
		for path, f := range files {
			if _, ok := want[path]; !ok {
				if w != nil && f.watched {
					_ = w.Remove(path)
				}
				delete(files, path)
			}
		}
		for path, ids := range want {
			f := files[path]
			if f == nil {
				f = &file{size: -1}
				files[path] = f
			}
			fresh := f.size < 0
			if !f.watched && w != nil && w.Add(path) == nil {
				f.watched = true
				fresh = true // read once now: the answer may have come before the watch
			}
			if fresh || all || !f.watched {
				if fresh {
					f.size = -1
				}
				check(path, ids)
			}
		}
		switch {
		case len(files) > 0 && !polling:
			tick.Reset(watchPoll)
			polling = true
		case len(files) == 0 && polling:
			tick.Stop()
			polling = false
		}
		return want
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case path := <-a.wake:
			want := sync(false)
			if path != "" {
				if ids, ok := want[path]; ok {
					files[path].size = -1
					check(path, ids)
				}
			}
		case ev := <-events:
			if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
				want := a.watched()
				if ids, ok := want[ev.Name]; ok && files[ev.Name] != nil {
					check(ev.Name, ids)
				}
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				if f := files[ev.Name]; f != nil {
					f.watched = false // placed again by the next sync
				}
			}
		case <-errs:
		case <-tick.C:
			// A watched file's writes come as events: its stat is looked at
			// only every safetyTicks polls, in case one was missed.
			ticks++
			sync(ticks%safetyTicks == 0)
		}
	}
}
