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
// that pane (terminal.Tmux.Type: literal, a fixed argv, then Enter); a
// working row takes Stop, the agent's own interrupt key (its Spec's
// StopKey: Escape, or Copilot CLI's Ctrl-C). Only the
// pane a hook named for that very session is ever typed into. Every reply
// and stop is one agents-notch.steer.v1 record: the session, the agent and
// the reply's length, never its text.

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
	if w.TmuxPane == "" {
		return terminal.ErrNoTmux
	}
	s, ok := h.board.session(r.Session)
	if !ok {
		return ErrNoTerminal
	}
	agent := h.board.agentOf(r.Session)
	var err error
	kind := "reply"
	switch {
	case r.Stop && s.Status != state.StatusWorking:
		return ErrNotWorking
	case r.Stop:
		kind = "stop"
		spec, _ := registry.Get(agent)
		err = h.tmux.Interrupt(ctx, w, spec.StopKey, spec.StopPresses)
	case s.Status != state.StatusDone && s.Status != state.StatusError:
		return ErrNotSettled
	default:
		err = h.tmux.Type(ctx, w, r.Text, settleEnter(agent))
	}
	if err != nil {
		return err
	}
	h.log.Info("steered a session: "+kind, "log_type", logx.TypeSteer, slog.Group("data",
		"session", r.Session, "agent", agent, "kind", kind, "bytes", len(r.Text), "lines", lines(r.Text)))
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
// those whose session runs in a tmux pane a hook named; none with --steer
// off.
func (b *Board) steerRows() map[string]bool {
	if b.steerOff {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out map[string]bool
	for id, f := range b.facts {
		if f.where.TmuxPane != "" && b.fold.Has(id) {
			if out == nil {
				out = map[string]bool{}
			}
			out[id] = true
		}
	}
	return out
}

// SteerOff reports whether Reply and Stop are off (--steer off): the
// board draws neither.
func (h *Host) SteerOff() bool { return h.cfg.SteerOff }
