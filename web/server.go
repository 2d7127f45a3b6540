// Package web is notch-web's HTTP face: the Echo server, its routes and
// handlers behind the locks, and the hub that pushes the live board and the
// Settings pane to every open tab over SSE.
package web

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/settings"
)

// Deps is everything the server needs, passed explicitly.
type Deps struct {
	Settings *settings.Service
	// Host holds the board (the fold or the followed document), applies
	// the agents' hooks and supervises the desktop window.
	Host  *host.Host
	Hub   *Hub
	Locks *security.Locks
	Log   *slog.Logger
	// Static holds the stylesheet, scripts and the Datastar client.
	Static fs.FS
	// ManualPath is $DSH_HOME/state/session-finished/manual.json, where the
	// ✕ leaves its mark when no finishedUrl is known.
	ManualPath string
	// OpenDoor is the harness's "open this session" URL, or "".
	OpenDoor string
	// Client forwards close-outs and opens to the harness.
	Client *http.Client
	// Store is the lasting history (host/store); nil keeps none.
	Store *store.Store
	// Push sends the pushes (host/push); nil sends none.
	Push *push.Engine
	// WebPush is the Web Push channel the push routes subscribe browsers
	// to (host/push); nil when this notch-web sends no pushes.
	WebPush *push.WebPush
	// Loc is the zone of the history's days (time.Local in production).
	Loc *time.Location
	// Version names the build, for /healthz.
	Version string
	// PairBase is where a phone reaches this host, for a pairing link
	// ("https://name.tailnet.ts.net"), and a warning when that may not
	// work ("" none); nil: the links are relative.
	PairBase func() (base, warning string)
	// Now is the clock (time.Now in production).
	Now func() time.Time
	// Exit ends the process after a handler's panic was logged as the
	// standard fatal record (nil: os.Exit).
	Exit func(code int)
}

// Server is the HTTP face. Create it with New.
type Server struct {
	Deps
	echo *echo.Echo
	// history is Deps.Store as the History page reads it (nil: none);
	// tests give a store of their own.
	history historyStore
	// histStreams counts the History page's open streams.
	histStreams atomic.Int32
}

// Body limits, every route's in one place: a settings POST is a few keys;
// an events batch may be long; a hook's body carries a tool's whole
// response (a file read, a command's output); the ✕, Open and Start now
// are one small object.
const (
	settingsBodyLimit = 64 << 10
	eventsBodyLimit   = 4 << 20
	hooksBodyLimit    = 8 << 20
	smallBodyLimit    = 16 << 10
	// replyBodyLimit holds a reply of terminal.MaxReply bytes, each
	// escaped as JSON may (\uXXXX: six bytes).
	replyBodyLimit = 6*(8<<10) + 1024
)

// New wires the routes.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Client == nil {
		d.Client = &http.Client{Timeout: 5 * time.Second}
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s := &Server{Deps: d, echo: e}
	if d.Store != nil {
		s.history = d.Store
	}
	e.HTTPErrorHandler = s.handleError
	s.routes()
	return s
}

// Handler returns the server's http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

// handleError is the one place an error becomes a response: a public message
// for the client, the detail in the log. Internal errors never reach a browser.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := http.StatusInternalServerError, "internal error"
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		status, msg = http.StatusRequestEntityTooLarge, "body too large"
	case errors.As(err, &he):
		status = he.Code
		if m, ok := he.Message.(string); ok {
			msg = m
		} else {
			msg = http.StatusText(status)
		}
		if he.Internal != nil {
			s.Log.Error(msg, "log_type", logx.TypeHTTP,
				logx.Err("HTTPError", he.Internal),
				slog.Group("data", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status))
		}
	default:
		s.Log.Error("request failed", "log_type", logx.TypeHTTP,
			logx.Err("InternalError", err),
			slog.Group("data", "method", c.Request().Method, "path", c.Request().URL.Path))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, errReply{Error: msg})
}

// fail is an error with a public message and a logged cause.
func fail(status int, public string, cause error) error {
	return echo.NewHTTPError(status, public).SetInternal(cause)
}
