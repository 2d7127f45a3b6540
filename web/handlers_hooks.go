package web

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/proc"
)

// postHook is POST /agents-notch/hooks/<agent>: an agent's own hook JSON,
// as the agent sends it (Claude Code's "type": "http" hooks post here
// directly; notch-web hook <agent> relays the others). It answers with an
// empty 200 whatever the board made of it — only a body that is not the
// agent's hook JSON is refused (400), so a broken bridge is noticed — with
// one exception: a PermissionRequest the board may answer (Claude Code's,
// or Codex's and Qwen Code's relayed with ?wait=MS) is held until the human answers on the
// board, and the 200 then carries that decision; when the hold ends
// unanswered the 200 is empty, so the agent's own prompt decides (never a
// deny on the human's behalf).
func (s *Server) postHook(c echo.Context) error {
	agent := c.Param("agent")
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var reply []byte
	var n int
	// "notch-web hook" says where the agent runs and which process it is;
	// each Parse keeps only what is valid, and a hook without them is
	// applied all the same.
	where := host.Origin{
		Where: terminal.Parse(c.Request().Header.Get(terminal.Header)),
		Proc:  proc.Parse(c.Request().Header.Get(proc.Header)),
	}
	if wait := s.holdFor(c, agent); wait > 0 {
		reply, n, err = s.Host.HookHeldFrom(c.Request().Context(), agent, body, s.Now(), wait, where)
	} else {
		n, err = s.Host.HookFrom(agent, body, s.Now(), where)
	}
	switch {
	case errors.Is(err, host.ErrNoAgent):
		return echo.NewHTTPError(http.StatusNotFound, err.Error())
	case errors.Is(err, host.ErrFollowing):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case errors.Is(err, host.ErrPayload):
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	case err != nil:
		s.Log.Warn("hook not applied", "log_type", logx.TypeHooks,
			logx.Err("HookError", err), slog.Group("data", "agent", agent))
	default:
		s.Log.Debug("hook applied", "log_type", logx.TypeHooks, slog.Group("data", "agent", agent, "events", n))
	}
	if reply != nil {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, reply)
	}
	return c.NoContent(http.StatusOK)
}

// holdFor is how long a hook request may be held for the board's answer,
// as the agent's Spec says: an agent whose hook always takes an answer
// (Answers, no AnswerWait: Claude Code's http hooks, OpenCode's plugin) waits for the host's
// hold; one that opted in (AnswerWait: Codex, Qwen Code) says in its relay
// how long it waits (?wait=MS, "notch-web hook <agent> --wait"); others
// never. The host holds only a PermissionRequest, and only when approvals
// are on.
func (s *Server) holdFor(c echo.Context, agent string) time.Duration {
	spec, ok := registry.Get(agent)
	switch {
	case !ok || !spec.Answers:
		return 0
	case spec.AnswerWait == 0:
		return host.MaxApprovalHold // bounded by the host's own hold
	}
	ms, err := strconv.ParseInt(c.QueryParam("wait"), 10, 64)
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(min(ms, host.MaxApprovalHold.Milliseconds())) * time.Millisecond
}
