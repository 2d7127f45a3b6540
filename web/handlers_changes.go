package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/changes"
	"github.com/notch-web/notch-web/internal/udiff"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// changesReply is GET /agents-notch/changes?session=ID asked for JSON.
type changesReply struct {
	OK            bool          `json:"ok"`
	Session       string        `json:"session"`
	Problem       string        `json:"problem,omitempty"`
	Files         []changesFile `json:"files"`
	FilesMore     int           `json:"filesMore,omitempty"`
	Untracked     []string      `json:"untracked"`
	UntrackedMore int           `json:"untrackedMore,omitempty"`
	Moved         bool          `json:"moved,omitempty"`
	Base          string        `json:"base,omitempty"`
	BaseGone      bool          `json:"baseGone,omitempty"`
}

type changesFile struct {
	Path    string `json:"path"`
	OldPath string `json:"oldPath,omitempty"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Binary  bool   `json:"binary,omitempty"`
	Earlier bool   `json:"earlier,omitempty"`
	// Diff is the file's shown lines as a unified diff's ("+x", "-y",
	// " z", "@@ … @@"); More counts those left out.
	Diff []string `json:"diff"`
	More int      `json:"more,omitempty"`
}

// getChanges is a row's Changes, computed now by the machine that runs
// its session (host.Host.Changes): the page, or with Accept:
// application/json the same data. Only a person opening Changes asks;
// nothing computes a diff on a timer, and the board's stream carries none.
// A session with no view (not a git work tree, its folder gone, …) is the
// page's own state, 200; another machine that did not answer is 503.
func (s *Server) getChanges(c echo.Context) error {
	id := c.QueryParam("session")
	if !state.ValidSessionID(id) {
		return echo.NewHTTPError(http.StatusBadRequest, "session must be a session id")
	}
	doc, _ := s.Host.Board().View(s.Now())
	var row *state.Session
	for i := range doc.Sessions {
		if doc.Sessions[i].ID == id {
			row = &doc.Sessions[i]
		}
	}
	if row == nil {
		return echo.NewHTTPError(http.StatusNotFound, "no such session on the board")
	}
	res, err := s.Host.Changes(c.Request().Context(), id)
	status := http.StatusOK
	v := changesView(*row, res, s.Host.Board().Cards())
	if !s.Host.Board().IsRemote(id) {
		v.Agent = s.Host.Board().Agent(id)
	}
	switch {
	case err == nil:
	case errors.Is(err, changes.ErrNotGit), errors.Is(err, changes.ErrGone), errors.Is(err, changes.ErrNoGit),
		errors.Is(err, changes.ErrNoStart), errors.Is(err, host.ErrChangesOff):
		v.Problem = err.Error() // each says "no changes view: why", written for a person
	case errors.Is(err, host.ErrMachineAway):
		v.Problem, status = "no changes view: "+err.Error(), http.StatusServiceUnavailable
	default:
		c.Logger().Error(err)
		v.Problem, status = changes.ErrGit.Error(), http.StatusBadGateway
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if wantsJSON(c.Request()) {
		return c.JSON(status, changesJSON(id, v))
	}
	return renderStatus(c, status, templates.ChangesPage(v))
}

// changesView is a Changes view as the page draws it, with whether the
// row takes Reply with a comment now.
func changesView(row state.Session, res changes.Result, cs host.CardSet) templates.ChangesView {
	v := templates.ChangesView{
		Session: row.ID, Name: rowName(row), Cwd: row.Cwd,
		FilesMore: res.FilesMore, Untracked: res.Untracked, UntrackedMore: res.UntrackedMore,
		Moved: res.Moved, Base: res.Base, BaseGone: res.BaseGone,
	}
	for _, f := range res.Files {
		v.Files = append(v.Files, templates.DiffFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Earlier: f.Earlier, View: f.View})
	}
	settled := row.Status == state.StatusDone || row.Status == state.StatusError
	switch {
	case cs.SteerOff:
		v.ReplyWhy = "Reply from the board is off here (--steer off)."
	case !cs.Steer[row.ID]:
		v.ReplyWhy = "Reply with a comment needs the session in a tmux pane this host has seen: reply in its terminal."
	case !settled:
		v.ReplyWhy = "Reply with a comment once the session waits for a prompt (it is working or asking now)."
	default:
		v.Reply = true
	}
	return v
}

// rowName is how the page names a row: its title, else its project.
func rowName(s state.Session) string {
	switch {
	case s.Title != "":
		return s.Title
	case s.Project != "":
		return s.Project
	}
	return "this session"
}

// changesJSON is the view as JSON.
func changesJSON(id string, v templates.ChangesView) changesReply {
	r := changesReply{OK: v.Problem == "", Session: id, Problem: v.Problem, FilesMore: v.FilesMore,
		Untracked: v.Untracked, UntrackedMore: v.UntrackedMore, Moved: v.Moved, Base: v.Base, BaseGone: v.BaseGone,
		Files: []changesFile{}}
	if r.Untracked == nil {
		r.Untracked = []string{}
	}
	for _, f := range v.Files {
		cf := changesFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Added: f.Added, Removed: f.Removed,
			Binary: f.Binary, Earlier: f.Earlier, More: f.More, Diff: make([]string, 0, len(f.Lines))}
		for _, l := range f.Lines {
			if l.Op == udiff.Hunk {
				cf.Diff = append(cf.Diff, l.Text)
			} else {
				cf.Diff = append(cf.Diff, string(l.Op)+l.Text)
			}
		}
		r.Files = append(r.Files, cf)
	}
	return r
}
