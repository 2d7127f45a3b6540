package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// routes lists every URL notch-web serves. Every route passes the Host
// check; every state-changing route passes all the locks.
func (s *Server) routes() {
	e := s.echo
	e.Use(s.Locks.Host(), s.Locks.CORS())
	page := s.Locks.PageHeaders()
	write := s.Locks.Write

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
	e.POST("/agents-notch/settings", s.postSettings, write(settingsBodyLimit))
	e.POST("/agents-notch/events", s.postEvents, write(eventsBodyLimit))
	e.POST("/agents-notch/finish", s.postFinish, write(smallBodyLimit))
	e.POST("/agents-notch/open", s.postOpen, write(smallBodyLimit))
}

func redirect(to string) echo.HandlerFunc {
	return func(c echo.Context) error { return c.Redirect(http.StatusFound, to) }
}

// healthz answers 200 while serving, with the hub's counters: how many
// streams are open, how many changes were rendered, how many stalled
// streams were dropped. The load tool reads them.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{
		"ok": true, "streams": s.Hub.Clients(), "maxStreams": s.Hub.MaxStreams, "refused": s.Hub.Refused(),
		"renders": s.Hub.Renders(), "drops": s.Hub.Drops(),
	})
}
