package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/notch-web/notch-web/host/changes"
	"github.com/notch-web/notch-web/internal/logx"
)

// A row's Changes (docs/board.md, "Changes"): when a session opens (the
// first hook of a row that names its folder), its start point is recorded
// in the background (changes.Git.Record: HEAD and the files dirty then);
// when someone opens the row's Changes, Changes computes what changed
// since (changes.Git.Compute). Nothing of it runs on a timer, and nothing
// but a person's request computes a diff. A row of another machine is
// computed by that machine (RemoteChanges, over the hub). The start
// points live in memory: a row restored after a restart has none
// (changes.ErrNoStart).

// maxStarts bounds the start points kept; past it, those of rows no
// longer on the board go.
const maxStarts = 4 * 40

// ErrChangesOff: a follower shows another host's rows: it knows no
// start point (409).
var ErrChangesOff = errors.New("no changes view: this notch-web follows another host")

// RemoteChanges is a Remote that asks another machine for its row's
// Changes (host/mesh): that machine's own Host.Changes.
type RemoteChanges interface {
	Changes(ctx context.Context, id string) (changes.Result, error)
}

// startPoints are the sessions' start points. Its zero value is ready.
type startPoints struct {
	git    changes.Git
	mu     sync.Mutex
	starts map[string]*startPoint
}

// startPoint is one row's: done is closed once Record returned.
type startPoint struct {
	done  chan struct{}
	start changes.Start
	err   error
}

// openStart records the start point of row's session in dir, once per row,
// in the background.
// dir is the hook's cwd, else the row's.
func (h *Host) openStart(row, dir string) {
	if row == "" {
		return
	}
	sp := &h.starts
	sp.mu.Lock()
	_, known := sp.starts[row]
	sp.mu.Unlock()
	if known {
		return
	}
	if dir == "" {
		if s, ok := h.board.session(row); ok {
			dir = s.Cwd
		}
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return
	}
	sp.mu.Lock()
	if sp.starts == nil {
		sp.starts = map[string]*startPoint{}
	}
	if _, ok := sp.starts[row]; ok {
		sp.mu.Unlock()
		return
	}
	if len(sp.starts) >= maxStarts {
		for id := range sp.starts {
			if !h.board.Has(id) {
				delete(sp.starts, id)
			}
		}
		if len(sp.starts) >= maxStarts {
			sp.mu.Unlock()
			return
		}
	}
	p := &startPoint{done: make(chan struct{})}
	sp.starts[row] = p
	sp.mu.Unlock()
	go func() {
		defer close(p.done)
		defer logx.Guard(h.log)() // git's output is outside input
		p.start, p.err = sp.git.Record(context.Background(), dir)
		// A folder that is no work tree, or gone, or no git here, is the
		// view's own state; only git failing is worth a line.
		if p.err != nil && !errors.Is(p.err, changes.ErrNotGit) && !errors.Is(p.err, changes.ErrGone) && !errors.Is(p.err, changes.ErrNoGit) {
			h.log.Warn("no start point for a session's changes", "log_type", logx.TypeHooks,
				slog.Group("data", "session", row), slog.Group("error", "name", "changes", "message", p.err.Error()))
		}
	}()
}

// Changes is what row id's session changed in its folder since it
// started, computed now by the machine that runs it. The errors:
// changes.ErrNotGit, ErrGone, ErrNoGit, ErrNoStart, ErrGit; ErrChangesOff
// for a follower; ErrMachineAway for another machine that did not answer.
func (h *Host) Changes(ctx context.Context, id string) (changes.Result, error) {
	if h.cfg.Follow != "" {
		return changes.Result{}, ErrChangesOff
	}
	if h.board.ownsRemote(id) {
		if rc, ok := h.board.remote.(RemoteChanges); ok {
			return rc.Changes(ctx, id)
		}
		return changes.Result{}, fmt.Errorf("%w: its machine is not asked", changes.ErrNoStart)
	}
	h.starts.mu.Lock()
	p := h.starts.starts[id]
	h.starts.mu.Unlock()
	if p == nil {
		return changes.Result{}, changes.ErrNoStart
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return changes.Result{}, ctx.Err()
	}
	if p.err != nil {
		return changes.Result{}, p.err
	}
	return h.starts.git.Compute(ctx, p.start)
}
