package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/security"
)

// pairDevice pairs name from a phone behind the user's proxy and returns
// its cookie's value.
func (e *testEnv) pairDevice(t *testing.T, name string) string {
	t.Helper()
	link := e.addDevice(t, name)
	res := e.phoneReq(t, http.MethodPost, link, "", map[string]string{"Origin": "https://phone.example", "Content-Type": "application/x-www-form-urlencoded"}, "")
	for _, c := range res.Cookies() {
		if c.Name == security.DeviceCookie {
			return c.Value
		}
	}
	t.Fatalf("pairing %s: %d, no cookie", name, res.StatusCode)
	return ""
}

// A paired device may revoke itself, never another: a stolen cookie
// cannot lock the owner's phone out (it cannot pair others either). Other
// devices are revoked from this machine. Before, any paired device could
// revoke every other.
func TestADeviceRevokesOnlyItself(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	phone := e.pairDevice(t, "phone")
	tablet := e.pairDevice(t, "tablet")
	laptop := e.pairDevice(t, "laptop")
	phoneID, _, _ := strings.Cut(phone, ".")

	for _, ref := range []string{"tablet", "TABLET"} {
		res := e.phoneReq(t, http.MethodPost, "/agents-notch/devices/revoke", `{"device":"`+ref+`"}`, nil, phone)
		if body := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "only itself") {
			t.Errorf("the phone revoking %s: %d %s, want 403 saying a device revokes only itself", ref, res.StatusCode, body)
		}
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/state", "", nil, tablet); res.StatusCode != 200 {
		t.Fatalf("the tablet after the phone's refused revoke: %d, want 200", res.StatusCode)
	}
	// Itself, by its id: done, and refused from its next request.
	if res := e.phoneReq(t, http.MethodPost, "/agents-notch/devices/revoke", `{"device":"`+phoneID+`"}`, nil, phone); res.StatusCode != 200 {
		t.Errorf("the phone revoking itself: %d %s, want 200", res.StatusCode, readAll(t, res))
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/state", "", nil, phone); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the phone after revoking itself: %d, want 401", res.StatusCode)
	}
	// Itself, by its name.
	if res := e.phoneReq(t, http.MethodPost, "/agents-notch/devices/revoke", `{"device":"laptop"}`, nil, laptop); res.StatusCode != 200 {
		t.Errorf("the laptop revoking itself: %d %s, want 200", res.StatusCode, readAll(t, res))
	}
	// This machine revokes any.
	if st, m := e.do(t, http.MethodPost, "/agents-notch/devices/revoke", `{"device":"tablet"}`, nil); st != 200 {
		t.Errorf("this machine revoking the tablet: %d %v", st, m)
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/state", "", nil, tablet); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the tablet after this machine revoked it: %d, want 401", res.StatusCode)
	}
}
