package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/static"
)

type testEnv struct {
	srv    *Server
	ts     *httptest.Server
	home   string
	base   string
	board  *host.Board
	hub    *Hub
	svc    *settings.Service
	manual string
	host   *host.Host
}

type envOpts struct {
	follow      bool
	finishedURL string
	openURL     string
	patch       string // YAML written to the patch file
	harness     []string
	approvals   host.ApprovalConfig
	run         bool // run the host (its writer, watches, approvals' transcript watch)
	remote      host.Remote
	wrap        func(http.Handler) http.Handler // around the server's handler (a benchmark's probe)
	push        *push.Options                   // run a push engine with these options
	webPush     *push.WebPushOptions            // serve Web Push's routes with this channel (Dir: the home's)
	allowHosts  []string                        // --allow-host
	history     historyStore                    // the History page's store (nil: none)
	store       *store.Store                    // the lasting history itself (Deps.Store), when history is nil
	now         func() time.Time                // the server's clock (nil: time.Now)
	retireAfter time.Duration                   // the board's RetireAfter under retire "timer" (0: the default)
	steerOff    bool                            // --steer off
	log         io.Writer                       // the records, as JSON lines; nil discards
	devicesJSON string                          // devices.json as the host finds it at start ("": none)
}

func newEnv(t testing.TB, o envOpts) *testEnv {
	t.Helper()
	home := t.TempDir()
	patch := filepath.Join(home, "cordis.patch.yml")
	if o.patch != "" {
		if err := os.WriteFile(patch, []byte(o.patch), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.DiscardHandler)
	if o.log != nil {
		log = slog.New(slog.NewJSONHandler(o.log, nil))
	}
	svc := settings.NewService(settings.Options{PatchPaths: []string{patch}, PanePath: filepath.Join(home, "state", "agents-notch", "settings.json"), Log: log})
	if o.devicesJSON != "" {
		os.MkdirAll(filepath.Join(home, "state", "agents-notch"), 0o700)
		if err := os.WriteFile(filepath.Join(home, "state", "agents-notch", "devices.json"), []byte(o.devicesJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	devices, err := security.OpenDevices(filepath.Join(home, "state", "agents-notch", "devices.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	locks := security.New(security.Config{HarnessOrigins: o.harness, AllowHosts: o.allowHosts, Devices: devices, Log: log})
	manual := filepath.Join(home, "state", "session-finished", "manual.json")
	hcfg := host.Config{Board: host.BoardConfig{HostPid: 42, RetireAfter: o.retireAfter}, StatePath: filepath.Join(home, "state", "agents-notch", "state.json"), ManualPath: manual, Log: log,
		Approvals: o.approvals, Remote: o.remote, SteerOff: o.steerOff}
	if o.follow {
		hcfg.Follow = filepath.Join(home, "followed", "state.json")
	}
	if o.finishedURL != "" {
		hcfg.Board.FinishedURL = &o.finishedURL
	}
	if o.openURL != "" {
		hcfg.Board.OpenURL = &o.openURL
	}
	h := host.New(hcfg, svc)
	hub := NewHub(h, svc, log, 0)
	var webPush *push.WebPush
	if o.webPush != nil {
		wo := *o.webPush
		wo.Dir = filepath.Join(home, "state", "agents-notch")
		webPush = push.NewWebPush(wo)
		if _, err := webPush.PublicKey(); err != nil { // made at start, as run does
			t.Fatal(err)
		}
	}
	var pusher *push.Engine
	if o.push != nil {
		po := *o.push
		po.MayAnswer = devices.MayAnswer
		if webPush != nil {
			po.WebPush = webPush
		}
		pusher = push.New(h, po)
	}
	srv := New(Deps{Settings: svc, Host: h, Hub: hub, Locks: locks, Log: log, Static: static.FS, ManualPath: manual, OpenDoor: o.openURL, Push: pusher, Store: o.store})
	srv.WebPush = webPush
	srv.Loc = time.UTC
	if o.store == nil {
		srv.history = o.history
	}
	if o.now != nil {
		srv.Now = o.now
	}
	handler := srv.Handler()
	if o.wrap != nil {
		handler = o.wrap(handler)
	}
	ts := httptest.NewUnstartedServer(handler)
	ts.Config.ConnContext = ConnContext
	ts.Start()
	t.Cleanup(func() { hub.Close(); ts.Close() })
	if o.run {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { h.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		if pusher != nil {
			pdone := make(chan struct{})
			go func() { pusher.Run(ctx); close(pdone) }()
			t.Cleanup(func() { cancel(); <-pdone })
		}
	}
	u, _ := url.Parse(ts.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	p, _ := strconv.Atoi(port)
	locks.SetPort(p)
	return &testEnv{srv: srv, ts: ts, home: home, base: ts.URL, board: h.Board(), hub: hub, svc: svc, manual: manual, host: h}
}

func (e *testEnv) do(t testing.TB, method, path, body string, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, e.base+path, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return res.StatusCode, m
}

func (e *testEnv) paneFile(t testing.TB) string {
	data, err := os.ReadFile(filepath.Join(e.home, "state", "agents-notch", "settings.json"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSettingsRoutes(t *testing.T) {
	e := newEnv(t, envOpts{patch: "- id: agents-notch\n  config:\n    maxRows: 8\n    scale: nonsense\n"})
	tests := []struct {
		name       string
		method     string
		body       string
		hdr        map[string]string
		wantStatus int
		wantFile   string // "" = file must not exist; "-" = don't check
		wantError  string
	}{
		{"get", "GET", "", nil, 200, "", ""},
		{"unknown key refused by name", "POST", `{"scale":1.2,"sclae":1}`, nil, 400, "", "sclae"},
		{"bad value refused with reason", "POST", `{"anchor":"middle"}`, nil, 400, "", "anchor"},
		{"empty body", "POST", ``, nil, 400, "", "empty"},
		{"not json", "POST", `scale=2`, nil, 400, "", "not a JSON object"},
		{"text/plain is 415", "POST", `{"scale":1.2}`, map[string]string{"Content-Type": "text/plain"}, 415, "", ""},
		{"no content-type is 415", "POST", `{"scale":1.2}`, map[string]string{"Content-Type": ""}, 415, "", ""},
		{"foreign origin 403", "POST", `{"scale":1.2}`, map[string]string{"Origin": "http://127.0.0.2:9999"}, 403, "", ""},
		{"null origin 403", "POST", `{"scale":1.2}`, map[string]string{"Origin": "null"}, 403, "", ""},
		{"same-site 403", "POST", `{"scale":1.2}`, map[string]string{"Sec-Fetch-Site": "same-site"}, 403, "", ""},
		{"cross-site 403", "POST", `{"scale":1.2}`, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "", ""},
		{"rebound host 403", "GET", ``, map[string]string{"Host": "attacker.example"}, 403, "", ""},
		{"too large 413", "POST", `{"screen":"` + strings.Repeat("1", settingsBodyLimit) + `"}`, nil, 413, "", ""},
		{"stored clamped", "POST", `{"scale":9}`, nil, 200, "{\n  \"scale\": 2\n}\n", ""},
		{"datastar gets 204", "POST", `{"opacity":0.1}`, map[string]string{"Datastar-Request": "true"}, 204, "{\n  \"opacity\": 0.35,\n  \"scale\": 2\n}\n", ""},
		{"null clears one key", "POST", `{"scale":null}`, nil, 200, "{\n  \"opacity\": 0.35\n}\n", ""},
		{"reset clears the layer", "POST", `{"reset":true}`, nil, 200, "{}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.paneFile(t)
			status, body := e.do(t, tt.method, "/agents-notch/settings", tt.body, tt.hdr)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d (%v)", status, tt.wantStatus, body)
			}
			if status >= 400 {
				if body["ok"] != false {
					t.Errorf("error reply %v lacks ok:false", body)
				}
				if !strings.Contains(strings.ToLower(body["error"].(string)), strings.ToLower(tt.wantError)) {
					t.Errorf("error %q should mention %q", body["error"], tt.wantError)
				}
				if after := e.paneFile(t); after != before {
					t.Errorf("a refused request changed settings.json: %q → %q", before, after)
				}
				return
			}
			if tt.method == "POST" && e.paneFile(t) != tt.wantFile {
				t.Errorf("settings.json = %q, want %q", e.paneFile(t), tt.wantFile)
			}
		})
	}
	// The row's maxRows shows as "row"; its unparseable scale is a warning and
	// falls back to the default.
	_, body := e.do(t, "GET", "/agents-notch/settings", "", nil)
	src := body["source"].(map[string]any)
	if src["maxRows"] != "row" || src["scale"] != "default" {
		t.Errorf("source = %v", src)
	}
	if w, _ := json.Marshal(body["warnings"]); !strings.Contains(string(w), "scale") {
		t.Errorf("warnings %s should report the row's bad scale", w)
	}
	for _, k := range []string{"ok", "settings", "row", "stored", "defaults", "source", "warnings"} {
		if _, ok := body[k]; !ok {
			t.Errorf("GET reply lacks %q", k)
		}
	}
}

func TestEventsAndState(t *testing.T) {
	e := newEnv(t, envOpts{})
	status, body := e.do(t, "POST", "/agents-notch/events",
		`{"type":"session.opened","session":"a","cwd":"/src/argon"}`+"\n"+`{"type":"turn.started","session":"a"}`+"\n", nil)
	if status != 200 || body["applied"] != float64(2) {
		t.Fatalf("events: %d %v", status, body)
	}
	// A bad line refuses the whole batch, names the line, applies nothing.
	status, body = e.do(t, "POST", "/agents-notch/events",
		`{"type":"session.opened","session":"b"}`+"\n"+`{"type":"tool.started","session":"b"}`, nil)
	if status != 400 || body["line"] != float64(2) {
		t.Fatalf("bad batch: %d %v", status, body)
	}
	status, body = e.do(t, "POST", "/agents-notch/events", `{"type":"turn.started","session":"never-opened"}`, nil)
	if status != 400 {
		t.Fatalf("unknown session: %d %v", status, body)
	}
	status, body = e.do(t, "GET", "/agents-notch/state", "", nil)
	if status != 200 || body["schema"] != float64(4) {
		t.Fatalf("state: %d %v", status, body)
	}
	sessions := body["sessions"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["id"] != "a" {
		t.Fatalf("sessions = %v (the refused batch must not have applied)", sessions)
	}
	// Writes to /events carry the same locks.
	if status, _ := e.do(t, "POST", "/agents-notch/events", `{"type":"turn.started","session":"a"}`, map[string]string{"Origin": "http://localhost:1"}); status != 403 {
		t.Errorf("foreign origin on /events: %d", status)
	}
}

func TestFollowModeRefusesEvents(t *testing.T) {
	e := newEnv(t, envOpts{follow: true})
	if status, _ := e.do(t, "GET", "/agents-notch/state", "", nil); status != 503 {
		t.Errorf("state before any followed document: %d, want 503", status)
	}
	if status, _ := e.do(t, "POST", "/agents-notch/events", `{"type":"session.opened","session":"a"}`, nil); status != 409 {
		t.Errorf("events in follow mode: %d, want 409", status)
	}
}

func TestFinishMergesManualMarks(t *testing.T) {
	e := newEnv(t, envOpts{})
	if err := os.MkdirAll(filepath.Dir(e.manual), 0o755); err != nil {
		t.Fatal(err)
	}
	recent := strconv.FormatInt(time.Now().Add(-time.Hour).UnixMilli(), 10)
	os.WriteFile(e.manual, []byte(`{"other":{"state":"finished","at":`+recent+`,"by":"window"}}`), 0o644)
	e.do(t, "POST", "/agents-notch/events", `{"type":"session.opened","session":"a"}`, nil)
	status, body := e.do(t, "POST", "/agents-notch/finish", `{"sessionId":"a"}`, nil)
	if status != 200 {
		t.Fatalf("finish: %d %v", status, body)
	}
	marks, err := state.ReadMarks(e.manual)
	if err != nil || marks["a"].State != "finished" || marks["other"].State != "finished" {
		t.Fatalf("manual.json marks = %v, %v", marks, err)
	}
	raw, _ := os.ReadFile(e.manual)
	if !strings.Contains(string(raw), `"by"`) {
		t.Errorf("merging clobbered another mark's fields: %s", raw)
	}
	if doc, _ := e.board.Snapshot(time.Now()); len(doc.Sessions) != 0 {
		t.Errorf("the finished row did not retire: %+v", doc.Sessions)
	}
	for _, bad := range []string{`{}`, `{"sessionId":""}`, `{"sessionId":1}`, `{"sessionId":"a","x":1}`} {
		if status, _ := e.do(t, "POST", "/agents-notch/finish", bad, nil); status != 400 {
			t.Errorf("finish %s: %d, want 400", bad, status)
		}
	}
	// The ✕ is on board rows only: an id the board does not hold leaves no
	// mark, so /finish cannot be used to grow manual.json.
	before, _ := os.ReadFile(e.manual)
	if status, _ := e.do(t, "POST", "/agents-notch/finish", `{"sessionId":"never-seen"}`, nil); status != 404 {
		t.Errorf("finish of an unknown session: %d, want 404", status)
	}
	if after, _ := os.ReadFile(e.manual); string(after) != string(before) {
		t.Error("finish of an unknown session changed manual.json")
	}
}

func TestFinishAndOpenForwardToHarness(t *testing.T) {
	got := make(chan string, 4)
	harness := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.URL.Path + " " + r.Header.Get("Content-Type") + " " + string(b)
		if r.URL.Path == "/fail" {
			w.WriteHeader(500)
		}
	}))
	defer harness.Close()
	e := newEnv(t, envOpts{finishedURL: harness.URL + "/session-finished/api/status", openURL: harness.URL + "/open"})
	e.do(t, "POST", "/agents-notch/events", `{"type":"session.opened","session":"s9"}`, nil)
	if status, body := e.do(t, "POST", "/agents-notch/finish", `{"sessionId":"s9"}`, nil); status != 200 {
		t.Fatalf("finish: %d %v", status, body)
	}
	if g := <-got; g != `/session-finished/api/status application/json {"sessionId":"s9","state":"finished"}` {
		t.Errorf("harness got %q", g)
	}
	if _, err := os.Stat(e.manual); !os.IsNotExist(err) {
		t.Errorf("with a finishedUrl, manual.json must not be written (%v)", err)
	}
	if status, _ := e.do(t, "POST", "/agents-notch/open", `{"sessionId":"s9"}`, map[string]string{"Datastar-Request": "true"}); status != 204 {
		t.Errorf("open: %d", status)
	}
	if g := <-got; g != `/open application/json {"sessionId":"s9"}` {
		t.Errorf("harness got %q", g)
	}
	doc, _ := e.board.Snapshot(time.Now())
	if doc.OpenURL == nil || doc.FinishedURL == nil {
		t.Errorf("state.json should carry both URLs: %v %v", doc.OpenURL, doc.FinishedURL)
	}
}

func TestOpenWithoutDoor(t *testing.T) {
	e := newEnv(t, envOpts{})
	if status, _ := e.do(t, "POST", "/agents-notch/open", `{"sessionId":"s"}`, nil); status != 404 {
		t.Errorf("open without --open-url: %d, want 404", status)
	}
	if doc, _ := e.board.Snapshot(time.Now()); doc.OpenURL != nil {
		t.Errorf("openUrl should be null without a door")
	}
}

func TestPagesCarryCSP(t *testing.T) {
	e := newEnv(t, envOpts{harness: []string{"http://127.0.0.1:5173"}})
	for _, p := range []string{"/agents-notch/", "/agents-notch/pane"} {
		res, err := http.Get(e.base + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != 200 || !strings.Contains(csp, "frame-ancestors 'self' http://127.0.0.1:5173") {
			t.Errorf("%s: %d CSP %q", p, res.StatusCode, csp)
		}
	}
	res, err := http.Get(e.base + "/agents-notch/static/vendor/datastar.js")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("the Datastar client is not served: %d (run make datastar)", res.StatusCode)
	}
}

// A time with a five-digit year is refused at the door (an event, a
// statusline report), never taken and then drawn blank.
func TestFiveDigitYearIsRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	status, body := e.do(t, "POST", "/agents-notch/events", `{"type":"session.opened","session":"y","cwd":"/src/y","at":253402300800000}`, nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body["error"]), "five-digit year") {
		t.Errorf("an event in the year 10000: %d %v, want 400", status, body)
	}
	if status, body := e.do(t, "POST", "/agents-notch/events", `{"type":"session.opened","session":"y","cwd":"/src/y","at":253402300799999}`, nil); status != 200 {
		t.Fatalf("an event in the year 9999: %d %v", status, body)
	}
	if st, _ := e.do(t, "POST", "/agents-notch/statusline", `{"session":"y","fiveHour":{"usedPct":5,"resetsAt":1099511627776}}`, nil); st != 400 {
		t.Errorf("a statusline reset in the year 36812: %d, want 400", st)
	}
}
