package fsx

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch calls changed whenever one of files is created, written, renamed or
// removed, until ctx ends. It watches the files' directories, not the files:
// an editor's or a writer's rename-into-place replaces the file, and a watch
// on the old file would go deaf. Events are debounced briefly; a directory
// that does not exist yet is polled for (and changed called every poll while
// it is missing, so a file that appears is not missed). onError hears watcher
// errors; it may be nil.
func Watch(ctx context.Context, files []string, changed func(), onError func(error)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("starting the file watcher: %w", err)
	}
	defer w.Close()
	want := map[string]bool{}
	for _, f := range files {
		want[filepath.Clean(f)] = true
	}
	watched := map[string]bool{}
	addDirs := func() bool {
		all := true
		for f := range want {
			d := filepath.Dir(f)
			if watched[d] {
				continue
			}
			if err := w.Add(d); err != nil {
				all = false
				continue
			}
			watched[d] = true
		}
		return all
	}
	complete := addDirs()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if want[filepath.Clean(ev.Name)] {
				debounce = time.After(20 * time.Millisecond)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if onError != nil {
				onError(err)
			}
		case <-debounce:
			debounce = nil
			changed()
		case <-poll.C:
			if !complete {
				complete = addDirs()
				changed()
			}
		}
	}
}
