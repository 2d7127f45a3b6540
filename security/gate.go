package security

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// DeviceCookie is the device cookie's name. Its value is the device's ID,
// a dot and its 256-bit token (base64url).
const DeviceCookie = "notch_device"

// DeviceCookiePath is the cookie's Path: the agents notch's routes only.
const DeviceCookiePath = "/agents-notch"

// deviceCookieAge is how long a browser keeps the cookie; revocation, not
// age, is what ends a device.
const deviceCookieAge = 400 * 24 * time.Hour

// forwardHeaders mark a request a proxy passed on: such a request is not
// plainly local, even from loopback with a loopback Host (a proxy that
// rewrites the Host to 127.0.0.1 but says whom it forwards for).
var forwardHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-Ip", "Tailscale-User-Login"}

// Local reports whether r is plainly local: its TCP peer is a loopback
// address, its Host a loopback name or address with the served port (not
// an --allow-host name: that is how a request through the user's own proxy
// or Tailscale Serve arrives, from loopback), and it carries no proxy's
// forwarding header. Only a plainly local request passes the gate without
// a paired device.
func (l *Locks) Local(r *http.Request) bool {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !peer.Addr().Unmap().IsLoopback() {
		return false
	}
	for _, h := range forwardHeaders {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	return l.loopbackHost(r.Host)
}

// loopbackHost reports whether hostport is a loopback name or address with
// the served port (AllowedHost's reading of a Host: no port is port 80).
func (l *Locks) loopbackHost(hostport string) bool {
	host, portStr, err := net.SplitHostPort(strings.ToLower(hostport))
	if err != nil {
		host, portStr = strings.Trim(strings.ToLower(hostport), "[]"), "80"
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

// Device returns the paired device whose cookie r carries, if that device
// is paired and not revoked. It marks the device seen.
func (l *Locks) Device(r *http.Request) (Device, bool) {
	dev, _, ok := l.device(r)
	return dev, ok
}

func (l *Locks) device(r *http.Request) (Device, context.Context, bool) {
	if l.devices == nil {
		return Device{}, nil, false
	}
	c, err := r.Cookie(DeviceCookie)
	if err != nil || c.Value == "" {
		return Device{}, nil, false
	}
	return l.devices.Check(c.Value)
}

// Devices is the store the gate checks cookies against (nil: none).
func (l *Locks) Devices() *Devices { return l.devices }

// DeviceCookieFor is the Set-Cookie of a device just paired: HttpOnly (no
// script reads it), Secure (a browser keeps it over https, or
// http://localhost), SameSite=Strict (no other site's page sends it).
func DeviceCookieFor(value string) *http.Cookie {
	return &http.Cookie{
		Name: DeviceCookie, Value: value, Path: DeviceCookiePath,
		MaxAge: int(deviceCookieAge / time.Second), HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode,
	}
}

// Gate refuses every request that is neither plainly local (Local) nor
// from a paired device (Device), except on the public routes: public lists
// Echo route patterns ("/agents-notch/static/*"), each optionally preceded
// by a method ("POST /agents-notch/act"). A refused page (a GET that
// accepts HTML) is answered by refusedPage; anything else is 401 JSON.
//
// A device's request runs under a context that ends when the device is
// revoked, so a stream of a revoked device ends at once.
func (l *Locks) Gate(refusedPage echo.HandlerFunc, public ...string) echo.MiddlewareFunc {
	open := map[string]bool{}
	for _, p := range public {
		open[p] = true
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if open[c.Path()] || open[r.Method+" "+c.Path()] || l.Local(r) {
				return next(c)
			}
			_, devCtx, ok := l.device(r)
			if !ok {
				reason := "this device is not paired: run notch-web devices add NAME on the host"
				_ = l.refuse(c, http.StatusUnauthorized, reason)
				c.Response().Header().Set("Cache-Control", "no-store")
				if refusedPage != nil && wantsPage(r) {
					return refusedPage(c)
				}
				return echo.NewHTTPError(http.StatusUnauthorized, reason)
			}
			ctx, cancel := context.WithCancel(context.WithValue(r.Context(), revokedKey{}, devCtx))
			stop := context.AfterFunc(devCtx, cancel)
			defer func() { stop(); cancel() }()
			c.SetRequest(r.WithContext(ctx))
			return next(c)
		}
	}
}

type revokedKey struct{}

// Revoked is, for a paired device's request, a context done when that
// device is revoked; nil for a plainly local one. A handler whose work
// outlives its request (a hijacked stream) ends it with this.
func Revoked(ctx context.Context) context.Context {
	c, _ := ctx.Value(revokedKey{}).(context.Context)
	return c
}

// wantsPage reports whether a refused request is a page's navigation (a
// GET or HEAD that accepts HTML) rather than a script's call or a stream.
func wantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/html") && !strings.Contains(accept, "text/event-stream")
}
