package web

import (
	"bytes"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// getHistory is GET /agents-notch/history?session=ID: an unfolded row's
// short history, as an HTML fragment notch.js lays under the row. It is
// not part of the board's stream: only a viewer who unfolds a row asks,
// so the board's render and its bytes per change stay as they were.
func (s *Server) getHistory(c echo.Context) error {
	id := c.QueryParam("session")
	if !state.ValidSessionID(id) {
		return echo.NewHTTPError(http.StatusBadRequest, "session must be a session id")
	}
	if !s.Host.Board().Has(id) {
		return echo.NewHTTPError(http.StatusNotFound, "no such session on the board")
	}
	h, known := s.Host.Board().History(id)
	if len(h) == 0 && known && s.Store != nil {
		h = s.lastingHistory(c, id) // the row came back with the host: its events are in the store
	}
	var buf bytes.Buffer
	if err := templates.History(id, h, known).Render(c.Request().Context(), &buf); err != nil {
		return fail(http.StatusInternalServerError, "could not draw the history", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}

// lastingHistory is a row's last events from the lasting history, as the
// row's short history shows them (after a restart the ring is empty).
func (s *Server) lastingHistory(c echo.Context, id string) []host.HistoryEntry {
	entries, err := s.Store.Entries(c.Request().Context(), store.Local, id, 2*host.HistoryLen)
	if err != nil {
		return nil
	}
	var out []host.HistoryEntry
	for _, e := range entries {
		what := host.HistoryWhat(e.Type)
		if what == "" || len(out) == host.HistoryLen {
			continue
		}
		out = append(out, host.HistoryEntry{AtMs: e.AtMs, What: what, Tool: state.Cut(state.CleanText(e.Tool), 120), Outcome: state.Cut(state.CleanText(e.Outcome), 120)})
	}
	return out
}
