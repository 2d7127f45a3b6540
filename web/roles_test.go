package web

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/pushtest"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/security"
)

// requireRole refuses a paired device whose role is below the need, with
// a 403 that names its role and what it lacks; this machine's loopback is
// full; a role changed in the store counts from the next request.
func TestRequireRole(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	// The route's rule lets every device in; the handler asks for more.
	routeRoles["GET "+prefix+"/test-launch"] = security.RoleView
	t.Cleanup(func() { delete(routeRoles, "GET "+prefix+"/test-launch") })
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

// concrete is a route's pattern as a URL a request can name.
func concrete(path string) string {
	r := strings.NewReplacer(":agent", "claude-code", ":code", "nocode", "*", "app.css")
	return r.Replace(path)
}

// pairWithRole pairs name and gives it role; it returns its cookie.
func (e *testEnv) pairWithRole(t *testing.T, name string, role security.Role) string {
	t.Helper()
	cookie := e.pairDevice(t, name)
	if _, _, err := e.srv.Locks.Devices().SetRole(name, role); err != nil {
		t.Fatal(err)
	}
	return cookie
}

// TestRouteRoles is the table route × role → allowed, over every route
// routes() registers: each has a rule in routeRoles (a new route without
// one fails here), no rule names a route that is gone, and a paired device
// of each role is refused (403 naming its role) exactly where its role is
// below the rule. A request allowed by its role may still be refused by
// the handler (a bad body, a loopback-only action): only the role's
// refusal is asserted.
func TestRouteRoles(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	seen := map[string]bool{}
	var routes []*echo.Route
	for _, r := range e.srv.echo.Routes() {
		key := r.Method + " " + r.Path
		if seen[key] || r.Method == echo.RouteNotFound {
			continue
		}
		seen[key] = true
		if _, ok := routeRoles[key]; !ok {
			t.Errorf("route %s has no role rule: add it to routeRoles (web/roles.go) and to docs/security.md's roles table", key)
			continue
		}
		routes = append(routes, r)
	}
	for key := range routeRoles {
		if !seen[key] {
			t.Errorf("routeRoles names %s, which routes() does not register", key)
		}
	}
	publicSet := map[string]bool{}
	for _, p := range publicRoutes {
		publicSet[p] = true
	}
	for key, need := range routeRoles {
		method, path, _ := strings.Cut(key, " ")
		isPublic := publicSet[path] || publicSet[key]
		if (need == public) != isPublic && !(method == http.MethodGet && publicSet[path]) {
			t.Errorf("%s: rule public=%v but publicRoutes says %v", key, need == public, isPublic)
		}
	}

	cookies := map[security.Role]string{}
	for _, role := range security.Roles {
		cookies[role] = e.pairWithRole(t, "dev-"+role.String(), role)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, r := range routes {
		need := routeRoles[r.Method+" "+r.Path]
		for _, role := range security.Roles {
			t.Run(r.Method+" "+r.Path+" as "+role.String(), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel() // ends an allowed stream once its headers came
				req, _ := http.NewRequestWithContext(ctx, r.Method, e.base+concrete(r.Path), strings.NewReader("{}"))
				req.Host = "phone.example"
				req.Header.Set("X-Forwarded-Proto", "https")
				req.Header.Set("Content-Type", "application/json")
				req.AddCookie(&http.Cookie{Name: security.DeviceCookie, Value: cookies[role]})
				res, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				refusedForRole := false
				if res.StatusCode == http.StatusForbidden {
					body, _ := io.ReadAll(res.Body)
					refusedForRole = strings.Contains(string(body), "this device's role ("+role.String()+") does not allow") ||
						need == thisMachine && strings.Contains(string(body), "from the host itself")
				}
				want := need != public && (need == thisMachine || !role.Allows(need))
				if refusedForRole != want {
					t.Errorf("%s %s as %s: %d, refused for its role %v, want %v (rule %v)", r.Method, r.Path, role, res.StatusCode, refusedForRole, want, need)
				}
			})
		}
	}
}

// An open board stream of a device is drawn for its role: its first frame
// marks the role (templates.ViewerRole); lowering the role ends the
// stream at once (the page's next stream starts with the new mark), and
// the device's next request is held to the new role. Before, a stream
// outlived any change but a revocation.
func TestLoweredRoleEndsTheStream(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	phone := e.pairWithRole(t, "phone", security.RoleSteer)
	open := func() (*bufio.Reader, func()) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a bound for a broken build, not a wait
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.base+"/agents-notch/stream?page=board", nil)
		req.Host = "phone.example"
		req.Header.Set("X-Forwarded-Proto", "https")
		req.AddCookie(&http.Cookie{Name: security.DeviceCookie, Value: phone})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream: %d", res.StatusCode)
		}
		return bufio.NewReader(res.Body), func() { cancel(); res.Body.Close() }
	}
	markOf := func(r *bufio.Reader) string {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("the stream ended before the role's mark: %v", err)
			}
			if i := strings.Index(line, `id="viewer-role" data-role="`); i >= 0 {
				rest := line[i+len(`id="viewer-role" data-role="`):]
				return rest[:strings.IndexByte(rest, '"')]
			}
		}
	}
	r, stop := open()
	defer stop()
	if got := markOf(r); got != "steer" {
		t.Fatalf("the first frame marks %q, want steer", got)
	}
	if _, _, err := e.srv.Locks.Devices().SetRole("phone", security.RoleView); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatalf("the stream after the role was lowered: %v, want its end", err)
	}
	r2, stop2 := open()
	defer stop2()
	if got := markOf(r2); got != "view" {
		t.Errorf("the next stream marks %q, want view", got)
	}
	reply := e.phoneReq(t, http.MethodPost, "/agents-notch/reply", `{"sessionId":"x","text":"hi"}`, map[string]string{"Origin": "https://phone.example"}, phone)
	if body := readAll(t, reply); reply.StatusCode != http.StatusForbidden || !strings.Contains(body, "role (view) does not allow Reply and Stop") {
		t.Errorf("a Reply after the role was lowered: %d %s", reply.StatusCode, body)
	}
	// This machine's own board is full.
	res, err := http.Get(e.base + "/agents-notch/")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, res); !strings.Contains(body, `id="viewer-role" data-role="launch"`) {
		t.Error("this machine's board page is not marked launch")
	}
}

// A push's button minted for a device is refused once the device's role is
// lowered below answer (the push was sent while it could), and nothing is
// spent: raised again, the same button answers.
func TestPushButtonFollowsTheRole(t *testing.T) {
	ps := pushtest.NewService(t)
	e := newEnv(t, envOpts{run: true, allowHosts: []string{"phone.example"},
		webPush: &push.WebPushOptions{Client: ps.Server.Client()},
		push: &push.Options{Config: push.Config{Delay: 100 * time.Millisecond},
			BoardURL: "https://phone.example/agents-notch/", ActURL: "https://phone.example/agents-notch/act"},
	})
	devs := e.srv.Locks.Devices()
	p, err := devs.NewPairing("phone")
	if err != nil {
		t.Fatal(err)
	}
	_, cookie, err := devs.Redeem(p.Code)
	if err != nil {
		t.Fatal(err)
	}
	from := map[string]string{"Host": "phone.example", "Cookie": "notch_device=" + cookie}
	b, endpoint := ps.Browser("phone")
	if code, body := e.do(t, http.MethodPost, "/agents-notch/push/subscribe", string(b.SubscriptionJSON(endpoint)), from); code != 200 {
		t.Fatalf("the paired phone subscribing: %d %v", code, body)
	}
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	got := ps.Wait("the needs-you push", func(r []pushtest.Received) bool { return len(r) >= 1 })
	var m swShow
	json.Unmarshal(got[0].Payload, &m)
	if len(m.Actions) != 2 {
		t.Fatalf("the push: %s", got[0].Payload)
	}
	deny := `{"cap":"` + m.Actions[1].Cap + `"}`

	if _, _, err := devs.SetRole("phone", security.RoleView); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(t, http.MethodPost, "/agents-notch/act", deny, from); code != 403 || !strings.Contains(fmt.Sprint(body), "role") {
		t.Errorf("the lowered phone's Deny: %d %v, want 403 for its role", code, body)
	}
	if code, _ := e.do(t, http.MethodPost, "/agents-notch/act", deny, nil); code != 403 {
		t.Errorf("the lowered phone's Deny from this machine: %d, want 403 (the capability is the phone's)", code)
	}
	if _, _, err := devs.SetRole("phone", security.RoleAnswer); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(t, http.MethodPost, "/agents-notch/act", deny, from); code != 200 {
		t.Fatalf("raised again, the phone's Deny: %d %v", code, body)
	}
	if r := <-reply; !strings.Contains(r[1], `"behavior":"deny"`) {
		t.Fatalf("the held hook got %v", r)
	}
}

// The global switches stay ceilings: a launch device is refused a Reply
// under --steer off and an answer under --approvals off, as this machine
// is.
func TestSwitchesAreCeilings(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}, approvals: host.ApprovalConfig{Off: true}, steerOff: true})
	phone := e.pairWithRole(t, "phone", security.RoleLaunch)
	for _, tc := range []struct{ path, body, want string }{
		{"/agents-notch/reply", `{"sessionId":"s","text":"hi"}`, "--steer off"},
		{"/agents-notch/stop", `{"sessionId":"s"}`, "--steer off"},
		{"/agents-notch/approve", `{"sessionId":"s","call":"c","nonce":"n","decision":"allow"}`, "--approvals off"},
	} {
		res := e.phoneReq(t, http.MethodPost, tc.path, tc.body, map[string]string{"Origin": "https://phone.example"}, phone)
		if body := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, tc.want) {
			t.Errorf("a launch device's POST %s: %d %s, want 403 saying %s", tc.path, res.StatusCode, body, tc.want)
		}
	}
}

// A role in devices.json this build does not know (a hand edit) is never
// read as another: the device is refused on every route but the public
// ones, with one WARNING record naming it, until this machine sets a role.
func TestUnknownRoleIsRefused(t *testing.T) {
	var logs syncbuf.Buffer
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}, log: &logs,
		devicesJSON: `{"version":1,"devices":[{"id":"00000000000000aa","name":"edited","created":"2026-12-03T10:00:00Z","role":"admin","tokenSha256":"` + sha256hex("secret") + `"}]}`})
	cookie := "00000000000000aa.secret"
	res := e.phoneReq(t, http.MethodGet, "/agents-notch/state", "", nil, cookie)
	if body := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "role is not known here") {
		t.Errorf("a device of an unknown role: %d %s, want 403", res.StatusCode, body)
	}
	if !strings.Contains(logs.String(), `"level":"WARN"`) || !strings.Contains(logs.String(), "edited") || !strings.Contains(logs.String(), "not one this build knows") {
		t.Errorf("the records: %s\nwant a WARNING naming the device", logs.String())
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/static/notch.css", "", nil, cookie); res.StatusCode != http.StatusOK {
		t.Errorf("a public route: %d, want 200", res.StatusCode)
	}
	if st, m := e.do(t, http.MethodPost, "/agents-notch/devices/role", `{"device":"edited","role":"view"}`, nil); st != 200 || m["was"] != "unknown" {
		t.Fatalf("this machine setting its role: %d %v", st, m)
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/state", "", nil, cookie); res.StatusCode != http.StatusOK {
		t.Errorf("set to view: %d, want 200", res.StatusCode)
	}
	if !strings.Contains(logs.String(), `"was":"unknown"`) || !strings.Contains(logs.String(), "device role changed") {
		t.Errorf("no record of the role's change: %s", logs.String())
	}
}

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
