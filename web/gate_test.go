package web

import (
	"io"
	"net/url"

	"github.com/notch-web/notch-web/security"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAllowedHostAloneReadsNothing: with --allow-host phone.example, a
// client that sends that Host and no Origin (anyone on that network, or
// anything behind the user's proxy) reads neither the board, its state nor
// its stream, and its settings POST is not taken: it holds no paired
// device. Before the gate all four answered 200.
func TestAllowedHostAloneReadsNothing(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	phone := map[string]string{"Host": "phone.example"}
	for _, path := range []string{"/agents-notch/", "/agents-notch/pane", "/agents-notch/state", "/agents-notch/settings", "/agents-notch/stream?page=board", "/healthz"} {
		if st := e.status(t, path, phone); st != http.StatusUnauthorized {
			t.Errorf("GET %s with Host phone.example: %d, want 401", path, st)
		}
	}
	if st, _ := e.do(t, http.MethodPost, "/agents-notch/settings", `{"maxRows": 3}`, phone); st != http.StatusUnauthorized {
		t.Errorf("POST /agents-notch/settings with Host phone.example: %d, want 401", st)
	}
	if got := e.paneFile(t); strings.Contains(got, "maxRows") {
		t.Errorf("the refused POST was taken: settings.json = %s", got)
	}
	// The same requests with a loopback Host are plainly local.
	if st, _ := e.do(t, http.MethodGet, "/agents-notch/state", "", nil); st != http.StatusOK {
		t.Errorf("GET /agents-notch/state from loopback: %d, want 200", st)
	}
}

// status is the status of a GET, its body left unread (a stream's never
// ends).
func (e *testEnv) status(t testing.TB, path string, hdr map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// phoneReq is one request as a phone behind the user's https proxy sends
// it: Host phone.example, X-Forwarded-Proto https, the device cookie if
// any. Redirects are not followed.
func (e *testEnv) phoneReq(t *testing.T, method, path, body string, hdr map[string]string, cookie string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, e.base+path, strings.NewReader(body))
	req.Host = "phone.example"
	req.Header.Set("X-Forwarded-Proto", "https")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: security.DeviceCookie, Value: cookie})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// addDevice asks for a pairing link from this machine, as notch-web
// devices add does, and returns its path.
func (e *testEnv) addDevice(t *testing.T, name string) string {
	t.Helper()
	st, m := e.do(t, http.MethodPost, "/agents-notch/devices/add", `{"name":"`+name+`"}`, nil)
	if st != http.StatusOK {
		t.Fatalf("devices/add: %d %v", st, m)
	}
	link, _ := m["url"].(string)
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(u.Path, "/agents-notch/pair/") {
		t.Fatalf("devices/add's url %q", link)
	}
	return u.Path
}

func TestPairAPhoneThenRevokeIt(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	link := e.addDevice(t, "phone")

	// The link's page asks first; a preview that only GETs spends nothing.
	res := e.phoneReq(t, http.MethodGet, link, "", nil, "")
	if body := readAll(t, res); res.StatusCode != 200 || !strings.Contains(body, "Pair as phone") {
		t.Fatalf("the pairing page: %d %s", res.StatusCode, body)
	}
	// Another site's page cannot press the button.
	res = e.phoneReq(t, http.MethodPost, link, "", map[string]string{"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"}, "")
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("the pairing POST from another site: %d, want 403", res.StatusCode)
	}
	res = e.phoneReq(t, http.MethodPost, link, "", map[string]string{"Origin": "https://phone.example", "Content-Type": "application/x-www-form-urlencoded"}, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents-notch/" {
		t.Fatalf("pairing: %d to %q, want 303 to the board", res.StatusCode, res.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == security.DeviceCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || !cookie.Secure || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/agents-notch" {
		t.Fatalf("the device cookie: %+v, want HttpOnly, Secure, SameSite=Strict, Path=/agents-notch", cookie)
	}

	// Paired: the board, its state and a write.
	for _, path := range []string{"/agents-notch/", "/agents-notch/state", "/agents-notch/devices"} {
		if res := e.phoneReq(t, http.MethodGet, path, "", nil, cookie.Value); res.StatusCode != 200 {
			t.Errorf("GET %s paired: %d, want 200", path, res.StatusCode)
		}
	}
	if res := e.phoneReq(t, http.MethodPost, "/agents-notch/settings", `{"maxRows": 3}`, nil, cookie.Value); res.StatusCode != 200 {
		t.Errorf("a settings POST paired: %d, want 200", res.StatusCode)
	}
	// A device cannot pair others: a stolen cookie cannot outlive its revocation.
	if res := e.phoneReq(t, http.MethodPost, "/agents-notch/devices/add", `{"name":"spare"}`, nil, cookie.Value); res.StatusCode != http.StatusForbidden {
		t.Errorf("devices/add from a device: %d, want 403", res.StatusCode)
	}
	// The link again: used.
	res = e.phoneReq(t, http.MethodPost, link, "", map[string]string{"Origin": "https://phone.example"}, "")
	if body := readAll(t, res); res.StatusCode != http.StatusGone || !strings.Contains(body, "used already") {
		t.Errorf("the link again: %d %s, want 410 saying it was used", res.StatusCode, body)
	}

	// An open stream of the device ends at its revocation.
	stream := e.phoneReq(t, http.MethodGet, "/agents-notch/stream?page=board", "", nil, cookie.Value)
	if stream.StatusCode != 200 {
		t.Fatalf("the stream: %d", stream.StatusCode)
	}
	buf := make([]byte, 1)
	if _, err := stream.Body.Read(buf); err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if st, m := e.do(t, http.MethodPost, "/agents-notch/devices/revoke", `{"device":"phone"}`, nil); st != 200 {
		t.Fatalf("revoke: %d %v", st, m)
	}
	if _, err := io.Copy(io.Discard, stream.Body); err != nil && !strings.Contains(err.Error(), "closed") {
		t.Logf("the stream ended with %v", err)
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/state", "", nil, cookie.Value); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /state after the revocation: %d, want 401", res.StatusCode)
	}
	if res := e.phoneReq(t, http.MethodGet, "/agents-notch/", "", map[string]string{"Accept": "text/html"}, cookie.Value); !strings.Contains(readAll(t, res), "devices add NAME") {
		t.Errorf("the board after the revocation does not say how to pair")
	}
}

// TestPairingNeedsHTTPS: a pairing link is spent only on a request whose
// browser will keep the Secure device cookie — https (this host's TLS or a
// proxy's word), or plain http at a loopback name; any other plain http
// request gets a page saying why, on the GET and on the POST, and the code
// stays good.
func TestPairingNeedsHTTPS(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	port := e.base[strings.LastIndex(e.base, ":"):]
	for i, c := range []struct {
		name string
		host string
		hdr  map[string]string
		ok   bool
	}{
		{"a proxy that took plain http", "phone.example", map[string]string{"X-Forwarded-Proto": "http"}, false},
		{"a proxy that took plain http, in Forwarded", "phone.example", map[string]string{"Forwarded": `for=192.0.2.7;proto=http;host=phone.example`}, false},
		{"a browser on this machine at an --allow-host name (it resolves to loopback)", "phone.example" + port, nil, false},
		{"a proxy that took https", "phone.example", map[string]string{"X-Forwarded-Proto": "https"}, true},
		{"https in Forwarded", "phone.example", map[string]string{"Forwarded": `for=192.0.2.7;proto=https`}, true},
		{"a proxy on this machine that names whom it forwards for (Tailscale Serve: https)", "phone.example", map[string]string{"X-Forwarded-For": "100.64.0.7", "Tailscale-User-Login": "me@example.com"}, true},
		{"a browser at localhost", "localhost" + port, nil, true},
		{"a browser at 127.0.0.1", "127.0.0.1" + port, nil, true},
	} {
		name := "phone" + strconv.Itoa(i)
		t.Run(c.name, func(t *testing.T) {
			link := e.addDevice(t, name)
			send := func(method string) *http.Response {
				req, _ := http.NewRequest(method, e.base+link, nil)
				req.Host = c.host
				for k, v := range c.hdr {
					req.Header.Set(k, v)
				}
				if method == http.MethodPost {
					req.Header.Set("Origin", "http://"+c.host)
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				res, err := cl.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { res.Body.Close() })
				return res
			}
			get := send(http.MethodGet)
			body := readAll(t, get)
			if !c.ok {
				if get.StatusCode != http.StatusBadRequest || !strings.Contains(body, "https") {
					t.Errorf("the page: %d %s, want 400 saying https", get.StatusCode, body)
				}
				if post := send(http.MethodPost); post.StatusCode != http.StatusBadRequest || len(post.Cookies()) != 0 {
					t.Errorf("the button: %d %v, want 400 and no cookie", post.StatusCode, post.Cookies())
				}
				// The code was not spent.
				if res := e.phoneReq(t, http.MethodGet, link, "", nil, ""); res.StatusCode != 200 {
					t.Errorf("the link over https afterwards: %d, want 200", res.StatusCode)
				}
				return
			}
			if get.StatusCode != 200 || !strings.Contains(body, "Pair as "+name) {
				t.Errorf("the page: %d %s, want 200", get.StatusCode, body)
			}
		})
	}
}

func TestPublicRoutesHoldNoData(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	for path, want := range map[string]int{
		"/agents-notch/static/notch.css":       200,
		"/agents-notch/manifest.webmanifest":   200,
		"/agents-notch/pair/nonsense":          404,
		"/agents-notch/static/../state":        0, // anything but the state
		"/agents-notch/static/%2e%2e/settings": 0,
	} {
		res := e.phoneReq(t, http.MethodGet, path, "", nil, "")
		body := readAll(t, res)
		if want != 0 && res.StatusCode != want {
			t.Errorf("GET %s unpaired: %d, want %d", path, res.StatusCode, want)
		}
		if want == 0 && (res.StatusCode == 200 && strings.Contains(body, `"schema"`) || strings.Contains(body, `"settings"`)) {
			t.Errorf("GET %s unpaired gave data: %d %.100s", path, res.StatusCode, body)
		}
	}
}
