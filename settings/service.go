package settings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/notify"
)

// Options configures a Service. Every field is explicit; nothing is read from
// the environment here.
type Options struct {
	// HomePatch is the DSH home's cordis.patch.yml: the layer beneath
	// PatchPaths, as the harness layers it (a missing one is silent).
	HomePatch string
	// PatchPaths are the patch files in layer order (later beats earlier),
	// on top of HomePatch: --patch overlays.
	PatchPaths []string
	// ExplicitPatches says the user named PatchPaths (--patch): one that
	// does not exist is then warned about (and read when it appears).
	ExplicitPatches bool
	// RowID is the row the config is read from (DefaultRowID when empty).
	RowID string
	// PanePath is the pane's override file.
	PanePath string
	// Log receives warnings as they appear; nil discards.
	Log *slog.Logger
}

// View is everything the settings API shows: the effective settings and the
// layers that made them.
type View struct {
	Settings Settings          `json:"settings"`
	Row      Partial           `json:"row"`
	Stored   Partial           `json:"stored"`
	Defaults Settings          `json:"defaults"`
	Source   map[string]string `json:"source"`
	Warnings []Warning         `json:"warnings"`
	Context  RowContext        `json:"context"`
	Retire   string            `json:"retire"`
}

// Service owns the three layers. It re-reads the files when they change on
// disk (Watch) or when the pane writes (Change), and tells subscribers.
type Service struct {
	opts  Options
	store *Store

	// load orders each read of the pane file with the rebuild that
	// publishes it, so a Reload that read the file before a Change wrote it
	// can never publish after that Change and leave the view stale.
	load sync.Mutex

	// published is the count of the Store's commits (Store.committed) the
	// view shows the file as of, guarded by load: a Change publishes the
	// bytes it wrote only over an older view.
	published uint64

	mu      sync.RWMutex
	view    View
	stamp   []byte              // the encoded view, to tell a real change
	lastRow map[string]rowEntry // last good parse of each patch file
	row     Row                 // the row as last read: a pane write does not re-read the YAML
	rowWarn []Warning
	changes notify.Broadcast
	version atomic.Uint64
}

// NewService reads every layer once and returns the service.
func NewService(opts Options) *Service {
	if opts.RowID == "" {
		opts.RowID = DefaultRowID
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, store: NewStore(opts.PanePath), lastRow: map[string]rowEntry{}}
	s.store.RemoveStaleTemps()
	s.Reload()
	return s
}

// View returns the current view. The maps are shared: do not modify them.
func (s *Service) View() View {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.view
}

// Reload re-reads the row and the pane file, and notifies subscribers when
// anything they would see changed. It reports whether it did.
func (s *Service) Reload() bool {
	s.mu.Lock()
	s.row, s.rowWarn = s.readRowLocked()
	s.mu.Unlock()
	return s.reloadPane()
}

// reloadPane reads the pane file and publishes it with the cached row.
func (s *Service) reloadPane() bool {
	s.load.Lock()
	defer s.load.Unlock()
	// Counted before the read, the file is at least as new as this commit.
	seq := s.store.committed()
	pane, paneWarn := s.store.Load()
	s.published = max(s.published, seq)
	return s.rebuild(pane, paneWarn)
}

// Change writes c to the pane layer, then publishes the new view.
func (s *Service) Change(c Change) (View, error) {
	r := s.store.apply(c)
	if r.err != nil {
		return s.View(), fmt.Errorf("writing %s: %w", s.store.Path(), r.err)
	}
	// Publish the bytes just written, without reading the file back: the
	// tabs wait for the durable write and nothing more. Unless a newer
	// view is out already: another Change, or a Reload that read the file
	// after this commit, may have published first, and the last
	// publication must be of the newest file.
	s.load.Lock()
	if r.seq > s.published {
		s.published = r.seq
		s.rebuild(r.layer, r.warn)
	}
	s.load.Unlock()
	set := make([]string, 0, len(c.Set))
	for k := range c.Set {
		set = append(set, k)
	}
	slices.Sort(set)
	s.opts.Log.Info("settings changed", "log_type", logx.TypeSettings,
		slog.Group("data", "set", set, "cleared", c.Clear, "reset", c.Reset, "file", s.store.Path()))
	return s.View(), nil
}

func (s *Service) rebuild(pane Partial, paneWarn []Warning) bool {
	s.mu.Lock()
	row, rowWarn := s.row, s.rowWarn
	v := View{Row: row.Config, Stored: pane, Defaults: Defaults, Context: row.Context, Retire: row.Retire}
	v.Settings, v.Source = Compose(row.Config, pane)
	v.Warnings = append(append([]Warning{}, rowWarn...), paneWarn...)
	stamp, _ := json.Marshal(v)
	changed := string(stamp) != string(s.stamp)
	var newWarn []Warning
	if changed {
		for _, w := range v.Warnings {
			if !slices.Contains(s.view.Warnings, w) {
				newWarn = append(newWarn, w)
			}
		}
		s.view, s.stamp = v, stamp
		s.version.Add(1)
	}
	s.mu.Unlock()
	for _, w := range newWarn {
		s.opts.Log.Warn("setting ignored", "log_type", logx.TypeSettings,
			slog.Group("data", "file", w.File, "key", w.Key, "reason", w.Message))
	}
	if changed {
		s.changes.Notify()
	}
	return changed
}

// readRowLocked reads every patch file; a file that fails to parse keeps its
// last good entry and is reported.
func (s *Service) readRowLocked() (Row, []Warning) {
	var warns []Warning
	var fold rowFold
	var read []string // files read, for the "no entry" warning
	seenIDs := map[string][]string{}
	for _, p := range s.patchPaths() {
		data, err := fsx.ReadFileLimit(p, MaxPatchBytes)
		var e rowEntry
		switch {
		case errors.Is(err, fs.ErrNotExist):
			delete(s.lastRow, p)
			if s.opts.ExplicitPatches && p != s.opts.HomePatch {
				warns = append(warns, Warning{File: p, Message: "does not exist; it is read as soon as it appears"})
			}
			continue
		case err != nil:
			warns = append(warns, s.keepLastRow(p, err))
			e = s.lastRow[p]
		default:
			e, err = parsePatch(data, s.opts.RowID)
			if err != nil {
				warns = append(warns, s.keepLastRow(p, err))
				e = s.lastRow[p]
			} else {
				s.lastRow[p] = e
				read = append(read, p)
				seenIDs[p] = e.ids
			}
		}
		warns = append(warns, fold.apply(p, e.ops)...)
	}
	if !fold.found {
		// A row id typed one way in the flags and another in the YAML
		// (agent-notch, agents-notch) would otherwise be silent.
		for _, p := range read {
			has := "no rows with an id"
			if ids := seenIDs[p]; len(ids) > 0 {
				has = "the file has: " + strings.Join(ids, ", ")
			}
			warns = append(warns, Warning{File: p, Message: fmt.Sprintf("no entry for row %q; %s", s.opts.RowID, has)})
		}
	}
	r, w := buildRow(fold.file, rowEntry{found: fold.found, hasConfig: fold.hasConfig, config: fold.config})
	return r, append(warns, w...)
}

// patchPaths are the patch files in layer order: the home's, then the
// overlays.
func (s *Service) patchPaths() []string {
	if s.opts.HomePatch == "" {
		return s.opts.PatchPaths
	}
	return append([]string{s.opts.HomePatch}, s.opts.PatchPaths...)
}

// keepLastRow is the warning for a patch file that cannot be read or
// parsed: its last good row is kept, when there was one; otherwise the file
// adds nothing until it parses.
func (s *Service) keepLastRow(p string, err error) Warning {
	if _, ok := s.lastRow[p]; ok {
		return Warning{File: p, Message: err.Error() + "; keeping its last good row"}
	}
	return Warning{File: p, Message: err.Error() + "; no row read from it yet: the layers beneath apply until it parses"}
}

// Version counts the changes of the view so far.
func (s *Service) Version() uint64 { return s.version.Load() }

// Subscribe returns a channel woken after every change of the view, and a
// function to stop.
func (s *Service) Subscribe() (<-chan struct{}, func()) { return s.changes.Subscribe() }

// Watch re-reads the layers whenever one of their files changes on disk,
// until ctx ends: edits to the YAML row or to settings.json by hand take
// effect without a restart.
func (s *Service) Watch(ctx context.Context) error {
	files := append([]string{s.store.Path()}, s.patchPaths()...)
	return fsx.Watch(ctx, files, func() { s.Reload() }, func(err error) {
		s.opts.Log.Warn("file watcher error", "log_type", logx.TypeSettings,
			logx.Err("WatchError", err))
	})
}
