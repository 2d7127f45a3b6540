package security

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// gateServer wires the gate as web/routes.go does: after the Host check,
// with a refused page and the public routes.
func gateServer(t *testing.T) (*echo.Echo, *Locks, *Devices) {
	t.Helper()
	d, _, _ := openStore(t)
	l := New(Config{AllowHosts: []string{"phone.example"}, Devices: d})
	l.SetPort(port)
	e := echo.New()
	refused := func(c echo.Context) error { return c.HTML(http.StatusUnauthorized, "<p>not paired</p>") }
	e.Use(l.Host(), l.Gate(refused, "/agents-notch/static/*", "POST /agents-notch/act"))
	ok := func(c echo.Context) error { return c.String(http.StatusOK, "ok") }
	e.GET("/agents-notch/", ok)
	e.GET("/agents-notch/state", ok)
	e.GET("/agents-notch/static/*", ok)
	e.POST("/agents-notch/act", ok)
	e.GET("/agents-notch/act", ok)
	e.GET("/agents-notch/who", func(c echo.Context) error {
		dev, ok := l.Device(c.Request())
		if !ok {
			return c.String(http.StatusOK, "local")
		}
		return c.String(http.StatusOK, dev.Name)
	})
	return e, l, d
}

func TestGateMatrix(t *testing.T) {
	e, _, d := gateServer(t)
	_, cookie := pair(t, d, "phone")
	_, revoked := pair(t, d, "old")
	if _, err := d.Revoke("old"); err != nil {
		t.Fatal(err)
	}
	const (
		loopback = "127.0.0.1:50000"
		loop6    = "[::1]:50000"
		lan      = "192.168.1.20:50000"
	)
	tests := []struct {
		name, peer, host, cookie string
		header                   map[string]string
		want                     int
	}{
		{"loopback peer, loopback Host", loopback, self, "", nil, 200},
		{"loopback peer, 127.0.0.1 Host", loopback, "127.0.0.1:4321", "", nil, 200},
		{"::1 peer, [::1] Host", loop6, "[::1]:4321", "", nil, 200},
		{"loopback peer, allowed Host (a proxy, Tailscale Serve)", loopback, "phone.example", "", nil, 401},
		{"loopback peer, allowed Host with port", loopback, "phone.example:4321", "", nil, 401},
		{"loopback peer, loopback Host, X-Forwarded-For", loopback, self, "", map[string]string{"X-Forwarded-For": "100.64.0.7"}, 401},
		{"loopback peer, loopback Host, Forwarded", loopback, self, "", map[string]string{"Forwarded": "for=100.64.0.7"}, 401},
		{"LAN peer, loopback Host", lan, self, "", nil, 401},
		{"LAN peer, allowed Host", lan, "phone.example", "", nil, 401},
		{"LAN peer, allowed Host, paired", lan, "phone.example", cookie, nil, 200},
		{"loopback peer, allowed Host, paired", loopback, "phone.example", cookie, nil, 200},
		{"LAN peer, loopback Host, paired", lan, self, cookie, nil, 200},
		{"LAN peer, allowed Host, revoked", lan, "phone.example", revoked, nil, 401},
		{"LAN peer, allowed Host, forged cookie", lan, "phone.example", cookie[:17] + "AAAA", nil, 401},
		{"LAN peer, foreign Host, paired (the Host check first)", lan, "evil.example", cookie, nil, 403},
	}
	for _, tt := range tests {
		for _, path := range []string{"/agents-notch/state", "/agents-notch/"} {
			t.Run(tt.name+" "+path, func(t *testing.T) {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				req.RemoteAddr, req.Host = tt.peer, tt.host
				for k, v := range tt.header {
					req.Header.Set(k, v)
				}
				if tt.cookie != "" {
					req.AddCookie(&http.Cookie{Name: DeviceCookie, Value: tt.cookie})
				}
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != tt.want {
					t.Errorf("%d, want %d (%s)", rec.Code, tt.want, rec.Body)
				}
			})
		}
	}
}

func TestGateRefusal(t *testing.T) {
	e, _, _ := gateServer(t)
	do := func(method, path, accept string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		req.RemoteAddr, req.Host = "192.168.1.20:5000", "phone.example"
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	// A page's navigation gets the page; a script, a stream, a POST 401 JSON.
	if rec := do(http.MethodGet, "/agents-notch/", "text/html,application/xhtml+xml"); rec.Code != 401 || rec.Body.String() != "<p>not paired</p>" {
		t.Errorf("a page: %d %q, want 401 and the refused page", rec.Code, rec.Body)
	}
	for _, accept := range []string{"", "application/json", "text/event-stream, text/html, application/json"} {
		if rec := do(http.MethodGet, "/agents-notch/state", accept); rec.Code != 401 || rec.Header().Get("Content-Type") != echo.MIMEApplicationJSON {
			t.Errorf("Accept %q: %d %s, want 401 JSON", accept, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	// The public routes hold no data: they pass; POST /act only by POST.
	if rec := do(http.MethodGet, "/agents-notch/static/notch.css", ""); rec.Code != 200 {
		t.Errorf("a static file: %d, want 200", rec.Code)
	}
	if rec := do(http.MethodPost, "/agents-notch/act", ""); rec.Code != 200 {
		t.Errorf("POST /act: %d, want 200 (its capability decides)", rec.Code)
	}
	if rec := do(http.MethodGet, "/agents-notch/act", ""); rec.Code != 401 {
		t.Errorf("GET /act: %d, want 401", rec.Code)
	}
}

func TestDeviceNamesTheRequester(t *testing.T) {
	e, l, d := gateServer(t)
	_, cookie := pair(t, d, "phone")
	req := httptest.NewRequest(http.MethodGet, "/agents-notch/who", nil)
	req.RemoteAddr, req.Host = "192.168.1.20:5000", "phone.example"
	req.AddCookie(&http.Cookie{Name: DeviceCookie, Value: cookie})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Body.String() != "phone" {
		t.Errorf("Device named %q, want phone", rec.Body)
	}
	local := httptest.NewRequest(http.MethodGet, "/agents-notch/who", nil)
	local.RemoteAddr, local.Host = "127.0.0.1:5000", self
	if !l.Local(local) {
		t.Error("a plainly local request is not Local")
	}
	if _, ok := l.Device(local); ok {
		t.Error("a request without a cookie has a Device")
	}
}

// A paired device's request runs under a context that ends when the device
// is revoked (a stream's), and Revoked hands it to a handler.
func TestRevocationEndsTheRequest(t *testing.T) {
	d, _, _ := openStore(t)
	l := New(Config{AllowHosts: []string{"phone.example"}, Devices: d})
	l.SetPort(port)
	_, cookie := pair(t, d, "phone")
	e := echo.New()
	e.Use(l.Gate(nil))
	started, ended := make(chan struct{}), make(chan error, 1)
	var revoked context.Context
	e.GET("/agents-notch/stream", func(c echo.Context) error {
		revoked = Revoked(c.Request().Context())
		close(started)
		<-c.Request().Context().Done()
		ended <- c.Request().Context().Err()
		return nil
	})
	req := httptest.NewRequest(http.MethodGet, "/agents-notch/stream", nil)
	req.RemoteAddr, req.Host = "192.168.1.20:5000", "phone.example"
	req.AddCookie(&http.Cookie{Name: DeviceCookie, Value: cookie})
	go e.ServeHTTP(httptest.NewRecorder(), req)
	<-started
	if revoked == nil || revoked.Err() != nil {
		t.Fatalf("Revoked = %v before the revocation", revoked)
	}
	if _, err := d.Revoke("phone"); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; err == nil {
		t.Error("the request's context did not end")
	}
	if revoked.Err() == nil {
		t.Error("Revoked's context did not end")
	}
}
