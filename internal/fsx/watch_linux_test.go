//go:build linux

package fsx

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// watchContents watches path with the inode watch and sends what the file
// holds after each call of changed ("<missing>" when it is not there).
func watchContents(t *testing.T, path string) <-chan string {
	t.Helper()
	return watchContentsWith(t, path, WatchOptions{Inodes: true})
}

func watchContentsWith(t *testing.T, path string, o WatchOptions) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan string, 64)
	done := make(chan error, 1)
	go func() {
		done <- WatchWith(ctx, []string{path}, func() {
			b, err := os.ReadFile(path)
			s := string(b)
			if errors.Is(err, fs.ErrNotExist) {
				s = "<missing>"
			}
			select {
			case seen <- s:
			default:
			}
		}, o)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return seen
}

// waitFor reads seen until it says want.
func waitFor(t *testing.T, seen <-chan string, step, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case s := <-seen:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("%s: the watch never read %q", step, want)
		}
	}
}

// watchStep is a change made to a watched file and what the watch must
// then read.
type watchStep struct {
	name string
	do   func() error
	want string
}

// runSteps makes each change in turn and waits for the watch to read it.
func runSteps(t *testing.T, seen <-chan string, steps []watchStep) {
	t.Helper()
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		waitFor(t, seen, s.name, s.want)
	}
}

// The inode watch follows the file at its name however it is changed:
// written in place, replaced, removed and made again, renamed away, its
// folder renamed away and made again.
func TestWatchInodesFollowsTheName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents-notch")
	path := filepath.Join(dir, "settings.json")
	if err := WriteFileAtomic(path, []byte("0")); err != nil {
		t.Fatal(err)
	}
	seen := watchContents(t, path)
	waitFor(t, seen, "start", "0")
	steps := []watchStep{
		{"written in place", func() error { return os.WriteFile(path, []byte("1"), 0o644) }, "1"},
		{"replaced", func() error { return WriteFileAtomic(path, []byte("2")) }, "2"},
		{"the new file written in place", func() error { return os.WriteFile(path, []byte("3"), 0o644) }, "3"},
		{"removed", func() error { return os.Remove(path) }, "<missing>"},
		{"made again", func() error { return os.WriteFile(path, []byte("4"), 0o644) }, "4"},
		{"renamed away", func() error { return os.Rename(path, path+".old") }, "<missing>"},
		{"renamed into place", func() error { return WriteFileAtomic(path, []byte("5")) }, "5"},
		{"its old self written", func() error {
			if err := os.WriteFile(path+".old", []byte("old"), 0o644); err != nil {
				return err
			}
			return os.WriteFile(path, []byte("6"), 0o644)
		}, "6"},
		{"moved in from another folder", func() error {
			if err := os.Rename(path, path+".old"); err != nil {
				return err
			}
			waitFor(t, seen, "renamed away again", "<missing>")
			other := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(other, []byte("mv"), 0o644); err != nil {
				return err
			}
			return os.Rename(other, path) // no file made in its folder: found by the look every missingPoll
		}, "mv"},
		{"its folder renamed away", func() error { return os.Rename(dir, dir+".moved") }, "<missing>"},
		{"its folder made again", func() error { return WriteFileAtomic(path, []byte("7")) }, "7"},
		{"written in place in the new folder", func() error { return os.WriteFile(path, []byte("8"), 0o644) }, "8"},
	}
	runSteps(t, seen, steps)
}

// A symlinked settings file (a dotfiles manager's) is heard through its
// target and when the link is pointed elsewhere.
func TestWatchInodesSymlink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "settings.json")
	target, other := filepath.Join(elsewhere, "a.json"), filepath.Join(elsewhere, "b.json")
	for _, f := range []string{target, other} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	seen := watchContents(t, path)
	waitFor(t, seen, "start", "a.json")
	steps := []watchStep{
		{"its target written in place", func() error { return os.WriteFile(target, []byte("1"), 0o644) }, "1"},
		{"its target replaced", func() error { return WriteFileAtomic(target, []byte("2")) }, "2"},
		{"the link pointed elsewhere", func() error {
			tmp := path + ".new"
			if err := os.Symlink(other, tmp); err != nil {
				return err
			}
			return os.Rename(tmp, path)
		}, "b.json"},
		{"the new target written in place", func() error { return os.WriteFile(other, []byte("3"), 0o644) }, "3"},
	}
	runSteps(t, seen, steps)
}

// state.json's beat, written beside settings.json by the real Rewriter,
// reaches the inode watch of settings.json not once (issue 34), whether
// settings.json is there or missing (a fresh install, whose folder is
// watched for the file being made).
func TestWatchInodesSiblingWakesNothing(t *testing.T) {
	for _, missing := range []bool{false, true} {
		name := "settings.json present"
		if missing {
			name = "settings.json missing"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			if !missing {
				if err := WriteFileAtomic(path, []byte("{}")); err != nil {
					t.Fatal(err)
				}
			}
			var events atomic.Int64
			testHookInodeEvent = func() { events.Add(1) }
			defer func() { testHookInodeEvent = nil }()
			seen := watchContents(t, path)
			if missing {
				waitFor(t, seen, "start", "<missing>")
			} else {
				waitFor(t, seen, "start", "{}")
			}
			rw := &Rewriter{Path: filepath.Join(dir, "state.json")}
			defer rw.Close()
			if missing {
				// The first beats: the watch hears the folder's renames
				// until the first it does not want, and then no more.
				var syncs atomic.Int64
				testHookInodeSync = func() { syncs.Add(1) }
				defer func() { testHookInodeSync = nil }()
				start := syncs.Load()
				for i := range 2 {
					if err := rw.Write([]byte{byte('0' + i)}); err != nil {
						t.Fatal(err)
					}
				}
				waitfor.Until(t, "the watch to stop hearing the folder's renames", func() bool { return syncs.Load() > start })
				waitfor.Until(t, "the first beats' events to be read", func() bool { return events.Load() >= 3 })
				events.Store(0)
			}
			const beats = 50
			for i := range beats {
				if err := rw.Write([]byte{byte('a' + i%26)}); err != nil {
					t.Fatal(err)
				}
			}
			// Events come in order: those of the beats (if any) are read
			// before settings.json's.
			if err := WriteFileAtomic(path, []byte(`{"scale":2}`)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, seen, "settings.json written", `{"scale":2}`)
			// settings.json's replace: its old inode's link count, removal
			// and end of watch; while it was missing, the making of the
			// atomic write's temporary file, then the file itself. The
			// beats' exchanges are heard in neither case (102 events when
			// the folder's renames were heard).
			if n := events.Load(); n < 1 || n > 4 {
				t.Errorf("%d events for %d beats of state.json and one replace of settings.json, want 1–4", n, beats)
			}
		})
	}
}

// Once a change has been read and its debounce has run out, the inode
// watch sleeps: its read is not woken again until something happens (a
// passed read deadline left in place would fail every read at once).
func TestWatchInodesSleepsAfterAChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := WriteFileAtomic(path, []byte("0")); err != nil {
		t.Fatal(err)
	}
	var wakes atomic.Int64
	testHookInodeWake = func() { wakes.Add(1) }
	defer func() { testHookInodeWake = nil }()
	seen := watchContentsWith(t, path, WatchOptions{Inodes: true, Debounce: 20 * time.Millisecond})
	waitFor(t, seen, "start", "0")
	for i, step := range []string{"written in place", "replaced"} {
		write := os.WriteFile
		if i == 1 {
			write = func(p string, b []byte, _ fs.FileMode) error { return WriteFileAtomic(p, b) }
		}
		want := string(rune('1' + i))
		if err := write(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, seen, step, want)
		// The debounce's own wake may come late on a loaded machine: what
		// is checked is that the watch comes to rest at all — a quiet
		// 300 ms with no wake — where a read deadline left in place wakes
		// it without end, never quiet within waitfor's patience.
		waitfor.Until(t, step+": the watch at rest (300 ms with no wake)", func() bool {
			before := wakes.Load()
			time.Sleep(300 * time.Millisecond)
			return wakes.Load() == before
		})
	}
}

// In a busy folder (state.json's beat renames files there, so the watch no
// longer hears its renames) a missing settings.json is still read however
// it comes: written atomically (a file made beside it, then renamed: the
// look missingProbe later), made in place, moved in from another folder
// (the look every missingPoll).
func TestWatchInodesBusyFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	seen := watchContents(t, path)
	waitFor(t, seen, "start", "<missing>")
	rw := &Rewriter{Path: filepath.Join(dir, "state.json")}
	defer rw.Close()
	var syncs atomic.Int64
	testHookInodeSync = func() { syncs.Add(1) }
	defer func() { testHookInodeSync = nil }()
	for i := range 3 {
		if err := rw.Write([]byte{byte('0' + i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitfor.Until(t, "the folder to be busy", func() bool { return syncs.Load() > 0 })
	other := filepath.Join(t.TempDir(), "settings.json")
	steps := []watchStep{
		{"written atomically", func() error { return WriteFileAtomic(path, []byte("1")) }, "1"},
		{"removed", func() error { return os.Remove(path) }, "<missing>"},
		{"made in place", func() error { return os.WriteFile(path, []byte("2"), 0o644) }, "2"},
		{"removed again", func() error { return os.Remove(path) }, "<missing>"},
		{"moved in from another folder", func() error {
			if err := os.WriteFile(other, []byte("3"), 0o644); err != nil {
				return err
			}
			return os.Rename(other, path)
		}, "3"},
	}
	runSteps(t, seen, steps)
}
