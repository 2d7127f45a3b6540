package host

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// Reply and Stop from the board (docs/terminal.md): a settled row whose
// session runs in a tmux pane the host has seen takes a reply, typed into
// that pane (terminal.Tmux.Type: literal, a fixed argv, then Enter) — or
// in a pane of GNU screen, Zellij, kitty or WezTerm, through that
// terminal's own remote control (terminal.Remote); a
// working row takes Stop, the agent's own interrupt key (its Spec's
// StopKey: Escape, or Copilot CLI's Ctrl-C). Only the pane a hook named
// for that very session is ever typed into, and only while the agent's
// process the row watches (procs.go) is that pane's foreground
// (terminal.Target): after /exit, /quit or a kill the shell is back there,
// and the keys are refused (terminal.ErrNotInPane) and the row's Reply and
// Stop go. Every reply and stop is one agents-notch.steer.v1 record: the
// session, the agent and the reply's length, never its text.

// SteerRequest is a Reply (Text) or a Stop from the board.
type SteerRequest struct {
	Session string
	Text    string // the reply; "" with Stop
	Stop    bool
}

// Errors Steer returns; package web maps them to statuses.
var (
	// ErrSteerOff: --steer off (403).
	ErrSteerOff = errors.New("reply and stop from the board are off (--steer off)")
	// ErrNotSettled: a reply to a row that is not waiting for a prompt
	// (working, or asking: its dialog would take the keys) (409).
	ErrNotSettled = errors.New("the session is not waiting for a prompt: reply once it is done")
	// ErrNotWorking: Stop for a row with no turn running (409).
	ErrNotWorking = errors.New("the session has no turn running to stop")
	// ErrInputUnread: a reply to an agent with no rule for reading its
	// input box (agent.Spec.EmptyInput nil): typed after a draft it would
	// reach the model as draft + reply, so nothing is typed (409).
	ErrInputUnread = errors.New("notch-web cannot tell whether this agent's input is empty, so it types no reply there: reply in its terminal")
)

// settleEnter is how long Type waits between a reply's text and its
// Enter: the agent's Spec's ReplyEnter (a TUI that reads a burst as a
// paste drops an Enter in it: Gemini CLI, OpenCode), else 150 ms.
func settleEnter(agent string) time.Duration {
	if s, ok := registry.Get(agent); ok && s.ReplyEnter > 0 {
		return s.ReplyEnter
	}
	return 150 * time.Millisecond
}

// Steer types a reply into a session's tmux pane, or stops its turn. A
// row of another machine goes to that machine (its own Steer, over the
// hub). The errors: ErrFollowing, ErrSteerOff, ErrNoTerminal (no pane
// known for the session), terminal.ErrNoTmux (it is not in tmux),
// ErrNotSettled / ErrNotWorking, terminal.ErrReplyText, terminal.ErrGone,
// terminal.ErrBusy, terminal.ErrTmux.
func (h *Host) Steer(ctx context.Context, r SteerRequest) error {
	if err := h.takesInput(); err != nil {
		return err
	}
	if h.cfg.SteerOff {
		return ErrSteerOff
	}
	if !r.Stop {
		text, err := terminal.CheckReply(r.Text)
		if err != nil {
			return err
		}
		r.Text = text
	}
	if h.board.ownsRemote(r.Session) {
		return h.board.remote.Steer(ctx, r)
	}
	w, ok := h.board.Where(r.Session)
	if !ok {
		return ErrNoTerminal
	}
	keys := w.Keys()
	if !w.Typeable() {
		return terminal.ErrNoTmux
	}
	s, ok := h.board.session(r.Session)
	if !ok {
		return ErrNoTerminal
	}
	f := h.board.factsOf(r.Session)
	agent := f.agent
	spec, _ := registry.Get(agent)
	tg := terminal.Target{Where: w, Agent: f.proc, Client: spec.DaemonClient, Empty: spec.EmptyInput}
	var err error
	kind := "reply"
	switch {
	case r.Stop && s.Status != state.StatusWorking:
		return ErrNotWorking
	case r.Stop && keys == terminal.KeysTmux:
		kind = "stop"
		err = h.tmux.Interrupt(ctx, tg, spec.StopKey, spec.StopPresses)
	case r.Stop:
		kind = "stop"
		err = h.remote.Interrupt(ctx, tg, spec.StopKey, spec.StopPresses)
	case s.Status != state.StatusDone && s.Status != state.StatusError:
		return ErrNotSettled
	case spec.EmptyInput == nil:
		return ErrInputUnread
	case keys == terminal.KeysTmux:
		err = h.tmux.Type(ctx, tg, r.Text, settleEnter(agent))
	default:
		err = h.remote.Type(ctx, tg, r.Text, settleEnter(agent))
	}
	if errors.Is(err, terminal.ErrNotInPane) || errors.Is(err, terminal.ErrGone) {
		h.board.leftPaneOf(r.Session)
	}
	if err != nil {
		return err
	}
	h.log.Info("steered a session: "+kind, "log_type", logx.TypeSteer, slog.Group("data",
		"session", r.Session, "agent", agent, "kind", kind, "terminal", keys, "bytes", len(r.Text), "lines", lines(r.Text)))
	return nil
}

// lines counts a reply's lines (0 for none).
func lines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// steerRows are the rows of this host's fold that take Reply and Stop:
// those whose session runs in a pane a hook named (Where.Keys: tmux,
// screen, Zellij, a listening kitty, WezTerm), whose agent's
// process is known and has not ended (session.ended), and which no Reply
// or Stop found gone from its pane since its last turn began; none with
// --steer off. It reads only the board: the pane itself is looked at
// when someone acts, never on a render.
func (b *Board) steerRows() map[string]bool {
	if b.steerOff {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out map[string]bool
	for id, f := range b.facts {
		if f.where.Typeable() && !f.proc.IsZero() && !outsideTmuxClient(f.where, f.agent) && b.fold.Has(id) && !b.fold.Ended(id) && !b.leftPane[id] {
			if out == nil {
				out = map[string]bool{}
			}
			out[id] = true
		}
	}
	return out
}

// outsideTmuxClient reports whether a row's agent is a daemon's client
// (Codex) in a terminal other than tmux: its hooks' process is in no
// terminal, and only tmux names the pane's process to check the client by
// (terminal.Remote refuses it).
func outsideTmuxClient(w terminal.Where, agent string) bool {
	spec, _ := registry.Get(agent)
	return spec.DaemonClient && w.Keys() != terminal.KeysTmux
}

// leftPaneOf notes that a row's agent is no longer in its pane: the row
// takes Reply and Stop no more (steerRows) until a turn starts again.
func (b *Board) leftPaneOf(id string) {
	b.mu.Lock()
	if b.leftPane == nil {
		b.leftPane = map[string]bool{}
	}
	news := b.fold.Has(id) && !b.leftPane[id]
	if news {
		b.leftPane[id] = true
	}
	b.mu.Unlock()
	if news {
		b.changed()
	}
}

// backInPaneLocked forgets, for a row whose turn starts (a prompt typed in
// its terminal: the agent is there), that a Reply found it gone; and drops
// the rows the fold no longer holds. b.mu is held.
func (b *Board) backInPaneLocked(evs []state.Event) {
	if len(b.leftPane) == 0 {
		return
	}
	for _, ev := range evs {
		if ev.Type == state.TypeTurnStarted || ev.Type == state.TypeSessionOpened {
			delete(b.leftPane, ev.Session)
		}
	}
	for id := range b.leftPane {
		if !b.fold.Has(id) {
			delete(b.leftPane, id)
		}
	}
}

// SteerOff reports whether Reply and Stop are off (--steer off): the
// board draws neither.
func (h *Host) SteerOff() bool { return h.cfg.SteerOff }
