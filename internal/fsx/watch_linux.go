//go:build linux

package fsx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// inodeWatch says watchInodes runs here.
const inodeWatch = true

// The masks of the inode watch. A file is watched for its own changes: a
// write in place, and the end of this inode at its name (a rename over it
// or an unlink change its link count: IN_ATTRIB; a rename of it away:
// IN_MOVE_SELF). A symlink's own inode is watched too, for a retarget. Its
// directory is watched only for its own end, and for files made in it only
// while one of its watched files is missing: its other files' writes wake
// nothing.
//
// A missing file is heard when it is made or renamed to its name in its
// directory (IN_CREATE, IN_MOVED_TO). But a directory in which another
// file is renamed is busy — state.json's beat is an exchange of two names
// three times a second, and while settings.json was missing (a fresh
// install) it woke the watch on every beat (issue 34) — and the watch
// stops hearing its renames once it has heard one it does not want: a
// missing file there is heard when it is made, and when a file is made
// beside it that may be renamed to its name (the way an atomic write makes
// it) the watch looks again missingProbe later; a file moved in from
// another directory (an mv) is found by the look taken every missingPoll
// while a file is missing there.
const (
	inoFileMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF
	inoLinkMask = unix.IN_DONT_FOLLOW | unix.IN_ATTRIB | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF
	inoDirMask  = unix.IN_ONLYDIR | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF
	inoDirNames = inoDirMask | unix.IN_CREATE | unix.IN_MOVED_TO
	inoDirMade  = inoDirMask | unix.IN_CREATE // a busy directory's
	inoGone     = unix.IN_ATTRIB | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_IGNORED
)

// How soon the watch looks again for a missing file after a file is made
// beside it, and how often it looks while one is missing.
const (
	missingProbe = 50 * time.Millisecond
	missingPoll  = 5 * time.Second
)

// testHookInodeEvent, when set by a test before a watch starts, is called
// for each event the inode watch reads.
var testHookInodeEvent func()

// testHookInodeSync, when set by a test before a watch starts, is called
// each time the inode watch places its watches.
var testHookInodeSync func()

// testHookInodeWake, when set by a test before a watch starts, is called
// each time the inode watch's read returns: an event, or a timer.
var testHookInodeWake func()

// inodes is one inode watch: its inotify file and what each watch is for.
type inodes struct {
	fd      int              // the inotify file, during sync
	files   []string         // the files, cleaned
	wanted  map[string]bool  // the same, for a directory's event
	fileWd  map[int32]bool   // a file's (or its symlink's) watch
	dirWd   map[int32]string // a directory's watch, and the directory
	busy    map[string]bool  // directories where a file not watched was renamed
	waiting bool             // a file is missing in a busy directory: look for it
	onError func(error)
}

// watchInodes is WatchWith for Inodes on Linux: inotify on each file's
// inode, so that what else is written in its directory (state.json's
// beat, beside settings.json) wakes nothing. One goroutine reads the
// events and runs the timers as read deadlines.
func watchInodes(ctx context.Context, files []string, changed func(), o WatchOptions) error {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("starting the file watcher: %w", err)
	}
	// Non-blocking, so the runtime's poller waits for it and a read
	// deadline ends a wait.
	f := os.NewFile(uintptr(fd), "inotify")
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer func() {
		if stop() {
			f.Close()
		}
	}()
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("starting the file watcher: %w", err)
	}
	w := &inodes{wanted: map[string]bool{}, busy: map[string]bool{}, onError: o.OnError}
	for _, p := range files {
		p = filepath.Clean(p)
		if !w.wanted[p] {
			w.wanted[p] = true
			w.files = append(w.files, p)
		}
	}
	// The watches are placed through Control, which holds the file open
	// against the Close that ends the watch.
	place := func() (complete bool, watched int) {
		rc.Control(func(fd uintptr) {
			w.fd = int(fd)
			complete, watched = w.sync()
		})
		if testHookInodeSync != nil {
			testHookInodeSync()
		}
		return complete, watched
	}
	complete, watched := place()
	// The caller read the files before calling Watch; anything that
	// changed before the watches were in place would be missed: read again.
	changed()
	// deadline is the read deadline set on f; once it has passed, reads
	// fail until one is set again, so a passed one is always replaced.
	var debounceAt, pollAt, lookAt, deadline time.Time
	passed := false
	if !complete {
		pollAt = time.Now().Add(time.Second)
	}
	// lookAt is the next look for a file missing in a busy directory:
	// missingProbe after a file was made beside it, else every
	// missingPoll.
	look := func(now time.Time) {
		lookAt = time.Time{}
		if w.waiting {
			lookAt = now.Add(missingPoll)
		}
	}
	look(time.Now())
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		next := earliest(earliest(debounceAt, pollAt), lookAt)
		if passed || !next.Equal(deadline) {
			deadline, passed = next, false
			f.SetReadDeadline(deadline)
		}
		n, err := f.Read(buf)
		if testHookInodeWake != nil {
			testHookInodeWake()
		}
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			passed = true
			now := time.Now()
			if !debounceAt.IsZero() && !now.Before(debounceAt) {
				debounceAt = time.Time{}
				changed()
			}
			poll := !pollAt.IsZero() && !now.Before(pollAt)
			if poll || (!lookAt.IsZero() && !now.Before(lookAt)) {
				// Read on every poll while a directory is missing, and
				// once when its watch has just been placed; on a look for
				// a file missing in a busy directory, when it is there now.
				before := watched
				complete, watched = place()
				if poll || watched > before {
					changed()
				}
				pollAt = time.Time{}
				if !complete {
					pollAt = now.Add(time.Second)
				}
				look(now)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("reading file events: %w", err)
		}
		dirty, resync, made := w.events(buf[:n])
		if resync {
			complete, watched = place()
			if !complete && pollAt.IsZero() {
				pollAt = time.Now().Add(time.Second)
			}
			look(time.Now())
		}
		if made && w.waiting {
			lookAt = earliest(lookAt, time.Now().Add(missingProbe))
		}
		if dirty {
			if o.Debounce <= 0 {
				changed()
			} else {
				debounceAt = time.Now().Add(o.Debounce)
			}
		}
	}
}

// earliest is the earlier of two times, a zero one meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// events reads a batch of inotify events: whether a watched file may have
// changed, whether the watches must be placed again, and whether another
// file was made beside one missing in a busy directory.
func (w *inodes) events(b []byte) (dirty, resync, made bool) {
	for len(b) >= unix.SizeofInotifyEvent {
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		size := int(binary.NativeEndian.Uint32(b[12:]))
		if len(b) < unix.SizeofInotifyEvent+size {
			break
		}
		name := b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+size]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		b = b[unix.SizeofInotifyEvent+size:]
		if testHookInodeEvent != nil {
			testHookInodeEvent()
		}
		switch {
		case mask&unix.IN_Q_OVERFLOW != 0:
			// Events were lost: read, and look again.
			dirty, resync = true, true
		case w.fileWd[wd]:
			dirty = true
			if mask&inoGone != 0 {
				resync = true
			}
		default:
			dir, ok := w.dirWd[wd]
			if !ok {
				continue // a watch already replaced
			}
			if mask&(unix.IN_MOVE_SELF|unix.IN_DELETE_SELF|unix.IN_IGNORED) != 0 {
				dirty, resync = true, true
			} else if len(name) > 0 && w.wanted[filepath.Join(dir, string(name))] {
				dirty, resync = true, true
			} else if mask&unix.IN_MOVED_TO != 0 && !w.busy[dir] {
				w.busy[dir], resync = true, true // placed again without its renames
			} else if mask&unix.IN_CREATE != 0 && w.busy[dir] {
				made = true
			}
		}
	}
	return dirty, resync, made
}

// sync places every watch the files need now, and removes the ones they no
// longer need. It reports whether every file is watched or, if missing,
// its directory (if not, the caller polls), and how many files are
// watched (fewer than w.files: some are missing); it sets w.waiting when a
// file is missing in a busy directory.
func (w *inodes) sync() (complete bool, watched int) {
	complete = true
	w.waiting = false
	fileWd := map[int32]bool{}
	dirWd := map[int32]string{}
	var dirs []string
	missing := map[string][]string{} // a directory's missing files
	watchFile := func(p string) bool {
		wd, err := unix.InotifyAddWatch(w.fd, p, inoFileMask)
		if err != nil {
			if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				complete = false // a symlink to nothing: poll for its target
			} else if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
				w.report(fmt.Errorf("watching %s: %w", p, err))
			}
			return false
		}
		fileWd[int32(wd)] = true
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if lwd, err := unix.InotifyAddWatch(w.fd, p, inoLinkMask); err == nil {
				fileWd[int32(lwd)] = true
			}
		}
		return true
	}
	for _, p := range w.files {
		d := filepath.Dir(p)
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
		if watchFile(p) {
			watched++
		} else {
			missing[d] = append(missing[d], p)
		}
	}
	for _, d := range dirs {
		mask := uint32(inoDirMask)
		switch {
		case len(missing[d]) == 0:
		case w.busy[d]:
			mask = inoDirMade
		default:
			mask = inoDirNames
		}
		wd, err := unix.InotifyAddWatch(w.fd, d, mask)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
				w.report(fmt.Errorf("watching %s: %w", d, err))
			}
			complete = false
			continue
		}
		dirWd[int32(wd)] = d
		if len(missing[d]) == 0 {
			continue
		}
		// A file made between its failed watch and its directory's would
		// be heard by neither: look once more, now the directory listens.
		// (The caller reads after a sync.)
		all := true
		for _, p := range missing[d] {
			if watchFile(p) {
				watched++
			} else {
				all = false
			}
		}
		if all {
			if _, err := unix.InotifyAddWatch(w.fd, d, inoDirMask); err != nil {
				complete = false
			}
		} else if w.busy[d] {
			w.waiting = true
		}
	}
	// The watches placed before and not now are removed (a file's inode
	// and its directory never share one).
	for _, wd := range slices.Concat(slices.Collect(maps.Keys(w.fileWd)), slices.Collect(maps.Keys(w.dirWd))) {
		if !fileWd[wd] && dirWd[wd] == "" {
			unix.InotifyRmWatch(w.fd, uint32(wd))
		}
	}
	w.fileWd, w.dirWd = fileWd, dirWd
	return complete, watched
}

func (w *inodes) report(err error) {
	if w.onError != nil {
		w.onError(err)
	}
}
