package main

import (
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/mesh"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/web/templates"
)

// notifyPath is the channels file (host/push): in the DSH home, mode 0600.
func notifyPath(dshHome string) string {
	return filepath.Join(dshHome, "state", "agents-notch", push.ConfigFile)
}

// checkPublicURL: --public-url is an absolute http(s) origin, optionally
// with the path the board is served under behind a proxy.
func checkPublicURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--public-url %q: want an address like https://laptop.tailnet.ts.net", raw)
	}
	return nil
}

// openPush makes the push engine of a host (none in follow mode): its
// channels from notify.json, which it follows (a file that does not parse
// is reported and keeps the last good channels, never fatal), its links to
// --public-url; its actions only for a device whose role may answer.
func openPush(cfg *config, h *host.Host, node *mesh.Node, base string, wp *push.WebPush, devices *security.Devices, log *slog.Logger) *push.Engine {
	if cfg.follow != "" {
		return nil
	}
	public := strings.TrimRight(cfg.publicURL, "/")
	if public == "" {
		public = base
	}
	o := push.Options{ConfigPath: notifyPath(cfg.dshHome), BoardURL: public + "/agents-notch/", ActURL: public + "/agents-notch/act", Log: log}
	if node != nil {
		o.Machine = node.Name()
	}
	if devices != nil {
		o.MayAnswer = devices.MayAnswer
	}
	if wp != nil { // never a typed nil in the interface
		o.WebPush = wp
	}
	return push.New(h, o)
}

// pushesSource is the engine's channels as the pane lists them; they follow
// notify.json.
type pushesSource struct{ e *push.Engine }

func (p pushesSource) Pushes() *templates.Pushes            { return pushesView(p.e) }
func (p pushesSource) Version() uint64                      { return p.e.Version() }
func (p pushesSource) Subscribe() (<-chan struct{}, func()) { return p.e.Subscribe() }

// pushesView is the pane's list of the push channels.
func pushesView(e *push.Engine) *templates.Pushes {
	if e == nil {
		return nil
	}
	p := &templates.Pushes{Problem: e.Problem()}
	for _, v := range e.Views() {
		p.Channels = append(p.Channels, templates.PushChannel{Name: v.Name, Type: v.Type, Where: v.Where, Send: v.Send, Quiet: v.Quiet, Secret: v.Secret})
	}
	return p
}

// pushTestHTTPEnv lets a Web Push endpoint be http to a loopback host: the
// browser tests' stand-in push service. Never set it otherwise.
const pushTestHTTPEnv = "NOTCH_TEST_PUSH_HTTP"

// openWebPush makes the Web Push channel over the DSH home's files (none
// in follow mode: the followed host pushes its own board). Its key and
// subscriptions are read when first used; its key pair is made here.
// A subscription of a device no longer in devices (revoked) is dropped
// before the next send.
func openWebPush(cfg *config, getenv func(string) string, devices *security.Devices, log *slog.Logger) *push.WebPush {
	if cfg.follow != "" {
		return nil
	}
	o := push.WebPushOptions{
		Dir:          filepath.Join(cfg.dshHome, "state", "agents-notch"),
		Log:          log,
		LoopbackHTTP: getenv(pushTestHTTPEnv) == "1",
	}
	if devices != nil {
		o.Paired = pairedIn(devices)
	}
	wp := push.NewWebPush(o)
	// The key pair is made now, not by the first GET of it: a read
	// changes nothing. A failure here is said once; a subscription tries
	// again.
	if _, err := wp.PublicKey(); err != nil {
		log.Warn("web push has no key yet", "log_type", logx.TypePush, logx.Err("VAPIDError", err))
	}
	return wp
}

// pairedIn reports whether a device is still paired in devices: Web Push
// sends only to those (the host and notify test alike).
func pairedIn(devices *security.Devices) func(string) bool {
	return func(id string) bool {
		return slices.ContainsFunc(devices.List(), func(d security.Device) bool { return d.ID == id })
	}
}
