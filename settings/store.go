package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/jsonx"
)

// MaxPaneBytes bounds the pane's file; a larger one is reported, not read.
const MaxPaneBytes = 1 << 20

// Store is the pane's override file, $DSH_HOME/state/agents-notch/settings.json.
// It holds only the keys the pane has changed, stored clamped. Writes are
// read-modify-write under a lock file, so two processes sharing a DSH_HOME
// never lose each other's keys, and atomic, so a crash never leaves half a file.
type Store struct {
	path string
	mu   sync.Mutex // held by the one goroutine writing for this process

	qmu   sync.Mutex
	queue []*pendingChange

	// commits counts the writes this Store made, each counted once its
	// rename is done: a read of the file after a count of n sees commit n
	// or newer.
	commits atomic.Uint64
}

type pendingChange struct {
	c    Change
	done chan applied
}

// applied is the outcome of a commit, shared by every change of its batch.
type applied struct {
	p   Partial // the layer as written
	err error
	// layer and warn are the written bytes decoded as Load decodes the
	// file, and seq the commit's count: what the Service publishes
	// without reading the file back.
	layer Partial
	warn  []Warning
	seq   uint64
}

// NewStore returns the store kept at path.
func NewStore(path string) *Store { return &Store{path: path} }

// Path returns the file the store keeps.
func (s *Store) Path() string { return s.path }

// Load reads the pane layer. A missing file is an empty layer; a file a human
// broke is reported in the warnings and read as far as it parses.
func (s *Store) Load() (Partial, []Warning) {
	p, w, _, _ := s.read()
	return p, w
}

// read returns the layer, its warnings, the file's bytes, and whether the
// file holds anything a rewrite would drop (so the bytes must be kept first).
func (s *Store) read() (Partial, []Warning, []byte, bool) {
	data, err := fsx.ReadFileLimit(s.path, MaxPaneBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Partial{}, nil, nil, false
	}
	if info, serr := os.Stat(s.path); serr == nil && !info.Mode().IsRegular() {
		// No bytes to keep, and nothing a write may replace: refused
		// (notRegular) until a human moves it away.
		return Partial{}, []Warning{{File: s.path, Message: notRegular(info.Mode()).Error()}}, nil, false
	}
	if err != nil {
		// Too large (or unreadable) to parse: a rewrite would drop it all.
		return Partial{}, []Warning{{File: s.path, Message: err.Error()}}, nil, true
	}
	p, warns := DecodePane(s.path, data)
	lossy := slices.ContainsFunc(warns, func(w Warning) bool { return !w.clamped })
	return p, warns, data, lossy
}

// DecodePane parses the bytes of a pane file: a JSON object of setting keys.
// Whatever does not parse is reported against file and left out.
func DecodePane(file string, data []byte) (Partial, []Warning) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Partial{}, nil
	}
	var raw map[string]any
	err := jsonx.DecodeOne(data, &raw, jsonx.Options{UseNumber: true})
	if err != nil || raw == nil {
		msg := "not a JSON object"
		switch {
		case errors.Is(err, jsonx.ErrTrailing):
			msg = err.Error()
		case err != nil:
			msg = "not valid JSON: " + jsonx.Reason(err)
		}
		return Partial{}, []Warning{{File: file, Message: msg + "; the pane layer is ignored until it is fixed or rewritten (the old bytes are kept beside it)"}}
	}
	return Clamp(file, raw)
}

// Change is one write to the pane layer: Reset clears every key first, Clear
// removes single overrides, Set stores values (already parsed and clamped).
type Change struct {
	Reset bool
	Clear []string
	Set   Partial
}

// Apply performs c on the file and returns the layer as written. Concurrent
// callers are committed together (group commit): whoever takes the write
// applies every change queued so far, in arrival order, with one durable
// write, so many clients cost one fsync rather than one each.
func (s *Store) Apply(c Change) (Partial, error) {
	r := s.apply(c)
	return r.p, r.err
}

// apply is Apply with the whole outcome.
func (s *Store) apply(c Change) applied {
	me := &pendingChange{c: c, done: make(chan applied, 1)}
	s.qmu.Lock()
	s.queue = append(s.queue, me)
	s.qmu.Unlock()

	s.mu.Lock()
	select {
	case r := <-me.done: // an earlier writer committed this change with its batch
		s.mu.Unlock()
		return r
	default:
	}
	s.qmu.Lock()
	batch := s.queue
	s.queue = nil
	s.qmu.Unlock()
	r := s.commit(batch)
	for _, pc := range batch {
		pc.done <- r
	}
	s.mu.Unlock()
	return <-me.done
}

// errDirectory: the pane's file is a directory, which no write can replace.
var errDirectory = errors.New("is a directory, not a file: move it away and the pane can save again")

// notRegular is the refusal of a pane file that is not a regular file: a
// directory no write can replace; a FIFO or a device, which is someone's
// and is never read (opening a FIFO waits for a writer) nor replaced.
func notRegular(m fs.FileMode) error {
	if m.IsDir() {
		return errDirectory
	}
	return fmt.Errorf("is %s, not a regular file: move it away and the pane can save again: %w", fsx.KindOf(m), fsx.ErrNotRegular)
}

// RemoveStaleTemps removes the temporary files of writes that a killed
// process left beside the pane's file.
func (s *Store) RemoveStaleTemps() { fsx.RemoveStaleTemps(s.path, time.Minute, time.Now()) }

// commit applies a batch of changes under the file lock with one write.
func (s *Store) commit(batch []*pendingChange) applied {
	if info, err := os.Stat(s.path); err == nil && !info.Mode().IsRegular() {
		return applied{err: fmt.Errorf("%s %w", s.path, notRegular(info.Mode()))}
	}
	unlock, err := fsx.Lock(s.path + ".lock") // creates the directory too
	if err != nil {
		return applied{err: err}
	}
	defer unlock() //nolint:errcheck // closing a lock file cannot lose data
	cur, _, old, dirty := s.read()
	if dirty {
		keep := s.path + ".bad-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
		if err := keepCopy(s.path, keep, old); err != nil {
			return applied{err: fmt.Errorf("keeping the unreadable %s before replacing it: %w", s.path, err)}
		}
	}
	next := Partial{}
	for k, v := range cur {
		next[k] = v
	}
	for _, pc := range batch {
		if pc.c.Reset {
			clear(next)
		}
		for _, k := range pc.c.Clear {
			delete(next, k)
		}
		for k, v := range pc.c.Set {
			next[k] = v
		}
	}
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return applied{err: fmt.Errorf("encoding settings: %w", err)}
	}
	data = append(data, '\n')
	if err := fsx.WriteFileAtomic(s.path, data); err != nil {
		return applied{err: err}
	}
	layer, warn := DecodePane(s.path, data)
	return applied{p: next, layer: layer, warn: warn, seq: s.commits.Add(1)}
}

// committed is how many writes this Store has made so far.
func (s *Store) committed() uint64 { return s.commits.Load() }

// keepCopy keeps the bytes of path at keep. data is the file as read; nil
// when it could not be read whole, and is then copied as it is on disk.
func keepCopy(path, keep string, data []byte) error {
	if data != nil {
		return fsx.WriteFileAtomic(keep, data)
	}
	// Only a regular file is copied: whatever took its place since it was
	// looked at (a FIFO) is refused at once, never waited on.
	src, err := fsx.OpenRegular(path)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(keep, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		_ = dst.Close()
		return err
	}
	return dst.Close()
}
