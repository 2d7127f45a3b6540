package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/window"
)

// routes lists every URL notch-web serves. Every route passes the Host
// check; every state-changing route passes all the locks.
func (s *Server) routes() {
	e := s.echo
	e.Use(s.Locks.Host(), s.Locks.CORS())
	page := s.Locks.PageHeaders()
	write := func(limit int64) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{s.logWrites, s.Locks.Write(limit)}
	}

	e.GET("/healthz", s.healthz)
	e.GET("/", redirect("/agents-notch/"))
	e.GET("/agents-notch", redirect("/agents-notch/"))

	e.GET("/agents-notch/", s.boardPage, page)
	e.GET("/agents-notch/pane", s.panePage, page)
	e.GET("/agents-notch/stream", s.stream)
	e.GET("/agents-notch/static/*", s.static())
	e.GET("/agents-notch/manifest.webmanifest", s.serveManifest)

	e.GET("/agents-notch/state", s.getState)
	e.GET("/agents-notch/settings", s.getSettings)
	e.POST("/agents-notch/settings", s.postSettings, write(settingsBodyLimit)...)
	e.POST("/agents-notch/events", s.postEvents, write(eventsBodyLimit)...)
	e.POST("/agents-notch/finish", s.postFinish, write(smallBodyLimit)...)
	e.POST("/agents-notch/open", s.postOpen, write(smallBodyLimit)...)
	e.POST("/agents-notch/window", s.postWindow, write(smallBodyLimit)...)
	e.POST("/agents-notch/hooks/:agent", s.postHook, write(hooksBodyLimit)...)
}

func redirect(to string) echo.HandlerFunc {
	return func(c echo.Context) error { return c.Redirect(http.StatusFound, to) }
}

// healthReply is /healthz's answer.
type healthReply struct {
	OK         bool          `json:"ok"`
	Version    string        `json:"version"`    // the build, as notch-web --version says
	Streams    int           `json:"streams"`    // open now
	MaxStreams int           `json:"maxStreams"` // admitted at once (0: no cap)
	Refused    int64         `json:"refused"`    // streams refused for the cap so far
	Renders    int64         `json:"renders"`    // changes rendered so far
	Drops      int64         `json:"drops"`      // stalled streams dropped so far
	Window     window.Status `json:"window"`     // the desktop window's supervisor
}

// healthz answers 200 while serving, with the hub's counters and the
// window's state. The load tool and the tests read them.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, healthReply{
		OK: true, Version: s.Version, Streams: s.Hub.Clients(), MaxStreams: s.Hub.MaxStreams, Refused: s.Hub.Refused(),
		Renders: s.Hub.Renders(), Drops: s.Hub.Drops(), Window: s.Window.Status(),
	})
}
