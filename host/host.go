// Package host is notch-web's domain as the contract's host: it owns the
// board (the session fold in host mode, or another host's document in
// follow mode, composed with the effective settings into the schema-4
// snapshot), keeps state.json written (the heartbeat), retires rows whose
// close-out marks appear in manual.json, plays the demo, restores its
// sessions from its own last state.json on start, and supervises the
// desktop window (host/window). Nothing here knows HTTP: package web serves
// what the host holds.
package host

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/host/otlp"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/host/window"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// tokenPace is the least time between two rounds of transcript reads.
const tokenPace = 100 * time.Millisecond

// Config is what the host needs, passed explicitly.
type Config struct {
	Board BoardConfig
	// Follow is another host's state.json to mirror; "" is host mode.
	Follow string
	// StatePath is where this host writes state.json (host mode).
	StatePath string
	// ManualPath is $DSH_HOME/state/session-finished/manual.json.
	ManualPath string
	// Demo plays the built-in scenario in a loop (host mode).
	Demo bool
	// Window is the desktop window program to spawn and supervise once
	// state.json is written; "" runs no window (host/window).
	Window string
	// DSHHome is the DSH home, passed to the window as DSH_HOME.
	DSHHome string
	// Boot is when this host started: a quit.json older than it is
	// history. Zero means when New is called.
	Boot time.Time
	// Remote adds other machines' rows to the board (host/mesh); nil is
	// a board of this machine only.
	Remote Remote
	// Approvals configures approvals from the board (approvals.go).
	Approvals ApprovalConfig
	// SteerOff turns off Reply and Stop from the board (--steer off,
	// steer.go).
	SteerOff bool
	// MCPSteer lets an agent send another session of this machine a
	// message through notch-web mcp (--mcp-steer; message.go): off, an
	// agent's MCP tools only read.
	MCPSteer bool
	// OnUsage is handed each model call's usage an agent's OpenTelemetry
	// reported for a session the board holds (host/otlp, spent.go); nil:
	// the board's own sums only.
	OnUsage func(otlp.Usage)
	// OnModelError is handed each failed model call reported likewise.
	OnModelError func(otlp.ModelError)
	// Log receives the host's records; nil discards.
	Log *slog.Logger
}

// Host runs the host's side of the contract. Create it with New, start it
// with Run.
type Host struct {
	cfg      Config
	settings *settings.Service
	board    *Board
	window   *window.Supervisor // nil without Config.Window
	tokens   *tokenReader
	// interrupts watches working rows' transcripts for an interrupt no
	// hook reports.
	interrupts *interruptWatch
	// whys are the rows whose why the host looks for in their agent's files (why.go).
	whys      *whyWatch
	approvals *approvals
	tmux      *terminal.Tmux   // Go to terminal's (terminals.go)
	remote    *terminal.Remote // Reply and Stop beyond tmux (steer.go)
	procs     *procWatch       // the agents' processes (procs.go)
	otlp      *otlp.Receiver   // the agents' OpenTelemetry (spent.go)
	// reconcileRows are the restored rows whose agents' files say whether
	// a turn ended while the host was down (live.go).
	reconcileRows []string
	// restored: rows came back from the last state.json, to be reconciled
	// with their agents as Run starts (restoreLive).
	restored bool
	log      *slog.Logger

	readyOnce sync.Once
	ready     chan struct{} // closed after the first state.json is written

	beats []func(time.Time) // OnBeat's, called by the writer on every beat
	// silence is the hook channels gone silent while their agent works
	// (silence.go), looked at on the beat.
	silence silenceWatch
	// starts are the sessions' start points for their Changes (changes.go).
	starts startPoints

	launcher *launch.Launcher // this machine's starts (launch.go); nil: none
	machine  string           // this machine's name in the mesh ("" alone)
}

// OnBeat has fn called on every beat of state.json's heartbeat
// (state.Heartbeat), from the writer's goroutine, and reports true; a
// follower writes no state.json and keeps no beat, and reports false. Work
// that must happen about as often (the streams' heartbeat) rides on the
// wake-up the beat takes anyway instead of a timer of its own. Call it
// before Run; fn must not block.
func (h *Host) OnBeat(fn func(now time.Time)) bool {
	if h.cfg.Follow != "" {
		return false
	}
	h.beats = append(h.beats, fn)
	return true
}

// New returns a host over the settings service s.
func New(cfg Config, s *settings.Service) *Host {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Boot.IsZero() {
		cfg.Boot = time.Now()
	}
	h := &Host{cfg: cfg, settings: s, board: NewBoard(cfg.Board, cfg.Follow != "", s), tokens: newTokenReader(), interrupts: newInterruptWatch(), whys: newWhyWatch(), tmux: &terminal.Tmux{}, remote: &terminal.Remote{}, procs: newProcWatch(), log: cfg.Log, ready: make(chan struct{})}
	if cfg.Remote != nil && cfg.Follow == "" {
		h.board.remote = cfg.Remote
		cfg.Remote.Attach(h.board.changed)
	}
	h.board.steerOff = cfg.SteerOff
	h.otlp = otlp.NewReceiver(otlp.Limits{}, h.takeExport)
	h.approvals = newApprovals(cfg.Approvals, h.board, cfg.Log)
	h.board.retired = h.approvals.closed
	h.approvals.publish()
	if cfg.Follow == "" {
		h.restore(time.Now())
	}
	if cfg.Window != "" && cfg.Follow == "" {
		h.window = window.New(window.Config{
			Path: cfg.Window, StatePath: cfg.StatePath, DSHHome: cfg.DSHHome, ParentPID: os.Getpid(), Boot: cfg.Boot, Log: cfg.Log,
		})
	}
	return h
}

// Window is the window supervisor, or nil when there is no window (its
// Status then says "off").
func (h *Host) Window() *window.Supervisor { return h.window }

// Board is the host's board.
func (h *Host) Board() *Board { return h.board }

// takesInput is the follow-mode rule, in one place: a follower mirrors
// another host and takes no events and no hooks (ErrFollowing).
func (h *Host) takesInput() error {
	if h.board.Follow() {
		return ErrFollowing
	}
	return nil
}

// Ingest applies a batch of session events all-or-nothing (Board.Ingest),
// unless this host follows another (ErrFollowing). Its warnings are the
// corrections the fold made (an out-of-order time clamped, say).
func (h *Host) Ingest(evs []state.Event, now time.Time) ([]string, error) {
	if err := h.takesInput(); err != nil {
		return nil, err
	}
	return h.board.Ingest(evs, now)
}

// Run does the host's work until ctx ends: in follow mode it mirrors the
// followed file; in host mode it writes state.json at once on every change
// of the board or the settings and at least every state.Heartbeat, retires
// rows closed out in manual.json, and plays the demo when asked.
func (h *Host) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	if h.cfg.Follow != "" {
		f := &state.Follower{
			Path:       h.cfg.Follow,
			OnDocument: h.board.SetFollowed,
			OnError: func(err error) {
				h.log.Warn("followed state.json not read; keeping the last good one", "log_type", logx.TypeFollow, logx.Err("FollowError", err))
			},
		}
		logx.Go(g, h.log, func() error { return f.Run(ctx) })
		return g.Wait()
	}
	if h.restored {
		h.restored = false
		h.reconcileRows = h.restoreLive(time.Now())
	}
	notify := make(chan struct{}, 1)
	logx.Go(g, h.log, func() error { h.mergeChanges(ctx, notify); return nil })
	w := &state.Writer{
		Path: h.cfg.StatePath, Interval: state.Heartbeat,
		Snapshot: h.board.WindowSnapshot,
		// A heartbeat with nothing changed rewrites the last bytes with a
		// fresh wallMs: no snapshot, no encode. The two versions only grow,
		// so their sum moves whenever either does.
		Version:    func() uint64 { return h.board.Version() + h.settings.Version() },
		NextChange: func(d state.Document) time.Time { return h.board.NextChange(d, false) },
		// Reported once, then summarised (state.Writer backs off).
		OnError: func(err error) {
			h.log.Error("state.json not written", "log_type", logx.TypeState, logx.Err("WriteError", err))
		},
		OnRecovered: func(failures int) {
			h.log.Info("state.json written again", "log_type", logx.TypeState, slog.Group("data", "failedWrites", failures))
		},
		OnWritten: func() { h.readyOnce.Do(func() { close(h.ready) }) },
	}
	beats := h.beats
	w.OnBeat = func(now time.Time) {
		for _, fn := range beats {
			fn(now)
		}
		h.checkSilence(now)
	}
	logx.Go(g, h.log, func() error { return w.Run(ctx, notify) })
	logx.Go(g, h.log, func() error { return h.watchMarks(ctx) })
	logx.Go(g, h.log, func() error { <-ctx.Done(); h.approvals.shutdown(); h.procs.stopAll(); return nil })
	logx.Go(g, h.log, func() error { return h.approvals.watch(ctx) })
	logx.Go(g, h.log, func() error { h.watchInterrupts(ctx); return nil })
	logx.Go(g, h.log, func() error { h.watchWhys(ctx); return nil })
	logx.Go(g, h.log, func() error { h.writeLive(ctx); return nil })
	logx.Go(g, h.log, func() error { h.reconcile(ctx, h.reconcileRows); return nil })
	logx.Go(g, h.log, func() error {
		h.tokens.run(ctx, func(session string, tokens int64) { h.board.setTokens(session, tokens, time.Now()) })
		return nil
	})
	if h.cfg.Demo {
		logx.Go(g, h.log, func() error { return playDemo(ctx, h) })
	}
	if h.window != nil {
		logx.Go(g, h.log, func() error { return h.window.Run(ctx, h.ready) })
	}
	return g.Wait()
}

// mergeChanges wakes the writer (through notify, a queue of one) after every
// change of the board or of the settings.
func (h *Host) mergeChanges(ctx context.Context, notify chan<- struct{}) {
	changes, stopC := h.board.Subscribe()
	defer stopC()
	setChanges, stopS := h.settings.Subscribe()
	defer stopS()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-setChanges:
		}
		select {
		case notify <- struct{}{}:
		default:
		}
	}
}

// watchMarks retires the rows whose close-out mark appears in manual.json
// (the window writes it too), in any of the file's shapes. Only marks new
// since the last read count (markSeen.closedOut), so a session that comes
// back under the same id is not retired again.
//
// A mark of another machine's row (the ✕ on a hub's board) goes to that
// machine, which drops the row. Read while the row is not on the board —
// the hub restarted and the machine has not sent its board yet, or the
// machine is away — it waits until the row is back, then goes: so a ✕ the
// hub answered survives the hub killed -9 before the machine heard it
// (its mark was in manual.json, written and fsynced, before the ✕
// answered: docs/many-machines.md).
// Bounds on the remote rows a close-out waits for: marked within
// markAwait, at most maxAwaiting of them (each board change looks at them).
const (
	markAwait   = 24 * time.Hour
	maxAwaiting = 1000
)

func (h *Host) watchMarks(ctx context.Context) error {
	path := h.cfg.ManualPath
	var seen markSeen
	var mu sync.Mutex
	awaiting := map[string]bool{} // remote rows marked, not on the board yet
	remote := h.board.remote
	read := func() {
		info, _ := os.Stat(path)
		// A partly unreadable file still yields the marks it holds.
		marks, shape, err := state.ReadMarkFile(path)
		if err != nil {
			h.log.Warn("manual.json not fully read", "log_type", logx.TypeState, logx.Err("MarksError", err))
		}
		ids := func() (ids []string) {
			mu.Lock()
			defer mu.Unlock()
			fresh := seen.closedOut(marks, shape, info, err != nil)
			for _, id := range fresh {
				at := marks[id].At
				if at <= 0 {
					at = time.Now().UnixMilli() // a mark without at is as old as its reading
				}
				if remote != nil && remote.Owns(id) && !remote.Has(id) {
					if time.Since(time.UnixMilli(at)) < markAwait && len(awaiting) < maxAwaiting {
						awaiting[id] = true
					}
				} else {
					ids = append(ids, id)
				}
			}
			return ids
		}()
		if len(ids) > 0 {
			h.board.Retire(ids...)
		}
	}
	if remote != nil {
		// Subscribed before the first read: a row back in between is seen.
		changes, stop := h.board.Subscribe()
		defer stop()
		go func() {
			defer logx.Guard(h.log)() // a remote row's look-up on another machine's board
			for {
				select {
				case <-ctx.Done():
					return
				case <-changes:
				}
				// Unlocked by defer: a panic in Has (the fatal record, or a
				// test's stand-in exit) never leaves read blocked on mu.
				back := func() (back []string) {
					mu.Lock()
					defer mu.Unlock()
					for id := range awaiting {
						if remote.Has(id) {
							back = append(back, id)
							delete(awaiting, id)
						}
					}
					return back
				}()
				if len(back) > 0 {
					h.board.Retire(back...)
				}
			}
		}()
	}
	read()
	return fsx.Watch(ctx, []string{path}, read, nil)
}

// markSeen is what the last read of manual.json found: each session's mark
// (its at, 0 when it carries none) and the file's identity and version.
type markSeen struct {
	at   map[string]int64
	info os.FileInfo
}

// closedOut returns the sessions that marks close out anew, in order, and
// remembers marks (and info, the file's stat, nil when it has none) as the
// last read. A finished mark is new when the last read did not have it, or
// had it with another at. A file in the object shape is one mark, the
// window's ✕ written whole: each new write of it (another file, size or
// modification time) is a close-out even when it says what the last one
// said, for a mark without at cannot say it is another. A read that failed
// part way (partial) adds to what was seen instead of replacing it, so the
// marks it missed are not new again when they are read.
func (m *markSeen) closedOut(marks map[string]state.Mark, shape state.MarkShape, info os.FileInfo, partial bool) []string {
	rewritten := info != nil && (m.info == nil || !(info == m.info || os.SameFile(info, m.info)) ||
		!info.ModTime().Equal(m.info.ModTime()) || info.Size() != m.info.Size())
	var ids []string
	for id, mk := range marks {
		if mk.State != state.MarkFinished {
			continue
		}
		at, had := m.at[id]
		if !had || at != mk.At || (shape == state.ShapeObject && mk.At == 0 && rewritten) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	next := make(map[string]int64, len(marks))
	if partial {
		maps.Copy(next, m.at)
	}
	for id, mk := range marks {
		next[id] = mk.At
	}
	m.at, m.info = next, info
	return ids
}
