package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/settings"
)

// settingsReply is the answer of GET and POST /agents-notch/settings: the
// contract's {ok, settings, row, stored, defaults} plus source, warnings,
// context and retire.
type settingsReply struct {
	OK bool `json:"ok"`
	settings.View
}

// settingsRefusal is a 400 of POST /agents-notch/settings: the keys it does
// not know, and the values it cannot take with their reasons.
type settingsRefusal struct {
	OK bool `json:"ok"`
	*settings.RequestError
}

func (s *Server) getSettings(c echo.Context) error {
	return c.JSON(http.StatusOK, settingsReply{OK: true, View: s.Settings.View()})
}

// postSettings stores any of the fourteen keys (clamped), clears single
// overrides ({"key": null}) or the whole pane layer ({"reset": true}). A body
// with an unknown key or a value that does not parse is refused whole and
// nothing is written. A Datastar request gets 204: Datastar would merge a
// JSON reply into the page's signals; the page learns of the change over its
// stream like every other tab.
func (s *Server) postSettings(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	change, err := settings.ParseRequest(body)
	var re *settings.RequestError
	if errors.As(err, &re) {
		return c.JSON(http.StatusBadRequest, settingsRefusal{RequestError: re})
	}
	if err != nil {
		return err
	}
	view, err := s.Settings.Change(change)
	if err != nil {
		return fail(http.StatusInternalServerError, "could not save the settings", err)
	}
	return written(c, settingsReply{OK: true, View: view})
}

// written answers a successful write: 204 to Datastar, which would merge a
// JSON reply into the page's signals (the page learns of the change over its
// stream like every other tab), and body as JSON to anyone else.
func written(c echo.Context, body any) error {
	if c.Request().Header.Get("Datastar-Request") == "true" {
		return c.NoContent(http.StatusNoContent)
	}
	return c.JSON(http.StatusOK, body)
}
