package web

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/security"
)

// public marks a route of routeRoles that needs no role: one of
// publicRoutes, which pass the gate without a paired device.
const public security.Role = 0

// thisMachine marks a route of routeRoles that no paired device may use,
// whatever its role: only this machine's own loopback (its browser, its
// command line, the agents' hooks on it).
const thisMachine = security.RoleLaunch + 1

// thisMachineOnly is thisMachine's refusal.
const thisMachineOnly = "this is done from the host itself (its own browser, or notch-web on its command line), never from a paired device"

// routeRoles is the role each route needs of a paired device ("METHOD
// path", as routes() registers it): the one table docs/security.md's roles
// table describes. This machine's own loopback is RoleLaunch, and passes
// every route (thisMachine's too). A route with no rule here is refused to every device (and
// TestRouteRoles fails): a new route names its role when it is added.
var routeRoles = map[string]security.Role{
	// view: the board, the history, the pane; its own pushes; itself.
	"GET /healthz":                         security.RoleView,
	"GET /":                                security.RoleView,
	"GET " + prefix:                        security.RoleView,
	"GET " + prefix + "/":                  security.RoleView,
	"GET " + prefix + "/pane":              security.RoleView,
	"GET " + prefix + "/stream":            security.RoleView,
	"GET " + prefix + "/push/key":          security.RoleView,
	"POST " + prefix + "/push/subscribe":   security.RoleView,
	"POST " + prefix + "/push/unsubscribe": security.RoleView,
	"GET " + prefix + "/state":             security.RoleView,
	"GET " + prefix + "/sessions":          security.RoleView,
	"GET " + prefix + "/history":           security.RoleView,
	"GET " + prefix + "/history/stream":    security.RoleView,
	"GET " + prefix + "/settings":          security.RoleView,
	"GET " + prefix + "/devices":           security.RoleView,
	"POST " + prefix + "/looking":          security.RoleView,
	"POST " + prefix + "/notify/test":      security.RoleView,
	// A device may revoke only itself (security.Devices.RevokeAs): giving
	// up one's own access needs no more than having it.
	"POST " + prefix + "/devices/revoke": security.RoleView,
	// A row's Changes and the ledger are read like the board.
	"GET " + prefix + "/changes": security.RoleView,
	"GET " + prefix + "/ledger":  security.RoleView,

	// answer: approvals, questions and plans; the ✕ close-out; the
	// board's looks (the settings).
	"POST " + prefix + "/approve":  security.RoleAnswer,
	"POST " + prefix + "/finish":   security.RoleAnswer,
	"POST " + prefix + "/settings": security.RoleAnswer,

	// steer: Reply and Stop, and what acts on this machine's terminals,
	// desktop and settings.
	"POST " + prefix + "/reply":    security.RoleSteer,
	"POST " + prefix + "/stop":     security.RoleSteer,
	"POST " + prefix + "/terminal": security.RoleSteer,
	"POST " + prefix + "/open":     security.RoleSteer,
	"POST " + prefix + "/window":   security.RoleSteer,

	// launch: starting sessions, and the machines of a hub.
	"POST " + prefix + "/machines/revoke": security.RoleLaunch,
	"POST " + prefix + "/launch":          security.RoleLaunch,
	"GET " + prefix + "/launch/options":   security.RoleLaunch,

	// this machine only: the agents' own input (hooks, events, the status
	// line), the hooks' files, pairing and roles.
	"POST " + prefix + "/events":       thisMachine,
	"POST " + prefix + "/hooks/:agent": thisMachine,
	"POST " + prefix + "/statusline":   thisMachine,
	"POST " + prefix + "/reinstall":    thisMachine,
	"POST " + prefix + "/devices/add":  thisMachine,
	"POST " + prefix + "/devices/role": thisMachine,
	// The agents' OpenTelemetry, and an agent's message through notch-web
	// mcp (--mcp-steer): programs of this machine.
	"POST " + prefix + "/otlp/v1/:signal": thisMachine,
	"POST " + prefix + "/mcp/message":     thisMachine,

	// public: what the gate lets through without a device (publicRoutes).
	"GET " + prefix + "/static/*":             public,
	"GET " + prefix + "/manifest.webmanifest": public,
	"GET " + prefix + "/sw.js":                public,
	"GET " + prefix + "/pair/:code":           public,
	"POST " + prefix + "/pair/:code":          public,
	// A push's action carries a capability minted for one device; its
	// role is checked there (push.Options.MayAnswer).
	"POST " + prefix + "/act": public,
}

// checkRoles is the middleware that holds every route to routeRoles. It
// runs after the gate: a request here is plainly local (full), or a
// paired device's, or on a public route.
func (s *Server) checkRoles(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		need, ok := routeRoles[r.Method+" "+c.Path()]
		if ok && need == public {
			return next(c)
		}
		if s.Locks.Local(r) {
			return next(c)
		}
		dev, paired := s.Locks.Device(r)
		switch {
		case !paired:
			// Only a public route passes the gate without a device; an
			// unknown path or method is left to the router (404, 405).
			return next(c)
		case !dev.Role.Valid():
			s.Log.Warn("a device's role in devices.json is not one this build knows: it is refused until its role is set (notch-web devices role NAME ROLE)",
				"log_type", logx.TypeSecurity, slog.Group("data", "device", dev.Name, "id", dev.ID, "method", r.Method, "path", r.URL.Path))
			return echo.NewHTTPError(http.StatusForbidden, "this device's role is not known here: set it on the host (notch-web devices role "+dev.Name+" ROLE)")
		case !ok:
			if c.Path() == "" || c.Handler() == nil {
				return next(c)
			}
			return echo.NewHTTPError(http.StatusForbidden, "this route has no role rule: only this machine may use it")
		}
		if need == thisMachine {
			return echo.NewHTTPError(http.StatusForbidden, thisMachineOnly)
		}
		if !dev.Role.Allows(need) {
			why := dev.Role.Refusal(need)
			if r.Method == http.MethodPost && c.Path() == prefix+"/launch" {
				s.launchRefused(c, dev.Name, why)
			}
			return echo.NewHTTPError(http.StatusForbidden, why)
		}
		return next(c)
	}
}

// roleOf is the role of the request's sender: this machine's own loopback
// (security.Locks.Local) is RoleLaunch, as it was before roles; a paired
// device has its role as the store holds it now (a role lowered a moment
// ago counts); anything else (a public route's caller) has none, the zero
// Role, which allows nothing.
func (s *Server) roleOf(r *http.Request) security.Role {
	if s.Locks.Local(r) {
		return security.RoleLaunch
	}
	if dev, ok := s.Locks.Device(r); ok {
		return dev.Role
	}
	return 0
}

// watchRole is roleOf with, for a paired device, a context done when its
// role next changes or it is revoked (nil for this machine, whose role
// never changes).
func (s *Server) watchRole(r *http.Request) (security.Role, context.Context) {
	if s.Locks.Local(r) {
		return security.RoleLaunch, nil
	}
	dev, ok := s.Locks.Device(r)
	if !ok {
		return 0, nil
	}
	now, changed, ok := s.Locks.Devices().Watch(dev.ID)
	if !ok {
		return 0, nil
	}
	return now.Role, changed
}

// requireRole is nil when the request's sender may do what needs need,
// else a 403 naming its role and what that role does not allow. Any
// handler may call it; checkRoles holds every route to routeRoles.
func (s *Server) requireRole(c echo.Context, need security.Role) error {
	if have := s.roleOf(c.Request()); !have.Allows(need) {
		return echo.NewHTTPError(http.StatusForbidden, have.Refusal(need))
	}
	return nil
}
