package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/state"
)

// replyRequest is the body of POST /agents-notch/reply.
type replyRequest struct {
	SessionID string `json:"sessionId"`
	Text      string `json:"text"`
}

// parseReplyRequest reads a reply strictly: a valid session id, and text
// that terminal.CheckReply takes (at most 8 KiB, a newline the only
// control character).
func parseReplyRequest(body []byte) (host.SteerRequest, error) {
	var req replyRequest
	if err := decodeStrict(body, &req); err != nil {
		return host.SteerRequest{}, errors.New(`want {"sessionId", "text"}: ` + err.Error())
	}
	if !state.ValidSessionID(req.SessionID) {
		return host.SteerRequest{}, errors.New("sessionId must be 1 to 200 bytes of text")
	}
	text, err := terminal.CheckReply(req.Text)
	if err != nil {
		return host.SteerRequest{}, err
	}
	return host.SteerRequest{Session: req.SessionID, Text: text}, nil
}

// steerReply answers POST /agents-notch/reply and /stop.
type steerReply struct {
	OK bool `json:"ok"`
}

// postReply is a settled row's Reply: the text typed into the session's
// tmux pane (literal, a fixed argv, then Enter). Always JSON: notch.js
// reads it.
func (s *Server) postReply(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	r, err := parseReplyRequest(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if err := s.Host.Steer(c.Request().Context(), r); err != nil {
		return steerError(c, err)
	}
	return c.JSON(http.StatusOK, steerReply{OK: true})
}

// postStop is a working row's Stop: the agent's interrupt key (Escape)
// pressed in its tmux pane.
func (s *Server) postStop(c echo.Context) error {
	id, err := readSessionRequest(c)
	if err != nil {
		return err
	}
	if err := s.Host.Steer(c.Request().Context(), host.SteerRequest{Session: id, Stop: true}); err != nil {
		return steerError(c, err)
	}
	return c.JSON(http.StatusOK, steerReply{OK: true})
}

// steerError maps Host.Steer's refusals to statuses.
func steerError(c echo.Context, err error) error {
	switch {
	case errors.Is(err, host.ErrFollowing):
		return echo.NewHTTPError(http.StatusConflict, "this notch-web follows another host: it types into no session")
	case errors.Is(err, host.ErrSteerOff):
		return echo.NewHTTPError(http.StatusForbidden, err.Error())
	case errors.Is(err, terminal.ErrReplyText):
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	case errors.Is(err, host.ErrNoTerminal):
		return echo.NewHTTPError(http.StatusNotFound, "no terminal pane is known for this session")
	case errors.Is(err, terminal.ErrNoTmux):
		return echo.NewHTTPError(http.StatusConflict, "the session runs in no terminal notch-web can type into (tmux, screen, Zellij, WezTerm, a listening kitty): reply in its terminal")
	case errors.Is(err, terminal.ErrNotInPane):
		return echo.NewHTTPError(http.StatusConflict, terminal.ErrNotInPane.Error())
	case errors.Is(err, host.ErrNotSettled), errors.Is(err, host.ErrNotWorking), errors.Is(err, terminal.ErrDraft), errors.Is(err, host.ErrInputUnread):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case errors.Is(err, terminal.ErrGone):
		return fail(http.StatusGone, "the session's terminal pane is gone", err)
	case errors.Is(err, terminal.ErrBusy):
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(terminal.RetryAfter/time.Second)))
		return echo.NewHTTPError(http.StatusTooManyRequests, "another reply is being typed: try again in a moment")
	case errors.Is(err, host.ErrMachineAway):
		return echo.NewHTTPError(http.StatusServiceUnavailable, err.Error())
	}
	return fail(http.StatusBadGateway, "the terminal could not type into the session's pane", err)
}
