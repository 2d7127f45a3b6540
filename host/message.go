package host

import (
	"context"
	"errors"
	"log/slog"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/proc"
)

// An agent's message to another session (notch-web mcp's send_message)
// is the board's Reply with every one of its checks, and three of its
// own: this machine must have opted in (--mcp-steer), the target must be
// one of this machine's sessions (another machine did not opt in), and a
// session never messages itself (it would type into its own turn).
var (
	ErrMCPSteerOff   = errors.New("agents may not message sessions on this machine: start notch-web with --mcp-steer to allow it")
	ErrMessageRemote = errors.New("an agent's message reaches only the sessions of the machine it runs on")
	ErrMessageSelf   = errors.New("a session cannot send a message to itself")
)

// Message types an agent's message into another session of this machine,
// as a Reply (Steer) does. caller is the agent's process that runs
// notch-web mcp (the zero ID when it could not be read): its session, when
// the board knows it, is named in the log record each use makes — the
// text never is.
func (h *Host) Message(ctx context.Context, r SteerRequest, caller proc.ID) error {
	from := h.sessionOfProcess(caller)
	err := h.message(ctx, r, from)
	result := "typed"
	if err != nil {
		result = err.Error()
	}
	h.log.Info("an agent's message to a session", "log_type", logx.TypeSteer, slog.Group("data",
		"session", r.Session, "from", from, "fromPid", caller.PID, "bytes", len(r.Text), "lines", lines(r.Text), "result", result))
	return err
}

func (h *Host) message(ctx context.Context, r SteerRequest, from string) error {
	switch {
	case !h.cfg.MCPSteer:
		return ErrMCPSteerOff
	case r.Stop:
		return errors.New("an agent's message is text, never a Stop")
	case h.board.ownsRemote(r.Session):
		return ErrMessageRemote
	case from != "" && from == r.Session:
		return ErrMessageSelf
	}
	return h.Steer(ctx, r)
}

// sessionOfProcess is the row of this machine's board whose agent is the
// process id ("" for none, or for the zero ID).
func (h *Host) sessionOfProcess(id proc.ID) string {
	if id.IsZero() {
		return ""
	}
	b := h.board
	b.mu.Lock()
	defer b.mu.Unlock()
	// A process may have had several sessions (a /clear begins another):
	// one that has not ended is the caller's; of equals the least id, so
	// the answer is stable.
	best, bestEnded := "", true
	for sid, f := range b.facts {
		if f.proc != id || !b.fold.Has(sid) {
			continue
		}
		ended := b.fold.Ended(sid)
		if best == "" || (bestEnded && !ended) || (ended == bestEnded && sid < best) {
			best, bestEnded = sid, ended
		}
	}
	return best
}
