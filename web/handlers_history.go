package web

import (
	"bytes"
	"context"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// historyStore is what the History page reads of the store (host/store):
// *store.Store, or a test's own.
type historyStore interface {
	Sessions(ctx context.Context, q store.Query) ([]store.Session, int, error)
	Details(ctx context.Context, sessions []store.Session) ([][]store.Turn, [][]store.Answer, error)
	Day(ctx context.Context, day time.Time) ([]store.Span, error)
	Days(ctx context.Context, last time.Time, n int) ([]store.DayBar, error)
	Headline(ctx context.Context, day time.Time) (store.Headline, error)
	Facets(ctx context.Context) (projects, machines, agents []string, err error)
	Problem() string
	Changes() (<-chan struct{}, func())
}

// agentDays is a historyStore that also adds up tokens and cost per agent
// and day (*store.Store; a test's own may not).
type agentDays interface {
	AgentDays(ctx context.Context, last time.Time, n int) ([]store.AgentDay, error)
}

// getHistory is GET /agents-notch/history. With session= it is an
// unfolded row's short history (getRowHistory); without, the History page.
func (s *Server) getHistory(c echo.Context) error {
	if c.QueryParams().Has("session") {
		return s.getRowHistory(c)
	}
	return s.historyPage(c)
}

// getRowHistory is GET /agents-notch/history?session=ID: an unfolded row's
// short history, as an HTML fragment notch.js lays under the row (or,
// asked with Accept: application/json, as rowHistoryReply: notch-web mcp's
// session_events). It is
// not part of the board's stream: only a viewer who unfolds a row asks,
// so the board's render and its bytes per change stay as they were.
func (s *Server) getRowHistory(c echo.Context) error {
	id := c.QueryParam("session")
	if !state.ValidSessionID(id) {
		return echo.NewHTTPError(http.StatusBadRequest, "session must be a session id")
	}
	if !s.Host.Board().Has(id) {
		return echo.NewHTTPError(http.StatusNotFound, "no such session on the board")
	}
	h, known := s.Host.Board().History(id)
	lasting := false
	switch {
	case len(h) == 0 && known && s.Store != nil:
		h = s.lastingHistory(c, store.Local, id) // the row came back with the host: its events are in the store
		lasting = len(h) > 0
	case !known && s.Store != nil:
		// Another machine's row ("machine/session"): on a hub its events
		// are in the store, fed from that machine's own (host/mesh).
		if machine, sid, ok := strings.Cut(id, "/"); ok {
			h = s.lastingHistory(c, machine, sid)
			known, lasting = len(h) > 0, len(h) > 0
		}
	}
	if wantsJSON(c.Request()) {
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.JSON(http.StatusOK, rowHistoryJSON(id, h, known, lasting))
	}
	var buf bytes.Buffer
	if err := templates.History(id, h, known, lasting).Render(c.Request().Context(), &buf); err != nil {
		return fail(http.StatusInternalServerError, "could not draw the history", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}

// lastingHistory is a row's last events from the lasting history, as the
// row's short history shows them: this machine's after a restart (the ring
// is empty), another machine's on a hub.
func (s *Server) lastingHistory(c echo.Context, machine, id string) []host.HistoryEntry {
	entries, err := s.Store.Entries(c.Request().Context(), machine, id, 2*host.HistoryLen)
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

// historyPage is the History page for the URL's query (store.ParseQuery:
// a query that does not parse is 400 with its reason), or, asked with
// Accept: application/json, the same data as JSON. A history that is
// unavailable is the page's own state, 503.
func (s *Server) historyPage(c echo.Context) error {
	q, err := store.ParseQuery(c.QueryParams(), s.loc())
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	v := s.historyView(c.Request().Context(), q)
	status := http.StatusOK
	if v.Problem != "" {
		status = http.StatusServiceUnavailable
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if wantsJSON(c.Request()) {
		return c.JSON(status, historyJSON(v))
	}
	v.Launch = s.roleOf(c.Request()).Allows(security.RoleLaunch)
	return renderStatus(c, status, templates.HistoryPage(v))
}

// loc is the zone the history's days are in: the host's.
func (s *Server) loc() *time.Location {
	if s.Loc != nil {
		return s.Loc
	}
	return time.Local
}

// historyView reads what the page shows for q as of now. A store that
// says it is unavailable, or fails a read, is the view's Problem (the
// failure logged, never shown).
func (s *Server) historyView(ctx context.Context, q store.Query) templates.HistoryView {
	now := s.Now().In(s.loc())
	v := templates.HistoryView{Query: q, Loc: s.loc(), NowMs: now.UnixMilli()}
	if s.history == nil {
		v.Off = true
		return v
	}
	if p := s.history.Problem(); p != "" {
		v.Problem = p
		return v
	}
	v.Day = q.Day
	if v.Day.IsZero() {
		y, m, d := now.Date()
		v.Day = time.Date(y, m, d, 0, 0, 0, 0, s.loc())
	}
	if err := s.readHistory(ctx, q, &v); err != nil {
		if ctx.Err() == nil {
			s.Log.Error("reading the history", "log_type", logx.TypeHTTP, logx.Err("StoreError", err))
		}
		return templates.HistoryView{Query: q, Loc: v.Loc, NowMs: v.NowMs, Problem: "the history could not be read just now"}
	}
	return v
}

// readHistory fills v from the store: the list (a page of sessions, each
// with its turns and answers), the day's bands and headline, the bars and
// the filters' choices.
func (s *Server) readHistory(ctx context.Context, q store.Query, v *templates.HistoryView) error {
	st := s.history
	rows, total, err := st.Sessions(ctx, q)
	if err != nil {
		return err
	}
	v.Total = total
	turns, answers, err := st.Details(ctx, rows)
	if err != nil {
		return err
	}
	for i, r := range rows {
		v.Sessions = append(v.Sessions, templates.HistorySession{Session: r, Turns: turns[i], Answers: answers[i]})
	}
	if v.Spans, err = st.Day(ctx, v.Day); err != nil {
		return err
	}
	if v.Bars, err = st.Days(ctx, v.Day, templates.BarDays); err != nil {
		return err
	}
	if ad, ok := st.(agentDays); ok {
		if v.ByAgent, err = ad.AgentDays(ctx, v.Day, templates.BarDays); err != nil {
			return err
		}
	}
	if v.Headline, err = st.Headline(ctx, v.Day); err != nil {
		return err
	}
	v.Projects, v.Machines, v.Agents, err = st.Facets(ctx)
	return err
}

// wantsJSON reports whether the request asks for JSON before HTML
// (a script's Accept: application/json; a browser names text/html first).
func wantsJSON(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/html", "application/xhtml+xml":
			return false
		case "application/json":
			return true
		}
	}
	return false
}

// historyLog names a stream's failure in the log.
func (s *Server) historyLog(msg string, err error) {
	s.Log.Debug(msg, "log_type", logx.TypeStream, logx.Err("StreamError", err), slog.Group("data", "page", templates.PageHistory))
}
