package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/security"
)

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

// requireRole is nil when the request's sender may do what needs need,
// else a 403 naming its role and what that role does not allow. Any
// handler may call it; the route table (routeRoles) calls it for every
// route.
func (s *Server) requireRole(c echo.Context, need security.Role) error {
	if have := s.roleOf(c.Request()); !have.Allows(need) {
		return echo.NewHTTPError(http.StatusForbidden, have.Refusal(need))
	}
	return nil
}
