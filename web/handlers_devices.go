package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/qrcode"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/web/templates"
)

// deviceViews are the pane's rows for the paired devices.
func deviceViews(ds []security.Device) []templates.DeviceRow {
	out := make([]templates.DeviceRow, len(ds))
	for i, d := range ds {
		out[i] = templates.DeviceRow{ID: d.ID, Name: d.Name, Role: d.Role.String(), CreatedMs: d.Created.UnixMilli()}
		if !d.LastSeen.IsZero() {
			out[i].LastSeenMs = d.LastSeen.UnixMilli()
		}
	}
	return out
}

// deviceReply is one device as the API says it.
type deviceReply struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Role     string `json:"role"` // "unknown": devices.json names a role this build does not know
	Created  string `json:"created"`
	LastSeen string `json:"lastSeen,omitempty"`
}

func replyOf(d security.Device) deviceReply {
	r := deviceReply{ID: d.ID, Name: d.Name, Role: d.Role.String(), Created: d.Created.UTC().Format("2006-01-02T15:04:05Z")}
	if !d.LastSeen.IsZero() {
		r.LastSeen = d.LastSeen.UTC().Format("2006-01-02T15:04:05Z")
	}
	return r
}

// devicesReply answers GET /agents-notch/devices.
type devicesReply struct {
	OK      bool          `json:"ok"`
	Devices []deviceReply `json:"devices"`
}

// pairingReply answers POST /agents-notch/devices/add for a script (the
// command line): the link, until when it is good, and what may keep a
// phone from using it.
type pairingReply struct {
	OK      bool   `json:"ok"`
	Name    string `json:"name"`
	Role    string `json:"role"`
	URL     string `json:"url"`
	Expires string `json:"expires"`
	Warning string `json:"warning,omitempty"`
}

// revokedReply answers POST /agents-notch/devices/revoke.
type revokedReply struct {
	OK     bool        `json:"ok"`
	Device deviceReply `json:"device"`
}

// deviceNameRequest is {"name": "phone", "role": "steer"} (no role:
// security.DefaultRole); deviceRequest {"device": "NAME|ID"}.
type deviceNameRequest struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
}
type deviceRequest struct {
	Device string `json:"device"`
}

// parseDeviceName reads {"name": "NAME"}, with an optional "role".
func parseDeviceName(body []byte) (string, security.Role, error) {
	var req deviceNameRequest
	if err := decodeStrict(body, &req); err != nil {
		return "", 0, fmt.Errorf(`want {"name": "NAME", "role": "ROLE"}: %v`, err)
	}
	name := strings.TrimSpace(req.Name)
	if err := security.CheckDeviceName(name); err != nil {
		return "", 0, err
	}
	role := security.DefaultRole
	if req.Role != "" {
		r, err := security.ParseRole(req.Role)
		if err != nil {
			return "", 0, err
		}
		role = r
	}
	return name, role, nil
}

// parseDeviceRef reads {"device": "NAME or ID"}.
func parseDeviceRef(body []byte) (string, error) {
	var req deviceRequest
	if err := decodeStrict(body, &req); err != nil {
		return "", fmt.Errorf(`want {"device": "NAME or ID"}: %v`, err)
	}
	ref := strings.TrimSpace(req.Device)
	if security.CheckDeviceName(ref) != nil {
		return "", errors.New("device must be a paired device's name or id")
	}
	return ref, nil
}

func (s *Server) deviceStore() (*security.Devices, error) {
	d := s.Locks.Devices()
	if d == nil {
		return nil, echo.NewHTTPError(http.StatusConflict, "this notch-web keeps no devices")
	}
	return d, nil
}

// getDevices is GET /agents-notch/devices: the paired devices.
func (s *Server) getDevices(c echo.Context) error {
	d, err := s.deviceStore()
	if err != nil {
		return err
	}
	reply := devicesReply{OK: true, Devices: []deviceReply{}}
	for _, dev := range d.List() {
		reply.Devices = append(reply.Devices, replyOf(dev))
	}
	return c.JSON(http.StatusOK, reply)
}

// postDeviceAdd is Add a device and notch-web devices add NAME: a one-time
// pairing link. Only a plainly local request may ask: a paired device
// cannot pair others (a stolen cookie cannot outlive its revocation).
// Datastar's request gets the pairing panel (HTML, patched into this tab
// alone, never into the pane every tab shares); a script gets JSON.
func (s *Server) postDeviceAdd(c echo.Context) error {
	if !s.Locks.Local(c.Request()) {
		return echo.NewHTTPError(http.StatusForbidden, "devices are added from the host itself (its own browser, or notch-web devices add NAME there)")
	}
	d, err := s.deviceStore()
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	name, role, err := parseDeviceName(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	p, err := d.NewPairingAs(name, role)
	switch {
	case errors.Is(err, security.ErrNameTaken), errors.Is(err, security.ErrTooMany):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case err != nil:
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	base, warning := s.pairBase()
	link := base + "/agents-notch/pair/" + p.Code
	s.Log.Info("pairing link made", "log_type", logx.TypeSecurity, "data", map[string]any{"device": name, "role": role.String(), "expires": p.Expires.UTC().Format("15:04:05Z")})
	if c.Request().Header.Get("Datastar-Request") != "true" {
		return c.JSON(http.StatusOK, pairingReply{OK: true, Name: name, Role: role.String(), URL: link, Expires: p.Expires.UTC().Format("2006-01-02T15:04:05Z"), Warning: warning})
	}
	qr, err := qrcode.Encode(link)
	if err != nil {
		return fail(http.StatusInternalServerError, "could not draw the QR code", err)
	}
	view := templates.PairingView{Name: name, Role: role.String(), URL: link, QRSize: qr.Size(), QRPath: qr.SVGPath(), ExpiresMs: p.Expires.UnixMilli(), Warning: warning}
	buf, err := renderHTML(templates.PairingPanel(view))
	if err != nil {
		return fail(http.StatusInternalServerError, "could not render the pairing panel", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(http.StatusOK, buf)
}

// pairBase is where a phone reaches this host: the first --allow-host name
// over https (with the served port when this host serves TLS itself and
// the name gives none; without TLS, the user's proxy is assumed on 443),
// or this host's own address when there is none, with a warning.
func (s *Server) pairBase() (base, warning string) {
	if s.PairBase != nil {
		return s.PairBase()
	}
	return "", ""
}

// postDeviceRevoke is the pane's Revoke and notch-web devices revoke: the
// device's cookie is refused from its next request, its open streams end.
// A plainly local request may revoke any device; a paired device only
// itself (security.ErrNotYours), so a stolen cookie cannot lock the
// owner's other devices out — as it cannot pair others.
func (s *Server) postDeviceRevoke(c echo.Context) error {
	d, err := s.deviceStore()
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	ref, err := parseDeviceRef(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	by := ""
	if !s.Locks.Local(c.Request()) {
		me, ok := s.Locks.Device(c.Request())
		if !ok { // past the gate, a request that is not local is a device's
			return echo.NewHTTPError(http.StatusForbidden, security.ErrNotYours.Error())
		}
		by = me.ID
	}
	dev, err := d.RevokeAs(ref, by)
	switch {
	case errors.Is(err, security.ErrNoDevice):
		return echo.NewHTTPError(http.StatusNotFound, "no paired device of that name or id")
	case errors.Is(err, security.ErrNotYours):
		return echo.NewHTTPError(http.StatusForbidden, err.Error())
	case errors.Is(err, security.ErrAmbiguous):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	}
	if err != nil {
		return fail(http.StatusInternalServerError, "could not keep the revocation", err)
	}
	s.Log.Info("device revoked", "log_type", logx.TypeSecurity, "data", map[string]any{"device": dev.Name, "id": dev.ID})
	if s.WebPush != nil { // it is pushed nothing more (a failure here is caught at the next send)
		if _, err := s.WebPush.DropDevice(dev.ID); err != nil {
			s.Log.Warn("a revoked device's push subscriptions stay until the next send", "log_type", logx.TypePush, logx.Err("WebPushError", err))
		}
	}
	return written(c, revokedReply{OK: true, Device: replyOf(dev)})
}

// pairFailure is a pairing link's refusal as its page says it.
func pairFailure(err error) (status int, title string) {
	switch {
	case errors.Is(err, security.ErrCodeUsed):
		return http.StatusGone, "This pairing link was used"
	case errors.Is(err, security.ErrCodeExpired):
		return http.StatusGone, "This pairing link has expired"
	case errors.Is(err, security.ErrNameTaken), errors.Is(err, security.ErrTooMany):
		return http.StatusConflict, "This device cannot be paired"
	}
	return http.StatusNotFound, "This pairing link is not known"
}

// notSecure is why a pairing link is refused on a request whose browser
// would drop the device cookie (security.KeepsSecureCookie): the link is
// not spent.
const notSecure = "This page was opened over plain http, and a browser keeps the device cookie only over https (or at http://localhost on the host's own machine): open the link through https (notch-web --tls-cert/--tls-key, or your own proxy or Tailscale Serve). The link was not used: it still works."

// getPair is GET /agents-notch/pair/CODE: a page that asks before the
// link is used (a link preview or a scanner spends nothing).
func (s *Server) getPair(c echo.Context) error {
	d, err := s.deviceStore()
	if err != nil {
		return err
	}
	code := c.Param("code")
	name, role, err := d.PairingOf(code)
	if err != nil {
		status, title := pairFailure(err)
		return renderStatus(c, status, templates.PairFailedPage(title, err.Error()))
	}
	if !security.KeepsSecureCookie(c.Request()) {
		return renderStatus(c, http.StatusBadRequest, templates.PairFailedPage("This link needs https", notSecure))
	}
	// The page's form must carry its Origin (the Form lock checks it):
	// under no-referrer a browser sends "Origin: null". same-origin still
	// keeps the code in this URL from any other site.
	c.Response().Header().Set("Referrer-Policy", "same-origin")
	return renderStatus(c, http.StatusOK, templates.PairPage(name, role.String(), code))
}

// postPair is the pairing page's button: the code is used, the device is
// paired, its cookie set, and the browser sent to the board.
func (s *Server) postPair(c echo.Context) error {
	d, err := s.deviceStore()
	if err != nil {
		return err
	}
	if !security.KeepsSecureCookie(c.Request()) {
		return renderStatus(c, http.StatusBadRequest, templates.PairFailedPage("This link needs https", notSecure))
	}
	dev, cookie, err := d.Redeem(c.Param("code"))
	if err != nil {
		status, title := pairFailure(err)
		return renderStatus(c, status, templates.PairFailedPage(title, err.Error()))
	}
	s.Log.Info("device paired", "log_type", logx.TypeSecurity, "data", map[string]any{"device": dev.Name, "id": dev.ID})
	c.SetCookie(security.DeviceCookieFor(cookie))
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Redirect(http.StatusSeeOther, prefix+"/")
}

// notPaired is the gate's answer to a page: what to do, in a page (401).
func (s *Server) notPaired(c echo.Context) error {
	return renderStatus(c, http.StatusUnauthorized, templates.NotPairedPage())
}
