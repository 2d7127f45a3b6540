package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/state"
)

// Adapter maps one agent's hook payload to session events (an agent
// Spec's Map; the agents whose own hooks reach the board, by the name in
// their route /agents-notch/hooks/<name>, are adapters/registry's).
type Adapter func(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error)

// ErrNoAgent: a hook for an agent notch-web has no adapter for (a 404).
var ErrNoAgent = errors.New("no adapter for agent")

// ErrPayload: a hook body that is not the agent's hook JSON (a 400). It is
// hookjson.ErrPayload.
var ErrPayload = hookjson.ErrPayload

// Hook applies one hook payload of an agent to the board: mapped by the
// agent's adapter against the rows as they are (so a pending approval is
// seen), with a session.opened first for a session the board does not hold
// yet (the host may have restarted while the agent ran). A payload that is
// not the agent's hook JSON is ErrPayload; one the board refuses (too many
// sessions, say) is returned too, and the caller answers the agent all the
// same: an agent is never held up by its hooks. The transcript, when the
// payload names one, is read later, off the hook's path.
func (h *Host) Hook(agent string, payload []byte, now time.Time) (applied int, err error) {
	return h.HookFrom(agent, payload, now, Origin{})
}

// Origin is what "notch-web hook" says of where a hook comes from, beside
// its payload: the agent's terminal (terminal.Header), for the board's Go
// to terminal, and the agent's process (proc.Header), which the host
// watches so the row never outlives it (procs.go). The zero Origin says
// nothing (an agent's own http hook).
type Origin struct {
	Where terminal.Where
	Proc  proc.ID
}

// HookFrom is Hook for a hook that says where it comes from: the board
// keeps it for the row.
func (h *Host) HookFrom(agent string, payload []byte, now time.Time, from Origin) (applied int, err error) {
	n, _, err := h.hook(agent, payload, now, false, from)
	return n, err
}

// HookHeld is Hook for a hook whose agent waits on the answer (Claude
// Code's http hooks; Codex's through "notch-web hook codex --wait"): a
// PermissionRequest the board may answer is held up to wait (bounded by the
// host's hold) and the board's decision returned (hookjson.Decision's
// JSON); nil is an empty 2xx, which leaves the agent's own prompt to decide.
// ctx is the hook request's: an agent that stops waiting ends the hold.
func (h *Host) HookHeld(ctx context.Context, agent string, payload []byte, now time.Time, wait time.Duration) (reply []byte, applied int, err error) {
	return h.HookHeldFrom(ctx, agent, payload, now, wait, Origin{})
}

// HookHeldFrom is HookHeld for a hook that says where its agent runs (see
// HookFrom).
func (h *Host) HookHeldFrom(ctx context.Context, agent string, payload []byte, now time.Time, wait time.Duration, from Origin) (reply []byte, applied int, err error) {
	n, e, err := h.hook(agent, payload, now, wait > 0, from)
	if e == nil {
		return nil, n, err
	}
	return h.approvals.wait(ctx, e, wait), n, err
}

// hook applies a hook to the board, then to the approvals' cards.
func (h *Host) hook(agent string, payload []byte, now time.Time, held bool, from Origin) (int, *entry, error) {
	spec, ok := registry.Get(agent)
	if !ok {
		return 0, nil, fmt.Errorf("%w %q (%s)", ErrNoAgent, agent, strings.Join(registry.Names(), ", "))
	}
	adapt := Adapter(spec.Map)
	if err := h.takesInput(); err != nil {
		return 0, nil, err
	}
	m, n, warns, err := h.board.applyHookOf(spec.Name, adapt, payload, now)
	for _, ev := range m.Events {
		h.silence.heardHook(ev.Session, now)
	}
	for _, w := range warns {
		h.log.Warn("hook applied with a correction", "log_type", logx.TypeHooks, slog.Group("data", "agent", agent, "warning", w))
	}
	p, derr := hookjson.Decode(payload)
	if m.Transcript.Path == "" && spec.SessionFile != nil && err == nil && derr == nil && p.AgentID == "" {
		m.Transcript = sessionFile(spec, p.SessionID, m)
	}
	// (After the session file is found: the row's facts keep it, so a
	// restarted host reads it too.)
	if row := whereRow(m); err == nil && derr == nil && row != "" {
		h.noteOrigin(row, spec, m, p, from)
		h.openStart(row, p.String("cwd"))
	}
	if m.Window.Size > 0 {
		h.board.setWindow(m.Window.Session, m.Window.Size)
	}
	if m.Why.Session != "" {
		h.board.setWhy(m.Why.Session, m.Why.Why, now)
	}
	for _, ev := range m.Events {
		if ev.Type == state.TypeTurnEnded || ev.Type == state.TypeSessionEnded {
			h.lookForWhy(ev.Session, now)
		}
	}
	if m.Transcript.Path != "" && (spec.Tokens != nil || spec.Plan != nil) {
		h.tokens.want(m.Transcript, h.readTokens(spec), time.Now())
	}
	if m.Transcript.Path != "" && !m.Transcript.Sidechain && watchesTranscript(spec) {
		h.interrupts.want(m.Transcript.Session, m.Transcript.Path, spec.Interrupted, spec.Idle, spec.Failed)
		for _, ev := range m.Events {
			if ev.Type == state.TypeTurnStarted && ev.Session == m.Transcript.Session {
				h.interrupts.turnStarted(ev.Session, now.UnixMilli())
			}
		}
	}
	var e *entry
	if derr == nil {
		var moved bool
		e, moved = h.approvals.observe(agent, p, held)
		if moved {
			h.approvals.reassert()
		}
	}
	return n, e, err
}

// readTokens is how the token reader reads an agent's transcript: its
// Tokens, and for an agent whose files report the context window too
// (agent.Spec Window) that window, kept for the row as a statusline's is.
//
// For an agent whose files tell the plan's windows and the session's
// running tokens (agent.Spec Plan), the same reads take those into the
// ledger.
func (h *Host) readTokens(spec agent.Spec) func(hookjson.Transcript) (int64, bool) {
	if spec.Window == nil && spec.Plan == nil {
		return spec.Tokens
	}
	return func(tr hookjson.Transcript) (int64, bool) {
		if spec.Window != nil {
			if n, ok := spec.Window(tr); ok {
				h.board.setWindow(tr.Session, n)
			}
		}
		if spec.Plan != nil && !tr.Sidechain {
			if r, ok := spec.Plan(tr.Path); ok {
				h.board.notePlan(spec, tr.Session, r, time.Now())
			}
		}
		if spec.Tokens == nil {
			return 0, false
		}
		return spec.Tokens(tr)
	}
}

// watchesTranscript reports whether the agent's files say things of a
// working row no hook does (an interrupt, idleness, a failure).
func watchesTranscript(spec agent.Spec) bool {
	return spec.Interrupted != nil || spec.Idle != nil || spec.Failed != nil
}

// sessionFile is the transcript the agent keeps for session, for a hook
// that starts the session's own turn and names none (agent.Spec
// SessionFile): only a path of the form the host reads, to a regular file
// that is there.
func sessionFile(spec agent.Spec, session string, m hookjson.Mapping) hookjson.Transcript {
	row := hookjson.ID(session)
	starts := false
	for _, ev := range m.Events {
		starts = starts || ev.Type == state.TypeTurnStarted && ev.Session == row
	}
	if !starts {
		return hookjson.Transcript{}
	}
	path := spec.SessionFile(session)
	if !validTranscript(path) {
		return hookjson.Transcript{}
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return hookjson.Transcript{}
	}
	return hookjson.Transcript{Path: path, Session: row}
}

// noteOrigin keeps what a hook said of its row beside its events: where
// it runs, which agent it is, its transcript (the mapping's, else the
// payload's: Codex's rollout is named, not read for tokens) and its
// process — the hook's, else, for a row none named yet, the agent's own
// word (Claude Code's status file: its http hooks name none).
func (h *Host) noteOrigin(row string, spec agent.Spec, m hookjson.Mapping, p hookjson.Payload, from Origin) {
	if !from.Where.IsZero() {
		h.board.setWhere(row, from.Where)
	}
	f := rowFacts{agent: spec.Name}
	if m.Transcript.Path != "" && !m.Transcript.Sidechain && m.Transcript.Session == row {
		f.transcript = m.Transcript.Path
	} else if p.AgentID == "" && hookjson.ID(p.SessionID) == row && validTranscript(p.TranscriptPath) {
		f.transcript = p.TranscriptPath
	}
	if f.transcript != "" && !validTranscript(f.transcript) {
		f.transcript = ""
	}
	h.board.setFacts(row, f)
	id := from.Proc
	if slices.Contains(spec.HelperEvents, p.Event) {
		id = proc.ID{} // a helper's, not the agent's (agent.Spec)
	}
	if id.IsZero() && spec.Process != nil {
		if known := h.board.factsOf(row); known.proc.IsZero() && known.transcript != "" {
			id = agentsWord(spec.Process, known.transcript)
		}
	}
	h.setProc(row, id)
}

// ErrFollowing: a follower takes no events and no hooks (a 409).
var ErrFollowing = errors.New("this notch-web follows another host's state.json; it takes no events")

// lookedUp is one row an adapter read, as it read it.
type lookedUp struct {
	id string
	s  state.Session
	ok bool
}
