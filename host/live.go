package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/state"
)

// The sidecar, live.json beside state.json, keeps what the hooks said of
// each live row beside its events — its agent, process, transcript and
// terminal — so that a restarted host (even after a kill -9) watches the
// same processes and reads the same files: a row whose agent died while
// the host was down settles at once, and a turn that ended then shows as
// ended (reconcile). state.json (schema 4, frozen) carries none of it.

// LiveVersion is the sidecar's format; another is not read.
const LiveVersion = 1

// liveMax bounds the sidecar read (MaxTracked rows of a few hundred bytes).
const liveMax = 4 << 20

// livePace is the least time between two writes of the sidecar.
const livePace = 250 * time.Millisecond

// reconcileWindow is how long after a restart the agents' files of the
// restored rows still working or asking are looked at, every
// interruptPoll: an agent writes a turn's end within a fraction of a
// second, so an end from while the host was down is there at once.
const reconcileWindow = 5 * time.Second

// liveFile is the sidecar's JSON.
type liveFile struct {
	V    int       `json:"v"`
	Rows []liveRow `json:"rows"`
}

type liveRow struct {
	Session    string `json:"session"`
	Agent      string `json:"agent,omitempty"`
	Proc       string `json:"proc,omitempty"`  // proc.ID's header form
	Where      string `json:"where,omitempty"` // terminal.Where's header form
	Transcript string `json:"transcript,omitempty"`
	// Ended: the row's session had ended (session.ended) — its history is
	// final, and a restart adds nothing to it.
	Ended bool `json:"ended,omitempty"`
}

// livePath is the sidecar beside state.json.
func livePath(statePath string) string { return filepath.Join(filepath.Dir(statePath), "live.json") }

// maxTranscriptPath bounds a transcript's path.
const maxTranscriptPath = 4096

// validTranscript reports whether p can be a transcript's path: absolute,
// bounded, clean text.
func validTranscript(p string) bool {
	return p != "" && len(p) <= maxTranscriptPath && filepath.IsAbs(p) && state.CleanText(p) == p
}

// parseLive reads a sidecar. A file of another version, or not JSON, is an
// error; a row that is not valid (an unknown agent, an id, process,
// terminal or path out of form) is left out, the others kept.
func parseLive(b []byte) (map[string]rowFacts, error) {
	var f liveFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a sidecar: %w", err)
	}
	if f.V != LiveVersion {
		return nil, fmt.Errorf("sidecar version %d, want %d", f.V, LiveVersion)
	}
	out := map[string]rowFacts{}
	for _, r := range f.Rows {
		if !state.ValidSessionID(r.Session) || len(out) >= state.MaxTracked {
			continue
		}
		var f rowFacts
		if r.Agent != "" {
			if _, ok := registry.Get(r.Agent); !ok {
				continue
			}
			f.agent = r.Agent
		}
		if r.Proc != "" {
			if f.proc = proc.Parse(r.Proc); f.proc.IsZero() {
				continue
			}
		}
		if r.Where != "" {
			if f.where = terminal.Parse(r.Where); f.where.IsZero() {
				continue
			}
		}
		if r.Transcript != "" {
			if !validTranscript(r.Transcript) {
				continue
			}
			f.transcript = r.Transcript
		}
		f.ended = r.Ended
		out[r.Session] = f
	}
	return out, nil
}

// liveDoc is the sidecar of the board's rows, sorted by session.
func (b *Board) liveDoc() []byte {
	b.mu.Lock()
	rows := make([]liveRow, 0, len(b.facts))
	for id, f := range b.facts {
		if b.fold.Has(id) {
			rows = append(rows, liveRow{Session: id, Agent: f.agent, Proc: f.proc.Encode(), Where: f.where.Encode(), Transcript: f.transcript,
				Ended: b.fold.Ended(id)})
		}
	}
	b.mu.Unlock()
	slices.SortFunc(rows, func(x, y liveRow) int { return strings.Compare(x.Session, y.Session) })
	out, _ := json.Marshal(liveFile{V: LiveVersion, Rows: rows})
	return out
}

// writeLive keeps the sidecar written after every change of the facts, at
// most every livePace, until ctx ends, and once more then: a host stopped
// within livePace of a hook keeps what it said. A write that fails is
// logged once until one succeeds (the board goes on without it).
func (h *Host) writeLive(ctx context.Context) {
	changes, stop := h.board.Subscribe()
	defer stop()
	path := livePath(h.cfg.StatePath)
	written := ^uint64(0)
	failing := false
	write := func() {
		if v := h.board.factsVersion.Load(); v != written {
			err := fsx.WriteFilePrivateNoSync(path, h.board.liveDoc()) // it names processes, panes, transcripts: 0600
			switch {
			case err != nil && !failing:
				h.log.Warn("live.json not written; a restart will not know the agents' processes", "log_type", logx.TypeState, logx.Err("WriteError", err))
				failing = true
			case err == nil:
				written, failing = v, false
			}
		}
	}
	for {
		write()
		select {
		case <-ctx.Done():
			write()
			return
		case <-changes:
		}
		select {
		case <-ctx.Done():
			write()
			return
		case <-time.After(livePace):
		}
	}
}

// restoreLive gives the restored rows what the sidecar kept of them, and
// reconciles each with its agent: a row whose session had ended stays
// ended, adding nothing to its history; a settled row whose process has
// ended (or is of another boot: the machine restarted) ends as quietly,
// at the last moment it was known to live (its history is final: a
// restart rewrites no time of it, and logs nothing); a row in a turn
// whose process has ended settles now (the process watch: an error, and
// its record); one that runs is watched; the transcripts are watched
// again. It returns the rows whose agents' files are to be read for a
// turn that ended while the host was down.
func (h *Host) restoreLive(now time.Time) []string {
	path := livePath(h.cfg.StatePath)
	b, err := fsx.ReadFileLimit(path, liveMax)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = []byte(`{"v":1}`), nil // an older host's: the agents' own files may still say
	}
	var live map[string]rowFacts
	if err == nil {
		live, err = parseLive(b)
	}
	if err != nil {
		h.log.Warn("live.json not read; restored rows are not watched", "log_type", logx.TypeState, logx.Err("RestoreError", err))
	}
	var open []string
	for _, id := range h.board.ids() {
		f := live[id]
		h.board.setFacts(id, rowFacts{agent: f.agent, transcript: f.transcript, where: f.where})
		if f.ended {
			h.board.endedBefore(id)
			continue
		}
		spec, ok := registry.Get(f.agent)
		if f.proc.IsZero() && ok && spec.Process != nil && f.transcript != "" {
			f.proc = agentsWord(spec.Process, f.transcript)
		}
		s, held := h.board.session(id)
		settled := held && state.Settled(s.Status)
		if !f.proc.IsZero() {
			local := proc.Local(f.proc)
			switch {
			case settled && (!local || !proc.Alive(f.proc)):
				h.board.endedWhileDown(id)
			case local:
				h.setProc(id, f.proc) // an ended one settles after exitGrace
			case h.board.setProc(id, f.proc):
				h.agentGone(id, f.proc, now) // of another boot: it is not running
			}
		}
		if !ok {
			continue
		}
		if f.transcript != "" && watchesTranscript(spec) {
			h.interrupts.want(id, f.transcript, spec.Interrupted, spec.Idle, spec.Failed)
		}
		if held && !settled && spec.Settled != nil {
			open = append(open, id)
		}
	}
	return open
}

// agentsWord is the process an agent's own files name (agent.Spec
// Process), on Linux only: the start time Claude Code records is /proc's.
func agentsWord(read func(string) (int, uint64, bool), transcript string) proc.ID {
	if !procStartIsTicks {
		return proc.ID{}
	}
	pid, start, ok := read(transcript)
	boot, err := proc.BootID()
	if !ok || err != nil {
		return proc.ID{}
	}
	return proc.ID{PID: pid, Start: start, Boot: boot}
}

// reconcile reads, for reconcileWindow after a restart, the agents' files
// of the restored rows that were working or asking: a turn that ended
// while the host was down ends (Spec.Settled).
func (h *Host) reconcile(ctx context.Context, rows []string) {
	if len(rows) == 0 {
		return
	}
	t := time.NewTicker(interruptPoll)
	defer t.Stop()
	end := time.Now().Add(reconcileWindow)
	for len(rows) > 0 {
		rows = slices.DeleteFunc(rows, func(id string) bool {
			s, ok := h.board.session(id)
			if !ok || state.Settled(s.Status) {
				return true
			}
			f := h.board.factsOf(id)
			spec, _ := registry.Get(f.agent)
			outcome, ended := spec.Settled(id, f.transcript, time.UnixMilli(s.Since))
			if ended {
				if s.Status == state.StatusAttention {
					h.approvals.refusedInTerminal(id)
				}
				h.board.settleTurn(id, s.Status, s.Since, outcome, time.Now())
				h.log.Info("a turn that ended while the host was down is ended", "log_type", logx.TypeState,
					"data", map[string]any{"session": id, "agent": f.agent, "outcome": outcome})
			}
			return ended
		})
		if time.Now().After(end) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
