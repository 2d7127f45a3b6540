package web

import (
	"errors"
	"io/fs"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/push"
)

// Web Push's routes (docs/pushes.md): the board's service worker, the
// host's VAPID public key, and a browser's subscription and its end. The
// channel itself, its keys and its files are host/push's WebPush.

// swCSP is the service worker's own Content-Security-Policy: it fetches
// only this origin (its buttons' answers, a renewed subscription).
const swCSP = "default-src 'self'; base-uri 'none'; object-src 'none'"

// serviceWorker is GET /agents-notch/sw.js. Served from the scope's root
// so that its scope can be /agents-notch/; never cached, so a new build's
// worker is the next one a browser runs.
func (s *Server) serviceWorker() echo.HandlerFunc {
	var once sync.Once
	var body []byte
	var err error
	return func(c echo.Context) error {
		once.Do(func() {
			if s.Static == nil {
				err = echo.ErrNotFound
				return
			}
			body, err = fs.ReadFile(s.Static, "sw.js")
		})
		if err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Security-Policy", swCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", body)
	}
}

// pushKeyReply answers GET /agents-notch/push/key.
type pushKeyReply struct {
	OK  bool   `json:"ok"`
	Key string `json:"key"` // the VAPID public key, base64url: PushManager.subscribe's applicationServerKey
}

// errNoWebPush: this notch-web sends no Web Push (it follows another
// host's board, which sends its own).
var errNoWebPush = echo.NewHTTPError(http.StatusNotFound, "this notch-web sends no pushes (it follows another host)")

// getPushKey is GET /agents-notch/push/key: the key pair the host made at
// start. A read changes nothing, so it never makes one.
func (s *Server) getPushKey(c echo.Context) error {
	if s.WebPush == nil {
		return errNoWebPush
	}
	key, err := s.WebPush.Key()
	if err != nil {
		return fail(http.StatusServiceUnavailable, "web push is off: its key could not be read or made (the log says why)", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, pushKeyReply{OK: true, Key: key})
}

// postPushSubscribe is POST /agents-notch/push/subscribe: the body is the
// browser's PushSubscription.toJSON(), checked strictly
// (push.ParseSubscription), stored for the request's paired device.
func (s *Server) postPushSubscribe(c echo.Context) error {
	if s.WebPush == nil {
		return errNoWebPush
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	sub, err := push.ParseSubscription(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "want a push subscription: "+err.Error())
	}
	if _, err := s.WebPush.Subscribe(sub, s.pushDevice(c.Request())); err != nil {
		switch {
		case errors.Is(err, push.ErrInsecureEndpoint):
			return echo.NewHTTPError(http.StatusBadRequest, "want a push subscription: "+err.Error())
		case errors.Is(err, push.ErrTooManySubscriptions):
			return echo.NewHTTPError(http.StatusConflict, err.Error())
		}
		return fail(http.StatusServiceUnavailable, "the subscription could not be stored (the log says why)", err)
	}
	return written(c, ok)
}

// postPushUnsubscribe is POST /agents-notch/push/unsubscribe,
// {"endpoint": "…"}: knowing the endpoint is the authority (only its
// browser does). Forgetting one that is not there is no error.
func (s *Server) postPushUnsubscribe(c echo.Context) error {
	if s.WebPush == nil {
		return errNoWebPush
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	endpoint, err := push.ParseEndpoint(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, `want {"endpoint": "…"}: `+err.Error())
	}
	if _, err := s.WebPush.Unsubscribe(endpoint); err != nil {
		return fail(http.StatusServiceUnavailable, "the subscription could not be forgotten (the log says why)", err)
	}
	return written(c, ok)
}

// pushDevice is the paired device a subscribing request comes from, ""
// for none (deviceOf).
func (s *Server) pushDevice(r *http.Request) string {
	d, _ := s.deviceOf(r)
	return d.ID
}
