package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/security"
)

// requireRole refuses a paired device whose role is below the need, with
// a 403 that names its role and what it lacks; this machine's loopback is
// full; a role changed in the store counts from the next request.
func TestRequireRole(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	e.srv.echo.GET(prefix+"/test-launch", func(c echo.Context) error {
		if err := e.srv.requireRole(c, security.RoleLaunch); err != nil {
			return err
		}
		return c.String(http.StatusOK, "started")
	})
	phone := e.pairDevice(t, "phone")

	res := e.phoneReq(t, http.MethodGet, "/agents-notch/test-launch", "", nil, phone)
	if body := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "this device's role (answer) does not allow starting sessions") {
		t.Errorf("an answer device: %d %s, want 403 naming its role and what it lacks", res.StatusCode, body)
	}
	if st, _ := e.do(t, http.MethodGet, "/agents-notch/test-launch", "", nil); st != http.StatusOK {
		t.Errorf("this machine's loopback: %d, want 200 (full)", st)
	}
	if _, _, err := e.srv.Locks.Devices().SetRole("phone", security.RoleLaunch); err != nil {
		t.Fatal(err)
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/test-launch", "", nil, phone); res.StatusCode != http.StatusOK {
		t.Errorf("raised to launch: %d, want 200", res.StatusCode)
	}
	if _, _, err := e.srv.Locks.Devices().SetRole("phone", security.RoleSteer); err != nil {
		t.Fatal(err)
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/test-launch", "", nil, phone); res.StatusCode != http.StatusForbidden {
		t.Errorf("lowered to steer: %d, want 403 at once", res.StatusCode)
	}
}
