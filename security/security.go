// Package security holds the locks on notch-web's doors, as Echo middleware:
// the gate (a request that is not plainly local needs a paired device:
// gate.go, the device store devices.go), the Host allowlist (against DNS
// rebinding), the Origin and Sec-Fetch-Site
// checks (against other pages in the browser), JSON-only writes (a text/plain
// body is a "simple request" a browser sends with no preflight), bounded
// bodies, and CORS answered only for a configured harness origin.
//
// A request that carries neither Origin nor Sec-Fetch-Site comes from a
// tool (curl, a script) and is allowed through the browser checks; the Host
// check applies to it too, and the gate has already required a plainly
// local request or a paired device.
package security

import (
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/internal/logx"
)

// Config widens the locks deliberately. The zero value trusts loopback only.
type Config struct {
	// AllowHosts are extra Host names (e.g. a Tailscale name). "name"
	// admits that name on any port; "name:port" admits exactly that.
	AllowHosts []string
	// HarnessOrigins are the exact origins (scheme://host[:port]) of the
	// harness page that may call the API from another port or site.
	HarnessOrigins []string
	// Log receives one WARNING per refused request; nil discards.
	Log *slog.Logger
	// Devices are the paired devices the gate admits (nil: none, so only
	// plainly local requests pass it).
	Devices *Devices
}

// Locks is the configured set of checks. Create it with New and tell it the
// port it serves with SetPort once the listener is bound.
type Locks struct {
	hosts   map[string]bool // lower-case "name" or "name:port"
	harness map[string]bool
	port    atomic.Int64
	log     *slog.Logger
	devices *Devices
}

// New returns the locks for cfg.
func New(cfg Config) *Locks {
	l := &Locks{hosts: map[string]bool{}, harness: map[string]bool{}, log: cfg.Log, devices: cfg.Devices}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	for _, h := range cfg.AllowHosts {
		l.hosts[strings.ToLower(strings.TrimSpace(h))] = true
	}
	for _, o := range cfg.HarnessOrigins {
		l.harness[strings.TrimRight(strings.TrimSpace(o), "/")] = true
	}
	return l
}

// SetPort records the TCP port the server listens on: loopback Hosts are
// admitted only with this port.
func (l *Locks) SetPort(port int) { l.port.Store(int64(port)) }

// HarnessOrigin reports whether origin is a configured harness origin.
func (l *Locks) HarnessOrigin(origin string) bool { return l.harness[origin] }

// HarnessOrigins lists the configured harness origins (for the CSP).
func (l *Locks) HarnessOrigins() []string {
	out := make([]string, 0, len(l.harness))
	for o := range l.harness {
		out = append(out, o)
	}
	return out
}

func (l *Locks) refuse(c echo.Context, status int, reason string) error {
	r := c.Request()
	l.log.Warn("request refused", "log_type", logx.TypeSecurity,
		slog.Group("data", "status", status, "reason", reason, "method", r.Method, "path", r.URL.Path,
			"host", r.Host, "origin", r.Header.Get("Origin"), "secFetchSite", r.Header.Get("Sec-Fetch-Site")))
	return echo.NewHTTPError(status, reason)
}

// AllowedHost reports whether a Host header value is on the allowlist:
// a loopback name or address with the served port, or a configured name.
func (l *Locks) AllowedHost(hostport string) bool {
	hostport = strings.ToLower(hostport)
	if hostport == "" {
		return false
	}
	if l.hosts[hostport] {
		return true
	}
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the browser omitted the default port 80.
		host, portStr = strings.Trim(hostport, "[]"), "80"
	}
	if l.hosts[host] {
		return true
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || int64(port) != l.port.Load() {
		return false
	}
	if host == "localhost" {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// Host refuses (403) any request whose Host is not on the allowlist. It runs
// on every route, GET and SSE included: a DNS-rebound page reaches this
// server under a foreign name and its GETs carry no Origin.
func (l *Locks) Host() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !l.AllowedHost(c.Request().Host) {
				return l.refuse(c, http.StatusForbidden, "host not allowed")
			}
			return next(c)
		}
	}
}

// sameOrigin reports whether origin is this server's own page as the request
// reached it (the Host has already passed the allowlist).
func sameOrigin(origin, host string) bool {
	return origin == "http://"+host || origin == "https://"+host
}

// checkBrowser applies the Origin and Sec-Fetch-Site rules. It returns the
// reason for a refusal, or "".
func (l *Locks) checkBrowser(r *http.Request) string {
	origin := r.Header.Get("Origin")
	harness := origin != "" && l.harness[origin]
	if origin != "" && !harness && !sameOrigin(origin, r.Host) {
		if origin == "null" {
			return "origin null is never trusted"
		}
		return "origin not trusted"
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	case "cross-site":
		// The contract refuses any cross-site relationship, a harness
		// origin's too (docs/contract.md §6): a harness's page shares this
		// host's site (another port on it is same-site).
		return "sec-fetch-site cross-site refused"
	case "same-site":
		if !harness {
			return "sec-fetch-site same-site refused"
		}
	default:
		return "sec-fetch-site not understood"
	}
	return ""
}

// Write guards a state-changing route: Origin and Sec-Fetch-Site (403), the
// parsed media type application/json (415), and the body bounded to limit
// bytes (413).
func (l *Locks) Write(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if reason := l.checkBrowser(r); reason != "" {
				return l.refuse(c, http.StatusForbidden, reason)
			}
			if !IsJSON(r.Header.Get("Content-Type")) {
				return l.refuse(c, http.StatusUnsupportedMediaType, "content-type must be application/json")
			}
			if r.ContentLength > limit {
				return l.refuse(c, http.StatusRequestEntityTooLarge, "body larger than "+strconv.FormatInt(limit, 10)+" bytes")
			}
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			return next(c)
		}
	}
}

// Form guards a form's POST (the pairing page's button, which needs no
// script): Origin and Sec-Fetch-Site (403) and the body bounded to limit
// bytes (413), but any media type — a form posts
// application/x-www-form-urlencoded. Only for a route whose own secret
// (a one-time code in its path) is what authorizes it.
func (l *Locks) Form(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if reason := l.checkBrowser(r); reason != "" {
				return l.refuse(c, http.StatusForbidden, reason)
			}
			if r.ContentLength > limit {
				return l.refuse(c, http.StatusRequestEntityTooLarge, "body larger than "+strconv.FormatInt(limit, 10)+" bytes")
			}
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			return next(c)
		}
	}
}

// IsJSON reports whether a Content-Type header's media type is exactly
// application/json (parameters such as charset allowed). It parses the
// header; a prefix such as "application/jsonx" is not JSON.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// CORS answers cross-origin requests only for a configured harness origin:
// it echoes that exact origin (never "*", never Private-Network access) and
// answers its preflight. Every other preflight is refused.
func (l *Locks) CORS() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			origin := r.Header.Get("Origin")
			h := c.Response().Header()
			h.Add("Vary", "Origin")
			if origin == "" || !l.harness[origin] {
				if r.Method == http.MethodOptions {
					return l.refuse(c, http.StatusForbidden, "cross-origin request not allowed")
				}
				return next(c)
			}
			h.Set("Access-Control-Allow-Origin", origin)
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "GET, POST")
				h.Set("Access-Control-Allow-Headers", "Content-Type, Datastar-Request")
				h.Set("Access-Control-Max-Age", "600")
				return c.NoContent(http.StatusNoContent)
			}
			return next(c)
		}
	}
}
