package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/security"
)

// deviceRoleRequest is {"device": "NAME|ID", "role": "steer"}.
type deviceRoleRequest struct {
	Device string `json:"device"`
	Role   string `json:"role"`
}

// roleChangedReply answers POST /agents-notch/devices/role: the device as
// it is now, and the role it had.
type roleChangedReply struct {
	OK     bool        `json:"ok"`
	Device deviceReply `json:"device"`
	Was    string      `json:"was"`
}

// parseDeviceRole reads {"device": "NAME or ID", "role": "ROLE"}.
func parseDeviceRole(body []byte) (string, security.Role, error) {
	var req deviceRoleRequest
	if err := decodeStrict(body, &req); err != nil {
		return "", 0, fmt.Errorf(`want {"device": "NAME or ID", "role": "ROLE"}: %v`, err)
	}
	ref := strings.TrimSpace(req.Device)
	if security.CheckDeviceName(ref) != nil {
		return "", 0, errors.New("device must be a paired device's name or id")
	}
	role, err := security.ParseRole(req.Role)
	if err != nil {
		return "", 0, err
	}
	return ref, role, nil
}

// postDeviceRole is the pane's role menu and notch-web devices role NAME
// ROLE. Only this machine may ask, as only it pairs: a device cannot
// raise itself, nor a stolen cookie lower the owner's phone. The change
// is at once: the device's next request is held to the new role, its open
// board streams end and its page's next one is drawn for it, and its push
// actions are checked against it at each press (push.Options.MayAnswer).
// One log record says who, the role it had and the new one.
func (s *Server) postDeviceRole(c echo.Context) error {
	if !s.Locks.Local(c.Request()) {
		return echo.NewHTTPError(http.StatusForbidden, "a device's role is changed from the host itself (its own browser, or notch-web devices role NAME ROLE there)")
	}
	d, err := s.deviceStore()
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	ref, role, err := parseDeviceRole(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	before, after, err := d.SetRole(ref, role)
	switch {
	case errors.Is(err, security.ErrNoDevice):
		return echo.NewHTTPError(http.StatusNotFound, "no paired device of that name or id")
	case errors.Is(err, security.ErrAmbiguous):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case err != nil:
		return fail(http.StatusInternalServerError, "could not keep the role", err)
	}
	s.Log.Info("device role changed", "log_type", logx.TypeSecurity, slog.Group("data",
		"device", after.Name, "id", after.ID, "by", "this machine", "was", before.Role.String(), "role", after.Role.String()))
	return written(c, roleChangedReply{OK: true, Device: replyOf(after), Was: before.Role.String()})
}
