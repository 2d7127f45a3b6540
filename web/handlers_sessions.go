package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/state"
)

// sessionsReply is GET /agents-notch/sessions: every row of the board
// (every machine's, on a hub) with what an agent asking through
// notch-web mcp needs and state.json does not carry (the machine, the
// agent, the wait), and the queue of who waits, oldest wait first. It is
// read-only: nothing here answers anything.
type sessionsReply struct {
	OK      bool          `json:"ok"`
	NowMs   int64         `json:"nowMs"`
	Summary state.Summary `json:"summary"`
	// Sessions are in the board's order (this machine's rows first).
	Sessions []sessionRow `json:"sessions"`
	// Queue is the ids of the sessions that wait on the human, oldest
	// wait first (state.Queue).
	Queue []string `json:"queue"`
}

// sessionRow is one row of sessionsReply.
type sessionRow struct {
	ID      string `json:"id"`
	Machine string `json:"machine"` // "" for this machine's own rows
	Agent   string `json:"agent"`   // "" when not known (another machine's row)
	Project string `json:"project"`
	Title   string `json:"title"`
	Cwd     string `json:"cwd"`
	Status  string `json:"status"`
	SinceMs int64  `json:"sinceMs"`
	// WaitMs is how long it has waited on the human (0 unless it waits).
	WaitMs   int64           `json:"waitMs"`
	Waiting  bool            `json:"waiting"`
	Activity *state.Activity `json:"activity"`
	Approval *state.Approval `json:"approval"`
	Parent   string          `json:"parent"`
	Steps    int             `json:"steps"`
}

// getSessions answers GET /agents-notch/sessions (sessionsReply).
func (s *Server) getSessions(c echo.Context) error {
	now := s.Now()
	b := s.Host.Board()
	doc, ok := b.Snapshot(now)
	if !ok {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "no state read yet from the followed host")
	}
	r := sessionsReply{OK: true, NowMs: now.UnixMilli(), Summary: doc.Summary, Sessions: make([]sessionRow, 0, len(doc.Sessions)), Queue: []string{}}
	for _, x := range doc.Sessions {
		row := sessionRow{ID: x.ID, Project: x.Project, Title: x.Title, Cwd: x.Cwd, Status: x.Status, SinceMs: x.Since,
			Waiting: state.Waiting(x), Activity: x.Activity, Approval: x.Approval, Parent: x.ParentSession, Steps: x.Steps}
		if row.Waiting {
			row.WaitMs = state.WaitMs(x.Since, r.NowMs)
		}
		if b.IsRemote(x.ID) {
			row.Machine, _, _ = strings.Cut(x.ID, "/")
		} else {
			row.Agent = b.Agent(x.ID)
		}
		r.Sessions = append(r.Sessions, row)
	}
	for _, w := range state.Queue(doc.Sessions, nil, r.NowMs) {
		r.Queue = append(r.Queue, doc.Sessions[w.Index].ID)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, r)
}
