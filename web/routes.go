package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/window"
)

// prefix is where every page and route of the agents notch lives.
const prefix = "/agents-notch"

// publicRoutes pass the gate without a paired device: they hold no data.
// The static files and the manifest; the service worker; a pairing link
// (its code is its key); and a push's action, which carries a single-use
// capability of its own.
var publicRoutes = []string{
	prefix + "/static/*",
	prefix + "/manifest.webmanifest",
	prefix + "/sw.js",
	prefix + "/pair/:code",
	"POST " + prefix + "/act",
}

// routes lists every URL notch-web serves. Every route passes the Host
// check and the gate (a request that is not plainly local needs a paired
// device, except on publicRoutes), and a paired device's role is held to
// the route's rule (routeRoles: a new route adds its rule there); every
// state-changing route passes all the locks.
func (s *Server) routes() {
	e := s.echo
	e.Use(s.recoverPanics, s.logRequests)
	e.Use(s.Locks.Host(), s.Locks.Gate(s.notPaired, publicRoutes...), s.checkRoles, s.Locks.CORS())
	page := s.Locks.PageHeaders()
	write := func(limit int64) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{s.Locks.Write(limit)}
	}

	e.GET("/healthz", s.healthz)
	e.GET("/", redirect(prefix+"/"))
	e.GET(prefix, redirect(prefix+"/"))

	n := e.Group(prefix)
	n.GET("/", s.boardPage, page)
	n.GET("/pane", s.panePage, page)
	n.GET("/stream", s.stream)
	n.GET("/static/*", s.static())
	n.GET("/manifest.webmanifest", s.serveManifest)
	n.GET("/sw.js", s.serviceWorker())
	n.GET("/push/key", s.getPushKey)
	n.POST("/push/subscribe", s.postPushSubscribe, write(smallBodyLimit)...)
	n.POST("/push/unsubscribe", s.postPushUnsubscribe, write(smallBodyLimit)...)

	n.GET("/state", s.getState)
	n.GET("/sessions", s.getSessions)
	n.GET("/history", s.getHistory, page)
	n.GET("/history/stream", s.historyStream)
	n.GET("/settings", s.getSettings)
	n.POST("/settings", s.postSettings, write(settingsBodyLimit)...)
	n.POST("/events", s.postEvents, write(eventsBodyLimit)...)
	n.POST("/finish", s.postFinish, write(smallBodyLimit)...)
	n.POST("/open", s.postOpen, write(smallBodyLimit)...)
	n.POST("/terminal", s.postTerminal, write(smallBodyLimit)...)
	n.POST("/reply", s.postReply, write(replyBodyLimit)...)
	n.POST("/stop", s.postStop, write(smallBodyLimit)...)
	n.GET("/launch/options", s.getLaunchOptions)
	n.POST("/launch", s.postLaunch, write(launchBodyLimit)...)
	n.POST("/window", s.postWindow, write(smallBodyLimit)...)
	n.POST("/machines/revoke", s.postRevoke, write(smallBodyLimit)...)
	n.POST("/hooks/:agent", s.postHook, write(hooksBodyLimit)...)
	n.POST("/approve", s.postApprove, write(smallBodyLimit)...)
	n.POST("/statusline", s.postStatusline, write(smallBodyLimit)...)
	n.POST("/looking", s.postLooking, write(smallBodyLimit)...)
	n.POST("/act", s.postAct, write(smallBodyLimit)...)
	n.POST("/notify/test", s.postNotifyTest, write(smallBodyLimit)...)
	n.POST("/reinstall", s.postReinstall, write(smallBodyLimit)...)

	n.GET("/devices", s.getDevices)
	n.POST("/devices/add", s.postDeviceAdd, write(smallBodyLimit)...)
	n.POST("/devices/revoke", s.postDeviceRevoke, write(smallBodyLimit)...)
	n.POST("/devices/role", s.postDeviceRole, write(smallBodyLimit)...)
	n.GET("/pair/:code", s.getPair, page)
	n.POST("/pair/:code", s.postPair, page, s.Locks.Form(smallBodyLimit))
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
	Views      int64         `json:"views"`      // the hub's builds of the pages' view so far (idle: none)
	Drops      int64         `json:"drops"`      // stalled streams dropped so far
	Window     window.Status `json:"window"`     // the desktop window's supervisor
}

// healthz answers 200 while serving, with the hub's counters and the
// window's state. The load tool and the tests read them.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, healthReply{
		OK: true, Version: s.Version, Streams: s.Hub.Clients(), MaxStreams: s.Hub.MaxStreams, Refused: s.Hub.Refused(),
		Renders: s.Hub.Renders(), Views: s.Hub.Views(), Drops: s.Hub.Drops(), Window: s.Host.Window().Status(),
	})
}
