package security

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
)

const (
	port    = 4321
	self    = "localhost:4321"
	harness = "http://127.0.0.1:7700"
	limit   = 1024
)

// server wires the locks the way web/routes.go does: Host and CORS on every
// route, Write on the state-changing ones, PageHeaders on pages.
type server struct {
	e     *echo.Echo
	locks *Locks
	log   *bytes.Buffer

	mu      sync.Mutex
	calls   int   // times the write handler ran
	readErr error // what reading the body returned there
}

func newServer(t *testing.T, cfg Config) *server {
	t.Helper()
	s := &server{e: echo.New(), log: &bytes.Buffer{}}
	cfg.Log = slog.New(slog.NewJSONHandler(s.log, nil))
	s.locks = New(cfg)
	s.locks.SetPort(port)
	s.e.Use(s.locks.Host(), s.locks.CORS())
	s.e.GET("/agents-notch/", func(c echo.Context) error { return c.HTML(200, "<p>board</p>") }, s.locks.PageHeaders())
	s.e.GET("/agents-notch/stream", func(c echo.Context) error { return c.String(200, "data: hi\n\n") })
	s.e.POST("/agents-notch/settings", func(c echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		s.mu.Lock()
		s.calls++
		s.readErr = err
		s.mu.Unlock()
		if err != nil {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "body too large")
		}
		return c.JSON(200, map[string]int{"read": len(body)})
	}, s.locks.Write(limit))
	return s
}

func defaultConfig() Config {
	return Config{
		AllowHosts:     []string{"notch.tailnet.ts.net", "Box.lan:8080"},
		HarnessOrigins: []string{harness, "https://harness.example/"},
	}
}

// req builds a request; headers is pairs of name, value ("" value skipped).
func req(method, host, body string, headers ...string) *http.Request {
	path := "/agents-notch/settings"
	if method == http.MethodGet {
		path = "/agents-notch/"
	}
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
	return r
}

func (s *server) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.e.ServeHTTP(w, r)
	return w
}

func (s *server) handlerCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func TestHostAllowlist(t *testing.T) {
	cases := []struct {
		host string
		want int
	}{
		{"localhost:4321", 200},
		{"LOCALHOST:4321", 200},
		{"127.0.0.1:4321", 200},
		{"127.0.0.2:4321", 200}, // all of 127/8 is loopback
		{"127.255.255.254:4321", 200},
		{"[::1]:4321", 200},
		{"[::ffff:127.0.0.1]:4321", 200},
		{"notch.tailnet.ts.net", 200},      // a configured name, any port
		{"notch.tailnet.ts.net:4321", 200}, // …
		{"notch.tailnet.ts.net:9999", 200}, // …
		{"NOTCH.Tailnet.ts.net:4321", 200}, // names are case-insensitive
		{"box.lan:8080", 200},              // a configured name:port, exactly
		{"box.lan:8081", 403},
		{"box.lan", 403},
		{"box.lan:4321", 403},

		{"localhost:4322", 403}, // another port: another service
		{"127.0.0.1:80", 403},
		{"[::1]:4322", 403},
		{"localhost", 403}, // no port means port 80
		{"127.0.0.1", 403},
		{"[::1]", 403},
		{"localhost:", 403},
		{"localhost:04321x", 403},
		{"", 403},

		// DNS rebinding: a foreign name that resolves to 127.0.0.1.
		{"attacker.example", 403},
		{"attacker.example:4321", 403},
		{"localhost.attacker.example:4321", 403},
		{"127.0.0.1.nip.io:4321", 403},
		{"evil.notch.tailnet.ts.net:4321", 403},
		{"notch.tailnet.ts.net.evil.example", 403},
		{"0.0.0.0:4321", 403},
		{"192.168.1.20:4321", 403},
		{"[::]:4321", 403},
		{"localhost.:4321", 403},
	}
	s := newServer(t, defaultConfig())
	for _, c := range cases {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			r := req(method, c.host, `{}`, "Content-Type", "application/json")
			if got := s.do(r).Code; got != c.want {
				t.Errorf("%s Host %q: %d, want %d", method, c.host, got, c.want)
			}
		}
		// The stream is guarded too: a rebound page's EventSource carries no Origin.
		r := httptest.NewRequest(http.MethodGet, "/agents-notch/stream", nil)
		r.Host = c.host
		if got := s.do(r).Code; got != c.want {
			t.Errorf("GET stream Host %q: %d, want %d", c.host, got, c.want)
		}
	}
}

// Until the port is known, no loopback Host passes except a configured name.
func TestHostPortMustMatchServedPort(t *testing.T) {
	l := New(Config{})
	l.SetPort(8080)
	if !l.AllowedHost("localhost:8080") || l.AllowedHost("localhost:4321") {
		t.Error("port 8080 not honoured")
	}
	l.SetPort(4321)
	if l.AllowedHost("localhost:8080") || !l.AllowedHost("localhost:4321") {
		t.Error("SetPort did not move the allowlist to 4321")
	}
}

func TestOriginAndSecFetchSite(t *testing.T) {
	cases := []struct {
		name   string
		origin string
		site   string
		want   int
	}{
		{"neither header (curl, a script)", "", "", 200},
		{"same origin", "http://localhost:4321", "", 200},
		{"same origin, https", "https://localhost:4321", "", 200},
		{"same origin and same-origin", "http://localhost:4321", "same-origin", 200},
		{"sec-fetch-site none (typed, bookmarked)", "", "none", 200},
		{"sec-fetch-site same-origin alone", "", "same-origin", 200},

		{"another port on localhost", "http://localhost:4322", "", 403},
		{"another loopback name", "http://127.0.0.1:4321", "", 403},
		{"another site", "https://attacker.example", "", 403},
		{"origin null (sandboxed iframe, file:)", "null", "", 403},
		{"origin with a path", "http://localhost:4321/", "", 403},
		{"origin with userinfo", "http://x@localhost:4321", "", 403},
		{"origin scheme-less", "localhost:4321", "", 403},
		{"same origin but cross-site", "http://localhost:4321", "cross-site", 403},
		{"same-site without origin", "", "same-site", 403},
		{"cross-site without origin", "", "cross-site", 403},
		{"an unknown sec-fetch-site", "", "cross-origin", 403},
		{"sec-fetch-site in capitals", "", "Same-Origin", 403},

		{"harness origin", harness, "", 200},
		{"harness origin, same-site (another port)", harness, "same-site", 200},
		// The seed refuses any cross-site relationship, a harness's too: a
		// harness page is on this host's site (another port), or it is not
		// the harness's own page.
		{"harness origin, cross-site", harness, "cross-site", 403},
		{"harness origin configured with a slash", "https://harness.example", "same-site", 200},
		{"harness origin configured with a slash, cross-site", "https://harness.example", "cross-site", 403},
		{"harness origin, unknown sec-fetch-site", harness, "weird", 403},
		{"harness host on another port", "http://127.0.0.1:7701", "same-site", 403},
		{"harness origin with a slash", harness + "/", "", 403},
	}
	s := newServer(t, defaultConfig())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.handlerCalls()
			r := req(http.MethodPost, self, `{"scale":1}`, "Content-Type", "application/json", "Origin", c.origin, "Sec-Fetch-Site", c.site)
			w := s.do(r)
			if w.Code != c.want {
				t.Fatalf("%d, want %d (%s)", w.Code, c.want, w.Body)
			}
			if ran := s.handlerCalls() > before; ran != (c.want == 200) {
				t.Errorf("handler ran: %v", ran)
			}
		})
	}
}

func TestContentType(t *testing.T) {
	cases := []struct {
		ct   string
		want int
	}{
		{"application/json", 200},
		{"application/json; charset=utf-8", 200},
		{"application/json;charset=UTF-8", 200},
		{"Application/JSON", 200}, // media types are case-insensitive
		{"APPLICATION/JSON; CHARSET=UTF-8", 200},
		{"application/json ", 200},

		{"", 415},
		{"text/plain", 415}, // the "simple request" a browser sends without preflight
		{"text/plain;charset=UTF-8", 415},
		{"application/jsonx", 415},
		{"application/json-patch+json", 415},
		{"application/merge-patch+json", 415},
		{"application/x-json", 415},
		{"application/json/x", 415},
		{"application/json, text/plain", 415},
		{"text/json", 415},
		{"multipart/form-data; boundary=xyz", 415},
		{"application/x-www-form-urlencoded", 415},
		{"application", 415},
		{"json", 415},
	}
	s := newServer(t, defaultConfig())
	for _, c := range cases {
		before := s.handlerCalls()
		r := req(http.MethodPost, self, `{"scale":1}`, "Content-Type", c.ct)
		w := s.do(r)
		if w.Code != c.want {
			t.Errorf("Content-Type %q: %d, want %d", c.ct, w.Code, c.want)
		}
		if ran := s.handlerCalls() > before; ran != (c.want == 200) {
			t.Errorf("Content-Type %q: handler ran %v", c.ct, ran)
		}
	}
	// A missing header is refused even when the body is valid JSON.
	r := req(http.MethodPost, self, `{"scale":1}`)
	r.Header.Del("Content-Type")
	if got := s.do(r).Code; got != 415 {
		t.Errorf("no Content-Type: %d, want 415", got)
	}
}

// readTracker records whether anything read the body.
type readTracker struct {
	io.Reader
	mu   sync.Mutex
	read int
}

func (r *readTracker) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	r.mu.Lock()
	r.read += n
	r.mu.Unlock()
	return n, err
}

func (r *readTracker) Close() error { return nil }

func TestBodyLimit(t *testing.T) {
	s := newServer(t, defaultConfig())
	post := func(body string, contentLength int64) (*httptest.ResponseRecorder, *readTracker) {
		rt := &readTracker{Reader: strings.NewReader(body)}
		r := req(http.MethodPost, self, "", "Content-Type", "application/json")
		r.Body = rt
		r.ContentLength = contentLength
		if contentLength < 0 {
			r.TransferEncoding = []string{"chunked"}
		}
		return s.do(r), rt
	}

	t.Run("content-length at the limit", func(t *testing.T) {
		w, rt := post(strings.Repeat(" ", limit), limit)
		if w.Code != 200 || rt.read != limit {
			t.Errorf("%d after reading %d bytes, want 200 after %d", w.Code, rt.read, limit)
		}
	})
	t.Run("content-length over the limit: 413 before reading", func(t *testing.T) {
		before := s.handlerCalls()
		w, rt := post(strings.Repeat(" ", limit+1), limit+1)
		if w.Code != 413 {
			t.Errorf("%d, want 413", w.Code)
		}
		if rt.read != 0 || s.handlerCalls() != before {
			t.Errorf("the body was read (%d bytes) or the handler ran", rt.read)
		}
	})
	t.Run("chunked over the limit: the handler's read fails", func(t *testing.T) {
		w, rt := post(strings.Repeat(" ", 10*limit), -1)
		var mbe *http.MaxBytesError
		s.mu.Lock()
		err := s.readErr
		s.mu.Unlock()
		if !errors.As(err, &mbe) || mbe.Limit != limit {
			t.Errorf("read error = %v, want *http.MaxBytesError with limit %d", err, limit)
		}
		if rt.read > limit+4096 {
			t.Errorf("read %d bytes of a body bounded to %d", rt.read, limit)
		}
		if w.Code != 413 {
			t.Errorf("%d, want 413", w.Code)
		}
	})
	t.Run("chunked within the limit", func(t *testing.T) {
		w, _ := post(`{"scale":1}`, -1)
		if w.Code != 200 {
			t.Errorf("%d, want 200", w.Code)
		}
	})
	t.Run("a content-length that understates the body", func(t *testing.T) {
		_, _ = post(strings.Repeat(" ", 10*limit), 10)
		s.mu.Lock()
		err := s.readErr
		s.mu.Unlock()
		var mbe *http.MaxBytesError
		if !errors.As(err, &mbe) {
			t.Errorf("read error = %v, want *http.MaxBytesError", err)
		}
	})
}

// Through a real listener: a chunked body over the limit is cut off.
func TestBodyLimitOverTheWire(t *testing.T) {
	s := newServer(t, defaultConfig())
	ts := httptest.NewServer(s.e)
	defer ts.Close()
	s.locks.SetPort(ts.Listener.Addr().(*net.TCPAddr).Port)
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(bytes.Repeat([]byte(" "), 8*limit))
		_ = pw.Close()
	}()
	r, _ := http.NewRequest(http.MethodPost, ts.URL+"/agents-notch/settings", pr)
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("%d, want 413", resp.StatusCode)
	}
}

func TestCORS(t *testing.T) {
	s := newServer(t, defaultConfig())
	preflight := func(origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodOptions, "/agents-notch/settings", nil)
		r.Host = self
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "content-type")
		r.Header.Set("Access-Control-Request-Private-Network", "true")
		return s.do(r)
	}
	for _, origin := range []string{harness, "https://harness.example"} {
		w := preflight(origin)
		h := w.Header()
		if w.Code != http.StatusNoContent {
			t.Errorf("harness preflight from %s: %d, want 204", origin, w.Code)
		}
		if got := h.Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != origin {
			t.Errorf("Allow-Origin = %q, want exactly %q", got, origin)
		}
		if v := h.Get("Access-Control-Allow-Private-Network"); v != "" {
			t.Errorf("Allow-Private-Network = %q: never granted", v)
		}
		if !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
			!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "content-type") {
			t.Errorf("preflight does not allow POST with Content-Type: %v", h)
		}
		if h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("credentials allowed")
		}
		if !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
			t.Errorf("no Vary: Origin")
		}
	}
	for _, origin := range []string{"", "https://attacker.example", "null", "http://localhost:4321", "http://127.0.0.1:7701", harness + "/"} {
		w := preflight(origin)
		if w.Code != http.StatusForbidden {
			t.Errorf("preflight from %q: %d, want 403", origin, w.Code)
		}
		for name := range w.Header() {
			if strings.HasPrefix(name, "Access-Control-") {
				t.Errorf("preflight from %q answered %s", origin, name)
			}
		}
	}
	// The harness's actual POST carries its origin back; nobody else's does.
	r := req(http.MethodPost, self, `{}`, "Content-Type", "application/json", "Origin", harness, "Sec-Fetch-Site", "same-site")
	if w := s.do(r); w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != harness {
		t.Errorf("harness POST: %d, Allow-Origin %q", w.Code, w.Header().Get("Access-Control-Allow-Origin"))
	}
	for _, origin := range []string{"", "http://localhost:4321", "https://attacker.example"} {
		r := req(http.MethodGet, self, "", "Origin", origin)
		if w := s.do(r); w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET from %q got Allow-Origin %q", origin, w.Header().Get("Access-Control-Allow-Origin"))
		}
	}
	// A preflight under a foreign Host is refused by the Host lock first.
	r = httptest.NewRequest(http.MethodOptions, "/agents-notch/settings", nil)
	r.Host = "attacker.example:4321"
	r.Header.Set("Origin", harness)
	if w := s.do(r); w.Code != 403 || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("rebound preflight: %d, Allow-Origin %q", w.Code, w.Header().Get("Access-Control-Allow-Origin"))
	}
}

func TestNoCORSWithoutHarness(t *testing.T) {
	s := newServer(t, Config{})
	r := httptest.NewRequest(http.MethodOptions, "/agents-notch/settings", nil)
	r.Host = self
	r.Header.Set("Origin", harness)
	if w := s.do(r); w.Code != 403 {
		t.Errorf("preflight with no harness configured: %d, want 403", w.Code)
	}
}

// A refusal is logged once as a WARNING with the security log type, and
// never with the body.
func TestRefusalLogged(t *testing.T) {
	s := newServer(t, defaultConfig())
	r := req(http.MethodPost, self, `{"secret":"hunter2"}`, "Content-Type", "text/plain", "Cookie", "session=abc")
	if w := s.do(r); w.Code != 415 {
		t.Fatalf("%d", w.Code)
	}
	lines := strings.Split(strings.TrimSpace(s.log.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1: %s", len(lines), s.log)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["level"] != "WARN" || rec["log_type"] != "agents-notch.security.v1" {
		t.Errorf("record %v", rec)
	}
	if strings.Contains(lines[0], "hunter2") || strings.Contains(lines[0], "session=abc") {
		t.Errorf("the log carries the body or a cookie: %s", lines[0])
	}
}
