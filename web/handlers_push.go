package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/ascii"
	"github.com/notch-web/notch-web/security"
)

// The pushes' routes (docs/pushes.md): the board's pages say whether they
// are being looked at (POST /looking); a push's button answers its card
// (POST /act, authorized by the capability it carries — the one route a
// device need not be paired for); the pane's "Send a test" (POST
// /notify/test).

// tabID is the characters of a board page's id (8 to 64 of them).
var tabID = ascii.NewSet(ascii.Alnum, "_-")

// lookingRequest is POST /agents-notch/looking's body.
type lookingRequest struct {
	Tab     string `json:"tab"`
	Looking *bool  `json:"looking"`
}

// postLooking records whether a board page is visible and focused. Without
// pushes it is answered and ignored.
func (s *Server) postLooking(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var req lookingRequest
	if err := decodeStrict(body, &req); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf(`want {"tab", "looking"}: %v`, err))
	}
	if !tabID.Span(req.Tab, 8, 64) || req.Looking == nil {
		return echo.NewHTTPError(http.StatusBadRequest, `want {"tab": 8 to 64 of A-Z a-z 0-9 _ -, "looking": true|false}`)
	}
	if s.Push != nil {
		s.Push.Looking(req.Tab, *req.Looking)
	}
	return c.NoContent(http.StatusNoContent)
}

// actRequest is POST /agents-notch/act's body.
type actRequest struct {
	Cap string `json:"cap"`
}

// maxCap bounds the capability field (one is 43 bytes).
const maxCap = 64

// postAct is a push's Allow once / Deny: its capability names the card,
// the decision and the device it was sent to. A forged, used or expired
// capability, or another device's, is 403; a card answered elsewhere
// first is 409, one whose agent ended 410 — the board's buttons' rules.
func (s *Server) postAct(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var req actRequest
	if err := decodeStrict(body, &req); err != nil || req.Cap == "" || len(req.Cap) > maxCap {
		return echo.NewHTTPError(http.StatusBadRequest, `want {"cap": the action's capability}`)
	}
	if s.Push == nil {
		return echo.NewHTTPError(http.StatusForbidden, push.ErrCapUnknown.Error())
	}
	device, local := s.deviceOf(c.Request())
	card, err := s.Push.Act(req.Cap, push.From{Device: device.ID, Name: device.Name, Local: local})
	switch {
	case errors.Is(err, push.ErrCapUnknown), errors.Is(err, push.ErrCapDevice), errors.Is(err, push.ErrCapRole):
		return echo.NewHTTPError(http.StatusForbidden, err.Error())
	case err != nil:
		return answerError(err)
	}
	return written(c, answerReply{OK: true, Outcome: card.Outcome})
}

// testReply is POST /agents-notch/notify/test's answer: each channel's
// result, in words (never a token or a URL).
type testReply struct {
	OK       bool         `json:"ok"`
	Channels []testResult `json:"channels"`
}

type testResult struct {
	Channel string `json:"channel"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
}

// postNotifyTest sends a test message to every channel.
func (s *Server) postNotifyTest(c echo.Context) error {
	if _, err := readBody(c); err != nil {
		return err
	}
	out := testReply{OK: true, Channels: []testResult{}}
	if s.Push != nil {
		for _, r := range s.Push.Test(c.Request().Context()) {
			t := testResult{Channel: r.Channel, OK: r.Err == nil}
			if r.Err != nil {
				t.Error, out.OK = r.Err.Error(), false
			}
			out.Channels = append(out.Channels, t)
		}
	}
	return c.JSON(http.StatusOK, out)
}

// deviceOf is the paired device a request comes from (the zero Device for
// none: its cookie names no paired device), with its name as it is now,
// and whether the request is plainly local (this machine, by a loopback
// name: security's Local).
func (s *Server) deviceOf(r *http.Request) (security.Device, bool) {
	local := s.Locks.Local(r)
	if d, ok := s.Locks.Device(r); ok {
		return d, local
	}
	return security.Device{}, local
}
